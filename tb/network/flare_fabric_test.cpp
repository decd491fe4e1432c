// Tests of Flare dense on static reduction trees across a network
// (sc_model/protocols/flare_dense/fabric_allreduce): the flare.allreduces entry each switch gets
// (children's ports, parent's port, rank there) worked out by hand from the builders' wiring, for
// one tree, two trees and three levels; whole runs whose every result, captured as it leaves a
// switch for a host, equals a reduction computed here from the documented input draws; the
// packets on every link (each block once up and once down its tree; two trees halve each
// spine's share); member subsets; bad member lists and trees through plain switches rejected.
#include "protocols/flare_dense/fabric_allreduce.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <set>

#include "blocks/sc_testbench.h"
#include "common/errors.h"
#include "net/frame.h"
#include "network/fabric_fixtures.h"
#include "network/fabric_timing.h"
#include "network/network.h"
#include "protocols/flare_dense/allreduce_gen.h"
#include "protocols/flare_dense/flare_setup.h"

namespace fs_tb {
namespace {

constexpr uint64_t kFrameBytes = 42 + 16 + 1024;  // Ethernet, IPv4, UDP; Flare header; 256 int32

// Native HPUs, fabric_timing()'s links, hosts.bytes of int32 sums, a timeout no block reaches.
fs::Config flare_config(uint64_t bytes, unsigned trees) {
  fs::Config c = fabric_timing();
  fs::find_config_key("hpu.model")->set(c, "native");
  c.hosts.model = "allreduce";
  c.hosts.bytes = bytes;
  c.hosts.elem_bytes = 1024;
  c.hosts.timeout_ns = 1000000;
  fs::flare_config(c).trees = trees;
  return c;
}

// flare.allreduces of switch `index` as the role configures it.
std::string entries(const fs::FlareFabricRole& role, unsigned index) {
  fs::Config c;
  role.configure_switch(index, c);
  return fs::flare_config(c).allreduces;
}

// A network with the Flare role's switches and its allreduce, recording every Flare result that
// leaves a switch for a host.
struct FlareFabric {
  FlareFabric(const fs::Config& cfg, const fs::Topology& t)
      : role(cfg, t),
        net(std::make_unique<fs::Network>("net", cfg, t,
                                          [this](unsigned i, fs::Config& c) { role.configure_switch(i, c); })) {
    allreduce = role.attach(*net);
    record_frames_to_hosts(*net, t, &results);
  }
  fs::FlareFabricRole role;
  std::unique_ptr<fs::Network> net;
  std::unique_ptr<fs::NetworkAllreduce> allreduce;
  std::map<unsigned, std::vector<fs::Bytes>> results;  // by host, in departure order
};

// Block b's int32 sum over the ranks' inputs (rank r draws host_elements(sim.seed, r, ...),
// allreduce_gen.h), wrapping as two's complement: computed here element by element.
// Ranks first to first + ranks - 1 (a group of hosts.groups).
std::vector<uint32_t> int32_sum(uint64_t seed, unsigned ranks, uint64_t elements, uint64_t b, unsigned first = 0) {
  std::vector<uint32_t> sum(256, 0);
  for (unsigned r = first; r < first + ranks; ++r) {
    const fs::Bytes in = fs::host_elements(seed, r, FLARE_INT32, elements);
    for (size_t i = 0; i < 256; ++i) {
      uint32_t v;
      std::memcpy(&v, in.data() + 4 * (b * 256 + i), 4);
      sum[i] += v;
    }
  }
  return sum;
}

// Every member got every block once, block b from tree b mod N (allreduce id b mod N), with
// exactly the sum of all members' inputs.
void expect_exact_results(const FlareFabric& f, const std::vector<unsigned>& members, uint64_t blocks, unsigned trees,
                          uint64_t seed) {
  std::vector<std::vector<uint32_t>> want;
  for (uint64_t b = 0; b < blocks; ++b) want.push_back(int32_sum(seed, unsigned(members.size()), blocks * 256, b));
  for (unsigned h : members) {
    const auto it = f.results.find(h);
    ASSERT_NE(it, f.results.end()) << "host " << h;
    ASSERT_EQ(it->second.size(), blocks) << "host " << h;
    std::vector<bool> seen(blocks);
    for (const fs::Bytes& frame : it->second) {
      const fs::FrameInfo info = fs::parse_frame(frame.data(), frame.size());
      ASSERT_TRUE(info.udp);
      flare_header_t hdr;
      flare_decode(frame.data() + info.l4_offset, &hdr);
      EXPECT_EQ(hdr.kind, FLARE_KIND_RESULT);
      const uint64_t b = hdr.block_id;
      ASSERT_LT(b, blocks);
      EXPECT_EQ(hdr.allreduce_id, b % trees) << "block " << b << " comes down tree b mod N";
      EXPECT_FALSE(seen[b]) << "host " << h << " block " << b << " twice";
      seen[b] = true;
      ASSERT_EQ(info.l4_len, 16u + 1024u);
      std::vector<uint32_t> got(256);
      std::memcpy(got.data(), frame.data() + info.l4_offset + 16, 1024);
      EXPECT_EQ(got, want[b]) << "host " << h << " block " << b;
    }
  }
  const fs::AllreduceStats s = f.allreduce->stats();
  EXPECT_TRUE(s.results_ok) << f.allreduce->failure();
  EXPECT_EQ(f.allreduce->failure(), "");
  EXPECT_EQ(s.hosts, members.size());
  EXPECT_EQ(s.trees, trees);
  EXPECT_EQ(s.packets_sent, members.size() * blocks);
  EXPECT_EQ(s.bytes_sent, members.size() * blocks * kFrameBytes);
  EXPECT_EQ(s.retransmissions, 0u);
  EXPECT_EQ(s.stray_packets, 0u);
  EXPECT_EQ(s.unfinished_ranks, 0u);
  EXPECT_GT(s.done_us, 0.0);
}

// Frames that crossed the link direction leaving `from` ("node:port") in the network's report.
uint64_t link_packets(fs::StatsTree& report, const std::string& from) {
  for (const fs::StatsTree& l : report["per_link"].items())
    if (l.members().at("from").text() == from) return l.members().at("packets").uint_value();
  ADD_FAILURE() << "no link from " << from;
  return 0;
}

// The InputError message constructing the role with `cfg` on `t` throws ("" if none).
std::string role_error(const fs::Config& cfg, const fs::Topology& t) {
  try {
    fs::FlareFabricRole role(cfg, t);
  } catch (const fs::InputError& e) {
    return e.what();
  }
  return "";
}

TEST(FlareFabric, OneTreeTablesFollowTheLeafSpineWiring) {
  // leaf_spine(2 leaves, 2 spines, 2 hosts): switches leaf0, leaf1, spine0, spine1 (indices
  // 0-3); leaf ports 0-1 hosts, 2-3 spines 0-1; spine port l to leaf l. Both spines are the
  // members' centre (every leaf one hop away), so the root is one of them.
  const fs::Topology t = fs::leaf_spine(2, 2, 2, fs::SwitchKind::kInc);
  const fs::FlareFabricRole role(flare_config(4096, 1), t);
  ASSERT_EQ(role.groups()[0].trees.size(), 1u);
  const unsigned root = role.groups()[0].trees[0].root, other = root == 2 ? 3 : 2;
  ASSERT_TRUE(root == 2 || root == 3);
  const std::string up = std::to_string(root);  // leaf port to spine s is 2 + s = switch index s + 2
  EXPECT_EQ(entries(role, 0), "id=0 ports=0,1 parent=" + up + " rank=0");
  EXPECT_EQ(entries(role, 1), "id=0 ports=0,1 parent=" + up + " rank=1");
  EXPECT_EQ(entries(role, root), "id=0 ports=0,1 parent=none rank=0");
  EXPECT_EQ(entries(role, other), "none");
}

TEST(FlareFabric, TwoTreesAreRootedAtBothSpines) {
  const fs::Topology t = fs::leaf_spine(2, 2, 2, fs::SwitchKind::kInc);
  fs::Config cfg = flare_config(4096, 2);
  fs::flare_config(cfg).allreduce_id = 7;
  const fs::FlareFabricRole role(cfg, t);
  ASSERT_EQ(role.groups()[0].trees.size(), 2u);
  const unsigned r0 = role.groups()[0].trees[0].root, r1 = role.groups()[0].trees[1].root;
  EXPECT_EQ(std::set<unsigned>({r0, r1}), std::set<unsigned>({2, 3}));
  EXPECT_EQ(entries(role, 1), "id=7 ports=0,1 parent=" + std::to_string(r0) + " rank=1; id=8 ports=0,1 parent=" +
                                  std::to_string(r1) + " rank=1");
  EXPECT_EQ(entries(role, r1), "id=8 ports=0,1 parent=none rank=0");
  // Another protocol's hosts (or none): no switch takes part in an allreduce.
  fs::Config ring = cfg;
  ring.hosts.model = "ring";
  const fs::FlareFabricRole idle(ring, t);
  EXPECT_FALSE(idle.active());
  EXPECT_EQ(entries(idle, 0), "none");
}

TEST(FlareFabric, TwoLevelsTwoTreesExactWithEachSpineCarryingHalfTheBlocks) {
  quiet_systemc();
  // 2 leaves x 4 hosts, 2 spines; 16 KiB per host = 16 blocks; tree t (root spine r_t) takes
  // the blocks b with b mod 2 = t, 8 of them.
  const fs::Topology t = fs::leaf_spine(2, 2, 4, fs::SwitchKind::kInc);
  const fs::Config cfg = flare_config(16 << 10, 2);
  FlareFabric f(cfg, t);
  sc_core::sc_start();
  expect_exact_results(f, {0, 1, 2, 3, 4, 5, 6, 7}, 16, 2, cfg.seed);
  EXPECT_EQ(f.allreduce->stats().levels, 2u);
  fs::StatsTree report;
  f.net->report(report, fs::now_ps());
  for (unsigned h = 0; h < 8; ++h) EXPECT_EQ(link_packets(report, "host" + std::to_string(h) + ":0"), 16u) << h;
  for (unsigned l = 0; l < 2; ++l) {
    for (unsigned p = 0; p < 4; ++p) EXPECT_EQ(link_packets(report, "leaf" + std::to_string(l) + ":" + std::to_string(p)), 16u);
    // Up: the leaf's one aggregate per block of the tree; down: the root's result per block.
    for (unsigned s = 0; s < 2; ++s) {
      EXPECT_EQ(link_packets(report, "leaf" + std::to_string(l) + ":" + std::to_string(4 + s)), 8u);
      EXPECT_EQ(link_packets(report, "spine" + std::to_string(s) + ":" + std::to_string(l)), 8u);
    }
  }
  EXPECT_EQ(report["bytes_between_switches"].uint_value(), 2u * 2u * 8u * kFrameBytes * 2u);
  EXPECT_EQ(report["bytes_total"].uint_value(), 2u * 8u * 16u * kFrameBytes + 2u * 2u * 8u * kFrameBytes * 2u);
  EXPECT_EQ(report["drops"].uint_value(), 0u);
}

TEST(FlareFabric, ConcurrentGroupsRunOnTreesOfTheirOwn) {
  quiet_systemc();
  // hosts.groups 2 over members 0,4,1,5,2,6,3,7 of 2 leaves x 4 hosts: group 0 is hosts 0, 4, 1,
  // 5 (ranks 0-3), group 1 hosts 2, 6, 3, 7 (ranks 4-7), each on 2 trees of its own: ids 10, 11
  // and 12, 13. Leaf0 holds all four (group 0's children on ports 0-1, group 1's on 2-3), each
  // tree's parent the leaf's port 4 + s to its root spine s.
  const fs::Topology t = fs::leaf_spine(2, 2, 4, fs::SwitchKind::kInc);
  fs::Config cfg = flare_config(8 << 10, 2);
  cfg.hosts.groups = 2;
  cfg.hosts.members = "0,4,1,5,2,6,3,7";
  fs::flare_config(cfg).allreduce_id = 10;
  FlareFabric f(cfg, t);
  const auto& groups = f.role.groups();
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[1].members, (std::vector<unsigned>{2, 6, 3, 7}));
  auto up = [&](unsigned g, unsigned tree) { return std::to_string(4 + groups[g].trees[tree].root - 2); };
  EXPECT_EQ(entries(f.role, 0), "id=10 ports=0,1 parent=" + up(0, 0) + " rank=0; id=11 ports=0,1 parent=" + up(0, 1) +
                                    " rank=0; id=12 ports=2,3 parent=" + up(1, 0) + " rank=0; id=13 ports=2,3 parent=" +
                                    up(1, 1) + " rank=0");
  sc_core::sc_start();
  for (unsigned g = 0; g < 2; ++g)
    for (unsigned h : groups[g].members) {
      SCOPED_TRACE("group " + std::to_string(g) + ", host " + std::to_string(h));
      ASSERT_EQ(f.results[h].size(), 8u);
      std::set<uint64_t> blocks;
      for (const fs::Bytes& frame : f.results[h]) {
        const fs::FrameInfo info = fs::parse_frame(frame.data(), frame.size());
        flare_header_t hdr;
        flare_decode(frame.data() + info.l4_offset, &hdr);
        EXPECT_EQ(hdr.allreduce_id, 10 + 2 * g + hdr.block_id % 2);
        blocks.insert(hdr.block_id);
        std::vector<uint32_t> got(256);
        std::memcpy(got.data(), frame.data() + info.l4_offset + 16, 1024);
        EXPECT_EQ(got, int32_sum(cfg.seed, 4, 8 * 256, hdr.block_id, 4 * g)) << "block " << hdr.block_id;
      }
      EXPECT_EQ(blocks.size(), 8u);
    }
  const fs::AllreduceStats s = f.allreduce->stats();
  EXPECT_TRUE(s.results_ok) << f.allreduce->failure();
  EXPECT_EQ(s.groups, 2u);
  EXPECT_EQ(s.hosts, 8u);
  EXPECT_EQ(s.trees, 4u);
  EXPECT_EQ(s.packets_sent, 8u * 8);
}

TEST(FlareFabric, TooManyGroupsForTheAllreduceIdsAreRefused) {
  const fs::Topology t = fs::leaf_spine(2, 2, 4, fs::SwitchKind::kInc);
  fs::Config cfg = flare_config(8 << 10, 4);
  cfg.hosts.groups = 3;
  fs::flare_config(cfg).allreduce_id = 0xFFFFFFF5u;  // 3 x 4 ids from here pass 2^32 - 1
  EXPECT_EQ(role_error(cfg, t), "flare.allreduce_id + hosts.groups x flare.trees - 1 exceeds the 32-bit allreduce id");
  fs::flare_config(cfg).allreduce_id = 0xFFFFFFF4u;
  EXPECT_EQ(role_error(cfg, t), "");
  fs::flare_config(cfg).allreduce_id = 0;
  cfg.hosts.groups = 9;
  EXPECT_EQ(role_error(cfg, t), "hosts.groups: 9 Flare allreduces of at least 1 host need 9 members; hosts.members has 8");
}

// The block states switch `index` has per cluster for allreduce `id` (0 if none).
unsigned states_of(fs::Network& net, unsigned index, uint32_t id) {
  fs::Switch& sw = net.switch_at(index);
  const uint32_t l1 = sw.pspin().set_memory(fs::find_handler_set("flare_dense")).l1_bytes;
  for (const fs::FlareAllreduce& a : fs::flare_allreduces(sw.config(), l1))
    if (a.id == id) return a.states_per_cluster;
  return 0;
}

TEST(FlareFabric, BlocksWaitForEveryBlockSharingTheirStateOnTheirTree) {
  quiet_systemc();
  // Two trees over a leaf-spine of 2 leaves of 2 hosts and 2 spines (wired as leaf_spine(2, 2,
  // 2)) on switches of 2 clusters with little L1: each leaf splits its state area between both
  // trees (1 state per cluster each), each spine holds one tree (2 states). Tree t's block b
  // shares its leaf state with b - lcm(2 x 1, 2) = b - 2 and its root state with b - lcm(2 x 2, 2)
  // = b - 4. Host h1's link runs at a tenth of the others' rate, so with no window h0 would run
  // far ahead of it and send block b while b - 2 still waits at leaf0 for h1: had it done so,
  // leaf0 would have refused the block (busy state) and h0 sent it again after its timeout.
  std::string text = "switch leaf0 ports=4\nswitch leaf1 ports=4\nswitch spine0 ports=2\nswitch spine1 ports=2\n";
  for (unsigned h = 0; h < 4; ++h) text += "host h" + std::to_string(h) + "\n";
  text += "link leaf0:0 h0\nlink leaf0:1 h1 gbps=10\nlink leaf1:0 h2\nlink leaf1:1 h3\n";
  for (unsigned l = 0; l < 2; ++l)
    for (unsigned s = 0; s < 2; ++s)
      text += "link leaf" + std::to_string(l) + ":" + std::to_string(2 + s) + " spine" + std::to_string(s) + ":" +
              std::to_string(l) + "\n";
  const fs::Topology t = fs::parse_topology_text(text, "slow.topo");
  fs::Config cfg = flare_config(32 << 10, 2);
  cfg.pspin.clusters = 2;
  cfg.hosts.window = 0;
  fs::find_config_key("pspin.l1_bytes")->set(cfg, "76KiB");  // 8 packet slots of 9 KiB, 4 KiB of state area
  FlareFabric f(cfg, t);
  ASSERT_EQ(states_of(*f.net, 0, 0), 1u);
  ASSERT_EQ(states_of(*f.net, 1, 1), 1u);
  ASSERT_EQ(states_of(*f.net, f.role.groups()[0].trees[0].root, 0), 2u);
  sc_core::sc_start();
  expect_exact_results(f, {0, 1, 2, 3}, 32, 2, cfg.seed);
}

TEST(FlareFabric, ThreeLevelsExact) {
  quiet_systemc();
  const fs::Topology t = three_levels();
  const fs::Config cfg = flare_config(12 << 10, 1);  // 12 blocks
  FlareFabric f(cfg, t);
  ASSERT_EQ(f.role.groups()[0].trees[0].root, 0u);  // core
  EXPECT_EQ(entries(f.role, 0), "id=0 ports=0,1 parent=none rank=0");
  EXPECT_EQ(entries(f.role, 2), "id=0 ports=0,1 parent=2 rank=1");  // agg1
  EXPECT_EQ(entries(f.role, 6), "id=0 ports=0,1 parent=2 rank=1");  // leaf3, agg1's port 1
  sc_core::sc_start();
  expect_exact_results(f, {0, 1, 2, 3, 4, 5, 6, 7}, 12, 1, cfg.seed);
  EXPECT_EQ(f.allreduce->stats().levels, 3u);
  fs::StatsTree report;
  f.net->report(report, fs::now_ps());
  // Every link of the tree carries each block once each way.
  for (const char* from : {"leaf0:2", "leaf3:2", "agg0:2", "agg1:2", "core:0", "core:1", "agg0:0", "agg1:1", "leaf2:0"})
    EXPECT_EQ(link_packets(report, from), 12u) << from;
}

TEST(FlareFabric, MemberSubsetsLeaveTheOtherHostsAlone) {
  quiet_systemc();
  // Members 0 (leaf0 port 0), 5 and 6 (leaf1 ports 1, 2), in that rank order.
  const fs::Topology t = fs::leaf_spine(2, 2, 4, fs::SwitchKind::kInc);
  fs::Config cfg = flare_config(8 << 10, 1);
  cfg.hosts.members = "0,5,6";
  FlareFabric f(cfg, t);
  EXPECT_EQ(entries(f.role, 1).substr(0, 18), "id=0 ports=1,2 par");
  sc_core::sc_start();
  expect_exact_results(f, {0, 5, 6}, 8, 1, cfg.seed);
  for (unsigned h : {1u, 2u, 3u, 4u, 7u}) {
    EXPECT_EQ(f.results.count(h), 0u) << h;
    EXPECT_EQ(f.net->host(h).packets_in, 0u) << h;
  }
}

TEST(FlareFabric, BadMembersAndPlainSwitchesOnATreeAreRejected) {
  const fs::Topology t = fs::leaf_spine(2, 2, 2, fs::SwitchKind::kInc);
  fs::Config cfg = flare_config(4096, 1);
  cfg.hosts.members = "0,9";
  EXPECT_EQ(role_error(cfg, t), "bad value '0,9' for 'hosts.members': host 9 does not exist (the network has 4 hosts, 0-3)");
  cfg.hosts.members = "1,1";
  EXPECT_EQ(role_error(cfg, t), "bad value '1,1' for 'hosts.members': expected a host list without repeated hosts");
  cfg.hosts.members = "all";
  cfg.hosts.loss = 0.1;
  EXPECT_EQ(role_error(cfg, t), "hosts.loss: a network's Flare hosts lose nothing themselves; their losses are the "
                                "network's drops (a link's queue_bytes in a topology file)");
  cfg.hosts.loss = 0;
  fs::Topology plain = t;
  fs::apply_kinds(plain, "spine*=plain");
  const std::string what = role_error(cfg, plain);
  EXPECT_NE(what.find(": switch spine"), std::string::npos) << what;
  EXPECT_NE(what.find(" is plain (no packet-processing unit) but Flare tree 0 (root spine"), std::string::npos) << what;
}

}  // namespace
}  // namespace fs_tb
