// Tests of the parser/matcher (sc_model/switch/parser): parse_match_rules accepts and rejects
// (exact messages), and a Parser module with a recording sink on each output: which frames go to
// the PsPIN unit (with handler set, block id and payload offset; VLAN-tagged and IPv6 frames too),
// which to the router, which are dropped as "malformed", the parser's fixed latency, and rules on
// masked bytes of the UDP payload.
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
            prefix("foo=1 -> flare_dense") +
                "unknown field 'foo' (valid: ethertype, ip_proto, udp_dport, payload[OFFSET], payload[OFFSET]&MASK)");
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
  // A field given twice would silently take the last value: refused.
  EXPECT_EQ(rule_error("udp_dport=1,udp_dport=2 -> flare_dense"),
            prefix("udp_dport=1,udp_dport=2 -> flare_dense") + "field 'udp_dport' given twice");
  EXPECT_EQ(rule_error("ethertype=0x0800, ethertype=0x0800 -> flare_dense"),
            prefix("ethertype=0x0800, ethertype=0x0800 -> flare_dense") + "field 'ethertype' given twice");
  // The first good rule does not hide a bad second one; the message names the bad one.
  EXPECT_EQ(rule_error("udp_dport=1 -> flare_dense; bogus"),
            prefix("bogus") + "expected 'field=value[,field=value] -> handler_set'");
}

TEST(BlocksParser, RulesAcceptPayloadByteConditions) {
  // payload[OFF]=V compares the whole byte (mask 0xFF); payload[OFF]&M=V the masked bits. Several
  // may stand in one rule, even on one byte when they agree; a rule may have only payload
  // conditions. Blanks around the parts are ignored; numbers are decimal or 0x hex.
  const std::vector<MatchRule> r = parse_match_rules(
      "udp_dport=4950,payload[1]&0x80=0x80, payload[0]=1 -> flare_dense;"
      "payload[ 65506 ] & 255 = 0xFF -> flare_dense; payload[3]&0xF0=0x20,payload[3]&0x0F=4,payload[3]&0=0 -> flare_dense");
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(*r[0].udp_dport, 4950);
  ASSERT_EQ(r[0].payload.size(), 2u);
  EXPECT_EQ(r[0].payload[0].offset, 1u);
  EXPECT_EQ(r[0].payload[0].mask, 0x80);
  EXPECT_EQ(r[0].payload[0].value, 0x80);
  EXPECT_EQ(r[0].payload[0].text, "payload[1]&0x80=0x80");
  EXPECT_EQ(r[0].payload[1].offset, 0u);
  EXPECT_EQ(r[0].payload[1].mask, 0xFF);
  EXPECT_EQ(r[0].payload[1].value, 1);
  EXPECT_FALSE(r[1].udp_dport.has_value());
  EXPECT_FALSE(r[1].ip_proto.has_value());
  ASSERT_EQ(r[1].payload.size(), 1u);
  EXPECT_EQ(r[1].payload[0].offset, 65506u);  // the last byte of a 65507-byte UDP payload (IPv4's largest)
  EXPECT_EQ(r[1].payload[0].mask, 0xFF);
  EXPECT_EQ(r[1].payload[0].value, 0xFF);
  EXPECT_EQ(r[1].payload[0].text, "payload[ 65506 ] & 255 = 0xFF");
  ASSERT_EQ(r[2].payload.size(), 3u);
  EXPECT_EQ(r[2].payload[1].mask, 0x0F);
  EXPECT_EQ(r[2].payload[1].value, 4);
  EXPECT_EQ(r[2].payload[2].mask, 0);
  EXPECT_TRUE(parse_match_rules("udp_dport=4950 -> flare_dense").at(0).payload.empty());
}

