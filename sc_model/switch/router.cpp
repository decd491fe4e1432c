// Routing table (see router.h).
#include "switch/router.h"

#include <sstream>

#include "common/errors.h"
#include "common/text.h"
#include "net/frame.h"

namespace fs {
namespace {

}  // namespace

std::vector<Route> parse_routes(const std::string& text, unsigned num_ports) {
  std::vector<Route> routes;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ';')) {
    const std::string entry = trim(item);
    if (entry.empty()) continue;
    auto bad = [&](const std::string& why) {
      throw InputError("bad value '" + entry + "' for 'routing.routes': " + why);
    };
    // Strict decimal fields: "a.b.c.d/len -> port".
    const size_t arrow = entry.find("->");
    if (arrow == std::string::npos) bad("expected 'a.b.c.d/len -> port'");
    const std::string net = trim(entry.substr(0, arrow)), port_text = trim(entry.substr(arrow + 2));
    const size_t slash = net.find('/');
    if (slash == std::string::npos) bad("expected 'a.b.c.d/len -> port'");
    std::vector<std::string> octets;
    std::stringstream os(net.substr(0, slash));
    for (std::string o; std::getline(os, o, '.');) octets.push_back(o);
    uint64_t addr = 0, len = 0, port = 0;
    if (octets.size() != 4) bad("expected 'a.b.c.d/len -> port'");
    for (const std::string& o : octets) {
      uint64_t v;
      if (!parse_decimal(o, 255, &v)) bad("address octets must be 0-255");
      addr = (addr << 8) | v;
    }
    if (!parse_decimal(net.substr(slash + 1), 32, &len)) bad("prefix length must be 0-32");
    if (!parse_decimal(port_text, 65535, &port)) bad("expected 'a.b.c.d/len -> port'");
    if (port >= num_ports) bad("port " + std::to_string(port) + " does not exist");
    const uint32_t mask = len ? ~uint32_t(0) << (32 - len) : 0;
    routes.push_back(Route{uint32_t(addr) & mask, unsigned(len), unsigned(port)});
  }
  return routes;
}

Router::Router(sc_core::sc_module_name name, const RoutingConfig& cfg, unsigned num_ports, Clock clock,
               DropLedger& drops)
    : sc_core::sc_module(name),
      routes_(parse_routes(cfg.routes, num_ports)),
      // validate_config checked that it is "drop" or a port.
      default_port_(cfg.default_route == "drop" ? -1 : std::stoi(cfg.default_route)),
      drops_(drops),
      stage_("stage", clock.cycles_ps(cfg.latency_cycles), [this](PacketPtr p) { forward(std::move(p)); }) {}

void Router::accept(PacketPtr p) { stage_.push(std::move(p)); }

int Router::lookup(const Packet& p) const {
  const FrameInfo f = parse_frame(p.data.data(), p.data.size());
  int best = -1, best_len = -1;
  if (f.ok && f.ipv4) {
    for (const Route& r : routes_) {
      const uint32_t mask = r.length ? ~uint32_t(0) << (32 - r.length) : 0;
      if ((f.dst_ip & mask) == r.prefix && int(r.length) > best_len) {
        best = int(r.port);
        best_len = int(r.length);
      }
    }
  }
  return best >= 0 ? best : default_port_;
}

void Router::forward(PacketPtr p) {
  const int port = lookup(*p);
  if (port < 0) {
    drops_.count("no_route");
    return;
  }
  egress[port]->accept(std::move(p));
}

}  // namespace fs
