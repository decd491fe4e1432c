// Routing table and learning bridge (see router.h).
#include "switch/router.h"

#include <arpa/inet.h>

#include <sstream>

#include "common/errors.h"
#include "common/text.h"

namespace fs {
namespace {

// "a.b.c.d" in strict decimal octets; false if it is not one.
bool parse_ipv4(const std::string& text, uint32_t* out, bool* bad_octet) {
  std::vector<std::string> octets;
  std::stringstream os(text);
  for (std::string o; std::getline(os, o, '.');) octets.push_back(o);
  if (octets.size() != 4) return false;
  uint32_t addr = 0;
  for (const std::string& o : octets) {
    uint64_t v;
    if (!parse_decimal(o, 255, &v)) return *bad_octet = true, false;
    addr = (addr << 8) | uint32_t(v);
  }
  *out = addr;
  return true;
}

Route parse_route(const std::string& entry, unsigned num_ports) {
  const bool v6 = entry.find(':') != std::string::npos;
  const std::string shape = v6 ? "expected 'x:x::x/len -> port'" : "expected 'a.b.c.d/len -> port'";
  auto bad = [&](const std::string& why) {
    throw InputError("bad value '" + entry + "' for 'routing.routes': " + why);
  };
  // Strict decimal fields: "network/len -> port".
  const size_t arrow = entry.find("->");
  if (arrow == std::string::npos) bad(shape);
  const std::string net = trim(entry.substr(0, arrow)), port_text = trim(entry.substr(arrow + 2));
  const size_t slash = net.find('/');
  if (slash == std::string::npos) bad(shape);
  Route r;
  const unsigned max_len = v6 ? 128 : 32;
  if (v6) {
    r.family = IpVersion::kIpv6;
    if (inet_pton(AF_INET6, net.substr(0, slash).c_str(), r.prefix6.data()) != 1) bad("not an IPv6 address");
  } else {
    bool bad_octet = false;
    if (!parse_ipv4(net.substr(0, slash), &r.prefix, &bad_octet)) bad(bad_octet ? "address octets must be 0-255" : shape);
  }
  uint64_t len = 0, port = 0;
  if (!parse_decimal(net.substr(slash + 1), max_len, &len)) bad("prefix length must be 0-" + std::to_string(max_len));
  if (!parse_decimal(port_text, 65535, &port)) bad(shape);
  if (port >= num_ports) bad("port " + std::to_string(port) + " does not exist");
  r.length = unsigned(len);
  r.port = unsigned(port);
  if (v6) {
    for (unsigned bit = r.length; bit < 128; ++bit) r.prefix6[bit / 8] &= uint8_t(~(0x80u >> (bit % 8)));
  } else {
    r.prefix &= len ? ~uint32_t(0) << (32 - len) : 0;
  }
  return r;
}

bool matches(const Route& r, const Headers& h) {
  if (r.family != h.ip) return false;
  if (r.family == IpVersion::kIpv4) {
    const uint32_t mask = r.length ? ~uint32_t(0) << (32 - r.length) : 0;
    return (h.dst_ipv4 & mask) == r.prefix;
  }
  for (unsigned bit = 0; bit < r.length; bit += 8) {
    const unsigned n = r.length - bit;
    const uint8_t mask = n >= 8 ? 0xFF : uint8_t(0xFF00u >> n);
    if ((h.dst_ip[bit / 8] & mask) != r.prefix6[bit / 8]) return false;
  }
  return true;
}

}  // namespace

std::vector<Route> parse_routes(const std::string& text, unsigned num_ports) {
  std::vector<Route> routes;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ';')) {
    const std::string entry = trim(item);
    if (!entry.empty()) routes.push_back(parse_route(entry, num_ports));
  }
  return routes;
}

Router::Router(sc_core::sc_module_name name, const RoutingConfig& cfg, unsigned num_ports, Clock clock,
               DropLedger& drops)
    : sc_core::sc_module(name),
      routes_(parse_routes(cfg.routes, num_ports)),
      // validate_config checked that it is "learn", "drop" or a port.
      default_(cfg.default_route == "learn" ? Default::kLearn
               : cfg.default_route == "drop" ? Default::kDrop
                                              : Default::kPort),
      drops_(drops),
      stage_("stage", clock.cycles_ps(cfg.latency_cycles), [this](PacketPtr p) { forward(std::move(p)); }) {
  if (default_ == Default::kPort) default_port_ = std::stoi(cfg.default_route);
  if (default_ == Default::kLearn) macs_ = std::make_unique<MacTable>(cfg.mac_table_entries, cfg.mac_aging_ns * kPicosPerNs);
}

void Router::accept(PacketPtr p) { stage_.push(std::move(p)); }

void Router::learn(const Packet& p, const Headers& h) {
  // A multicast source address is not a station's: not learned.
  if (macs_ && h.ok && !((h.src_mac >> 40) & 1)) macs_->learn(h.outer_vid, h.src_mac, p.ingress_port, now_ps());
}

int Router::route(const Headers& h) const {
  int best = -1, best_len = -1;
  if (!h.ok) return -1;
  for (const Route& r : routes_) {
    if (int(r.length) > best_len && matches(r, h)) {
      best = int(r.port);
      best_len = int(r.length);
    }
  }
  return best;
}

int Router::lookup(const Packet& p) const {
  const int port = route(walk_headers(p.data.data(), p.data.size()));
  return port >= 0 ? port : default_port_;
}

void Router::forward(PacketPtr p) {
  const Headers h = walk_headers(p->data.data(), p->data.size());
  const int port = route(h);
  if (port >= 0) {
    ++routed;
    egress[port]->accept(std::move(p));
  } else if (default_ == Default::kPort) {
    ++defaulted;
    egress[default_port_]->accept(std::move(p));
  } else if (default_ == Default::kLearn) {
    bridge(std::move(p), h);
  } else {
    drops_.count("no_route");
  }
}

void Router::bridge(PacketPtr p, const Headers& h) {
  if (p->data.size() < 14) {  // the parser lets no such frame through; a router on its own might
    drops_.count("malformed");
    return;
  }
  const std::optional<unsigned> port =
      h.multicast_dst() ? std::nullopt : macs_->find(h.outer_vid, h.dst_mac, now_ps());
  if (!port) return flood(std::move(p));
  if (*port == p->ingress_port) {
    drops_.count("filtered");
    return;
  }
  ++bridged;
  egress[*port]->accept(std::move(p));
}

void Router::flood(PacketPtr p) {
  const unsigned in = p->ingress_port, ports = unsigned(egress.size());
  if (ports < 2) {  // no port but the one it came in on
    drops_.count("filtered");
    return;
  }
  ++flooded;
  unsigned last = ports - 1 == in ? ports - 2 : ports - 1;
  for (unsigned port = 0; port < ports; ++port) {
    if (port == in) continue;
    ++flood_copies;
    // Each port gets its own copy (a linked switch's ingress rewrites its metadata); the last
    // takes the original.
    egress[port]->accept(port == last ? std::move(p) : std::make_shared<Packet>(*p));
  }
}

void Router::report(StatsTree& out) const {
  out["routed"] = routed, out["defaulted"] = defaulted, out["bridged"] = bridged;
  out["flooded"] = flooded, out["flood_copies"] = flood_copies;
  StatsTree& macs = out["mac_table"];
  if (macs_) {
    macs_->report(macs);
  } else {
    MacTable(0, 0).report(macs);  // the same keys, all 0
  }
}

}  // namespace fs
