// A frame's way by the routes (see route_walk.h).
#include "network/route_walk.h"

#include <stdexcept>

#include "common/errors.h"
#include "fs_packet.h"
#include "switch/router.h"

namespace fs {

std::vector<RouteHop> route_walk(const Topology& t, const NextHops& hops, unsigned from, unsigned to,
                                 PathChoice multipath, const std::string& needs) {
  const std::vector<unsigned> switches = t.switches(), hosts = t.hosts();
  std::vector<int> switch_of(t.nodes.size(), -1);
  for (size_t i = 0; i < switches.size(); ++i) switch_of[switches[i]] = int(i);
  const std::vector<std::vector<PortPeer>> peers = t.peers();
  PortPeer at{int(from), 0, -1};
  int in = -1;
  if (t.nodes[from].host) at = peers[from][0], in = int(at.port);
  std::vector<RouteHop> path;
  while (true) {
    const int s = at.node < 0 ? -1 : switch_of[size_t(at.node)];
    if (s < 0 || path.size() > switches.size())
      throw std::logic_error("route_walk: the routes from " + t.nodes[from].name + " do not reach host " +
                             std::to_string(to) + " through switches");
    const std::vector<unsigned>& ports = hops[size_t(s)][to];
    if (ports.size() > 1 && multipath != PathChoice::kDst)
      throw InputError("routing.multipath: " + needs + " (switch " + t.nodes[switches[size_t(s)]].name + " has " +
                       std::to_string(ports.size()) + " ports towards host " + std::to_string(to) + ")");
    const unsigned out = ports[dst_route_index(fs_host_ipv4(to), ports.size())];
    path.push_back({unsigned(s), in, out});
    const PortPeer next = peers[switches[size_t(s)]][out];
    if (next.node == int(hosts[to])) return path;
    at = next, in = int(next.port);
  }
}

}  // namespace fs
