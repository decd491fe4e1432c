// Static reduction trees and their roots (see reduction_tree.h).
#include "network/reduction_tree.h"

#include <algorithm>
#include <deque>
#include <limits>

#include "common/errors.h"
#include "common/splitmix64.h"

namespace fs {
namespace {

constexpr unsigned kFar = std::numeric_limits<unsigned>::max();

// Breadth-first over the switches from switch `from`: each switch's hop count, and the port of
// its first neighbour (in port order) one hop nearer (-1 for `from` and unreachable switches).
struct Bfs {
  std::vector<unsigned> hops;
  std::vector<int> parent_port;
};

Bfs bfs(const Topology& t, const std::vector<std::vector<PortPeer>>& peers, const std::vector<int>& index_of,
        const std::vector<unsigned>& switches, unsigned from) {
  Bfs b{std::vector<unsigned>(switches.size(), kFar), std::vector<int>(switches.size(), -1)};
  std::deque<unsigned> queue{from};
  b.hops[from] = 0;
  while (!queue.empty()) {
    const unsigned s = queue.front();
    queue.pop_front();
    for (const PortPeer& p : peers[switches[s]]) {
      if (p.node < 0 || t.nodes[size_t(p.node)].host) continue;
      const unsigned n = unsigned(index_of[size_t(p.node)]);
      if (b.hops[n] != kFar) continue;
      b.hops[n] = b.hops[s] + 1;
      b.parent_port[n] = int(p.port);  // n's port towards s
      queue.push_back(n);
    }
  }
  return b;
}

// Each switch's index in t.switches(), -1 for hosts.
std::vector<int> switch_indices(const Topology& t, const std::vector<unsigned>& switches) {
  std::vector<int> index_of(t.nodes.size(), -1);
  for (size_t i = 0; i < switches.size(); ++i) index_of[switches[i]] = int(i);
  return index_of;
}

// The switch index and port each member host hangs on; InputError for a bad member list.
std::vector<std::pair<unsigned, unsigned>> member_ports(const Topology& t, const std::vector<unsigned>& members,
                                                        const std::vector<std::vector<PortPeer>>& peers,
                                                        const std::vector<int>& index_of) {
  const std::vector<unsigned> hosts = t.hosts();
  if (members.empty()) throw InputError("a reduction tree needs at least one member host");
  std::vector<bool> seen(hosts.size());
  std::vector<std::pair<unsigned, unsigned>> out;
  for (unsigned h : members) {
    if (h >= hosts.size())
      throw InputError("host " + std::to_string(h) + " does not exist (the network has " +
                       std::to_string(hosts.size()) + " hosts)");
    if (seen[h]) throw InputError("host " + std::to_string(h) + " is a member twice");
    seen[h] = true;
    const PortPeer& up = peers[hosts[h]][0];
    out.emplace_back(unsigned(index_of[size_t(up.node)]), up.port);
  }
  return out;
}

}  // namespace

ReductionTree reduction_tree(const Topology& t, unsigned root, const std::vector<unsigned>& members) {
  const std::vector<unsigned> switches = t.switches();
  const std::vector<std::vector<PortPeer>> peers = t.peers();
  const std::vector<int> index_of = switch_indices(t, switches);
  if (root >= switches.size()) throw std::logic_error("reduction_tree: no switch " + std::to_string(root));
  const auto attach = member_ports(t, members, peers, index_of);
  const Bfs b = bfs(t, peers, index_of, switches, root);
  ReductionTree tree;
  tree.root = root;
  tree.switches.resize(switches.size());
  // Each member's switch and its path up to the root join the tree.
  for (const auto& [s, port] : attach) {
    tree.switches[s].children.push_back(port);
    tree.levels = std::max(tree.levels, b.hops[s] + 1);
    for (unsigned x = s; !tree.switches[x].in_tree; ) {
      tree.switches[x].in_tree = true;
      if (x == root) break;
      const PortPeer& up = peers[switches[x]][size_t(b.parent_port[x])];
      const unsigned parent = unsigned(index_of[size_t(up.node)]);
      tree.switches[x].parent_port = b.parent_port[x];
      tree.switches[parent].children.push_back(up.port);
      x = parent;
    }
  }
  for (size_t s = 0; s < switches.size(); ++s) std::sort(tree.switches[s].children.begin(), tree.switches[s].children.end());
  // A child's rank: its port's place among its parent's children.
  for (size_t s = 0; s < switches.size(); ++s) {
    TreeSwitch& x = tree.switches[s];
    if (!x.in_tree || x.parent_port < 0) continue;
    const PortPeer& up = peers[switches[s]][size_t(x.parent_port)];
    const std::vector<unsigned>& siblings = tree.switches[size_t(index_of[size_t(up.node)])].children;
    x.rank_at_parent = unsigned(std::find(siblings.begin(), siblings.end(), up.port) - siblings.begin());
  }
  return tree;
}

std::vector<unsigned> tree_roots(const Topology& t, const std::vector<unsigned>& members, unsigned count, uint64_t seed) {
  const std::vector<unsigned> switches = t.switches();
  const std::vector<std::vector<PortPeer>> peers = t.peers();
  const std::vector<int> index_of = switch_indices(t, switches);
  const auto attach = member_ports(t, members, peers, index_of);
  // Every switch's distance to its farthest member switch (one BFS from each member switch).
  std::vector<unsigned> farthest(switches.size(), 0);
  std::vector<bool> done(switches.size());
  for (const auto& [s, port] : attach) {
    if (done[s]) continue;
    done[s] = true;
    const Bfs b = bfs(t, peers, index_of, switches, s);
    for (size_t x = 0; x < switches.size(); ++x) farthest[x] = std::max(farthest[x], b.hops[x]);
  }
  const unsigned best = *std::min_element(farthest.begin(), farthest.end());
  std::vector<unsigned> centre;
  for (unsigned x = 0; x < switches.size(); ++x)
    if (farthest[x] == best) centre.push_back(x);
  // Fisher-Yates with splitmix64 draws from the seed.
  uint64_t state = seed ^ 0x726f6f7473ull;  // "roots"
  for (size_t i = centre.size(); i > 1; --i) {
    state += kSplitmixGolden;
    std::swap(centre[i - 1], centre[splitmix64_mix(state) % i]);
  }
  std::vector<unsigned> roots;
  for (unsigned i = 0; i < count; ++i) roots.push_back(centre[i % centre.size()]);
  return roots;
}

std::vector<ReductionTree> allreduce_trees(const Topology& t, const std::vector<unsigned>& members, unsigned count,
                                           uint64_t seed, const std::string& what) {
  const std::vector<unsigned> roots = tree_roots(t, members, count, seed);
  const std::vector<unsigned> switches = t.switches();
  std::vector<ReductionTree> trees;
  for (unsigned i = 0; i < count; ++i) {
    trees.push_back(reduction_tree(t, roots[i], members));
    for (size_t s = 0; s < switches.size(); ++s) {
      const TopoNode& node = t.nodes[switches[s]];
      if (trees.back().switches[s].in_tree && node.kind == SwitchKind::kPlain)
        throw InputError(node.where + ": switch " + node.name + " is plain (no packet-processing unit) but " + what +
                         " tree " + std::to_string(i) + " (root " + t.nodes[switches[roots[i]]].name +
                         ") passes it; make it inc or calibrated (network.kind, network.kinds)");
    }
  }
  return trees;
}

std::string tree_entries(const std::vector<ReductionTree>& trees, unsigned index, uint64_t first_id) {
  std::string entries;
  for (size_t i = 0; i < trees.size(); ++i) {
    const TreeSwitch& s = trees[i].switches[index];
    if (!s.in_tree) continue;
    std::string ports;
    for (unsigned p : s.children) ports += (ports.empty() ? "" : ",") + std::to_string(p);
    entries += (entries.empty() ? "" : "; ") + std::string("id=") + std::to_string(first_id + i) + " ports=" + ports +
               " parent=" + (s.parent_port < 0 ? std::string("none") : std::to_string(s.parent_port)) +
               " rank=" + std::to_string(s.rank_at_parent);
  }
  return entries;
}

std::vector<uint16_t> host_ranks(const Topology& t, const std::vector<ReductionTree>& trees, unsigned host) {
  const PortPeer up = t.peers()[t.hosts().at(host)][0];  // a copy: peers() is made anew
  const std::vector<unsigned> switches = t.switches();
  const size_t sw = size_t(std::find(switches.begin(), switches.end(), unsigned(up.node)) - switches.begin());
  std::vector<uint16_t> ranks;
  for (const ReductionTree& tree : trees) {
    const std::vector<unsigned>& children = tree.switches.at(sw).children;
    ranks.push_back(uint16_t(std::find(children.begin(), children.end(), up.port) - children.begin()));
  }
  return ranks;
}

}  // namespace fs
