// Tests of the learning bridge, the default route learn (sc_model/switch/router, mac_table):
// a real Parser feeding a real Router, as in the switch, with a recording sink per port. Each
// test walks a sequence of frames by hand: which are flooded (to every port but the ingress),
// which go to a learned port, which are filtered; learning per VLAN (the outer tag), station
// moves, aging at its exact boundary, a full table, frames handlers take being learned too,
// routes before the bridge, and the exact counters.
#include <gtest/gtest.h>

#include <memory>

#include "blocks/sc_testbench.h"
#include "switch/parser.h"
#include "switch/router.h"

namespace fs_tb {
namespace {

using fs::Bytes;

constexpr uint64_t kA = 0x02000000000aull, kB = 0x02000000000bull, kC = 0x02000000000cull, kD = 0x02000000000dull;
constexpr uint64_t kBroadcast = 0xffffffffffffull, kMulticast = 0x01005e000001ull;
const fs::Clock kClock = fs::Clock::from_ghz(1.0);

// A UDP frame from MAC `src` to MAC `dst` (to 10.9.0.1 port `dport`), with 802.1Q tags of the
// given VLAN ids (outer first) if any.
Bytes l2(uint64_t dst, uint64_t src, std::vector<uint16_t> vids = {}, uint16_t dport = 2000, size_t payload = 16) {
  uint8_t d[6], s[6];
  for (int i = 0; i < 6; ++i) d[i] = uint8_t(dst >> (40 - 8 * i)), s[i] = uint8_t(src >> (40 - 8 * i));
  const Bytes body(payload, 0x5a);
  Bytes f = fs::build_udp_frame(s, d, 0x0a000063, 0x0a090001, 1000, dport, body.data(), body.size());
  for (size_t t = vids.size(); t-- > 0;) f.insert(f.begin() + 12, {0x81, 0x00, uint8_t(vids[t] >> 8), uint8_t(vids[t])});
  return f;
}

fs::RoutingConfig learn_config(uint64_t aging_ns = 300000000000ull, unsigned entries = 16384,
                               const std::string& routes = "") {
  fs::RoutingConfig c;
  c.routes = routes;
  c.default_route = "learn";
  c.mac_aging_ns = aging_ns;
  c.mac_table_entries = entries;
  c.latency_cycles = 0;
  return c;
}

// Parser (latency 0, these rules) -> Router (latency 0) -> one sink per port, as the switch wires them.
struct BridgeBench {
  fs::DropLedger drops;
  Script script{"script"};
  RecordingSink pspin{"pspin"};
  std::vector<std::unique_ptr<RecordingSink>> sinks;
  fs::Parser parser;
  fs::Router router;
  BridgeBench(unsigned ports, const fs::RoutingConfig& cfg, const std::string& rules = "")
      : parser("parser", parser_config(rules), kClock, drops), router("router", cfg, ports, kClock, drops) {
    parser.to_pspin.bind(pspin);
    parser.to_router.bind(router);
    parser.learn.bind(router);
    for (unsigned p = 0; p < ports; ++p) {
      sinks.push_back(std::make_unique<RecordingSink>(("sink" + std::to_string(p)).c_str()));
      router.egress.bind(*sinks.back());
    }
  }
  static fs::ParserConfig parser_config(const std::string& rules) {
    fs::ParserConfig c;
    c.rules = rules;
    c.latency_cycles = 0;
    return c;
  }
  void send(Picos t, uint16_t port, Bytes data) {
    script.at(t, [this, t, port, d = std::move(data)]() { parser.accept(make_packet(d, t, port)); });
  }
  // The times frames reached port p's sink.
  std::vector<Picos> times(unsigned p) const {
    std::vector<Picos> t;
    for (const Arrival& a : sinks[p]->got) t.push_back(a.time);
    return t;
  }
  fs::StatsTree macs() const {
    fs::StatsTree r;
    router.report(r);
    return r["mac_table"];
  }
};

uint64_t count(fs::StatsTree t, const std::string& key) { return t[key].uint_value(); }

TEST(BlocksBridge, LearnsFloodsForwardsAndFilters) {
  quiet_systemc();
  // 4 ports. Each line: time, ingress port, source -> destination, and what follows.
  //   1000 p0 A->B     B unknown: flooded to 1, 2, 3           (A learned on 0)
  //   2000 p1 B->A     A on 0: to 0                             (B learned on 1)
  //   3000 p0 A->B     B on 1: to 1
  //   4000 p0 A->bcast flooded to 1, 2, 3
  //   5000 p2 C->mcast flooded to 0, 1, 3                       (C learned on 2)
  //   6000 p0 D->A     A on 0, D's own port: filtered           (D learned on 0)
  //   7000 p3 A->C     A moves to 3; C on 2: to 2
  //   8000 p1 B->A     A now on 3: to 3
  BridgeBench b(4, learn_config());
  b.send(1000, 0, l2(kB, kA));
  b.send(2000, 1, l2(kA, kB));
  b.send(3000, 0, l2(kB, kA));
  b.send(4000, 0, l2(kBroadcast, kA));
  b.send(5000, 2, l2(kMulticast, kC));
  b.send(6000, 0, l2(kA, kD));
  b.send(7000, 3, l2(kC, kA));
  b.send(8000, 1, l2(kA, kB));
  sc_core::sc_start();
  EXPECT_EQ(b.times(0), (std::vector<Picos>{2000, 5000}));
  EXPECT_EQ(b.times(1), (std::vector<Picos>{1000, 3000, 4000, 5000}));
  EXPECT_EQ(b.times(2), (std::vector<Picos>{1000, 4000, 7000}));
  EXPECT_EQ(b.times(3), (std::vector<Picos>{1000, 4000, 5000, 8000}));
  // A flood sends each port a copy of its own, byte for byte the frame.
  EXPECT_NE(b.sinks[1]->got[0].pkt.get(), b.sinks[2]->got[0].pkt.get());
  EXPECT_EQ(b.sinks[1]->got[0].pkt->data, l2(kB, kA));
  EXPECT_EQ(b.sinks[3]->got[0].pkt->data, l2(kB, kA));
  EXPECT_EQ(b.sinks[3]->got[3].pkt->data, l2(kA, kB));
  EXPECT_EQ(b.router.flooded, 3u);
  EXPECT_EQ(b.router.flood_copies, 9u);
  EXPECT_EQ(b.router.bridged, 4u);
  EXPECT_EQ(b.router.routed, 0u);
  EXPECT_EQ(b.drops.by_cause.size(), 1u);
  EXPECT_EQ(b.drops.by_cause["filtered"], 1u);
  EXPECT_EQ(count(b.macs(), "learned"), 4u);
  EXPECT_EQ(count(b.macs(), "moved"), 1u);
  EXPECT_EQ(count(b.macs(), "entries_at_end"), 4u);
  EXPECT_EQ(b.parser.routed, 8u);
}

TEST(BlocksBridge, LearnsPerVlanByTheOuterTag) {
  quiet_systemc();
  //   1000 p0 A->B VLAN 10        B unknown on 10: flooded to 1, 2, 3   ((10, A) on 0)
  //   2000 p1 B->A VLAN 10        A on 0 in VLAN 10: to 0                ((10, B) on 1)
  //   3000 p2 B->A VLAN 20        A unknown on 20: flooded to 0, 1, 3    ((20, B) on 2)
  //   4000 p0 A->B untagged       B unknown on VLAN 0: flooded to 1, 2, 3
  //   5000 p3 C->B QinQ 10 / 99   the outer tag is 10: (10, B) on 1: to 1
  BridgeBench b(4, learn_config());
  b.send(1000, 0, l2(kB, kA, {10}));
  b.send(2000, 1, l2(kA, kB, {10}));
  b.send(3000, 2, l2(kA, kB, {20}));
  b.send(4000, 0, l2(kB, kA));
  b.send(5000, 3, l2(kB, kC, {10, 99}));
  sc_core::sc_start();
  EXPECT_EQ(b.times(0), (std::vector<Picos>{2000, 3000}));
  EXPECT_EQ(b.times(1), (std::vector<Picos>{1000, 3000, 4000, 5000}));
  EXPECT_EQ(b.times(2), (std::vector<Picos>{1000, 4000}));
  EXPECT_EQ(b.times(3), (std::vector<Picos>{1000, 3000, 4000}));
  EXPECT_EQ(b.sinks[1]->got[3].pkt->data, l2(kB, kC, {10, 99}));
  EXPECT_EQ(b.router.flooded, 3u);
  EXPECT_EQ(b.router.bridged, 2u);
  EXPECT_EQ(count(b.macs(), "learned"), 5u);  // (10,A) (10,B) (20,B) (0,A) (10,C)
  EXPECT_EQ(count(b.macs(), "moved"), 0u);
  EXPECT_EQ(b.drops.total(), 0u);
}

TEST(BlocksBridge, AnEntryAgesOutExactlyAtTheAgingTime) {
  quiet_systemc();
  // Aging 1000 ns = 1000000 ps; A learned at 1000 ps.
  //   1000      p0 A->B   flooded (B unknown)
  //   1000999   p1 B->A   999999 ps after A's frame: A still known: to 0 (B learned)
  //   1001000   p1 B->A   1000000 ps after: A has aged: forgotten, flooded to 0, 2, 3
  //   1001001   p0 A->B   A learned again; B (seen at 1001000) known: to 1
  BridgeBench b(4, learn_config(1000));
  b.send(1000, 0, l2(kB, kA));
  b.send(1000999, 1, l2(kA, kB));
  b.send(1001000, 1, l2(kA, kB));
  b.send(1001001, 0, l2(kB, kA));
  sc_core::sc_start();
  EXPECT_EQ(b.times(0), (std::vector<Picos>{1000999, 1001000}));
  EXPECT_EQ(b.times(1), (std::vector<Picos>{1000, 1001001}));
  EXPECT_EQ(b.times(2), (std::vector<Picos>{1000, 1001000}));
  EXPECT_EQ(b.times(3), (std::vector<Picos>{1000, 1001000}));
  EXPECT_EQ(b.router.flooded, 2u);
  EXPECT_EQ(b.router.bridged, 2u);
  EXPECT_EQ(count(b.macs(), "aged"), 1u);
  EXPECT_EQ(count(b.macs(), "learned"), 3u);  // A, B, A again
}

TEST(BlocksBridge, AFullTableRefusesNewAddressesUntilEntriesAge) {
  quiet_systemc();
  // 2 entries, aging 1000 ns.
  //   1000     p0 A->bcast   A learned (1 entry), flooded
  //   2000     p1 B->bcast   B learned (2 entries), flooded
  //   3000     p2 C->A       table full, nothing aged: C refused; A on 0: to 0
  //   4000     p0 A->C       C unknown: flooded to 1, 2, 3
  //   1002000  p2 C->A       table full: B (last seen 1000000 ps ago) has aged and is
  //                          forgotten, A (refreshed by its frame at 4000: 998000 ps) has not;
  //                          C learned; A on 0: to 0
  BridgeBench b(4, learn_config(1000, 2));
  b.send(1000, 0, l2(kBroadcast, kA));
  b.send(2000, 1, l2(kBroadcast, kB));
  b.send(3000, 2, l2(kA, kC));
  b.send(4000, 0, l2(kC, kA));
  b.send(1002000, 2, l2(kA, kC));
  sc_core::sc_start();
  EXPECT_EQ(b.times(0), (std::vector<Picos>{2000, 3000, 1002000}));
  EXPECT_EQ(b.times(2), (std::vector<Picos>{1000, 2000, 4000}));
  EXPECT_EQ(b.router.flooded, 3u);
  EXPECT_EQ(b.router.flood_copies, 9u);
  EXPECT_EQ(b.router.bridged, 2u);
  const fs::StatsTree m = b.macs();
  EXPECT_EQ(count(m, "learned"), 3u);
  EXPECT_EQ(count(m, "refused"), 1u);
  EXPECT_EQ(count(m, "aged"), 1u);
  EXPECT_EQ(count(m, "entries_max"), 2u);
  EXPECT_EQ(count(m, "entries_at_end"), 2u);
}

TEST(BlocksBridge, FramesHandlersTakeAreLearnedToo) {
  quiet_systemc();
  // A's frame to UDP port 4950 goes to the PsPIN unit (flare_dense: block id in its 16-byte
  // payload), not to the router; A is learned on port 2 all the same, so B's frame to A is sent
  // to 2 rather than flooded.
  BridgeBench b(4, learn_config(), "udp_dport=4950 -> flare_dense");
  b.send(1000, 2, l2(kB, kA, {}, 4950));
  b.send(2000, 1, l2(kA, kB));
  sc_core::sc_start();
  ASSERT_EQ(b.pspin.got.size(), 1u);
  EXPECT_EQ(b.times(2), (std::vector<Picos>{2000}));
  EXPECT_TRUE(b.times(0).empty() && b.times(1).empty() && b.times(3).empty());
  EXPECT_EQ(b.router.flooded, 0u);
  EXPECT_EQ(count(b.macs(), "learned"), 2u);
}

TEST(BlocksBridge, RoutesComeFirstAndMulticastSourcesAreNotLearned) {
  quiet_systemc();
  // Route 10.9.0.0/16 -> 3: every frame here is to 10.9.0.1, so with B learned on 1, A's frame to
  // B still leaves on 3. A frame to 10.8.0.1 is bridged: B on 1. A frame whose source address is a
  // multicast one is not learned (and, to an unknown address, flooded).
  BridgeBench b(4, learn_config(300000000000ull, 16384, "10.9.0.0/16 -> 3"));
  // The frame sent to 10.8.0.1 instead (its second octet, then the header checksum).
  auto to_10_8 = [](Bytes f) {
    f[FS_ETH_BYTES + 17] = 8;
    f[FS_ETH_BYTES + 10] = f[FS_ETH_BYTES + 11] = 0;
    fs_put_be16(&f[FS_ETH_BYTES + 10], fs_ipv4_checksum(&f[FS_ETH_BYTES], FS_IPV4_BYTES));
    return f;
  };
  b.send(1000, 1, l2(kBroadcast, kB));            // routed: to 3 (B learned on 1)
  b.send(2000, 0, l2(kB, kA));                    // routed: to 3
  b.send(3000, 0, to_10_8(l2(kB, kA)));           // bridged: to 1
  b.send(4000, 2, to_10_8(l2(kD, kMulticast)));  // D unknown: flooded; the source not learned
  sc_core::sc_start();
  EXPECT_EQ(b.times(3), (std::vector<Picos>{1000, 2000, 4000}));
  EXPECT_EQ(b.times(1), (std::vector<Picos>{3000, 4000}));
  EXPECT_EQ(b.router.routed, 2u);
  EXPECT_EQ(b.router.bridged, 1u);
  EXPECT_EQ(b.router.flooded, 1u);
  EXPECT_EQ(count(b.macs(), "learned"), 2u);  // B, A
}

TEST(BlocksBridge, AOnePortSwitchFiltersWhatItWouldFlood) {
  quiet_systemc();
  BridgeBench b(1, learn_config());
  b.send(1000, 0, l2(kBroadcast, kA));
  sc_core::sc_start();
  EXPECT_TRUE(b.sinks[0]->got.empty());
  EXPECT_EQ(b.drops.by_cause["filtered"], 1u);
  EXPECT_EQ(b.router.flooded, 0u);
}

}  // namespace
}  // namespace fs_tb
