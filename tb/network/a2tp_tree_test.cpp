// A job's tree of switches (protocols/a2tp/a2tp_tree.h): on a leaf-spine worked by hand; on the
// 3-level fat tree (k = 4) a job of 15 workers and its PS on host 15 (edge7), checked against a
// walk of the routes' own (each switch's next hop to the PS by routing.multipath dst): each
// worker's bit on every switch of its path and no other, the ports it comes in on as children,
// only edge7 not passing on; the same on the Dragonfly for a job of 71 workers and its PS on
// host 71 (router8_3); refusals.
#include <gtest/gtest.h>

#include <bitset>
#include <set>

#include "common/errors.h"
#include "common/splitmix64.h"
#include "fs_packet.h"
#include "network/topology.h"
#include "protocols/a2tp/a2tp_tree.h"
#include "switch/router.h"

namespace fs {
namespace {

TEST(A2tpJobTree, LeafSpineWorkedByHand) {
  // leaf0: hosts 0-2 on ports 0-2, spine on 3; leaf1: hosts 3-5; spine0: leaf0 on 0, leaf1 on 1.
  const Topology t = leaf_spine(2, 1, 3, SwitchKind::kInc);
  const std::vector<A2tpTreeJob> tree = a2tp_job_tree(t, {0, 1, 2, 3, 4}, 5, PathChoice::kEcmp);
  ASSERT_EQ(tree.size(), 3u);
  EXPECT_EQ(tree[0].mask, 0x07u);
  EXPECT_TRUE(tree[0].passes_on);
  EXPECT_EQ(tree[0].down, (std::vector<unsigned>{0, 1, 2}));
  EXPECT_EQ(tree[2].mask, 0x07u);
  EXPECT_TRUE(tree[2].passes_on);
  EXPECT_EQ(tree[2].down, (std::vector<unsigned>{0}));
  EXPECT_EQ(tree[1].mask, 0x1Fu);
  EXPECT_FALSE(tree[1].passes_on);
  EXPECT_EQ(tree[1].down, (std::vector<unsigned>{0, 1, 3}));
}

// Workers 0 .. ps - 1 and their PS host `ps`: checks the job's tree against a walk of the routes'
// own, each switch's next hop to the PS by routing.multipath dst, naming the PS's switch.
// Returns how many switches are on the tree.
unsigned expect_the_routes_tree(const Topology& t, unsigned ps, const std::string& ps_switch) {
  std::vector<unsigned> workers;
  for (unsigned h = 0; h < ps; ++h) workers.push_back(h);
  const std::vector<A2tpTreeJob> tree = a2tp_job_tree(t, workers, ps, PathChoice::kDst);
  const std::vector<unsigned> switches = t.switches(), hosts = t.hosts();
  const auto peers = t.peers();
  const auto hops = next_hops(t);
  std::vector<std::bitset<A2TP_MAX_WORKERS>> mask(switches.size());
  std::vector<std::set<unsigned>> down(switches.size());
  for (unsigned w : workers) {
    PortPeer at = peers[hosts[w]][0];
    while (true) {
      const unsigned s = unsigned(std::find(switches.begin(), switches.end(), unsigned(at.node)) - switches.begin());
      mask[s].set(w);
      down[s].insert(at.port);
      const auto& ports = hops[s][ps];
      const PortPeer next = peers[switches[s]][ports[splitmix64_mix(fs_host_ipv4(ps)) % ports.size()]];
      if (next.node == int(hosts[ps])) break;
      at = next;
    }
  }
  unsigned on_tree = 0;
  for (size_t s = 0; s < switches.size(); ++s) {
    EXPECT_EQ(tree[s].mask, mask[s]) << t.nodes[switches[s]].name;
    EXPECT_EQ(std::set<unsigned>(tree[s].down.begin(), tree[s].down.end()), down[s]) << t.nodes[switches[s]].name;
    EXPECT_EQ(tree[s].passes_on, mask[s].any() && t.nodes[switches[s]].name != ps_switch) << t.nodes[switches[s]].name;
    on_tree += mask[s].any();
  }
  return on_tree;
}

TEST(A2tpJobTree, FatTreePathsAreTheRoutesOwn) {
  const Topology t = fat_tree3(4, SwitchKind::kInc);
  const unsigned on_tree = expect_the_routes_tree(t, 15, "edge7");
  const std::vector<A2tpTreeJob> tree = a2tp_job_tree(t, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}, 15,
                                                      PathChoice::kDst);
  EXPECT_EQ(tree[7].mask, 0x7FFFu);  // edge7, the PS's switch: every worker
  EXPECT_EQ(tree[7].down.size(), 2u);  // host 14 and one aggregation switch
  // 8 edges, one aggregation switch in each pod and one core: each switch sends all on by one port.
  EXPECT_EQ(on_tree, 8u + 4u + 1u);
}

// The Dragonfly's job of 71 workers: masks beyond one word. Every router has a worker, so all 36
// are on the tree; router8_3 (switch 35), the PS's, has them all.
TEST(A2tpJobTree, DragonflyPathsAreTheRoutesOwn) {
  const Topology t = dragonfly(4, 9, 2, 2, SwitchKind::kInc);
  EXPECT_EQ(expect_the_routes_tree(t, 71, "router8_3"), 36u);
  std::vector<unsigned> workers;
  for (unsigned h = 0; h < 71; ++h) workers.push_back(h);
  const std::vector<A2tpTreeJob> tree = a2tp_job_tree(t, workers, 71, PathChoice::kDst);
  EXPECT_EQ(tree[35].mask.count(), 71u);
  EXPECT_FALSE(tree[35].passes_on);
}

TEST(A2tpJobTree, ARouteThatIsNotFixedIsRefused) {
  const Topology t = fat_tree3(4, SwitchKind::kInc);
  try {
    a2tp_job_tree(t, {0, 1}, 15, PathChoice::kEcmp);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("routing.multipath: hosts.model a2tp on a network of several switches needs "
                                         "dst"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("switch edge0 has 2 ports towards host 15"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace fs
