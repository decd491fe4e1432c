// Canary across a network (sc_model/protocols/canary/, handlers/canary/canary.c on native HPUs):
// whole runs on two and three levels in which every member's result for every block, as the
// frames that reached it carry it, equals the int32 sum of all members' data computed here; the
// switches' handler outcomes counted by hand for runs without congestion; and the same exact
// results under what Canary is built to survive: congestion that sends packets to one leader by
// different spines, collisions in a tiny descriptor table, stragglers, lost packets, a failed
// switch, concurrent allreduces. The aggregation timer is checked to fire exactly
// canary.timeout_ns after the block's first packet.
#include <gtest/gtest.h>

#include <map>
#include <memory>

#include "blocks/sc_testbench.h"
#include "canary/canary_proto.h"
#include "common/splitmix64.h"
#include "common/errors.h"
#include "network/fabric_fixtures.h"
#include "network/fabric_timing.h"
#include "network/network.h"
#include "network/traffic.h"
#include "protocols/canary/canary_allreduce.h"
#include "protocols/canary/canary_config.h"
#include "protocols/canary/canary_frame.h"

namespace fs_tb {
namespace {

// Native HPUs, fabric_timing()'s links, `bytes` of int32 per member in full 256-element packets,
// a host timeout no healthy block reaches; static mapping (no collision unless asked for).
fs::Config canary_cfg(uint64_t bytes) {
  fs::Config c = fabric_timing();
  fs::find_config_key("hpu.model")->set(c, "native");
  fs::find_config_key("flare.allreduces")->set(c, "none");  // Flare dense's role, which the CLI runs too
  c.hosts.model = "canary";
  c.hosts.bytes = bytes;
  c.hosts.elem_bytes = 1024;
  c.hosts.timeout_ns = 1000000;
  fs::canary_config(c).mapping = "static";
  fs::canary_config(c).timeout_ns = 5000;
  return c;
}

struct Arrival {
  fs::Picos time;
  fs::Bytes frame;
};

// A network with Canary's role and its allreduce, recording what reaches each host.
struct CanaryFabric {
  CanaryFabric(const fs::Config& cfg, const fs::Topology& t)
      : role(cfg, t), net(std::make_unique<fs::Network>("net", cfg, t, [this](unsigned i, fs::Config& c) {
          role.configure_switch(i, c);
        })) {
    allreduce = role.attach(*net);
    canary = dynamic_cast<fs::CanaryAllreduce*>(allreduce.get());
    const auto peers = t.peers();
    const auto switches = t.switches();
    for (size_t i = 0; i < switches.size(); ++i)
      net->switch_at(i).on_departure([this, &t, peers, i, node = switches[i]](unsigned port, fs::Picos at, const fs::Packet& p) {
        const fs::PortPeer& far = peers[node][port];
        if (far.node < 0) return;
        if (t.nodes[size_t(far.node)].host)
          to_hosts[t.nodes[size_t(far.node)].host_index].push_back({at, p.data});
        else
          to_switches[{i, port}].push_back({at, p.data});
      });
  }
  // The sum of switch `name`'s handler outcome over every switch.
  uint64_t outcome(const std::string& name) const {
    uint64_t n = 0;
    for (size_t i = 0; i < net->switch_count(); ++i) {
      const auto& st = net->switch_at(i).pspin().handler_stats();
      const auto it = st.find("canary");
      if (it == st.end()) continue;
      const auto o = it->second.outcomes.find(name);
      if (o != it->second.outcomes.end()) n += o->second;
    }
    return n;
  }
  fs::CanaryFabricRole role;
  std::unique_ptr<fs::Network> net;
  std::unique_ptr<fs::NetworkAllreduce> allreduce;
  fs::CanaryAllreduce* canary = nullptr;
  std::map<unsigned, std::vector<Arrival>> to_hosts;
  std::map<std::pair<size_t, unsigned>, std::vector<Arrival>> to_switches;  // (switch, port) -> what it sent there
};

// The int32 sum of the members' data for block b of group g, added up here.
std::vector<int32_t> sum_of(const fs::CanaryAllreduce& a, unsigned group, unsigned members, uint64_t b) {
  std::vector<int32_t> s(a.elements(b), 0);
  for (unsigned r = 0; r < members; ++r)
    for (unsigned i = 0; i < s.size(); ++i) s[i] = int32_t(uint32_t(s[i]) + uint32_t(a.value(group, r, b, i)));
  return s;
}

// Every member but a block's leader got a result frame for every block, the first of them equal
// to the sum; `exactly_one`: and no other.
void expect_results(const CanaryFabric& f, const std::vector<std::vector<unsigned>>& groups, bool exactly_one) {
  const fs::CanaryAllreduce& a = *f.canary;
  for (unsigned g = 0; g < groups.size(); ++g) {
    const unsigned n = unsigned(groups[g].size());
    for (unsigned r = 0; r < n; ++r) {
      const unsigned host = groups[g][r];
      std::map<uint64_t, std::vector<std::vector<int32_t>>> results;  // block -> results, in arrival order
      if (f.to_hosts.count(host))
        for (const Arrival& x : f.to_hosts.at(host)) {
          fs::CanaryPacket p;
          std::string why;
          ASSERT_TRUE(fs::parse_canary_packet(x.frame.data(), x.frame.size(), &p, &why)) << why;
          if (p.elements.empty() || canary_id_app(p.h.id) != fs::canary_config(fs::Config{}).app + g) continue;
          const uint64_t b = canary_id_sequence(p.h.id) % a.blocks();
          if (b % n == r) continue;  // reduce-phase packets to the block's leader
          EXPECT_NE(p.h.flags & (CANARY_FLAG_MULTICAST | CANARY_FLAG_BYPASS), 0) << "host " << host;
          results[b].push_back(p.elements);
        }
      for (uint64_t b = 0; b < a.blocks(); ++b) {
        if (b % n == r) continue;
        SCOPED_TRACE("group " + std::to_string(g) + ", host " + std::to_string(host) + ", block " + std::to_string(b));
        ASSERT_FALSE(results[b].empty());
        EXPECT_EQ(results[b][0], sum_of(a, g, n, b));
        if (exactly_one) {
          EXPECT_EQ(results[b].size(), 1u);
        }
      }
    }
  }
  const fs::AllreduceStats s = f.allreduce->stats();
  EXPECT_EQ(f.allreduce->failure(), "");
  EXPECT_TRUE(s.results_ok);
  EXPECT_EQ(s.model, "canary");
  EXPECT_EQ(s.unfinished_ranks, 0u);
  EXPECT_EQ(s.stray_packets, 0u);
}

std::vector<unsigned> range(unsigned first, unsigned end) {
  std::vector<unsigned> v;
  for (unsigned h = first; h < end; ++h) v.push_back(h);
  return v;
}

TEST(CanaryFabric, TwoLevelsWithoutCongestionFollowTheTimeoutsHopByHop) {
  quiet_systemc();
  // 2 leaves x 4 hosts, 2 spines, 8 KiB each: 8 blocks, block b led by host b. Hosts' sends are
  // at most 2 packets (0.2 us) apart, well inside the 5 us timeout, so each block's packets meet
  // at their leaves. Per block, as the timeouts add up hop by hop: the far leaf folds its 4
  // hosts' packets and sends them on at its timeout; the spine its route takes sends that on at
  // its own; the leader's leaf, which took its 3 other hosts' packets at the start, has timed out
  // long before (counter 3 to the leader), so the spine's packet (counter 4) is a straggler it
  // forwards. The broadcast then frees the 3 descriptors: the leader's leaf multicasts to its 3
  // hosts and the spine, the spine to the far leaf, the far leaf to its 4 hosts.
  const fs::Topology t = fs::leaf_spine(2, 2, 4, fs::SwitchKind::kInc);
  CanaryFabric f(canary_cfg(8 << 10), t);
  ASSERT_EQ(f.canary->blocks(), 8u);
  sc_core::sc_start();
  expect_results(f, {range(0, 8)}, true);
  EXPECT_EQ(f.outcome("allocated"), 3u * 8);
  EXPECT_EQ(f.outcome("aggregated"), (3u + 2u) * 8);
  EXPECT_EQ(f.outcome("timeout_sent"), 3u * 8);
  EXPECT_EQ(f.outcome("straggler"), 1u * 8);
  EXPECT_EQ(f.outcome("broadcast"), 3u * 8);
  EXPECT_EQ(f.outcome("sent_on") + f.outcome("collision") + f.outcome("orphan"), 0u);
  const fs::CanaryHostCounts& c = f.canary->counts();
  EXPECT_EQ(c.leader_packets, 2u * 8);
  EXPECT_EQ(c.requests + c.failures + c.collisions + c.restorations + c.duplicate_results, 0u);
  const fs::AllreduceStats s = f.allreduce->stats();
  EXPECT_EQ(s.packets_sent, 8u * 7);  // every member but the leader, once per block
  // Every frame is 61 bytes of headers and 1 KiB of data: the members' data and one broadcast
  // per block.
  EXPECT_EQ(s.bytes_sent, (8u * 7 + 8u) * (61 + 1024));
}

TEST(CanaryFabric, OnOneLeafEveryBlockIsSentOnOnceItsHostsAreIn) {
  quiet_systemc();
  // A single leaf of 4 hosts: a block's first packet takes a descriptor, its second is folded in,
  // its third completes the count (3 = hosts - 1) and the switch sends the block on at once;
  // its timers fire later with nothing left to do.
  const fs::Topology t = fs::leaf_spine(1, 0, 4, fs::SwitchKind::kInc);
  CanaryFabric f(canary_cfg(8 << 10), t);
  sc_core::sc_start();
  expect_results(f, {range(0, 4)}, true);
  EXPECT_EQ(f.outcome("allocated"), 8u);
  EXPECT_EQ(f.outcome("aggregated"), 8u);
  EXPECT_EQ(f.outcome("sent_on"), 8u);
  EXPECT_EQ(f.outcome("broadcast"), 8u);
  EXPECT_EQ(f.outcome("timeout_sent") + f.outcome("straggler"), 0u);
  EXPECT_EQ(f.outcome("idle_timer"), 2u * 8);  // each block's timeout and lifetime, after it moved on
  EXPECT_EQ(f.canary->counts().leader_packets, 8u);
}

TEST(CanaryFabric, ThreeLevelsExact) {
  quiet_systemc();
  // core, 2 aggs, 4 leaves of 2 hosts: a block crosses up to 5 switches; 12 KiB each: 12 blocks.
  const fs::Topology t = three_levels();
  CanaryFabric f(canary_cfg(12 << 10), t);
  sc_core::sc_start();
  expect_results(f, {range(0, 8)}, true);
  EXPECT_EQ(f.outcome("collision") + f.outcome("orphan"), 0u);
  EXPECT_EQ(f.canary->counts().requests, 0u);
}

TEST(CanaryFabric, CongestionMovesTheTreePacketByPacket) {
  quiet_systemc();
  // Members 0 (leaf0) and 4 (leaf1), so host 0's packet of a block host 4 leads is complete at
  // leaf0 and goes straight up, one packet per block, to the spine the adaptive route picks:
  // host 4's default spine while that port's queue holds at most 16 KiB (half of 32 KiB), else
  // the least queued. Hosts 1-3 (leaf0) send an incast to a host of leaf1 whose default spine is
  // host 4's, so that port's queue comes and goes: host 0's packets to the same leader leave by
  // both spines, and both members still get the exact sums. (With dst routing every one of them
  // leaves by host 4's default spine.)
  fs::Config cfg = canary_cfg(256 << 10);
  cfg.hosts.members = "0,4";
  cfg.hosts.timeout_ns = 400000;
  cfg.routing.multipath = fs::PathChoice::kAdaptive;
  cfg.ports.egress_queue_bytes = 32 << 10;
  const fs::Topology t = fs::leaf_spine(2, 2, 4, fs::SwitchKind::kInc);
  // A host's default up port at leaf0: of its route's ports {4, 5}, the one splitmix64's
  // finaliser of its address picks (docs/NETWORKS.md, "Routing": dst).
  auto default_up = [](unsigned h) { return 4 + fs::splitmix64_mix(fs_host_ipv4(h)) % 2; };
  unsigned target = 0;
  for (unsigned h : {5u, 6u, 7u})
    if (!target && default_up(h) == default_up(4)) target = h;
  ASSERT_NE(target, 0u);
  cfg.traffic.pattern = "incast";
  cfg.traffic.hosts = "1,2,3," + std::to_string(target);
  cfg.traffic.incast_target = target;
  cfg.traffic.load = 1.0;
  cfg.traffic.messages = 4;
  cfg.traffic.ecn = false;
  CanaryFabric f(cfg, t);
  fs::BackgroundTraffic traffic("traffic", cfg, *f.net);
  sc_core::sc_start();
  expect_results(f, {{0, 4}}, false);
  std::map<unsigned, uint64_t> up;  // leaf0's up port -> host 0's Canary data packets to host 4 it sent
  for (unsigned port : {4u, 5u})
    for (const Arrival& x : f.to_switches[{0, port}]) {
      fs::CanaryPacket c;
      std::string why;
      if (fs::parse_canary_packet(x.frame.data(), x.frame.size(), &c, &why) && !c.elements.empty() &&
          c.h.destination == fs_host_ipv4(4))
        ++up[port];
    }
  EXPECT_GT(up[4], 0u);
  EXPECT_GT(up[5], 0u);
  EXPECT_GE(up[4] + up[5], f.canary->blocks() / 2);  // each of host 4's 128 blocks once, more if sent again
}

TEST(CanaryFabric, AShortTimeoutMakesStragglersAndTheResultsStayExact) {
  quiet_systemc();
  // A 10 ns timeout: every descriptor is sent on before the next host's packet arrives.
  fs::Config cfg = canary_cfg(8 << 10);
  fs::canary_config(cfg).timeout_ns = 10;
  const fs::Topology t = fs::leaf_spine(2, 2, 4, fs::SwitchKind::kInc);
  CanaryFabric f(cfg, t);
  sc_core::sc_start();
  expect_results(f, {range(0, 8)}, true);
  EXPECT_GT(f.outcome("straggler"), 0u);
  EXPECT_GT(f.canary->counts().leader_packets, 8u);  // the leader folds several packets per block
  EXPECT_EQ(f.canary->counts().requests, 0u);
}

TEST(CanaryFabric, CollisionsInATinyTableAreRestoredByTheLeader) {
  quiet_systemc();
  // One descriptor per cluster, hash mapping: most packets collide, go to the leader marked,
  // and the leader's restoration packets bring the result down the subtrees behind them.
  fs::Config cfg = canary_cfg(16 << 10);
  fs::canary_config(cfg).descriptors = 1;
  fs::canary_config(cfg).mapping = "hash";
  const fs::Topology t = fs::leaf_spine(2, 2, 4, fs::SwitchKind::kInc);
  CanaryFabric f(cfg, t);
  sc_core::sc_start();
  expect_results(f, {range(0, 8)}, true);
  const fs::CanaryHostCounts& c = f.canary->counts();
  EXPECT_EQ(f.outcome("collision"), c.collisions);
  EXPECT_GT(c.collisions, 0u);
  EXPECT_GT(c.restorations, 0u);
  EXPECT_LE(c.restorations, c.collisions);  // one per (switch, port) a block's collisions named
  EXPECT_EQ(f.outcome("restored"), c.restorations);
  EXPECT_EQ(c.requests, 0u);
}

TEST(CanaryFabric, LostPacketsAreRecoveredByRequestsFailuresAndTheFallback) {
  quiet_systemc();
  // Links lose 3% of frames: reduce-phase losses end in a failure and a new id, broadcast-phase
  // losses in a result sent again; one failure is all a block gets before the fallback.
  fs::Config cfg = canary_cfg(32 << 10);
  cfg.network.link_loss = 0.03;
  cfg.hosts.timeout_ns = 30000;
  fs::canary_config(cfg).max_attempts = 2;
  const fs::Topology t = fs::leaf_spine(2, 2, 4, fs::SwitchKind::kInc);
  CanaryFabric f(cfg, t);
  sc_core::sc_start();
  expect_results(f, {range(0, 8)}, false);
  const fs::CanaryHostCounts& c = f.canary->counts();
  EXPECT_GT(c.requests, 0u);
  EXPECT_GT(c.failures, 0u);
  EXPECT_GT(c.results_resent, 0u);
  EXPECT_GT(c.fallback_blocks, 0u);
  EXPECT_EQ(f.allreduce->stats().gave_up, 0u);
}

TEST(CanaryFabric, AFailedSpineIsRoutedAroundAndItsBlocksRecovered) {
  quiet_systemc();
  // spine0 fails 8 us in, while the leaves' aggregates (sent on at their 5 us timeouts) cross
  // it; what it held is lost, the leaders of those blocks find them incomplete when their hosts
  // ask, and the blocks go again under new ids, around spine0. (A result takes three 5 us
  // timeouts and four hops: the hosts wait 60 us before they ask.)
  fs::Config cfg = canary_cfg(32 << 10);
  cfg.network.failures = "spine0@8us";
  cfg.hosts.timeout_ns = 60000;
  const fs::Topology t = fs::leaf_spine(2, 2, 4, fs::SwitchKind::kInc);
  CanaryFabric f(cfg, t);
  sc_core::sc_start();
  expect_results(f, {range(0, 8)}, false);
  EXPECT_EQ(f.net->failed_switches, 1u);
  fs::StatsTree links;
  f.net->report(links, sc_core::sc_time_stamp().value());
  EXPECT_GT(links["lost"].uint_value(), 0u);
  EXPECT_GT(f.canary->counts().failures, 0u);
}

TEST(CanaryFabric, TwoConcurrentAllreducesOfDifferentApplications) {
  quiet_systemc();
  // Hosts 0-3 and 4-7 are two allreduces (applications 1 and 2) on one fabric, the table split
  // between them (static mapping, 2 applications).
  fs::Config cfg = canary_cfg(8 << 10);
  cfg.hosts.groups = 2;
  fs::canary_config(cfg).apps = 2;
  cfg.hosts.members = "0,4,1,5,2,6,3,7";  // each allreduce spans both leaves
  const fs::Topology t = fs::leaf_spine(2, 2, 4, fs::SwitchKind::kInc);
  CanaryFabric f(cfg, t);
  sc_core::sc_start();
  expect_results(f, {{0, 4, 1, 5}, {2, 6, 3, 7}}, true);
  EXPECT_EQ(f.outcome("collision"), 0u);
}

TEST(CanaryFabric, TheAggregationTimerFiresExactlyTheTimeoutAfterTheFirstPacket) {
  quiet_systemc();
  // Two allreduces of one block on 4 leaves of 2 hosts around one spine, alike but for their
  // leader's leaf: hosts 0, 1, 2 (leaves 0, 0, 1) and 4, 5, 6 (leaves 2, 2, 3). Each leader gets
  // the block first from its own leaf, which took its neighbour's packet and sends it on at the
  // leaf's timeout: 1 us at leaf0, 3 us at leaf2. Everything before is the same, so the second
  // leader has it exactly 2 us after the first.
  fs::Config cfg = canary_cfg(1024);
  cfg.hosts.members = "0,1,2,4,5,6";
  cfg.hosts.groups = 2;
  fs::canary_config(cfg).timeout_ns = 1000;
  const fs::Topology t = fs::leaf_spine(4, 1, 2, fs::SwitchKind::kInc);
  fs::CanaryFabricRole role(cfg, t);
  fs::Network net("net", cfg, t, [&role](unsigned i, fs::Config& c) {
    role.configure_switch(i, c);
    if (i == 2) fs::canary_config(c).timeout_ns = 3000;  // leaf2
  });
  const auto allreduce = role.attach(net);
  std::map<unsigned, fs::Picos> first;  // leader host -> its first Canary frame's departure towards it
  std::map<unsigned, fs::Picos> last;   // host -> when the last frame to it arrived
  const fs::LinkParams& link = net.host(0).nic().params();
  for (unsigned leaf = 0; leaf < 4; ++leaf)
    net.switch_at(leaf).on_departure([&, leaf](unsigned port, fs::Picos at, const fs::Packet& p) {
      if (port >= 2) return;  // to the spine
      if (port == 0 && leaf % 2 == 0 && !first.count(2 * leaf)) first[2 * leaf] = at;  // the leaders
      last[2 * leaf + port] = at + link.wire_time_of(p.data.size()) + link.latency;
    });
  sc_core::sc_start();
  const fs::AllreduceStats s = allreduce->stats();
  EXPECT_TRUE(s.results_ok);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first.at(4) - first.at(0), 2000 * fs::kPicosPerNs);
  // A group is done when the last frame its hosts need arrives (a member's result, the leader's
  // last data; nothing follows in this run): done_us is the later group's, goodput_gbps the mean
  // of each group's 8192 bits over its own time.
  const double g0 = double(std::max({last.at(0), last.at(1), last.at(2)})) / 1e3;
  const double g1 = double(std::max({last.at(4), last.at(5), last.at(6)})) / 1e3;
  EXPECT_GT(g1, g0);
  EXPECT_EQ(s.groups, 2u);
  EXPECT_DOUBLE_EQ(s.done_us * 1e3, g1);
  EXPECT_NEAR(s.goodput_gbps, (8192 / g0 + 8192 / g1) / 2, 1e-9);
  EXPECT_NEAR(s.allreduce_gbps, 6 * 8192 / g1, 1e-9);
}

TEST(CanaryFabric, BadSetUpsAreRejected) {
  const fs::Topology t = fs::leaf_spine(2, 2, 4, fs::SwitchKind::kInc);
  auto error_of = [&](const fs::Config& cfg) -> std::string {
    try {
      fs::CanaryFabricRole role(cfg, t);
    } catch (const fs::InputError& e) {
      return e.what();
    }
    return "";
  };
  fs::Config c = canary_cfg(8 << 10);
  EXPECT_EQ(error_of(c), "");
  c.hosts.members = "3";
  EXPECT_EQ(error_of(c), "hosts.members: a Canary allreduce needs at least 2 hosts (a leader and a sender); got 1");
  c = canary_cfg(8 << 10);
  c.hosts.dtype = "float32";
  EXPECT_EQ(error_of(c),
            "hosts.dtype, hosts.op: Canary's switches sum int32 elements; set hosts.dtype int32 and hosts.op sum");
  c = canary_cfg(8 << 10);
  c.hosts.elem_bytes = 2048;
  EXPECT_EQ(error_of(c), "hosts.elem_bytes: a Canary packet carries whole int32 elements, at most 256 (1024 bytes); got 2048");
  c = canary_cfg(8 << 10);
  c.hosts.bytes = 1022;
  EXPECT_EQ(error_of(c), "hosts.bytes: 1022 bytes are not whole int32 elements");
  c = canary_cfg(8 << 10);
  c.hosts.groups = 5;
  EXPECT_EQ(error_of(c), "hosts.groups: 5 Canary allreduces of at least 2 hosts need 10 members; hosts.members has 8");
  c.hosts.groups = 4;
  fs::canary_config(c).app = 253;  // groups 253 to 256: 8-bit application ids end at 255
  EXPECT_EQ(error_of(c), "canary.app + hosts.groups: the groups' application ids go up to 255");
  c = canary_cfg(uint64_t(4) << 30);  // 4M blocks x 4 ids: 2^24, every sequence number
  EXPECT_EQ(error_of(c), "");
  fs::canary_config(c).max_attempts = 4;
  EXPECT_EQ(error_of(c), "hosts.bytes: 4194304 blocks under 5 ids each (canary.max_attempts + 1) exceed the ids' "
                         "24-bit sequence numbers");
}

}  // namespace
}  // namespace fs_tb
