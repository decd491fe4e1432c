// Tests of the netreduce protocol's RoCEv2 frames (sc_model/protocols/netreduce/roce_frame):
// every opcode the hosts use built and read back; the BTH fields and the ICRC as scapy (which
// computes the ICRC itself) reads them; the BTH, RETH, immediate data and AETH as tshark's
// InfiniBand dissector decodes them; and every reason a receiver refuses a frame.
#include "protocols/netreduce/roce_frame.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "common/errors.h"
#include "common/output_files.h"
#include "support/cli_runner.h"
#include "net/icrc.h"
#include "net/trace_writer.h"

namespace fs {
namespace {

std::string temp_path(const std::string& leaf) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return ::testing::TempDir() + "fs_" + info->test_suite_name() + "_" + info->name() + "_" + leaf;
}

Bytes bytes_from(unsigned first, size_t n) {
  Bytes b(n);
  for (size_t i = 0; i < n; ++i) b[i] = uint8_t(first + 7 * i);
  return b;
}

RocePacket packet(uint8_t opcode, uint32_t qp, uint32_t psn, size_t payload) {
  RocePacket p;
  p.bth.opcode = opcode;
  p.bth.pkey = ROCE_DEFAULT_PKEY;
  p.bth.dest_qp = qp;
  p.bth.psn = psn;
  p.bth.ack_request = opcode == ROCE_RC_WRITE_LAST_IMM;
  p.payload = bytes_from(opcode, payload);
  return p;
}

// A message's packets and the acknowledgements: first (RETH, the INA header in front of the
// data), middle (payload 1025 bytes: 3 pad bytes), last with immediate data, a one-packet
// message, an ACK and a NAK.
std::vector<RocePacket> samples() {
  std::vector<RocePacket> v;
  RocePacket first = packet(ROCE_RC_WRITE_FIRST, 0x12345, 0xFFFFFE, 1024);
  first.reth = {0x0000'7F00'1234'5000ull, 0xCAFEF00Du, 3 * 1024};
  const netreduce_ina_t ina{NETREDUCE_INET_TAG, 2, 17, 3, 5};
  netreduce_ina_encode(&ina, first.payload.data());
  v.push_back(first);
  v.push_back(packet(ROCE_RC_WRITE_MIDDLE, 0x12345, 0xFFFFFF, 1025));
  RocePacket last = packet(ROCE_RC_WRITE_LAST_IMM, 0x12345, 0, 1000);
  last.imm = 17;
  v.push_back(last);
  RocePacket only = packet(ROCE_RC_WRITE_ONLY_IMM, 0xABCDEF, 42, 8);
  only.reth = {0x1000, 7, 8};
  only.imm = 0xFEEDBEEF;
  v.push_back(only);
  RocePacket ack = packet(ROCE_RC_ACK, 0x777, 0, 0);
  ack.aeth = {ROCE_AETH_ACK, 9};
  v.push_back(ack);
  RocePacket nak = packet(ROCE_RC_ACK, 0x777, 1234, 0);
  nak.aeth = {ROCE_AETH_NAK_SEQUENCE, 10};
  v.push_back(nak);
  return v;
}

Bytes frame_of(const RocePacket& p, unsigned i) { return build_roce_frame(p, i, fs_host_ipv4(i + 1), uint16_t(0xC000 + i)); }

TEST(RoceFrame, EveryOpcodeReadsBackAsBuilt) {
  const auto all = samples();
  for (unsigned i = 0; i < all.size(); ++i) {
    SCOPED_TRACE("packet " + std::to_string(i));
    const Bytes f = frame_of(all[i], i);
    // Ethernet 14, IPv4 20, UDP 8, BTH 12, extension headers, payload and pad, ICRC 4.
    const size_t pad = (4 - all[i].payload.size() % 4) % 4;
    EXPECT_EQ(f.size(), 54 + roce_extension_bytes(all[i].bth.opcode) + all[i].payload.size() + pad + 4);
    RocePacket back;
    std::string why;
    ASSERT_TRUE(parse_roce_frame(f.data(), f.size(), &back, &why)) << why;
    EXPECT_EQ(back.bth.opcode, all[i].bth.opcode);
    EXPECT_EQ(back.bth.dest_qp, all[i].bth.dest_qp);
    EXPECT_EQ(back.bth.psn, all[i].bth.psn);
    EXPECT_EQ(back.bth.ack_request, all[i].bth.ack_request);
    EXPECT_EQ(back.bth.pad_count, pad);
    EXPECT_EQ(back.payload, all[i].payload);
    if (roce_has_reth(back.bth.opcode)) {
      EXPECT_EQ(back.reth.virtual_address, all[i].reth.virtual_address);
      EXPECT_EQ(back.reth.remote_key, all[i].reth.remote_key);
      EXPECT_EQ(back.reth.dma_length, all[i].reth.dma_length);
    }
    if (roce_has_imm(back.bth.opcode)) {
      EXPECT_EQ(back.imm, all[i].imm);
    }
    if (roce_has_aeth(back.bth.opcode)) {
      EXPECT_EQ(back.aeth.syndrome, all[i].aeth.syndrome);
      EXPECT_EQ(back.aeth.msn, all[i].aeth.msn);
    }
  }
  netreduce_ina_t ina;
  netreduce_ina_decode(samples()[0].payload.data(), &ina);
  EXPECT_EQ(ina.inet_tag, NETREDUCE_INET_TAG);
  EXPECT_EQ(ina.ring_id, 2);
  EXPECT_EQ(ina.msg_id, 17);
  EXPECT_EQ(ina.msg_len, 3);
  EXPECT_EQ(ina.rank, 5);
  // PSNs wrap at 2^24: 0 is 2 past 0xFFFFFE.
  EXPECT_EQ(roce_psn_diff(0, 0xFFFFFE), 2);
  EXPECT_EQ(roce_psn_diff(0xFFFFFE, 0), -2);
}

TEST(RoceFrame, ScapyReadsTheFieldsAndComputesTheSameIcrc) {
  const std::string in = temp_path("frames.txt");
  {
    std::ofstream f(in);
    for (unsigned i = 0; i < samples().size(); ++i) {
      const Bytes b = frame_of(samples()[i], i);
      f << to_hex(b.data(), b.size()) << "\n";
    }
    Bytes bad = frame_of(samples()[1], 1);
    bad[100] ^= 1;  // a payload bit flipped after the ICRC was computed
    f << to_hex(bad.data(), bad.size()) << "\n";
  }
  EXPECT_EQ(test::command_output("/usr/bin/python3 " FLARESIM_SOURCE_DIR "/tb/net/roce_check.py < '" + in + "'"),
            "6 74565 0 0 16777214 icrc ok\n"
            "7 74565 0 3 16777215 icrc ok\n"
            "9 74565 1 0 0 icrc ok\n"
            "11 11259375 0 0 42 icrc ok\n"
            "17 1911 0 0 0 icrc ok\n"
            "17 1911 0 0 1234 icrc ok\n"
            "7 74565 0 3 16777215 icrc bad\n");
  std::remove(in.c_str());
}

TEST(RoceFrame, TsharkDecodesTheInfinibandHeaders) {
  const std::string path = temp_path("roce.pcapng");
  std::vector<TraceRecord> recs;
  for (unsigned i = 0; i < samples().size(); ++i) {
    TraceRecord r;
    r.time = Picos(i) * 1000;
    r.port = 0;
    r.data = frame_of(samples()[i], i);
    recs.push_back(r);
  }
  {
    OutputFiles f;
    write_pcapng(f.add("--egress", path), 1, recs);
    f.commit();
  }
  const std::string out = test::command_output("tshark -r '" + path +
                              "' -T fields -E separator=' ' -E occurrence=f -e infiniband.bth.opcode "
                              "-e infiniband.bth.destqp -e infiniband.bth.psn -e infiniband.bth.a -e infiniband.reth.va "
                              "-e infiniband.reth.r_key -e infiniband.reth.dmalen -e infiniband.immdt "
                              "-e infiniband.aeth.syndrome -e infiniband.aeth.msn -e infiniband.invariant.crc 2>/dev/null");
  // tshark prints the immediate data as its bytes and reads the ICRC's 4 bytes big-endian.
  std::ostringstream want;
  const auto all = samples();
  for (unsigned i = 0; i < all.size(); ++i) {
    const RocePacket& p = all[i];
    const Bytes f = frame_of(p, i);
    const uint8_t op = p.bth.opcode;
    char line[300], reth[80] = "  ", imm[12] = "", aeth[20] = " ";
    if (roce_has_reth(op))
      std::snprintf(reth, sizeof reth, "0x%016llx 0x%08x %u", (unsigned long long)p.reth.virtual_address,
                    p.reth.remote_key, p.reth.dma_length);
    if (roce_has_imm(op)) std::snprintf(imm, sizeof imm, "%08x", p.imm);
    if (roce_has_aeth(op)) std::snprintf(aeth, sizeof aeth, "%u %u", p.aeth.syndrome, p.aeth.msn);
    std::snprintf(line, sizeof line, "%u 0x%06x %u %u %s %s %s 0x%08x\n", op, p.bth.dest_qp, p.bth.psn,
                  p.bth.ack_request, reth, imm, aeth, __builtin_bswap32(carried_icrc(f.data(), f.size())));
    want << line;
  }
  EXPECT_EQ(out, want.str());
  std::remove(path.c_str());
}

TEST(RoceFrame, WhatAReceiverRefuses) {
  auto why_not = [](Bytes f, bool fix_icrc = true) {
    if (fix_icrc) {
      const uint32_t icrc = roce_icrc(f.data(), f.size());
      for (unsigned b = 0; b < 4; ++b) f[f.size() - 4 + b] = uint8_t(icrc >> (8 * b));
    }
    RocePacket p;
    std::string why;
    EXPECT_FALSE(parse_roce_frame(f.data(), f.size(), &p, &why));
    return why;
  };
  Bytes f = frame_of(samples()[0], 0);
  f[100] ^= 0x80;
  EXPECT_EQ(why_not(f, false), "wrong ICRC");
  f = frame_of(samples()[1], 1);
  f[ROCE_BTH_OFFSET] = 0x04;  // RC SEND ONLY
  EXPECT_EQ(why_not(f), "RoCEv2 opcode 4, not one NetReduce uses");
  // A first packet (16-byte RETH) with 8 bytes after its BTH.
  RocePacket short_first = packet(ROCE_RC_WRITE_MIDDLE, 1, 1, 8);
  f = frame_of(short_first, 0);
  f[ROCE_BTH_OFFSET] = ROCE_RC_WRITE_FIRST;
  EXPECT_EQ(why_not(f), "opcode 6 needs 16 bytes of extension headers; the packet has 8 after the BTH");
  RocePacket empty = packet(ROCE_RC_WRITE_MIDDLE, 1, 1, 0);
  f = frame_of(empty, 0);
  f[ROCE_BTH_OFFSET + 1] |= 0x30;  // pad count 3
  EXPECT_EQ(why_not(f), "pad count 3 exceeds the 0-byte payload");
  f = frame_of(samples()[1], 1);
  f[37] ^= 1;  // the UDP destination port's low byte: 4791 -> 4790
  const std::string port = why_not(f, false);
  EXPECT_NE(port.find("4791"), std::string::npos) << port;
  EXPECT_THROW(build_roce_frame(packet(0x04, 1, 1, 4), 0, 1, 1), InputError);
}

}  // namespace
}  // namespace fs
