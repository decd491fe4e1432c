// Tests of a network of switches (sc_model/network/network, traffic): a message's path and
// completion time through a leaf-spine against a hand-worked store-and-forward timeline; the
// routes every switch gets (one port down, every spine port up); ECMP spreading a leaf's flows
// over its spines; the permutation pattern; ECN marks and tail drops counted per link under an
// incast; and the same stats from the same seed.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "blocks/sc_testbench.h"
#include "common/errors.h"
#include "network/fabric_timing.h"
#include "network/network.h"
#include "network/traffic.h"

namespace fs_tb {
namespace {

// fabric_timing()'s links and switches, permutation traffic without ECN marking.
fs::Config fabric_config() {
  fs::Config c = fabric_timing();
  c.traffic.pattern = "permutation";
  c.traffic.ecn = false;
  return c;
}

TEST(Network, MessageCompletesOnAHandWorkedTimeline) {
  quiet_systemc();
  // Two leaves with a host each and one spine: host0 -> leaf0 -> spine0 -> leaf1 -> host1, four
  // links and three switches. Permutation of two hosts: each sends its one message to the other
  // (the two directions share no queue). A message of 1968 bytes in packets of at most 984:
  // two frames of 42 + 984 = 1026 bytes, (1026 + 24) * 8 / 100 = 84 ns each on the wire.
  //   host NIC: p1 0-84, p2 84-168 (relative to the message's start)
  //   leaf0: p1 in at 584, +4 ns switch: 588-672; p2 in at 668, +4: 672-756
  //   spine0: p1 at 672 + 504 = 1176-1260; p2 at 1260-1344
  //   leaf1: p1 at 1764-1848; p2 at 1848-1932
  //   host1: p2's last bit at 1932 + 500 = 2432 ns.
  fs::Config c = fabric_config();
  c.traffic.messages = 1;
  c.traffic.message_bytes = 1968;
  c.traffic.mtu_payload = 984;
  fs::Network net("net", c, fs::leaf_spine(2, 1, 1, fs::SwitchKind::kPlain));
  fs::BackgroundTraffic traffic("traffic", c, net);
  sc_core::sc_start();
  ASSERT_EQ(traffic.messages().size(), 2u);
  for (const fs::TrafficMessage& m : traffic.messages()) {
    EXPECT_EQ(m.packets, 2u);
    EXPECT_EQ(m.received, 2u);
    EXPECT_EQ(m.dst, 1 - m.src);
    EXPECT_EQ(m.done - m.started, 2432000u) << "from host " << m.src;
  }
  // Every switch forwarded both directions' two packets: leaf0 port 1 (up) and port 0 (down).
  EXPECT_EQ(net.switch_at(0).egress()[1]->packets_out, 2u);
  EXPECT_EQ(net.switch_at(0).egress()[0]->packets_out, 2u);
  EXPECT_EQ(net.switch_at(2).egress()[0]->packets_out, 2u);  // spine0 to leaf0
  EXPECT_EQ(net.switch_at(2).egress()[1]->packets_out, 2u);  // spine0 to leaf1
  EXPECT_EQ(traffic.unfinished(), 0u);
  fs::StatsTree stats;
  net.report(stats, fs::now_ps());
  EXPECT_EQ(stats["bytes_total"].uint_value(), 4u * 2 * 2 * 1026);  // 4 links x 2 ways x 2 frames
  EXPECT_EQ(stats["bytes_between_switches"].uint_value(), 2u * 2 * 2 * 1026);
}

TEST(Network, RoutesLeadDownOnOnePortAndUpOnEverySpine) {
  quiet_systemc();
  // leaf_spine(2 leaves, 3 spines, 2 hosts per leaf): leaf ports 0-1 hosts, 2-4 spines.
  fs::Config c = fabric_config();
  fs::Network net("net", c, fs::leaf_spine(2, 3, 2, fs::SwitchKind::kPlain));
  auto frame_to = [](unsigned host, uint16_t sport) {
    uint8_t src[6] = {2, 0, 0, 0, 0, 1}, dst[6] = {2, 0, 0, 0, 0, 2};
    const uint8_t payload[8] = {};
    return make_packet(fs::build_udp_frame(src, dst, fs_host_ipv4(0), fs_host_ipv4(host), sport, 5201, payload, 8));
  };
  fs::Router& leaf0 = net.switch_at(0).router();
  EXPECT_EQ(leaf0.lookup(*frame_to(0, 1)), 0);
  EXPECT_EQ(leaf0.lookup(*frame_to(1, 1)), 1);
  for (unsigned h : {2u, 3u}) {  // dst: one of the spine ports, by the destination
    const int p = leaf0.lookup(*frame_to(h, 1));
    EXPECT_GE(p, 2);
    EXPECT_LE(p, 4);
    for (uint16_t sport : {2, 3, 4}) EXPECT_EQ(leaf0.lookup(*frame_to(h, sport)), p);
  }
  for (size_t s = 2; s < 5; ++s)  // the spines: host h is on leaf h / 2, port h / 2
    for (unsigned h = 0; h < 4; ++h) EXPECT_EQ(net.switch_at(s).router().lookup(*frame_to(h, 1)), int(h / 2));
  // A host no route knows (host 9 does not exist) is dropped, not bridged.
  EXPECT_EQ(leaf0.lookup(*frame_to(9, 1)), -1);
}

TEST(Network, EcmpSpreadsALeafsFlowsOverItsSpines) {
  quiet_systemc();
  // Two leaves of four hosts, four spines; a permutation of the eight hosts, 64 one-packet
  // messages each, every message its own flow (source port): the up ports of both leaves share
  // the cross-leaf packets about evenly (with dst, each destination would keep to one spine).
  fs::Config c = fabric_config();
  c.routing.multipath = fs::PathChoice::kEcmp;
  c.traffic.messages = 64;
  c.traffic.message_bytes = 256;
  c.traffic.load = 0.2;
  fs::Network net("net", c, fs::leaf_spine(2, 4, 4, fs::SwitchKind::kPlain));
  fs::BackgroundTraffic traffic("traffic", c, net);
  sc_core::sc_start();
  EXPECT_EQ(traffic.unfinished(), 0u);
  uint64_t up = 0, least = ~0ull, most = 0;
  for (unsigned p = 4; p < 8; ++p)
    for (size_t leaf = 0; leaf < 2; ++leaf) {
      const uint64_t n = net.switch_at(leaf).egress()[p]->packets_out;
      up += n, least = std::min(least, n), most = std::max(most, n);
    }
  // The spines carried every cross-leaf packet; no up port has less than half or more than
  // twice the mean.
  uint64_t spine_in = 0;
  for (size_t s = 2; s < 6; ++s)
    for (const auto& in : net.switch_at(s).ingress()) spine_in += in->packets_in;
  EXPECT_EQ(spine_in, up);
  EXPECT_GT(up, 0u);
  EXPECT_GT(least * 8 * 2, up);
  EXPECT_LT(most * 8, up * 2);
}

TEST(Network, PermutationSendsEachHostToOneOtherForTheWholeRun) {
  quiet_systemc();
  fs::Config c = fabric_config();
  c.traffic.messages = 3;
  c.traffic.message_bytes = 512;
  fs::Network net("net", c, fs::fat_tree(4, fs::SwitchKind::kPlain));
  fs::BackgroundTraffic traffic("traffic", c, net);
  sc_core::sc_start();
  std::map<unsigned, std::set<unsigned>> peers;
  std::map<unsigned, unsigned> receivers;
  for (const fs::TrafficMessage& m : traffic.messages()) {
    EXPECT_NE(m.src, m.dst);
    peers[m.src].insert(m.dst);
    EXPECT_EQ(m.received, m.packets);
  }
  ASSERT_EQ(peers.size(), 8u);
  for (const auto& [src, dsts] : peers) {
    ASSERT_EQ(dsts.size(), 1u) << src;
    ++receivers[*dsts.begin()];
  }
  EXPECT_EQ(receivers.size(), 8u);  // every host receives from exactly one
  EXPECT_EQ(traffic.messages().size(), 24u);
}

TEST(Network, IncastFillsTheTargetsLinkWithEcnMarksAndDrops) {
  quiet_systemc();
  // Seven hosts of a k=4 fat tree send to host 0 at full load: queues build on host 0's down
  // link (leaf0 port 0) and on the spines' links down to leaf0 (three remote senders' share
  // each): ECN marks above 8 KiB, tail drops above 32 KiB, each counted on its link, and the
  // packets lost are exactly those dropped.
  fs::Config c = fabric_config();
  c.traffic.pattern = "incast";
  c.traffic.incast_target = 0;
  c.traffic.ecn = true;
  c.traffic.load = 1.0;
  c.traffic.messages = 4;
  c.traffic.message_bytes = 16 << 10;
  c.ports.ecn_bytes = 8 << 10;
  c.ports.egress_queue_bytes = 32 << 10;
  fs::Network net("net", c, fs::fat_tree(4, fs::SwitchKind::kPlain));
  fs::BackgroundTraffic traffic("traffic", c, net);
  sc_core::sc_start();
  const fs::EgressPort& down = *net.switch_at(0).egress()[0];
  EXPECT_GT(down.ecn_marked, 0u);
  EXPECT_GT(down.dropped, 0u);
  EXPECT_LE(down.queue_bytes.max(), 32u << 10);
  fs::StatsTree stats;
  net.report(stats, fs::now_ps());
  uint64_t marked = 0, dropped = 0;
  for (const fs::StatsTree& l : stats["per_link"].items()) {
    marked += l.members().at("ecn_marked").uint_value();
    dropped += l.members().at("drops").uint_value();
  }
  EXPECT_EQ(stats["ecn_marked"].uint_value(), marked);
  EXPECT_EQ(stats["drops"].uint_value(), dropped);
  EXPECT_EQ(net.switch_at(0).drops.by_cause["egress_full"], down.dropped);
  // What arrived marked is what the queues marked (no packet is marked twice: CE stays CE).
  uint64_t received_marked = 0, lost = 0;
  for (const fs::TrafficMessage& m : traffic.messages()) received_marked += m.ecn_marked, lost += m.packets - m.received;
  EXPECT_LE(received_marked, marked);
  EXPECT_EQ(lost, dropped);
  EXPECT_GT(traffic.unfinished(), 0u);
}

TEST(Network, AdaptiveRoutingTakesTheOtherSpineWhenTheDefaultUpQueueFills) {
  quiet_systemc();
  // Two leaves of four hosts, two spines; hosts 0-3 (leaf0) send to host 4 (leaf1) at full
  // load: four links' worth into leaf0's up ports. With dst every packet to host 4 takes the
  // same spine; with adaptive, once that up port's queue holds more than half of its 64 KiB,
  // packets take the other spine. The same traffic in two networks side by side.
  fs::Config c = fabric_config();
  c.traffic.pattern = "incast";
  c.traffic.hosts = "0-4";
  c.traffic.incast_target = 4;
  c.traffic.load = 1.0;
  c.traffic.messages = 4;
  c.traffic.message_bytes = 32 << 10;
  c.ports.egress_queue_bytes = 64 << 10;
  fs::Config adaptive = c;
  adaptive.routing.multipath = fs::PathChoice::kAdaptive;
  fs::Network a("dst", c, fs::leaf_spine(2, 2, 4, fs::SwitchKind::kPlain));
  fs::Network b("adaptive", adaptive, fs::leaf_spine(2, 2, 4, fs::SwitchKind::kPlain));
  fs::BackgroundTraffic ta("traffic_dst", c, a), tb("traffic_adaptive", adaptive, b);
  sc_core::sc_start();
  const fs::Router& dst_leaf0 = a.switch_at(0).router();
  const fs::Router& ad_leaf0 = b.switch_at(0).router();
  auto up = [](fs::Network& n, unsigned port) { return n.switch_at(0).egress()[port]->packets_out; };
  // dst: one spine carried everything (ports 4 and 5 are leaf0's up ports).
  EXPECT_EQ(dst_leaf0.diverted, 0u);
  EXPECT_EQ(std::min(up(a, 4), up(a, 5)), 0u);
  // Every packet of the 4 senders x 4 messages x 32 packets went up or was dropped there.
  auto dropped_up = [](fs::Network& n) { return n.switch_at(0).egress()[4]->dropped + n.switch_at(0).egress()[5]->dropped; };
  EXPECT_EQ(up(a, 4) + up(a, 5) + dropped_up(a), 4u * 4 * 32);
  EXPECT_EQ(up(b, 4) + up(b, 5) + dropped_up(b), 4u * 4 * 32);
  EXPECT_LT(dropped_up(b), dropped_up(a));
  // adaptive: both spines, the diverted packets counted, and a shorter worst up queue.
  EXPECT_GT(ad_leaf0.diverted, 0u);
  EXPECT_GT(std::min(up(b, 4), up(b, 5)), 0u);
  EXPECT_EQ(std::min(up(b, 4), up(b, 5)), ad_leaf0.diverted);
  const uint64_t dst_max = std::max(a.switch_at(0).egress()[4]->queue_bytes.max(), a.switch_at(0).egress()[5]->queue_bytes.max());
  const uint64_t ad_max = std::max(b.switch_at(0).egress()[4]->queue_bytes.max(), b.switch_at(0).egress()[5]->queue_bytes.max());
  EXPECT_LT(ad_max, dst_max);
}

TEST(Network, AFailedSpineIsRoutedAroundFromItsFailureOn) {
  quiet_systemc();
  // ECMP spreads the permutation's flows over both spines; spine0 fails before anything is
  // sent: its four links go down, the leaves' routes leave their spine0 ports out, and every
  // message arrives through spine1.
  fs::Config c = fabric_config();
  c.routing.multipath = fs::PathChoice::kEcmp;
  c.traffic.messages = 4;
  c.network.failures = "spine0@0ps";
  fs::Network net("net", c, fs::leaf_spine(2, 2, 4, fs::SwitchKind::kPlain));
  fs::BackgroundTraffic traffic("traffic", c, net);
  sc_core::sc_start();
  EXPECT_EQ(net.failed_switches, 1u);
  EXPECT_EQ(traffic.unfinished(), 0u);
  for (unsigned leaf = 0; leaf < 2; ++leaf) {
    EXPECT_EQ(net.switch_at(leaf).egress()[4]->packets_out, 0u) << "leaf" << leaf << " to spine0";
    EXPECT_TRUE(net.switch_at(leaf).egress()[4]->down());
    EXPECT_FALSE(net.switch_at(leaf).egress()[5]->down());
  }
  fs::StatsTree stats;
  net.report(stats, fs::now_ps());
  EXPECT_EQ(stats["lost"].uint_value(), 0u);
  EXPECT_EQ(stats["failed_switches"].uint_value(), 1u);
}

TEST(Network, BadFailureEntriesAreRejected) {
  const fs::Topology t = fs::leaf_spine(2, 2, 1, fs::SwitchKind::kPlain);
  auto error_of = [&](const std::string& failures) -> std::string {
    fs::Config c = fabric_config();
    c.network.failures = failures;
    try {
      fs::Network net("net", c, t);
    } catch (const fs::InputError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(error_of("spine9@1us"),
            "bad value 'spine9@1us' for 'network.failures': entry 'spine9@1us': 'spine9' is not a switch of the topology");
  EXPECT_EQ(error_of("spine0@1us; host0@2us"),
            "bad value 'spine0@1us; host0@2us' for 'network.failures': entry 'host0@2us': 'host0' is not a switch of "
            "the topology");
  EXPECT_EQ(error_of("spine0"),
            "bad value 'spine0' for 'network.failures': entry 'spine0': expected NAME@TIME, e.g. spine0@20us");
  EXPECT_NE(error_of("spine0@soon").find("bad value 'spine0@soon' for 'network.failures': entry 'spine0@soon': "),
            std::string::npos);
}

TEST(Network, KindsByNameAndPrefix) {
  fs::Topology t = fs::leaf_spine(2, 2, 1, fs::SwitchKind::kInc);
  fs::apply_kinds(t, "spine*=plain; leaf1 = plain");
  EXPECT_EQ(t.nodes[t.find("leaf0")].kind, fs::SwitchKind::kInc);
  EXPECT_EQ(t.nodes[t.find("leaf1")].kind, fs::SwitchKind::kPlain);
  EXPECT_EQ(t.nodes[t.find("spine0")].kind, fs::SwitchKind::kPlain);
  EXPECT_EQ(t.nodes[t.find("spine1")].kind, fs::SwitchKind::kPlain);
  auto error = [&](const std::string& kinds) {
    try {
      fs::apply_kinds(t, kinds);
    } catch (const fs::InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(error("core*=plain"), "bad value 'core*=plain' for 'network.kinds': no switch is named 'core*'");
  EXPECT_EQ(error("leaf0=fast"),
            "bad value 'leaf0=fast' for 'network.kinds': 'fast' is not a switch kind (inc, plain or calibrated)");
  EXPECT_EQ(error("leaf0"), "bad value 'leaf0' for 'network.kinds': expected 'NAME=KIND' or 'PREFIX*=KIND'");
  EXPECT_EQ(error("host0=plain"), "bad value 'host0=plain' for 'network.kinds': no switch is named 'host0'");
}

}  // namespace
}  // namespace fs_tb
