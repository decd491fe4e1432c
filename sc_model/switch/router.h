// Forwarding of the frames no parser rule matched: the routing table (longest-prefix match on
// the IPv4 or IPv6 destination, inside any VLAN tags; a route may name several ports, one of
// which is chosen per packet by the destination's hash, the 5-tuple's (ECMP) or the egress
// queues (adaptive, Canary's rule), or, a multicast route, gets a copy out of each but the one it
// came in on; ports whose link is down are left out while another is up),
// then the default route: the MAC learning
// bridge (the default), a port, or drop (counted as "no_route"). The bridge learns from every
// frame the parser passes (StationLearnIf, switch/mac_table.h), per VLAN (the outer tag's id;
// untagged frames are VLAN 0), and sends a frame to the port its destination was learned on,
// filters it (drop cause "filtered") if that is the port it came in on, and floods unknown
// unicast, broadcast and multicast to every other port (a copy each). Frames go to the egress
// queues.
#pragma once
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <unordered_map>
#include <string>
#include <vector>

#include "common/delay_line.h"
#include "config/choices.h"
#include "common/stats_tree.h"
#include "config/config.h"
#include "net/headers.h"
#include "net/packet_sink.h"
#include "pspin/hpu_engine.h"
#include "switch/mac_table.h"

namespace fs {

class EgressPort;

struct Route {
  IpVersion family = IpVersion::kIpv4;
  uint32_t prefix = 0;                  // an IPv4 route's network
  std::array<uint8_t, 16> prefix6 = {};  // an IPv6 route's network
  unsigned length = 0;                  // 0..32 (IPv4), 0..128 (IPv6)
  std::vector<unsigned> ports;          // one, or the ports to choose from
  PathChoice choice = PathChoice::kDst;  // how, when there are several
  bool multicast = false;               // a copy to every port listed but the one it came in on
};

// The port a dst route over `n` ports gives destination `dst` (an IPv4 address, or an IPv6 one
// folded to 64 bits): its index among them.
size_t dst_route_index(uint64_t dst, size_t n);

// Parses "a.b.c.d/len -> ports [choice]" and "x:x::x/len -> ports [choice]" entries separated
// by ';' (ports: "4", "4-7,9"; choice: dst, ecmp or adaptive, default `default_choice`, or
// multicast: a copy out of each; host bits beyond the length are cleared); throws InputError naming 'routing.routes', the entry and
// the reason.
std::vector<Route> parse_routes(const std::string& text, unsigned num_ports,
                                PathChoice default_choice = PathChoice::kDst);
// The routing.routes entry of a multicast route for IPv4 address `address` to `ports`:
// "a.b.c.d/32 -> p,q multicast" (what protocols give the switches that copy their groups' frames).
std::string multicast_route(uint32_t address, const std::vector<unsigned>& ports);
// Clears a route's address bits beyond its length.
void clear_host_bits(Route& r);

class Router : public sc_core::sc_module, public PacketSinkIf, public StationLearnIf, public NextHopIf {
 public:
  sc_core::sc_port<PacketSinkIf, 0> egress;  // bound once per port, in port order

  // Configured by the routing.* keys (parsed here; InputError names a bad route) for a switch
  // of `num_ports` ports.
  Router(sc_core::sc_module_name name, const RoutingConfig& cfg, unsigned num_ports, Clock clock, DropLedger& drops);
  // Adds a route (a network's routes, network/routes.h); one for a prefix already in the table
  // replaces it.
  void add_route(Route r);
  // The egress ports whose queues adaptive routes compare (the switch's; without them adaptive
  // routes choose as dst does), and the seed of the ECMP hash (the switch's own, so that
  // switches spread flows independently).
  void watch_queues(const std::vector<std::unique_ptr<EgressPort>>* queues) { queues_ = queues; }
  void set_ecmp_seed(uint64_t seed) { ecmp_seed_ = seed; }
  void accept(PacketPtr p) override;
  // Learns where the frame's source lives (default route learn; otherwise nothing to do).
  void learn(const Packet& p, const Headers& h) override;

  // The port the routing table or a default port gives a frame now, or -1 if neither does (it
  // is then dropped, or bridged under default route learn).
  int lookup(const Packet& p) const;
  // The same for a packet to IPv4 address `dst` (handlers' fs_next_hop): an ECMP route hashes
  // the address alone.
  int next_hop_ipv4(uint32_t dst) const override;

  // Its counters, into the stats' "routing" object.
  void report(StatsTree& out) const;
  uint64_t routed = 0;        // frames a route sent on
  uint64_t diverted = 0;      // of them, frames an adaptive route sent off their default port
  uint64_t defaulted = 0;     // frames sent to the default port
  uint64_t bridged = 0;       // frames sent to the port their destination was learned on
  uint64_t flooded = 0;       // frames flooded
  uint64_t flood_copies = 0;  // the copies they made
  uint64_t multicast = 0;         // frames a multicast route sent on
  uint64_t multicast_copies = 0;  // the copies they made

 private:
  enum class Default { kLearn, kDrop, kPort };
  const Route* match(const Headers& h) const;  // the longest matching prefix's route, if any
  // The port of the route for this packet; *diverted (if given): an adaptive route left its
  // default port.
  unsigned choose(const Route& r, const Headers& h, bool* diverted) const;
  uint64_t ecmp_hash(const Headers& h) const;
  void forward(PacketPtr p);
  void bridge(PacketPtr p, const Headers& h);
  void flood(PacketPtr p);
  void replicate(PacketPtr p, const std::vector<unsigned>& ports);  // a multicast route's copies

  std::vector<Route> routes_;
  // Route indices + 1 by prefix length (longest first) and network, per IP version.
  std::map<unsigned, std::unordered_map<uint32_t, size_t>, std::greater<unsigned>> by_length4_;
  std::map<unsigned, std::map<std::array<uint8_t, 16>, size_t>, std::greater<unsigned>> by_length6_;
  Default default_;
  double adaptive_threshold_;
  const std::vector<std::unique_ptr<EgressPort>>* queues_ = nullptr;
  uint64_t ecmp_seed_ = 0;
  int default_port_ = -1;
  std::unique_ptr<MacTable> macs_;  // default route learn
  DropLedger& drops_;
  DelayLine<PacketPtr> stage_;
};

}  // namespace fs
