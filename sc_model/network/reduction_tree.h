// Static reduction trees over a network (what in-network allreduces such as Flare's are laid out
// on; docs/NETWORKS.md): a tree rooted at a switch that spans the member hosts along shortest
// paths, each switch of it knowing its children's ports (member hosts and child switches, in
// port order: their ranks), its parent's port and its rank there; and the roots a run's trees
// get: switches at the centre of the members (the least distance to the farthest member's
// switch), in an order drawn from the seed.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "network/topology.h"

namespace fs {

// One switch's part in a tree.
struct TreeSwitch {
  bool in_tree = false;
  std::vector<unsigned> children;  // its ports to member hosts and child switches, ascending: rank order
  int parent_port = -1;            // -1: the root (or not in the tree)
  unsigned rank_at_parent = 0;     // its index among its parent's children
};

struct ReductionTree {
  unsigned root = 0;                  // a switch index (Topology::switches() order)
  std::vector<TreeSwitch> switches;   // by switch index
  unsigned levels = 0;                // switches on the longest root-to-member-switch path
};

// The tree rooted at switch `root` spanning the hosts `members` (host indices): every switch
// takes as parent the first neighbour, in port order, one hop nearer the root. InputError for no
// members, a member twice or a host that does not exist.
ReductionTree reduction_tree(const Topology& t, unsigned root, const std::vector<unsigned>& members);

// `count` roots for the members' trees: the switches whose farthest member is nearest, shuffled by
// `seed`, taken in turn (again from the first when count exceeds them).
std::vector<unsigned> tree_roots(const Topology& t, const std::vector<unsigned>& members, unsigned count, uint64_t seed);

// The `count` trees an in-network allreduce (named `what` in messages, e.g. "Flare") lays over
// the members: rooted at tree_roots(t, members, count, seed), in that order. InputError when a
// tree passes a plain switch, which holds no allreduce state.
std::vector<ReductionTree> allreduce_trees(const Topology& t, const std::vector<unsigned>& members, unsigned count,
                                           uint64_t seed, const std::string& what);

// Switch `index`'s part of each tree through it, as an in-network allreduce's table takes it:
// "id=I ports=P,Q parent=N|none rank=R" per tree (I = first_id + the tree's number), joined by
// "; "; "" when no tree passes the switch.
std::string tree_entries(const std::vector<ReductionTree>& trees, unsigned index, uint64_t first_id);

// Host `host`'s rank in each tree: its index among its switch's children there.
std::vector<uint16_t> host_ranks(const Topology& t, const std::vector<ReductionTree>& trees, unsigned host);

}  // namespace fs
