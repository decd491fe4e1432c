// A frame's way by the routes (see route_walk.h).
#include "network/route_walk.h"

#include <stdexcept>

#include "common/errors.h"
#include "fs_packet.h"
#include "switch/router.h"

namespace fs {

namespace {

// The walk from node `from` by `ports_at(switch)` (the route's ports towards the destination,
// whose address `dst` picks among them), until `arrived(node)` says the frame is there.
template <typename PortsAt, typename Arrived>
std::vector<RouteHop> walk(const Topology& t, unsigned from, uint32_t dst, const std::string& to_name,
                           PathChoice multipath, const std::string& needs, PortsAt ports_at, Arrived arrived) {
  const std::vector<unsigned> switches = t.switches();
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
      throw std::logic_error("route_walk: the routes from " + t.nodes[from].name + " do not reach " + to_name +
                             " through switches");
    const std::vector<unsigned>& ports = ports_at(unsigned(s));
    if (ports.empty()) throw std::logic_error("route_walk: no route to " + to_name);
    if (ports.size() > 1 && multipath != PathChoice::kDst)
      throw InputError("routing.multipath: " + needs + " (switch " + t.nodes[switches[size_t(s)]].name + " has " +
                       std::to_string(ports.size()) + " ports towards " + to_name + ")");
    const unsigned out = ports[dst_route_index(dst, ports.size())];
    path.push_back({unsigned(s), in, out});
    const PortPeer next = peers[switches[size_t(s)]][out];
    if (arrived(next.node)) return path;
    at = next, in = int(next.port);
  }
}

}  // namespace

std::vector<RouteHop> route_walk(const Topology& t, const NextHops& hops, unsigned from, unsigned to,
                                 PathChoice multipath, const std::string& needs) {
  const int host = int(t.hosts()[to]);
  return walk(
      t, from, fs_host_ipv4(to), "host " + std::to_string(to), multipath, needs,
      [&](unsigned s) -> const std::vector<unsigned>& { return hops[s][to]; },
      [&](int node) { return node == host; });
}

std::vector<RouteHop> route_walk_to_switch(const Topology& t, const NextHops& switch_hops, unsigned from,
                                           unsigned to, PathChoice multipath, const std::string& needs) {
  const int node = int(t.switches()[to]);
  return walk(
      t, from, fs_fabric_switch_ipv4(to + 1), t.nodes[size_t(node)].name, multipath, needs,
      [&](unsigned s) -> const std::vector<unsigned>& { return switch_hops[s][to]; },
      [&](int n) { return n == node; });
}

}  // namespace fs
