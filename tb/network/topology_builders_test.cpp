// The three-level fat-tree and dragonfly builders (sc_model/network/topology.cpp): node, host and
// link counts against their closed forms over several sizes, ports and peers worked by hand for
// k = 4 and for a = 4, g = 9, h = 2, p = 2 (Rina's evaluation networks), shortest-path routes
// (a fat tree's up-down paths over every aggregation or core switch; a dragonfly's at most local,
// global, local), each pair of dragonfly groups sharing exactly one global link, and the
// builders' argument errors.
#include "network/topology.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>
#include <utility>

#include "common/errors.h"
#include "network/topology_test_helpers.h"

namespace fs {
namespace {

using Ports = std::vector<unsigned>;

// Links between two switches, and between a switch and a host.
std::pair<size_t, size_t> switch_and_host_links(const Topology& t) {
  size_t between = 0, host = 0;
  for (const TopoLink& l : t.links) (t.nodes[l.a].host || t.nodes[l.b].host ? host : between) += 1;
  return {between, host};
}

TEST(FatTree3, CountsFollowTheClosedForms) {
  for (unsigned k : {2u, 4u, 6u, 8u}) {
    SCOPED_TRACE(k);
    const Topology t = fat_tree3(k, SwitchKind::kInc);
    // 5k²/4 switches (k²/2 edge, k²/2 aggregation, k²/4 core), k³/4 hosts; k³/4 host links and
    // k³/4 links at each of the two switch levels.
    EXPECT_EQ(t.switches().size(), 5u * k * k / 4);
    EXPECT_EQ(t.hosts().size(), k * k * k / 4);
    EXPECT_EQ(switch_and_host_links(t), std::make_pair(size_t(k * k * k / 2), size_t(k * k * k / 4)));
    for (unsigned s : t.switches()) EXPECT_EQ(t.nodes[s].ports, k);
  }
}

TEST(FatTree3, FourPortsWorkedByHand) {
  const Topology t = fat_tree3(4, SwitchKind::kPlain);
  // Pods of 2 edges and 2 aggregation switches: pod 1 is edge2-3 and agg2-3; cores 0-3.
  EXPECT_EQ(t.nodes[t.switches()[0]].name, "edge0");
  EXPECT_EQ(t.nodes[t.switches()[8]].name, "agg0");
  EXPECT_EQ(t.nodes[t.switches()[16]].name, "core0");
  EXPECT_EQ(t.nodes[size_t(t.find("core3"))].where, "fat_tree3");
  EXPECT_EQ(t.nodes[size_t(t.find("agg5"))].kind, SwitchKind::kPlain);
  EXPECT_EQ(peer_of(t, "host5", 0), "edge2:1");          // edge2 has hosts 4 and 5
  EXPECT_EQ(peer_of(t, "edge2", 2), "agg2:0");           // its pod's first aggregation switch
  EXPECT_EQ(peer_of(t, "edge3", 3), "agg3:1");
  EXPECT_EQ(peer_of(t, "agg3", 2), "core2:1");           // aggregation 1 of pod 1: cores 2 and 3, port 1
  EXPECT_EQ(peer_of(t, "agg3", 3), "core3:1");
  EXPECT_EQ(peer_of(t, "core0", 3), "agg6:2");           // pod 3's aggregation 0
  const auto hops = next_hops(t);
  // Switch positions: edges 0-7, aggregation 8-15, cores 16-19.
  EXPECT_EQ(hops[0][1], Ports({1}));        // edge0 to its host1
  EXPECT_EQ(hops[0][2], Ports({2, 3}));     // to host2 (edge1, same pod): either aggregation switch
  EXPECT_EQ(hops[0][15], Ports({2, 3}));    // to host15 (pod 3)
  EXPECT_EQ(hops[8][2], Ports({1}));        // agg0 down to edge1
  EXPECT_EQ(hops[8][15], Ports({2, 3}));    // agg0 up to either of its cores
  EXPECT_EQ(hops[16][15], Ports({3}));      // core0 down to pod 3
  EXPECT_EQ(hops[19][4], Ports({1}));       // core3 to pod 1
}

TEST(FatTree3, Errors) {
  const SwitchKind kind = SwitchKind::kInc;
  EXPECT_EQ(error_of([&] { fat_tree3(3, kind); }), "three-level fat tree: k must be even and at least 2, not 3");
  EXPECT_EQ(error_of([&] { fat_tree3(258, kind); }), "three-level fat tree: k must be at most 256 (k^3 / 4 hosts), not 258");
}

// The global links of a dragonfly: (group, group) pairs, each link once.
std::vector<std::pair<unsigned, unsigned>> global_pairs(const Topology& t, unsigned a) {
  std::vector<std::pair<unsigned, unsigned>> out;
  const std::vector<int> group_of = [&] {
    std::vector<int> g(t.nodes.size(), -1);
    const std::vector<unsigned> sw = t.switches();
    for (size_t i = 0; i < sw.size(); ++i) g[sw[i]] = int(i / a);
    return g;
  }();
  for (const TopoLink& l : t.links)
    if (!t.nodes[l.a].host && !t.nodes[l.b].host && group_of[l.a] != group_of[l.b])
      out.emplace_back(std::min(group_of[l.a], group_of[l.b]), std::max(group_of[l.a], group_of[l.b]));
  return out;
}

TEST(Dragonfly, CountsFollowTheClosedForms) {
  struct Shape {
    unsigned a, g, h, p;
  };
  for (const Shape& s : {Shape{4, 9, 2, 2}, Shape{2, 5, 2, 1}, Shape{3, 4, 2, 3}, Shape{8, 33, 4, 4}, Shape{1, 2, 1, 1}}) {
    SCOPED_TRACE(std::to_string(s.a) + " " + std::to_string(s.g) + " " + std::to_string(s.h) + " " + std::to_string(s.p));
    const Topology t = dragonfly(s.a, s.g, s.h, s.p, SwitchKind::kInc);
    EXPECT_EQ(t.switches().size(), size_t(s.g * s.a));
    EXPECT_EQ(t.hosts().size(), size_t(s.g * s.a * s.p));
    // g a (a - 1) / 2 local links and g (g - 1) / 2 global ones between switches; g a p to hosts.
    EXPECT_EQ(switch_and_host_links(t),
              std::make_pair(size_t(s.g * s.a * (s.a - 1) / 2 + s.g * (s.g - 1) / 2), size_t(s.g * s.a * s.p)));
    // Every two groups share exactly one global link.
    std::vector<std::pair<unsigned, unsigned>> pairs = global_pairs(t, s.a);
    const std::set<std::pair<unsigned, unsigned>> distinct(pairs.begin(), pairs.end());
    EXPECT_EQ(distinct.size(), size_t(s.g * (s.g - 1) / 2));
    EXPECT_EQ(pairs.size(), size_t(s.g * (s.g - 1) / 2));
    for (unsigned sw : t.switches()) EXPECT_EQ(t.nodes[sw].ports, s.p + s.a - 1 + s.h);
  }
}

TEST(Dragonfly, RinasNetworkWorkedByHand) {
  // a = 4 routers a group, g = 9 groups, h = 2 global links a router, p = 2 hosts a router: 36
  // routers, 72 hosts, 72 + 54 + 36 = 162 links; ports 0-1 hosts, 2-4 the group's other
  // routers, 5-6 global. Group 0's global links l = 0..7 lead to groups 1..8: router l / 2, port
  // 5 + l % 2; group d's link back is its (g - 2 - l)-th: group 1 (l = 0) back by its 7th (router
  // 3, port 6), group 8 (l = 7) by its 0th (router 0, port 5).
  const Topology t = dragonfly(4, 9, 2, 2, SwitchKind::kInc);
  EXPECT_EQ(t.links.size(), 162u);
  EXPECT_EQ(t.nodes[t.switches()[5]].name, "router1_1");
  EXPECT_EQ(peer_of(t, "host3", 0), "router0_1:1");
  EXPECT_EQ(peer_of(t, "host71", 0), "router8_3:1");
  EXPECT_EQ(peer_of(t, "router2_0", 2), "router2_1:2");  // local: router 0's first other router is 1
  EXPECT_EQ(peer_of(t, "router2_3", 4), "router2_2:4");  // router 3's third other router is 2, whose port for 3 is 4
  EXPECT_EQ(peer_of(t, "router0_0", 5), "router1_3:6");
  EXPECT_EQ(peer_of(t, "router0_3", 6), "router8_0:5");
  // Group 4's l = 2 (router 1, port 5) to group 7, whose l' = 9 - 2 - 2 = 5 is router 2, port 6.
  EXPECT_EQ(peer_of(t, "router4_1", 5), "router7_2:6");
  // Minimal routes: at most a local hop, the global link and a local hop. From router0_0 to a
  // host of group 5 (router5_0's hosts 40, 41): group 0's link to group 5 is l = 4, router 2,
  // port 5; router0_0 reaches router0_2 by its port 3.
  const auto hops = next_hops(t);
  EXPECT_EQ(hops[0][40], Ports({3}));
  EXPECT_EQ(hops[2][40], Ports({5}));
  EXPECT_EQ(hops[0][0], Ports({0}));
  EXPECT_EQ(hops[0][7], Ports({4}));  // host7 is router0_3's: the local link
}

TEST(Dragonfly, Errors) {
  const SwitchKind kind = SwitchKind::kInc;
  EXPECT_EQ(error_of([&] { dragonfly(4, 10, 2, 2, kind); }),
            "dragonfly: 10 groups: from 2 to a h + 1 = 9 (each pair of groups shares one global link)");
  EXPECT_EQ(error_of([&] { dragonfly(4, 1, 2, 2, kind); }),
            "dragonfly: 1 groups: from 2 to a h + 1 = 9 (each pair of groups shares one global link)");
  EXPECT_EQ(error_of([&] { dragonfly(0, 2, 2, 2, kind); }),
            "dragonfly: routers per group (a), global links per router (h) and hosts per router (p) must be at least 1");
  EXPECT_EQ(error_of([&] { dragonfly(2, 3, 1, 4096, kind); }),
            "dragonfly: a router would have 4098 ports (p + a - 1 + h), more than 4096");
  EXPECT_EQ(error_of([&] { dragonfly(4, 9, 2, 2, kind); }), "");
  // Fewer groups than a h + 1 leave global ports unlinked.
  const Topology t = dragonfly(4, 5, 2, 1, kind);
  EXPECT_EQ(peer_of(t, "router0_3", 5), "-");
}

}  // namespace
}  // namespace fs
