// Tests of sc_model/net/frame: hand-computed frames and checksums, every malformed-frame reason,
// Flare packet addressing.
#include "net/frame.h"
#include "protocols/flare_dense/flare_frame.h"

#include <gtest/gtest.h>

#include "common/errors.h"

namespace fs {
namespace {

// A textbook IPv4 header (192.168.0.1 -> 192.168.0.199, UDP, total length 0x73) whose checksum
// is known to be 0xb861.
const uint8_t kKnownHeader[20] = {0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
                                  0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};

TEST(Frame, KnownIpv4HeaderChecksum) {
  uint8_t h[20];
  std::copy(kKnownHeader, kKnownHeader + 20, h);
  h[10] = h[11] = 0;
  EXPECT_EQ(fs_ipv4_checksum(h, 20), 0xb861);
  EXPECT_EQ(fs_ipv4_checksum(kKnownHeader, 20), 0);  // a correct header sums to 0xffff
}

// The frame build_udp_frame must produce, worked out by hand: header words 4500 0020 0000 0000
// 4011 0000 0a01 0001 0a00 0001 sum to 0x9934, so the checksum is ~0x9934 = 0x66cb.
const Bytes kHandFrame = {
    0x02, 0x00, 0x00, 0xff, 0xff, 0xff,  // dst MAC: switch
    0x02, 0x00, 0x00, 0x00, 0x00, 0x01,  // src MAC: host on port 1
    0x08, 0x00,                          // IPv4
    0x45, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x40, 0x11, 0x66, 0xcb,  // IPv4 header
    0x0a, 0x01, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x01,                          // 10.1.0.1 -> 10.0.0.1
    0x13, 0x56, 0x13, 0x56, 0x00, 0x0c, 0x00, 0x00,  // UDP 4950 -> 4950, length 12, checksum 0
    'a', 'b', 'c', 'd'};

TEST(Frame, BuildUdpFrameMatchesHandComputedBytes) {
  uint8_t src[6], dst[6];
  fs_host_mac(1, src);
  fs_switch_mac(dst);
  const uint8_t payload[4] = {'a', 'b', 'c', 'd'};
  EXPECT_EQ(build_udp_frame(src, dst, 0x0a010001, 0x0a000001, 4950, 4950, payload, 4), kHandFrame);
}

TEST(Frame, ParsesHandFrame) {
  const FrameInfo f = parse_frame(kHandFrame.data(), kHandFrame.size());
  ASSERT_TRUE(f.ok) << f.error;
  EXPECT_EQ(f.error, "");
  EXPECT_EQ(f.ethertype, 0x0800);
  EXPECT_TRUE(f.ipv4);
  EXPECT_EQ(f.ip_proto, 17);
  EXPECT_EQ(f.src_ip, 0x0a010001u);
  EXPECT_EQ(f.dst_ip, 0x0a000001u);
  EXPECT_TRUE(f.udp);
  EXPECT_EQ(f.udp_sport, 4950);
  EXPECT_EQ(f.udp_dport, 4950);
  EXPECT_EQ(f.l4_offset, 42u);
  EXPECT_EQ(f.l4_len, 4u);
}

TEST(Frame, EthernetPaddingIsNotPayload) {
  Bytes f = kHandFrame;
  f.resize(60, 0);  // padded to the Ethernet minimum
  const FrameInfo i = parse_frame(f.data(), f.size());
  ASSERT_TRUE(i.ok) << i.error;
  EXPECT_EQ(i.l4_len, 4u);
}

TEST(Frame, NonIpv4IsOk) {
  Bytes f(kHandFrame.begin(), kHandFrame.begin() + 14);
  f[12] = 0x08;
  f[13] = 0x06;  // ARP ethertype, no payload at all (IPv6 is walked: net/headers_test.cpp)
  const FrameInfo i = parse_frame(f.data(), f.size());
  EXPECT_TRUE(i.ok);
  EXPECT_FALSE(i.ipv4);
  EXPECT_FALSE(i.udp);
  EXPECT_EQ(i.ethertype, 0x0806);
}

TEST(Frame, NonUdpIpv4IsOkWithoutUdp) {
  Bytes f = kHandFrame;
  f[14 + 9] = 1;  // ICMP (TCP headers are walked: net/headers_test.cpp)
  f[24] = f[25] = 0;
  const uint16_t c = fs_ipv4_checksum(&f[14], 20);
  f[24] = uint8_t(c >> 8);
  f[25] = uint8_t(c);
  const FrameInfo i = parse_frame(f.data(), f.size());
  EXPECT_TRUE(i.ok) << i.error;
  EXPECT_TRUE(i.ipv4);
  EXPECT_EQ(i.ip_proto, 1);
  EXPECT_FALSE(i.udp);
  EXPECT_EQ(i.l4_offset, 0u);
}

// Rewrites the IPv4 checksum after a header edit.
void fix_checksum(Bytes& f, size_t hdr = 20) {
  f[24] = f[25] = 0;
  const uint16_t c = fs_ipv4_checksum(&f[14], hdr);
  f[24] = uint8_t(c >> 8);
  f[25] = uint8_t(c);
}

TEST(Frame, FragmentsAreOkWithoutUdp) {
  Bytes f = kHandFrame;
  f[20] = 0x20;  // more fragments
  fix_checksum(f);
  const FrameInfo i = parse_frame(f.data(), f.size());
  EXPECT_TRUE(i.ok) << i.error;
  EXPECT_FALSE(i.udp);
}

TEST(Frame, IpOptionsMoveTheUdpHeader) {
  Bytes f = kHandFrame;
  f.insert(f.begin() + 34, {1, 1, 1, 0});  // four bytes of options (NOP NOP NOP EOL)
  f[14] = 0x46;
  f[17] = 0x24;  // total length 36
  fix_checksum(f, 24);
  const FrameInfo i = parse_frame(f.data(), f.size());
  ASSERT_TRUE(i.ok) << i.error;
  EXPECT_EQ(i.l4_offset, 46u);
  EXPECT_EQ(i.l4_len, 4u);
}

struct Malformed {
  const char* name;
  Bytes frame;
  const char* reason;
};

TEST(Frame, EveryMalformedCaseHasItsReason) {
  std::vector<Malformed> cases;
  cases.push_back({"short", Bytes(kHandFrame.begin(), kHandFrame.begin() + 13),
                   "frame of 13 bytes is shorter than the 14-byte Ethernet header"});
  cases.push_back({"ip truncated", Bytes(kHandFrame.begin(), kHandFrame.begin() + 30),
                   "truncated IPv4 header: 16 bytes"});
  Bytes v6 = kHandFrame;
  v6[14] = 0x65;
  cases.push_back({"version", v6, "IPv4 version 6 != 4"});
  Bytes ihl = kHandFrame;
  ihl[14] = 0x44;
  cases.push_back({"ihl", ihl, "IPv4 IHL 4 < 5"});
  Bytes ihl_long = Bytes(kHandFrame.begin(), kHandFrame.begin() + 40);
  ihl_long[14] = 0x4f;  // 60-byte header, 26 bytes present
  cases.push_back({"ihl past end", ihl_long,
                   "truncated IPv4 header: IHL needs 60 bytes, 26 present"});
  Bytes tl_small = kHandFrame;
  tl_small[17] = 19;
  fix_checksum(tl_small);
  cases.push_back({"total small", tl_small, "IPv4 total length 19 < header length 20"});
  Bytes tl_big = kHandFrame;
  tl_big[17] = 33;
  fix_checksum(tl_big);
  cases.push_back({"total big", tl_big, "IPv4 total length 33 > 32 bytes present"});
  Bytes cks = kHandFrame;
  cks[25] ^= 1;
  cases.push_back({"checksum", cks, "bad IPv4 header checksum"});
  Bytes udp_short = kHandFrame;
  udp_short[17] = 26;  // 6 bytes of IP payload
  fix_checksum(udp_short);
  cases.push_back({"udp truncated", udp_short, "truncated UDP header: 6 bytes"});
  Bytes udp_len_small = kHandFrame;
  udp_len_small[39] = 7;
  cases.push_back({"udp len small", udp_len_small, "UDP length 7 < 8"});
  Bytes udp_len_big = kHandFrame;
  udp_len_big[39] = 13;
  cases.push_back({"udp len big", udp_len_big, "UDP length 13 > IP payload 12"});
  for (const Malformed& c : cases) {
    const FrameInfo i = parse_frame(c.frame.data(), c.frame.size());
    EXPECT_FALSE(i.ok) << c.name;
    EXPECT_EQ(i.error, c.reason) << c.name;
  }
  EXPECT_FALSE(parse_frame(nullptr, 0).ok);
}

TEST(Frame, ParseNeverReadsPastTheEnd) {
  // Every prefix of a valid frame parses without touching bytes beyond it (ASan would catch it).
  for (size_t n = 0; n <= kHandFrame.size(); ++n) {
    Bytes prefix(kHandFrame.begin(), kHandFrame.begin() + n);
    const FrameInfo i = parse_frame(prefix.data(), prefix.size());
    EXPECT_EQ(i.ok, n == kHandFrame.size()) << n;
  }
}

TEST(Frame, FlareContributionAddressing) {
  flare_header_t h{};
  h.version = 1;
  h.kind = FLARE_KIND_CONTRIB;
  h.dtype = FLARE_INT16;
  h.op = FLARE_OP_MAX;
  h.allreduce_id = 0x01020304;
  h.block_id = 0x0a0b0c0d;
  h.sender_rank = 0x0102;
  h.elem_count = 2;
  const uint8_t elems[4] = {1, 0, 0xff, 0xff};
  const Bytes f = build_flare_packet(h, 0x0102, elems, 4, 7000);
  const uint8_t payload[20] = {1, 0, 1, 2, 1, 2, 3, 4, 0x0a, 0x0b, 0x0c, 0x0d, 1, 2, 0, 2,
                               1, 0, 0xff, 0xff};
  uint8_t src[6], dst[6];
  fs_host_mac(0x0102, src);
  fs_switch_mac(dst);
  EXPECT_EQ(f, build_udp_frame(src, dst, 0x0a010102, 0x0a000001, 7000, 7000, payload, 20));
  EXPECT_EQ(f[11], 0x02);
  EXPECT_EQ(f[10], 0x01);
}

TEST(Frame, FlareResultAddressing) {
  flare_header_t h{};
  h.version = 1;
  h.kind = FLARE_KIND_RESULT;
  h.sender_rank = FLARE_RANK_SWITCH;
  h.elem_count = 1;
  const uint8_t elems[4] = {9, 0, 0, 0};
  const Bytes f = build_flare_packet(h, 3, elems, 4);
  const FrameInfo i = parse_frame(f.data(), f.size());
  ASSERT_TRUE(i.ok);
  EXPECT_EQ(i.src_ip, FS_SWITCH_IPV4);
  EXPECT_EQ(i.dst_ip, FS_HOSTS_BROADCAST_IPV4);
  EXPECT_EQ(Bytes(f.begin(), f.begin() + 6), Bytes(6, 0xff));
  EXPECT_EQ(i.udp_dport, FLARE_UDP_PORT_DEFAULT);
  EXPECT_EQ(i.l4_len, 20u);
}

TEST(Frame, TooLargeFramesThrow) {
  uint8_t mac[6] = {};
  Bytes big(kMaxUdpPayload + 1);
  EXPECT_NO_THROW(build_udp_frame(mac, mac, 1, 2, 3, 4, big.data(), kMaxUdpPayload));
  EXPECT_THROW(build_udp_frame(mac, mac, 1, 2, 3, 4, big.data(), big.size()), InputError);
  flare_header_t h{};
  EXPECT_THROW(build_flare_packet(h, 0, big.data(), kMaxUdpPayload - 15), InputError);
}

TEST(Frame, DtypeAndOpNames) {
  uint8_t v = 99;
  EXPECT_TRUE(flare_dtype_from_name("float32", &v));
  EXPECT_EQ(v, FLARE_FLOAT32);
  EXPECT_TRUE(flare_dtype_from_name("int8", &v));
  EXPECT_EQ(v, FLARE_INT8);
  EXPECT_FALSE(flare_dtype_from_name("int64", &v));
  EXPECT_TRUE(flare_op_from_name("min", &v));
  EXPECT_EQ(v, FLARE_OP_MIN);
  EXPECT_FALSE(flare_op_from_name("prod", &v));
  EXPECT_STREQ(flare_dtype_name(FLARE_INT16), "int16");
  EXPECT_STREQ(flare_op_name(FLARE_OP_MAX), "max");
  EXPECT_STREQ(flare_dtype_name(7), "?");
}

}  // namespace
}  // namespace fs
