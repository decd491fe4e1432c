// Tests of the parser/matcher (sc_model/switch/parser): parse_match_rules accepts and rejects
// (exact messages), and a Parser module with a recording sink on each output: which frames go to
// the PsPIN unit (with handler set, block id and payload offset; VLAN-tagged and IPv6 frames too),
// which to the router, which are dropped as "malformed", and the parser's fixed latency.
#include "switch/parser.h"

#include <gtest/gtest.h>

#include "blocks/sc_testbench.h"
#include "common/errors.h"
#include "pspin/handler_sets.h"
#include "support/roce_frame.h"

namespace fs_tb {
namespace {

using fs::Bytes;
using fs::MatchRule;
using fs::parse_match_rules;

std::string rule_error(const std::string& text) {
  try {
    parse_match_rules(text);
  } catch (const fs::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string prefix(const std::string& rule) { return "bad value '" + rule + "' for 'parser.rules': "; }

TEST(BlocksParser, RulesAcceptSingleRule) {
  const std::vector<MatchRule> r = parse_match_rules("udp_dport=4950 -> flare_dense");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_FALSE(r[0].ethertype.has_value());
  EXPECT_FALSE(r[0].ip_proto.has_value());
  ASSERT_TRUE(r[0].udp_dport.has_value());
  EXPECT_EQ(*r[0].udp_dport, 4950);
  EXPECT_EQ(r[0].handler_set, fs::find_handler_set("flare_dense"));
  EXPECT_GE(r[0].handler_set, 0);
  EXPECT_EQ(r[0].text, "udp_dport=4950 -> flare_dense");
}

TEST(BlocksParser, RulesAcceptSeveralConditionsRulesAndBlanks) {
  // Whitespace around conditions and arrows is ignored, empty rules between ';' are skipped,
  // hex numbers are accepted and the largest values of each field fit.
  const std::vector<MatchRule> r = parse_match_rules(
      "  ethertype=0x0800, ip_proto=17 ,udp_dport=5000->flare_dense ; ; ip_proto=255,udp_dport=65535 -> flare_dense;");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(*r[0].ethertype, 0x0800);
  EXPECT_EQ(*r[0].ip_proto, 17);
  EXPECT_EQ(*r[0].udp_dport, 5000);
  EXPECT_EQ(r[0].text, "ethertype=0x0800, ip_proto=17 ,udp_dport=5000->flare_dense");
  EXPECT_FALSE(r[1].ethertype.has_value());
  EXPECT_EQ(*r[1].ip_proto, 255);
  EXPECT_EQ(*r[1].udp_dport, 65535);
  EXPECT_TRUE(parse_match_rules("").empty());
  EXPECT_TRUE(parse_match_rules(" ; ").empty());
}

TEST(BlocksParser, RulesRejectWithExactMessages) {
  EXPECT_EQ(rule_error("foo=1 -> flare_dense"),
            prefix("foo=1 -> flare_dense") + "unknown field 'foo' (valid: ethertype, ip_proto, udp_dport)");
  // The valid names are the registry's, in registry order (other handler sets may be added).
  std::string names;
  for (const auto& hs : fs::handler_sets()) names += (names.empty() ? "" : ", ") + hs.name;
  EXPECT_NE(names.find("flare_dense"), std::string::npos);
  EXPECT_EQ(rule_error("udp_dport=4950 -> no_such_set"),
            prefix("udp_dport=4950 -> no_such_set") + "unknown handler set 'no_such_set' (valid: " + names + ")");
  EXPECT_EQ(rule_error("udp_dport=4950 flare_dense"),
            prefix("udp_dport=4950 flare_dense") + "expected 'field=value[,field=value] -> handler_set'");
  EXPECT_EQ(rule_error("udp_dport=65536 -> flare_dense"),
            prefix("udp_dport=65536 -> flare_dense") + "udp_dport needs a number from 0 to 65535, not '65536'");
  EXPECT_EQ(rule_error("ip_proto=256 -> flare_dense"),
            prefix("ip_proto=256 -> flare_dense") + "ip_proto needs a number from 0 to 255, not '256'");
  EXPECT_EQ(rule_error("ethertype=0x10000 -> flare_dense"),
            prefix("ethertype=0x10000 -> flare_dense") + "ethertype needs a number from 0 to 65535, not '0x10000'");
  EXPECT_EQ(rule_error("udp_dport=-1 -> flare_dense"),
            prefix("udp_dport=-1 -> flare_dense") + "udp_dport needs a number from 0 to 65535, not '-1'");
  EXPECT_EQ(rule_error("udp_dport= -> flare_dense"),
            prefix("udp_dport= -> flare_dense") + "udp_dport needs a number from 0 to 65535, not ''");
  EXPECT_EQ(rule_error("udp_dport -> flare_dense"),
            prefix("udp_dport -> flare_dense") + "condition 'udp_dport' is not field=value");
  EXPECT_EQ(rule_error("-> flare_dense"), prefix("-> flare_dense") + "a rule needs at least one condition");
  // Numbers are decimal, or hexadecimal with 0x; a leading zero does not switch to octal.
  EXPECT_EQ(parse_match_rules("udp_dport=04950 -> flare_dense").at(0).udp_dport, 4950);
  EXPECT_EQ(parse_match_rules("ethertype=0x88B5 -> flare_dense").at(0).ethertype, 0x88B5);
  EXPECT_EQ(rule_error("udp_dport=49x0 -> flare_dense"),
            prefix("udp_dport=49x0 -> flare_dense") + "udp_dport needs a number from 0 to 65535, not '49x0'");
  // The first good rule does not hide a bad second one; the message names the bad one.
  EXPECT_EQ(rule_error("udp_dport=1 -> flare_dense; bogus"),
            prefix("bogus") + "expected 'field=value[,field=value] -> handler_set'");
}

// Frames used by the module tests.
Bytes udp_frame(uint16_t dport, size_t payload_len, uint8_t fill = 0) {
  uint8_t src[6], dst[6];
  fs_host_mac(3, src);
  fs_switch_mac(dst);
  const Bytes payload(payload_len, fill);
  return fs::build_udp_frame(src, dst, fs_host_ipv4(3), FS_SWITCH_IPV4, 1234, dport, payload.data(), payload_len);
}

Bytes arp_like_frame() {
  Bytes f(60, 0);
  for (int i = 0; i < 6; ++i) f[i] = 0xFF;
  f[12] = 0x08;  // EtherType 0x0806 (ARP): not IPv4
  f[13] = 0x06;
  return f;
}

fs::ParserConfig config(const std::string& rules, unsigned latency) {
  fs::ParserConfig c;
  c.rules = rules;
  c.latency_cycles = latency;
  return c;
}

struct ParserBench {
  fs::DropLedger drops;
  Script script{"script"};
  RecordingSink pspin{"pspin"}, router{"router"};
  fs::Parser parser;
  // latency in cycles of the 1 GHz clock.
  ParserBench(const std::string& rules, unsigned latency, std::unique_ptr<fs::IcrcCore> icrc = nullptr)
      : parser("parser", config(rules, latency), fs::Clock::from_ghz(1.0), drops, std::move(icrc)) {
    parser.to_pspin.bind(pspin);
    parser.to_router.bind(router);
  }
  void send(Picos t, Bytes data) {
    script.at(t, [this, t, d = std::move(data)]() { parser.accept(make_packet(d, t)); });
  }
};

TEST(BlocksParser, ClassifiesFramesAndAppliesLatency) {
  quiet_systemc();
  // Parser latency 2 cycles at 1 GHz = 2000 ps: a frame accepted at t leaves at t + 2000 exactly.
  ParserBench b("udp_dport=4950 -> flare_dense", 2);
  const Bytes flare = flare_frame(0x01020304, 1, 2, FLARE_INT32, FLARE_OP_SUM, elems_of<int32_t>({5, 6}));
  Bytes bad_csum = udp_frame(80, 20);
  bad_csum[FS_ETH_BYTES + 10] ^= 0x01;           // IPv4 header checksum byte
  Bytes truncated(FS_ETH_BYTES + 10, 0);          // IPv4 EtherType, 10 of the 20 header bytes
  truncated[12] = 0x08;
  // The block id is a big-endian u32 at offset 8 of the UDP payload (FLARE_OFF_BLOCK): a
  // payload of 11 bytes cannot carry it (malformed), one of 12 bytes just can.
  Bytes block_boundary = udp_frame(4950, 12);
  const size_t bid = FLARE_PAYLOAD_OFFSET + FLARE_OFF_BLOCK;
  block_boundary[bid] = 0xDE, block_boundary[bid + 1] = 0xAD, block_boundary[bid + 2] = 0xBE, block_boundary[bid + 3] = 0xEF;

  b.send(5000, flare);
  b.send(6000, udp_frame(80, 20));
  b.send(6500, arp_like_frame());
  b.send(7000, truncated);
  b.send(7100, bad_csum);
  b.send(8000, udp_frame(4950, 11));
  b.send(9000, block_boundary);
  sc_core::sc_start();

  ASSERT_EQ(b.pspin.got.size(), 2u);
  EXPECT_EQ(b.pspin.got[0].time, 5000u + 2000u);
  EXPECT_EQ(b.pspin.got[0].pkt->data, flare);
  EXPECT_EQ(b.pspin.got[0].pkt->handler_set, fs::find_handler_set("flare_dense"));
  EXPECT_EQ(b.pspin.got[0].pkt->block_id, 0x01020304u);
  EXPECT_EQ(b.pspin.got[0].pkt->payload_offset, 42u);  // 14 Ethernet + 20 IPv4 + 8 UDP
  EXPECT_EQ(b.pspin.got[1].time, 9000u + 2000u);
  EXPECT_EQ(b.pspin.got[1].pkt->block_id, 0xDEADBEEFu);

  ASSERT_EQ(b.router.got.size(), 2u);
  EXPECT_EQ(b.router.got[0].time, 6000u + 2000u);
  EXPECT_EQ(b.router.got[0].pkt->handler_set, -1);
  EXPECT_EQ(b.router.got[0].pkt->data.size(), 42u + 20u);
  EXPECT_EQ(b.router.got[1].time, 6500u + 2000u);
  EXPECT_EQ(b.router.got[1].pkt->data, arp_like_frame());

  // truncated, bad checksum, too short for the block id
  EXPECT_EQ(b.drops.by_cause.size(), 1u);
  EXPECT_EQ(b.drops.by_cause["malformed"], 3u);
  EXPECT_EQ(b.parser.matched, 2u);
  EXPECT_EQ(b.parser.routed, 2u);
}

TEST(BlocksParser, RoceFramesWaitForTheOneCrcEngine) {
  quiet_systemc();
  // Latency 2000 ps, an engine of 8 bytes a cycle at 1 GHz. A RoCEv2 frame of payload p is
  // 58 + p bytes; the engine takes the 8 prefix bytes and the frame from the IPv4 header to the
  // ICRC: 48 + p bytes, ceil((48 + p) / 8) cycles. A (p = 100): 19 cycles; B and D (p = 4): 7.
  // A, B and a plain UDP frame C come in at 5000, D (wrong ICRC) at 6000; all are parsed 2000
  // later. C passes at 7000; A has the engine 7000..26000, B 26000..33000, D 33000..40000 and is
  // dropped. They leave for the router when their check ends.
  ParserBench b("udp_dport=4950 -> flare_dense", 2, std::make_unique<fs::IcrcEngineModel>(8));
  const Bytes a = fs::test::roce_frame(100, 1, false), bb = fs::test::roce_frame(4, 2, false);
  b.send(5000, a);
  b.send(5000, bb);
  b.send(5000, udp_frame(80, 20));
  b.send(6000, fs::test::roce_frame(4, 3, true));
  sc_core::sc_start();
  ASSERT_EQ(b.router.got.size(), 3u);
  EXPECT_EQ(b.router.got[0].time, 7000u);
  EXPECT_EQ(b.router.got[0].pkt->data.size(), 62u);
  EXPECT_EQ(b.router.got[1].time, 26000u);
  EXPECT_EQ(b.router.got[1].pkt->data, a);
  EXPECT_EQ(b.router.got[2].time, 33000u);
  EXPECT_EQ(b.router.got[2].pkt->data, bb);
  EXPECT_EQ(b.drops.by_cause["icrc"], 1u);
  EXPECT_EQ(b.parser.icrc_checked, 3u);
  EXPECT_EQ(b.parser.icrc_engine_cycles, 33u);
  EXPECT_EQ(b.parser.icrc_wait_ps, Picos(19000 + 26000 + 32000));
}

TEST(BlocksParser, AllConditionsOfARuleMustHoldAndOrderIsKept) {
  quiet_systemc();
  // Rule: UDP (17) to port 5000. Latency 0: frames are classified the moment they arrive.
  ParserBench b("ip_proto=17,udp_dport=5000 -> flare_dense", 0);
  Bytes to5000 = udp_frame(5000, 16);
  to5000[FLARE_PAYLOAD_OFFSET + FLARE_OFF_BLOCK + 3] = 9;  // block id 9
  // The same frame relabelled SCTP (132), checksum recomputed: a protocol whose header the
  // parser does not walk (a TCP header is checked, and these bytes are no valid one).
  Bytes proto6 = udp_frame(5000, 16);
  uint8_t* ip = proto6.data() + FS_ETH_BYTES;
  ip[9] = 132;
  ip[10] = ip[11] = 0;
  fs_put_be16(ip + 10, fs_ipv4_checksum(ip, FS_IPV4_BYTES));
  // Three frames at the same time come out in the order they went in.
  b.send(1000, udp_frame(4950, 16, 1));
  b.send(1000, to5000);
  b.send(1000, proto6);
  b.send(1000, udp_frame(4950, 16, 2));
  sc_core::sc_start();

  ASSERT_EQ(b.pspin.got.size(), 1u);
  EXPECT_EQ(b.pspin.got[0].time, 1000u);
  EXPECT_EQ(b.pspin.got[0].pkt->block_id, 9u);
  ASSERT_EQ(b.router.got.size(), 3u);
  EXPECT_EQ(b.router.got[0].pkt->data, udp_frame(4950, 16, 1));
  EXPECT_EQ(b.router.got[1].pkt->data, proto6);
  EXPECT_EQ(b.router.got[2].pkt->data, udp_frame(4950, 16, 2));
  for (const Arrival& a : b.router.got) EXPECT_EQ(a.time, 1000u);
  EXPECT_EQ(b.drops.total(), 0u);
}

// `f` with 802.1Q tags (VLAN 5, 6, ...) between the MAC addresses and the EtherType.
Bytes tagged(Bytes f, int tags) {
  for (int t = tags - 1; t >= 0; --t) f.insert(f.begin() + 12, {0x81, 0x00, 0x00, uint8_t(5 + t)});
  return f;
}

// The UDP datagram of an IPv4 frame from udp_frame() carried by IPv6 (no extension header).
Bytes over_ipv6(const Bytes& v4) {
  Bytes f(v4.begin(), v4.begin() + 12);
  const size_t udp_len = v4.size() - FS_ETH_BYTES - FS_IPV4_BYTES;
  f.insert(f.end(), {0x86, 0xdd, 0x60, 0, 0, 0, uint8_t(udp_len >> 8), uint8_t(udp_len), 17, 64});
  for (int i = 0; i < 32; ++i) f.push_back(uint8_t(i));  // source and destination addresses
  f.insert(f.end(), v4.begin() + FS_ETH_BYTES + FS_IPV4_BYTES, v4.end());
  return f;
}

TEST(BlocksParser, RulesSeeThroughVlanTagsAndMatchIpv6) {
  quiet_systemc();
  // Rules: IPv4 UDP to 5000 -> flare_dense; any IP protocol 17 to port 4950 -> flare_dense. The
  // block id (9, 10, 11, 12) is read at the same place of the UDP payload however deep it is:
  // payload at 42 untagged, 46 behind one tag, 50 behind two, 62 over IPv6.
  ParserBench b("ethertype=0x0800,udp_dport=5000 -> flare_dense; ip_proto=17,udp_dport=4950 -> flare_dense", 0);
  auto with_block = [](uint16_t dport, uint8_t block) {
    Bytes f = udp_frame(dport, 16);
    f[FLARE_PAYLOAD_OFFSET + FLARE_OFF_BLOCK + 3] = block;
    return f;
  };
  b.send(1000, tagged(with_block(5000, 9), 1));
  b.send(1000, tagged(with_block(5000, 10), 2));
  b.send(1000, over_ipv6(with_block(4950, 11)));
  b.send(1000, tagged(over_ipv6(with_block(4950, 12)), 1));
  b.send(1000, over_ipv6(with_block(5000, 13)));  // IPv6: not EtherType 0x0800 -> routed
  b.send(1000, tagged(with_block(80, 14), 2));    // no rule -> routed
  sc_core::sc_start();
  ASSERT_EQ(b.pspin.got.size(), 4u);
  const uint32_t offsets[] = {46, 50, 62, 66};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(b.pspin.got[i].pkt->block_id, 9u + i) << i;
    EXPECT_EQ(b.pspin.got[i].pkt->payload_offset, offsets[i]) << i;
  }
  ASSERT_EQ(b.router.got.size(), 2u);
  EXPECT_EQ(b.router.got[0].pkt->data, over_ipv6(with_block(5000, 13)));
  EXPECT_EQ(b.router.got[1].pkt->data, tagged(with_block(80, 14), 2));
  EXPECT_EQ(b.drops.total(), 0u);
}

}  // namespace
}  // namespace fs_tb
