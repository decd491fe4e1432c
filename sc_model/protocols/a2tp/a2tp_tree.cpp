// A job's tree of switches (see a2tp_tree.h).
#include "protocols/a2tp/a2tp_tree.h"

#include <algorithm>

#include "network/route_walk.h"

namespace fs {

std::vector<A2tpTreeJob> a2tp_job_tree(const Topology& t, const std::vector<unsigned>& workers, unsigned ps,
                                       PathChoice multipath) {
  const NextHops hops = next_hops(t);
  const std::vector<unsigned> hosts = t.hosts();
  std::vector<A2tpTreeJob> tree(t.switches().size());
  for (size_t rank = 0; rank < workers.size(); ++rank) {
    if (workers[rank] == ps) continue;  // it hands its gradients to the PS on its own host
    const std::vector<RouteHop> path =
        route_walk(t, hops, hosts[workers[rank]], ps, multipath,
                   "hosts.model a2tp on a network of several switches needs dst, so that every worker's path to its "
                   "PS is fixed and the switches on them form a tree");
    for (size_t k = 0; k < path.size(); ++k) {
      A2tpTreeJob& part = tree[path[k].sw];
      part.mask.set(rank);
      const unsigned in = unsigned(path[k].in);
      if (std::find(part.down.begin(), part.down.end(), in) == part.down.end()) part.down.push_back(in);
      part.passes_on |= k + 1 < path.size();  // the last is the PS's own switch
    }
  }
  for (A2tpTreeJob& part : tree) std::sort(part.down.begin(), part.down.end());
  return tree;
}

}  // namespace fs
