// A job's tree of switches (see a2tp_tree.h).
#include "protocols/a2tp/a2tp_tree.h"

#include <algorithm>

#include "common/errors.h"
#include "fs_packet.h"
#include "switch/router.h"

namespace fs {

std::vector<A2tpTreeJob> a2tp_job_tree(const Topology& t, const std::vector<unsigned>& workers, unsigned ps,
                                       PathChoice multipath) {
  const std::vector<unsigned> switch_nodes = t.switches(), host_nodes = t.hosts();
  std::vector<int> switch_of(t.nodes.size(), -1);
  for (size_t i = 0; i < switch_nodes.size(); ++i) switch_of[switch_nodes[i]] = int(i);
  const std::vector<std::vector<PortPeer>> peers = t.peers();
  const std::vector<std::vector<std::vector<unsigned>>> hops = next_hops(t);
  std::vector<A2tpTreeJob> tree(switch_nodes.size());
  for (size_t rank = 0; rank < workers.size(); ++rank) {
    PortPeer at = peers[host_nodes[workers[rank]]][0];  // the worker's switch, and the port it comes in on
    for (size_t steps = 0;; ++steps) {
      const int s = at.node < 0 ? -1 : switch_of[size_t(at.node)];
      if (s < 0 || steps > switch_nodes.size())
        throw std::logic_error("a2tp_job_tree: the route from host " + std::to_string(workers[rank]) + " to host " +
                               std::to_string(ps) + " does not reach it through switches");
      A2tpTreeJob& part = tree[size_t(s)];
      part.mask |= 1u << rank;
      if (std::find(part.down.begin(), part.down.end(), at.port) == part.down.end()) part.down.push_back(at.port);
      const std::vector<unsigned>& ports = hops[size_t(s)][ps];
      if (ports.size() > 1 && multipath != PathChoice::kDst)
        throw InputError("routing.multipath: hosts.model a2tp on a network of several switches needs dst, so that "
                         "every worker's path to its PS is fixed and the switches on them form a tree (switch " +
                         t.nodes[switch_nodes[size_t(s)]].name + " has " + std::to_string(ports.size()) +
                         " ports towards host " + std::to_string(ps) + ")");
      const unsigned port = ports[dst_route_index(fs_host_ipv4(ps), ports.size())];
      const PortPeer next = peers[switch_nodes[size_t(s)]][port];
      if (next.node == int(host_nodes[ps])) break;  // the PS's own switch: passes_on stays false
      part.passes_on = true;
      at = next;
    }
  }
  for (A2tpTreeJob& part : tree) std::sort(part.down.begin(), part.down.end());
  return tree;
}

}  // namespace fs
