// Rina's groups (protocols/rina/rina_groups.h) on the 3-level fat tree (k = 4: edges 0-7 with
// hosts 2e and 2e + 1, aggregation switches 8-15, pod p's 8 + 2p and 9 + 2p over edges 2p and
// 2p + 1, cores 16-19) and the Dragonfly, worked out by hand: an INA switch makes the members
// nearest it one group (a rack; a pod below an aggregation switch; everyone below a core), the
// switches with the most such members first; a switch whose members are grouped already makes
// none; a failed agent makes no group there, and its rack's own INA switch may group the rest.
#include <gtest/gtest.h>

#include "network/topology.h"
#include "protocols/rina/rina_groups.h"

namespace fs {
namespace {

std::vector<unsigned> all(unsigned n) {
  std::vector<unsigned> v;
  for (unsigned i = 0; i < n; ++i) v.push_back(i);
  return v;
}

Topology fat_tree_with(std::initializer_list<const char*> inc) {
  Topology t = fat_tree3(4, SwitchKind::kPlain);
  for (const char* name : inc) t.nodes[size_t(t.find(name))].kind = SwitchKind::kInc;
  return t;
}

// "S:r,r,..;" for the INA groups (S the switch's position), "a" for each autonomous worker.
std::string shape(const std::vector<RinaGroup>& groups) {
  std::string out;
  for (const RinaGroup& g : groups) {
    if (!g.ina) {
      out += "a" + std::to_string(g.ranks[0]) + " ";
      continue;
    }
    out += std::to_string(g.tor) + (g.above_racks ? "^" : "") + ":";
    for (unsigned r : g.ranks) out += std::to_string(r) + ",";
    out += " ";
  }
  return out;
}

TEST(RinaGroups, AnAggregationSwitchGroupsItsPod) {
  EXPECT_EQ(shape(rina_groups(fat_tree_with({"agg0"}), all(16))),
            "8^:0,1,2,3, a4 a5 a6 a7 a8 a9 a10 a11 a12 a13 a14 a15 ");
  // Its pod's racks' INA switches and its twin over the same pod make no group of their own.
  EXPECT_EQ(shape(rina_groups(fat_tree_with({"edge0", "edge1", "agg0", "agg1", "edge2"}), all(16))),
            "8^:0,1,2,3, 2:4,5, a6 a7 a8 a9 a10 a11 a12 a13 a14 a15 ");
}

TEST(RinaGroups, ACoreGroupsEveryone) {
  EXPECT_EQ(shape(rina_groups(fat_tree_with({"core3", "agg0", "edge5"}), all(16))),
            "19^:0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15, ");
  // Members that are not hosts 0.. in order: the group is of the ranks nearest the switch.
  // Ranks 0, 2, 3 and 5 are hosts 4-7, pod 1's.
  EXPECT_EQ(shape(rina_groups(fat_tree_with({"agg2"}), {4, 0, 5, 6, 1, 7})), "10^:0,2,3,5, a1 a4 ");
}

TEST(RinaGroups, RacksOnlyWithoutSwitchesAbove) {
  EXPECT_EQ(shape(rina_groups(fat_tree_with({"edge0", "edge3"}), all(8))), "0:0,1, a2 a3 a4 a5 3:6,7, ");
  const Topology d = dragonfly(4, 9, 2, 2, SwitchKind::kInc);
  const std::vector<RinaGroup> g = rina_groups(d, all(72));
  ASSERT_EQ(g.size(), 36u);
  for (unsigned k = 0; k < 36; ++k) {
    EXPECT_EQ(g[k].tor, k);
    EXPECT_FALSE(g[k].above_racks);
    EXPECT_EQ(g[k].ranks, (std::vector<unsigned>{2 * k, 2 * k + 1}));
  }
}

TEST(RinaGroups, AFailedAgentLeavesTheRacksBelowToTheirOwnSwitches) {
  const Topology t = fat_tree_with({"agg0", "edge1"});
  std::vector<bool> down(16);
  down[0] = true;
  EXPECT_EQ(shape(rina_groups(t, all(16), down)), "a1 1:2,3, a4 a5 a6 a7 a8 a9 a10 a11 a12 a13 a14 a15 ");
  down[0] = false, down[2] = true;  // a worker excluded: the pod runs without it
  EXPECT_EQ(shape(rina_groups(t, all(16), down)), "8^:0,1,3, a4 a5 a6 a7 a8 a9 a10 a11 a12 a13 a14 a15 ");
}

}  // namespace
}  // namespace fs