TEST(BlocksParser, PayloadConditionsRejectWithExactMessages) {
  const std::string form = "is not payload[OFFSET]=VALUE or payload[OFFSET]&MASK=VALUE";
  EXPECT_EQ(rule_error("payload[1=0 -> flare_dense"),
            prefix("payload[1=0 -> flare_dense") + "condition 'payload[1=0' " + form);
  EXPECT_EQ(rule_error("payload[1]|0x80=0 -> flare_dense"),
            prefix("payload[1]|0x80=0 -> flare_dense") + "condition 'payload[1]|0x80=0' " + form);
  EXPECT_EQ(rule_error("payload[1]x=0 -> flare_dense"),
            prefix("payload[1]x=0 -> flare_dense") + "condition 'payload[1]x=0' " + form);
  EXPECT_EQ(rule_error("payload[1] -> flare_dense"),
            prefix("payload[1] -> flare_dense") + "condition 'payload[1]' is not field=value");
  EXPECT_EQ(rule_error("payload[65507]=0 -> flare_dense"),
            prefix("payload[65507]=0 -> flare_dense") + "payload offset needs a number from 0 to 65506, not '65507'");
  EXPECT_EQ(rule_error("payload[]=0 -> flare_dense"),
            prefix("payload[]=0 -> flare_dense") + "payload offset needs a number from 0 to 65506, not ''");
  EXPECT_EQ(rule_error("payload[-1]=0 -> flare_dense"),
            prefix("payload[-1]=0 -> flare_dense") + "payload offset needs a number from 0 to 65506, not '-1'");
  EXPECT_EQ(rule_error("payload[1]&0x100=0 -> flare_dense"),
            prefix("payload[1]&0x100=0 -> flare_dense") + "payload mask needs a number from 0 to 255, not '0x100'");
  EXPECT_EQ(rule_error("payload[1]&=0 -> flare_dense"),
            prefix("payload[1]&=0 -> flare_dense") + "payload mask needs a number from 0 to 255, not ''");
  EXPECT_EQ(rule_error("payload[1]=256 -> flare_dense"),
            prefix("payload[1]=256 -> flare_dense") + "payload value needs a number from 0 to 255, not '256'");
  EXPECT_EQ(rule_error("payload[1]&0x80= -> flare_dense"),
            prefix("payload[1]&0x80= -> flare_dense") + "payload value needs a number from 0 to 255, not ''");
  // A value with a bit the mask clears can never be the masked byte.
  EXPECT_EQ(rule_error("payload[1]&0x80=0x81 -> flare_dense"),
            prefix("payload[1]&0x80=0x81 -> flare_dense") +
                "condition 'payload[1]&0x80=0x81' can never match: the value has bits outside the mask");
  EXPECT_EQ(rule_error("payload[0]&0=1 -> flare_dense"),
            prefix("payload[0]&0=1 -> flare_dense") + "condition 'payload[0]&0=1' can never match: the value has bits outside the mask");
  // Two conditions on one byte that want a bit both see set and clear.
  EXPECT_EQ(rule_error("payload[1]&0x80=0,udp_dport=4950, payload[1]&0xC0=0x80 -> flare_dense"),
            prefix("payload[1]&0x80=0,udp_dport=4950, payload[1]&0xC0=0x80 -> flare_dense") +
                "conditions 'payload[1]&0x80=0' and 'payload[1]&0xC0=0x80' can never both hold");
  EXPECT_EQ(rule_error("payload[2]=7,payload[2]=8 -> flare_dense"),
            prefix("payload[2]=7,payload[2]=8 -> flare_dense") + "conditions 'payload[2]=7' and 'payload[2]=8' can never both hold");
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
  void send(Picos t, Bytes data, uint16_t port = 0) {
    script.at(t, [this, t, port, d = std::move(data)]() { parser.accept(make_packet(d, t, port)); });
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

TEST(BlocksParser, RoceFramesWaitForTheirPortsCrcEngine) {
  quiet_systemc();
  // Latency 2000 ps, an engine of 8 bytes a cycle at 1 GHz per port. A RoCEv2 frame of payload p
  // is 58 + p bytes; the engine takes the 8 prefix bytes and the frame from the IPv4 header to the
  // ICRC: 48 + p bytes, ceil((48 + p) / 8) cycles. A (p = 100): 19 cycles; B and D (p = 4): 7.
  // A, B and a plain UDP frame C come in on port 0 at 5000, D (wrong ICRC) at 6000; all are
  // parsed 2000 later. C passes at 7000; A has port 0's engine 7000..26000, B 26000..33000, D
  // 33000..40000 and is dropped. They leave for the router when their check ends. E (as B) on
  // port 1 at 5000 has port 1's engine 7000..14000, beside port 0's.
  ParserBench b("udp_dport=4950 -> flare_dense", 2, std::make_unique<fs::IcrcEngineModel>(8));
  const Bytes a = fs::test::roce_frame(100, 1, false), bb = fs::test::roce_frame(4, 2, false);
  b.send(5000, a);
  b.send(5000, bb);
  b.send(5000, udp_frame(80, 20));
  b.send(6000, fs::test::roce_frame(4, 3, true));
  b.send(5000, bb, 1);
  sc_core::sc_start();
  ASSERT_EQ(b.router.got.size(), 4u);
  EXPECT_EQ(b.router.got[0].time, 7000u);
  EXPECT_EQ(b.router.got[0].pkt->data.size(), 62u);
  EXPECT_EQ(b.router.got[1].time, 14000u);
  EXPECT_EQ(b.router.got[1].pkt->ingress_port, 1u);
  EXPECT_EQ(b.router.got[2].time, 26000u);
  EXPECT_EQ(b.router.got[2].pkt->data, a);
  EXPECT_EQ(b.router.got[3].time, 33000u);
  EXPECT_EQ(b.router.got[3].pkt->data, bb);
  EXPECT_EQ(b.drops.by_cause["icrc"], 1u);
  EXPECT_EQ(b.parser.icrc_checked, 4u);
  EXPECT_EQ(b.parser.icrc_engine_cycles, 40u);
  EXPECT_EQ(b.parser.icrc_wait_ps, Picos(19000 + 26000 + 32000 + 7000));
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

// A UDP frame (host 3 to the switch) to `dport` carrying `payload`.
Bytes udp_frame_with(uint16_t dport, const Bytes& payload) {
  uint8_t src[6], dst[6];
  fs_host_mac(3, src);
  fs_switch_mac(dst);
  return fs::build_udp_frame(src, dst, fs_host_ipv4(3), FS_SWITCH_IPV4, 1234, dport, payload.data(), payload.size());
}

// An IPv4 TCP frame (20-byte header, no options) whose TCP payload is `payload`.
Bytes tcp_frame_with(const Bytes& payload) {
  Bytes f(FS_ETH_BYTES + FS_IPV4_BYTES + 20, 0);
  f[12] = 0x08;  // EtherType IPv4
  uint8_t* ip = f.data() + FS_ETH_BYTES;
  ip[0] = 0x45;
  fs_put_be16(ip + 2, uint32_t(FS_IPV4_BYTES + 20 + payload.size()));
  ip[8] = 64;
  ip[9] = 6;  // TCP
  fs_put_be16(ip + 10, fs_ipv4_checksum(ip, FS_IPV4_BYTES));
  f[FS_ETH_BYTES + FS_IPV4_BYTES + 12] = 0x50;  // data offset 5 words
  f.insert(f.end(), payload.begin(), payload.end());
  return f;
}

// 16 payload bytes: byte 1 is `kind`, the block id (payload bytes 8..11) is `block`.
Bytes flare_like(uint8_t kind, uint8_t block) {
  Bytes p(16, 0);
  p[0] = 1, p[1] = kind, p[11] = block;
  return p;
}

TEST(BlocksParser, PayloadByteConditionsTellFramesApart) {
  quiet_systemc();
  // Dense and sparse Flare share UDP port 4950: bit 7 of payload byte 1 tells them apart. A third
  // rule wants payload byte 20's high nibble 0xA and byte 21 equal to 7, on any UDP port.
  const int dense = fs::find_handler_set("flare_dense"), sparse = fs::find_handler_set("flare_sparse");
  ASSERT_GE(dense, 0);
  ASSERT_GE(sparse, 0);
  ParserBench b("udp_dport=4950,payload[1]&0x80=0 -> flare_dense; udp_dport=4950,payload[1]&0x80=0x80 -> flare_sparse;"
                "payload[20]&0xF0=0xA0,payload[21]=7 -> flare_dense",
                0);
  auto bytes22 = [](uint8_t b20, uint8_t b21) {
    Bytes p(22, 0);
    p[8 + 3] = 40;  // block id 40
    p[20] = b20, p[21] = b21;
    return p;
  };
  Bytes short21 = bytes22(0xA5, 7);
  short21.resize(21);
  b.send(1000, udp_frame_with(4950, flare_like(0x01, 1)));  // dense (result)
  b.send(1000, udp_frame_with(4950, flare_like(0xC1, 2)));  // sparse, last, result
  b.send(1000, udp_frame_with(4950, flare_like(0x7F, 3)));  // bit 7 clear: dense whatever the rest
  b.send(1000, udp_frame_with(80, bytes22(0xA5, 7)));       // third rule
  b.send(1000, udp_frame_with(80, bytes22(0xB5, 7)));       // nibble 0xB: routed
  b.send(1000, udp_frame_with(80, bytes22(0xA0, 6)));       // byte 21 is 6: routed
  b.send(1000, udp_frame_with(80, short21));                // no byte 21: routed
  b.send(1000, udp_frame_with(4950, {}));                   // no byte 1: routed
  b.send(1000, tcp_frame_with(bytes22(0xA5, 7)));           // TCP: no UDP payload, routed
  sc_core::sc_start();

  ASSERT_EQ(b.pspin.got.size(), 4u);
  const int sets[] = {dense, sparse, dense, dense};
  const uint32_t blocks[] = {1, 2, 3, 40};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(b.pspin.got[i].pkt->handler_set, sets[i]) << i;
    EXPECT_EQ(b.pspin.got[i].pkt->block_id, blocks[i]) << i;
  }
  ASSERT_EQ(b.router.got.size(), 5u);
  EXPECT_EQ(b.router.got[0].pkt->data, udp_frame_with(80, bytes22(0xB5, 7)));
  EXPECT_EQ(b.router.got[1].pkt->data, udp_frame_with(80, bytes22(0xA0, 6)));
  EXPECT_EQ(b.router.got[2].pkt->data, udp_frame_with(80, short21));
  EXPECT_EQ(b.router.got[3].pkt->data, udp_frame_with(4950, {}));
  EXPECT_EQ(b.router.got[4].pkt->data, tcp_frame_with(bytes22(0xA5, 7)));
  EXPECT_EQ(b.drops.total(), 0u);
}

TEST(BlocksParser, PayloadByteConditionsSeeThroughVlanTagsAndIpv6AndStopAtTheUdpLength) {
  quiet_systemc();
  // The byte is counted from the UDP payload's start however deep it is (42 untagged, 46 and 50
  // behind one and two tags, 62 over IPv6), and the UDP length bounds the payload (Ethernet
  // padding is not payload).
  const int dense = fs::find_handler_set("flare_dense"), sparse = fs::find_handler_set("flare_sparse");
  ParserBench b("payload[1]&0x80=0 -> flare_dense; payload[1]&0x80=0x80 -> flare_sparse; payload[5]=0 -> flare_dense", 0);
  Bytes padded = udp_frame_with(80, {1, 2});  // 44 bytes; payload[1] = 2 (bit 7 clear)
  padded.resize(60, 0);
  Bytes padded_sparse = udp_frame_with(80, {1, 0x80});
  padded_sparse.resize(60, 0);
  Bytes tcp_zeros = tcp_frame_with(Bytes(16, 0));  // would match payload[1]&0x80=0 if TCP counted
  b.send(1000, tagged(udp_frame_with(4950, flare_like(0x80, 5)), 1));            // sparse
  b.send(1000, tagged(udp_frame_with(4950, flare_like(0x01, 6)), 2));            // dense
  b.send(1000, over_ipv6(udp_frame_with(4950, flare_like(0xC0, 7))));            // sparse
  b.send(1000, tagged(over_ipv6(udp_frame_with(4950, flare_like(0x00, 8))), 1)); // dense
  b.send(1000, padded);         // payload[1] = 2: dense, but no block id in 2 bytes: malformed
  b.send(1000, padded_sparse);  // sparse, but no block id: malformed
  b.send(1000, tagged(over_ipv6(udp_frame_with(80, {7})), 1));  // no byte 1, no byte 5: routed
  b.send(1000, tcp_zeros);      // routed
  sc_core::sc_start();

  ASSERT_EQ(b.pspin.got.size(), 4u);
  const int sets[] = {sparse, dense, sparse, dense};
  const uint32_t offsets[] = {46, 50, 62, 66};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(b.pspin.got[i].pkt->handler_set, sets[i]) << i;
    EXPECT_EQ(b.pspin.got[i].pkt->block_id, 5u + i) << i;
    EXPECT_EQ(b.pspin.got[i].pkt->payload_offset, offsets[i]) << i;
  }
  ASSERT_EQ(b.router.got.size(), 2u);
  EXPECT_EQ(b.router.got[0].pkt->data, tagged(over_ipv6(udp_frame_with(80, {7})), 1));
  EXPECT_EQ(b.router.got[1].pkt->data, tcp_zeros);
  EXPECT_EQ(b.drops.by_cause.size(), 1u);
  EXPECT_EQ(b.drops.by_cause["malformed"], 2u);
}

}  // namespace
}  // namespace fs_tb
