// The routing table for frames no parser rule matched: longest-prefix match on the IPv4
// destination, then the default route (a port, or drop). Frames go to the egress queues.
#pragma once
#include <string>
#include <vector>

#include "common/delay_line.h"
#include "config/config.h"
#include "net/packet_sink.h"

namespace fs {

struct Route {
  uint32_t prefix;
  unsigned length;  // 0..32
  unsigned port;
};

// Parses "a.b.c.d/len -> port" entries separated by ';'; throws InputError naming
// 'routing.routes', the entry and the reason.
std::vector<Route> parse_routes(const std::string& text, unsigned num_ports);

class Router : public sc_core::sc_module, public PacketSinkIf {
 public:
  sc_core::sc_port<PacketSinkIf, 0> egress;  // bound once per port, in port order

  // Configured by the routing.* keys (parsed here; InputError names a bad route) for a switch
  // of `num_ports` ports.
  Router(sc_core::sc_module_name name, const RoutingConfig& cfg, unsigned num_ports, Clock clock, DropLedger& drops);
  void accept(PacketPtr p) override;

  // The egress port for a frame, or -1 to drop it.
  int lookup(const Packet& p) const;

 private:
  void forward(PacketPtr p);

  std::vector<Route> routes_;
  int default_port_;
  DropLedger& drops_;
  DelayLine<PacketPtr> stage_;
};

}  // namespace fs
