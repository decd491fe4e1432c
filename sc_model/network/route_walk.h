// A frame's way through a network by its routes, worked out before anything runs: the switches
// a frame to a host (or to a switch's own address) crosses from a given node, each with the port it comes in on and the one it
// leaves by (network/topology.h's next hops; where a route has several ports, the one
// routing.multipath dst picks, switch/router.h's dst_route_index). What protocols that install
// per-switch state along fixed paths use (a2tp's aggregation trees, Rina's groups above racks).
#pragma once
#include <string>
#include <vector>

#include "config/choices.h"
#include "network/topology.h"

namespace fs {

struct RouteHop {
  unsigned sw = 0;  // the switch's position in Topology::switches()
  int in = -1;      // the port the frame comes in on (-1: it starts at this switch)
  unsigned out = 0; // the port it leaves by
};

using NextHops = std::vector<std::vector<std::vector<unsigned>>>;  // next_hops(t)

// The hops of a frame from node `from` (a host: from its switch on; a switch: from it) to host
// `to`, in order. Where a route has several ports and `multipath` is not dst, the path is not
// fixed: InputError "routing.multipath: NEEDS (switch S has N ports towards host H)".
std::vector<RouteHop> route_walk(const Topology& t, const NextHops& hops, unsigned from, unsigned to,
                                 PathChoice multipath, const std::string& needs);
// The same to switch `to` (its position in Topology::switches(), its fs_fabric_switch_ipv4
// address), by `switch_hops` (switch_next_hops(t)); the hops end at the switch before it.
std::vector<RouteHop> route_walk_to_switch(const Topology& t, const NextHops& switch_hops, unsigned from,
                                           unsigned to, PathChoice multipath, const std::string& needs);

}  // namespace fs
