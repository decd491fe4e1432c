// Tests of the topology model (sc_model/network/topology.cpp): the leaf-spine, fat-tree and
// single-switch builders against hand-worked shapes and routes, their argument errors, each
// port's peer, link overrides, validate()'s checks on hand-built topologies, and next_hops()
// on a fabric of 64 switches and 1024 hosts.
#include "network/topology.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>

#include "common/errors.h"
#include "network/topology_test_helpers.h"

namespace fs {
namespace {

using Ports = std::vector<unsigned>;

TEST(TopologyBuilder, LeafSpineShape) {
  const Topology t = leaf_spine(4, 2, 3, SwitchKind::kPlain);
  ASSERT_EQ(t.switches().size(), 6u);
  ASSERT_EQ(t.hosts().size(), 12u);
  EXPECT_EQ(t.links.size(), 20u);  // 4 leaves x 3 hosts + 4 leaves x 2 spines
  for (unsigned l = 0; l < 4; ++l) {
    const TopoNode& leaf = t.nodes[size_t(t.find("leaf" + std::to_string(l)))];
    EXPECT_FALSE(leaf.host);
    EXPECT_EQ(leaf.ports, 5u);
    EXPECT_EQ(leaf.kind, SwitchKind::kPlain);
    EXPECT_EQ(leaf.where, "leaf_spine");
  }
  for (unsigned s = 0; s < 2; ++s) EXPECT_EQ(t.nodes[size_t(t.find("spine" + std::to_string(s)))].ports, 4u);
  // Switches come leaves first, then spines; hosts by host_index.
  EXPECT_EQ(t.nodes[t.switches()[3]].name, "leaf3");
  EXPECT_EQ(t.nodes[t.switches()[4]].name, "spine0");
  for (unsigned g = 0; g < 12; ++g) {
    const TopoNode& h = t.nodes[t.hosts()[g]];
    EXPECT_TRUE(h.host);
    EXPECT_EQ(h.name, "host" + std::to_string(g));
    EXPECT_EQ(h.host_index, g);
    EXPECT_EQ(h.ports, 1u);
  }
  EXPECT_EQ(peer_of(t, "host7", 0), "leaf2:1");
  EXPECT_EQ(peer_of(t, "leaf2", 1), "host7:0");
  EXPECT_EQ(peer_of(t, "leaf1", 4), "spine1:1");
  EXPECT_EQ(peer_of(t, "spine1", 1), "leaf1:4");
  EXPECT_EQ(peer_of(t, "leaf3", 3), "spine0:3");
  for (const TopoLink& l : t.links) {
    EXPECT_FALSE(l.params.gbps || l.params.latency_ns || l.params.queue_bytes || l.params.ecn_bytes);
    EXPECT_EQ(l.where, "leaf_spine");
  }
}

TEST(TopologyBuilder, LeafSpineNextHops) {
  const Topology t = leaf_spine(4, 2, 3, SwitchKind::kInc);
  const auto hops = next_hops(t);
  ASSERT_EQ(hops.size(), 6u);
  // Switch positions: leaves 0-3, spines 4-5.
  EXPECT_EQ(hops[0][1], Ports({1}));     // leaf0 to its own host1
  EXPECT_EQ(hops[0][5], Ports({3, 4}));  // leaf0 to host5 on leaf1: either spine
  EXPECT_EQ(hops[2][7], Ports({1}));     // leaf2 to its own host7
  EXPECT_EQ(hops[4][7], Ports({2}));     // spine0 to host7: leaf2's port
  EXPECT_EQ(hops[5][11], Ports({3}));    // spine1 to host11: leaf3's port
  for (unsigned l = 0; l < 4; ++l)
    for (unsigned h = 0; h < 12; ++h) {
      ASSERT_EQ(hops[l].size(), 12u);
      EXPECT_EQ(hops[l][h], h / 3 == l ? Ports({h % 3}) : Ports({3, 4})) << "leaf " << l << " host " << h;
      EXPECT_EQ(hops[4][h], Ports({h / 3}));
      EXPECT_EQ(hops[5][h], Ports({h / 3}));
    }
}

TEST(TopologyBuilder, OneLeafNeedsNoSpine) {
  const Topology t = leaf_spine(1, 0, 4, SwitchKind::kInc);
  EXPECT_EQ(t.switches().size(), 1u);
  EXPECT_EQ(t.hosts().size(), 4u);
  EXPECT_EQ(t.links.size(), 4u);
  EXPECT_EQ(next_hops(t), std::vector<std::vector<Ports>>({{{0}, {1}, {2}, {3}}}));
}

TEST(TopologyBuilder, FatTreeFour) {
  const Topology t = fat_tree(4, SwitchKind::kCalibrated);
  EXPECT_EQ(t.switches().size(), 6u);  // 4 leaves, 2 spines
  EXPECT_EQ(t.find("leaf3"), 3);
  EXPECT_EQ(t.find("leaf4"), -1);
  EXPECT_EQ(t.find("spine1"), 5);
  EXPECT_EQ(t.find("spine2"), -1);
  EXPECT_EQ(t.hosts().size(), 8u);
  EXPECT_EQ(t.links.size(), 16u);  // 8 host links + 4 x 2 leaf-spine links
  for (unsigned s : t.switches()) {
    EXPECT_EQ(t.nodes[s].ports, 4u);
    EXPECT_EQ(t.nodes[s].kind, SwitchKind::kCalibrated);
    EXPECT_EQ(t.nodes[s].where, "fat_tree");
  }
  EXPECT_EQ(peer_of(t, "host5", 0), "leaf2:1");
  EXPECT_EQ(peer_of(t, "leaf2", 3), "spine1:2");
}

TEST(TopologyBuilder, FatTreeEight) {
  const Topology t = fat_tree(8, SwitchKind::kInc);
  EXPECT_EQ(t.switches().size(), 12u);  // 8 leaves, 4 spines
  EXPECT_EQ(t.hosts().size(), 32u);     // 8²/2
  EXPECT_EQ(t.links.size(), 64u);       // 32 host links + 8 x 4 leaf-spine links
  for (unsigned s : t.switches()) EXPECT_EQ(t.nodes[s].ports, 8u);
  EXPECT_EQ(next_hops(t)[0][31], Ports({4, 5, 6, 7}));
}

TEST(TopologyBuilder, SingleSwitch) {
  const Topology t = single_switch(3, SwitchKind::kInc);
  ASSERT_EQ(t.switches(), std::vector<unsigned>({0}));
  EXPECT_EQ(t.nodes[0].name, "switch0");
  EXPECT_EQ(t.nodes[0].ports, 3u);
  EXPECT_EQ(t.nodes[0].where, "single_switch");
  EXPECT_EQ(t.hosts().size(), 3u);
  for (unsigned p = 0; p < 3; ++p) EXPECT_EQ(peer_of(t, "switch0", p), "host" + std::to_string(p) + ":0");
  EXPECT_EQ(next_hops(t), std::vector<std::vector<Ports>>({{{0}, {1}, {2}}}));
}

TEST(TopologyBuilder, Errors) {
  auto kind = SwitchKind::kInc;
  EXPECT_EQ(error_of([&] { leaf_spine(0, 2, 3, kind); }), "leaf-spine: leaves must be at least 1, not 0");
  EXPECT_EQ(error_of([&] { leaf_spine(2, 2, 0, kind); }), "leaf-spine: hosts per leaf must be at least 1, not 0");
  EXPECT_EQ(error_of([&] { leaf_spine(3, 0, 2, kind); }), "leaf-spine: 3 leaves need at least one spine between them");
  EXPECT_EQ(error_of([&] { leaf_spine(4097, 1, 1, kind); }),
            "leaf-spine: a spine would have 4097 ports (one per leaf), more than 4096");
  EXPECT_EQ(error_of([&] { leaf_spine(2, 4000, 100, kind); }),
            "leaf-spine: a leaf would have 4100 ports (hosts per leaf + spines), more than 4096");
  EXPECT_EQ(error_of([&] { leaf_spine(2, 4294967295u, 2, kind); }),
            "leaf-spine: a leaf would have 4294967297 ports (hosts per leaf + spines), more than 4096");
  EXPECT_EQ(error_of([&] { fat_tree(3, kind); }), "fat tree: k must be even and at least 2, not 3");
  EXPECT_EQ(error_of([&] { fat_tree(0, kind); }), "fat tree: k must be even and at least 2, not 0");
  EXPECT_EQ(error_of([&] { fat_tree(4098, kind); }), "fat tree: k must be at most 4096 (a switch's ports), not 4098");
  EXPECT_EQ(error_of([&] { single_switch(0, kind); }), "single switch: ports must be from 1 to 4096, not 0");
  EXPECT_EQ(error_of([&] { single_switch(4097, kind); }), "single switch: ports must be from 1 to 4096, not 4097");
  EXPECT_EQ(error_of([&] { fat_tree(2, kind); }), "");  // 2 leaves, 1 spine, 2 hosts
}

TEST(TopologyBuilder, SwitchKindNames) {
  EXPECT_STREQ(switch_kind_name(SwitchKind::kInc), "inc");
  EXPECT_STREQ(switch_kind_name(SwitchKind::kPlain), "plain");
  EXPECT_STREQ(switch_kind_name(SwitchKind::kCalibrated), "calibrated");
}

TEST(TopologyBuilder, LinkOverridesReplaceOnlyWhatTheyGive) {
  LinkParams defaults;
  defaults.gbps = 100;
  defaults.wire_overhead = 24;
  defaults.queue_bytes = 1 << 20;
  defaults.ecn_bytes = 0;
  defaults.latency = 7;
  const LinkParams same = LinkOverrides().applied_to(defaults);
  EXPECT_EQ(same.gbps, 100);
  EXPECT_EQ(same.queue_bytes, 1u << 20);
  EXPECT_EQ(same.ecn_bytes, 0u);
  EXPECT_EQ(same.latency, 7u);

  LinkOverrides o;
  o.gbps = 25;
  o.latency_ns = 150;
  o.queue_bytes = 65536;
  o.ecn_bytes = 4096;
  const LinkParams l = o.applied_to(defaults);
  EXPECT_EQ(l.gbps, 25);
  EXPECT_EQ(l.latency, 150000u);  // picoseconds
  EXPECT_EQ(l.queue_bytes, 65536u);
  EXPECT_EQ(l.ecn_bytes, 4096u);
  EXPECT_EQ(l.wire_overhead, 24u);

  LinkOverrides latency_only;
  latency_only.latency_ns = 0;
  EXPECT_EQ(latency_only.applied_to(defaults).latency, 0u);
  EXPECT_EQ(latency_only.applied_to(defaults).gbps, 100);
}

// A hand-built topology: switches and hosts named as given, each declared at "w:N".
struct Builder {
  Topology t;
  unsigned add_switch(const std::string& name, unsigned ports) {
    TopoNode n;
    n.name = name;
    n.ports = ports;
    return add(n);
  }
  unsigned add_host(const std::string& name) {
    TopoNode n;
    n.name = name;
    n.host = true;
    n.host_index = unsigned(t.hosts().size());
    return add(n);
  }
  void link(unsigned a, unsigned a_port, unsigned b, unsigned b_port) {
    TopoLink l;
    l.a = a, l.a_port = a_port, l.b = b, l.b_port = b_port;
    l.where = "l:" + std::to_string(t.links.size() + 1);
    t.links.push_back(l);
  }
  unsigned add(TopoNode n) {
    n.where = "w:" + std::to_string(t.nodes.size() + 1);
    t.nodes.push_back(n);
    return unsigned(t.nodes.size() - 1);
  }
  std::string error() const {
    return error_of([&] { validate(t); });
  }
};

TEST(TopologyBuilder, PeersOfAHandBuiltTopology) {
  Builder b;
  const unsigned s = b.add_switch("s", 3), h0 = b.add_host("h0"), h1 = b.add_host("h1");
  b.link(h1, 0, s, 2);
  b.link(s, 0, h0, 0);
  EXPECT_EQ(b.error(), "");
  const auto peers = b.t.peers();
  ASSERT_EQ(peers.size(), 3u);
  ASSERT_EQ(peers[s].size(), 3u);
  EXPECT_EQ(peers[s][0].node, int(h0));
  EXPECT_EQ(peers[s][0].port, 0u);
  EXPECT_EQ(peers[s][0].link, 1);
  EXPECT_EQ(peers[s][1].node, -1);  // not linked
  EXPECT_EQ(peers[s][1].link, -1);
  EXPECT_EQ(peers[s][2].node, int(h1));
  EXPECT_EQ(peers[s][2].link, 0);
  ASSERT_EQ(peers[h1].size(), 1u);
  EXPECT_EQ(peers[h1][0].node, int(s));
  EXPECT_EQ(peers[h1][0].port, 2u);
  EXPECT_EQ(next_hops(b.t), std::vector<std::vector<Ports>>({{{0}, {2}}}));
}

TEST(TopologyBuilder, ValidateNodes) {
  {
    Builder b;
    b.add_switch("s", 2);
    b.add_host("s");
    EXPECT_EQ(b.error(), "w:2: duplicate name 's' (first declared at w:1)");
  }
  {
    Builder b;
    b.add_switch("s", 0);
    EXPECT_EQ(b.error(), "w:1: switch s has 0 ports; a switch has 1 to 4096");
  }
  {
    Builder b;
    b.add_switch("s", 1);
    TopoNode h;
    h.name = "h";
    h.host = true;
    h.ports = 2;
    b.add(h);
    EXPECT_EQ(b.error(), "w:2: host h has 2 ports; a host has one");
  }
  {
    Builder b;
    b.add_switch("s", 2);
    b.add_host("h0");
    const unsigned h1 = b.add_host("h1");
    b.t.nodes[h1].host_index = 0;
    EXPECT_EQ(b.error(), "w:3: host h1 has host_index 0; the 2 hosts must be numbered 0 to 1, each once");
  }
  {
    Builder b;
    b.add_host("h");
    EXPECT_EQ(b.error(), "the topology has no switch");
  }
  {
    Builder b;
    b.add_switch("s", 1);
    EXPECT_EQ(b.error(), "the topology has no host");
  }
}

TEST(TopologyBuilder, ValidateLinks) {
  Builder base;
  const unsigned s = base.add_switch("s", 2), t = base.add_switch("t", 2), h0 = base.add_host("h0"),
                 h1 = base.add_host("h1");
  {
    Builder b = base;
    b.link(s, 0, 9, 0);
    EXPECT_EQ(b.error(), "l:1: a link to node 9, but the topology has 4 nodes");
  }
  {
    Builder b = base;
    b.link(s, 0, s, 1);
    EXPECT_EQ(b.error(), "l:1: a link from s to itself");
  }
  {
    Builder b = base;
    b.link(s, 2, h0, 0);
    EXPECT_EQ(b.error(), "l:1: switch s has 2 ports (0-1), not 2");
  }
  {
    Builder b = base;
    b.link(s, 0, h0, 1);
    EXPECT_EQ(b.error(), "l:1: host h0 has 1 port (0), not 1");
  }
  {
    Builder b = base;
    b.link(h0, 0, h1, 0);
    EXPECT_EQ(b.error(), "l:1: a link between hosts h0 and h1 (a host links only to a switch)");
  }
  {
    Builder b = base;
    b.link(s, 0, h0, 0);
    b.link(t, 0, h1, 0);
    b.link(s, 1, t, 1);
    b.link(h0, 0, t, 1);
    EXPECT_EQ(b.error(), "l:4: h0:0 is already linked at l:1");
  }
}

TEST(TopologyBuilder, ValidateConnectivity) {
  Builder base;
  const unsigned s = base.add_switch("s", 2), t = base.add_switch("t", 2), h0 = base.add_host("h0"),
                 h1 = base.add_host("h1");
  {
    Builder b = base;
    b.link(s, 0, h0, 0);
    b.link(s, 1, t, 0);
    EXPECT_EQ(b.error(), "w:4: host h1 is not linked to any switch");
  }
  {
    Builder b = base;
    b.link(s, 0, h0, 0);
    b.link(t, 0, h1, 0);
    EXPECT_EQ(b.error(), "w:4: host h1 cannot reach host h0: no path through switches");
  }
  {
    Builder b = base;
    b.link(s, 0, h0, 0);
    b.link(s, 1, h1, 0);
    EXPECT_EQ(b.error(), "w:2: switch t is not connected to the rest of the network (no path to host h0)");
  }
  {
    Builder b = base;
    b.link(s, 0, h0, 0);
    b.link(t, 1, h1, 0);
    b.link(t, 0, s, 1);
    EXPECT_EQ(b.error(), "");
    EXPECT_EQ(next_hops(b.t), std::vector<std::vector<Ports>>({{{0}, {1}}, {{0}, {1}}}));
  }
}

TEST(TopologyBuilder, NextHopsOfALargeFabricAreFast) {
  const Topology t = leaf_spine(32, 32, 32, SwitchKind::kPlain);  // 64 switches, 1024 hosts
  const auto start = std::chrono::steady_clock::now();
  const auto hops = next_hops(t);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 1.0);
  ASSERT_EQ(hops.size(), 64u);
  Ports spines;
  for (unsigned s = 0; s < 32; ++s) spines.push_back(32 + s);
  for (unsigned h = 0; h < 1024; ++h) {
    ASSERT_EQ(hops[0][h], h < 32 ? Ports({h}) : spines);
    ASSERT_EQ(hops[63][h], Ports({h / 32}));
  }
}

}  // namespace
}  // namespace fs
