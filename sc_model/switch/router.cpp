// Routing table and learning bridge (see router.h).
#include "switch/router.h"

#include <arpa/inet.h>

#include <sstream>

#include "common/errors.h"
#include "common/splitmix64.h"
#include "common/text.h"
#include "net/flow_key.h"
#include "switch/egress_port.h"

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

// "4", "4-7", "4-7,9": strict decimal ports of a switch with `num_ports` ports, each once, in the
// order written; false (with *why) if the text is not such a list.
bool parse_route_ports(const std::string& text, unsigned num_ports, std::vector<unsigned>* out, std::string* why) {
  std::stringstream items(text);
  for (std::string item; std::getline(items, item, ',');) {
    const size_t dash = item.find('-');
    uint64_t lo = 0, hi = 0;
    if (!parse_decimal(trim(item.substr(0, dash)), 65535, &lo)) return false;
    hi = lo;
    if (dash != std::string::npos && (!parse_decimal(trim(item.substr(dash + 1)), 65535, &hi) || hi < lo)) return false;
    for (uint64_t port = lo; port <= hi; ++port) {
      if (port >= num_ports) return *why = "port " + std::to_string(port) + " does not exist", false;
      if (std::find(out->begin(), out->end(), unsigned(port)) != out->end())
        return *why = "port " + std::to_string(port) + " is listed twice", false;
      out->push_back(unsigned(port));
    }
  }
  return !out->empty();
}

Route parse_route(const std::string& entry, unsigned num_ports, PathChoice default_choice) {
  const bool v6 = entry.find(':') != std::string::npos;
  const std::string shape =
      v6 ? "expected 'x:x::x/len -> ports [dst|ecmp|adaptive]'" : "expected 'a.b.c.d/len -> ports [dst|ecmp|adaptive]'";
  auto bad = [&](const std::string& why) {
    throw InputError("bad value '" + entry + "' for 'routing.routes': " + why);
  };
  // Strict decimal fields: "network/len -> ports [choice]".
  const size_t arrow = entry.find("->");
  if (arrow == std::string::npos) bad(shape);
  const std::string net = trim(entry.substr(0, arrow));
  const std::vector<std::string> target = line_words(entry.substr(arrow + 2));
  const size_t slash = net.find('/');
  if (slash == std::string::npos || target.empty() || target.size() > 2) bad(shape);
  Route r;
  r.choice = default_choice;
  r.multicast = target.size() == 2 && target[1] == "multicast";
  if (target.size() == 2 && !r.multicast && !parse_choice(target[1], &r.choice))
    bad("'" + target[1] + "' is not a way to choose among ports (dst, ecmp or adaptive) nor multicast");
  const unsigned max_len = v6 ? 128 : 32;
  if (v6) {
    r.family = IpVersion::kIpv6;
    if (inet_pton(AF_INET6, net.substr(0, slash).c_str(), r.prefix6.data()) != 1) bad("not an IPv6 address");
  } else {
    bool bad_octet = false;
    if (!parse_ipv4(net.substr(0, slash), &r.prefix, &bad_octet)) bad(bad_octet ? "address octets must be 0-255" : shape);
  }
  uint64_t len = 0;
  if (!parse_decimal(net.substr(slash + 1), max_len, &len)) bad("prefix length must be 0-" + std::to_string(max_len));
  std::string why;
  if (!parse_route_ports(target[0], num_ports, &r.ports, &why)) bad(why.empty() ? shape : why);
  r.length = unsigned(len);
  clear_host_bits(r);
  return r;
}

}  // namespace

std::string multicast_route(uint32_t address, const std::vector<unsigned>& ports) {
  std::string text;
  for (int shift = 24; shift >= 0; shift -= 8) text += std::to_string((address >> shift) & 255) + (shift ? "." : "");
  text += "/32 ->";
  for (size_t k = 0; k < ports.size(); ++k) text += (k ? "," : " ") + std::to_string(ports[k]);
  return text + " multicast";
}

void clear_host_bits(Route& r) {
  if (r.family == IpVersion::kIpv6) {
    for (unsigned bit = r.length; bit < 128; ++bit) r.prefix6[bit / 8] &= uint8_t(~(0x80u >> (bit % 8)));
  } else {
    r.prefix &= r.length ? ~uint32_t(0) << (32 - r.length) : 0;
  }
}

std::vector<Route> parse_routes(const std::string& text, unsigned num_ports, PathChoice default_choice) {
  std::vector<Route> routes;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ';')) {
    const std::string entry = trim(item);
    if (!entry.empty()) routes.push_back(parse_route(entry, num_ports, default_choice));
  }
  return routes;
}

Router::Router(sc_core::sc_module_name name, const RoutingConfig& cfg, unsigned num_ports, Clock clock,
               DropLedger& drops)
    : sc_core::sc_module(name),
      // validate_config checked that it is "learn", "drop" or a port.
      default_(cfg.default_route == "learn" ? Default::kLearn
               : cfg.default_route == "drop" ? Default::kDrop
                                              : Default::kPort),
      adaptive_threshold_(cfg.adaptive_threshold),
      drops_(drops),
      stage_("stage", clock.cycles_ps(cfg.latency_cycles), [this](PacketPtr p) { forward(std::move(p)); }) {
  for (const Route& r : parse_routes(cfg.routes, num_ports, cfg.multipath)) add_route(r);
  if (default_ == Default::kPort) default_port_ = std::stoi(cfg.default_route);
  if (default_ == Default::kLearn) macs_ = std::make_unique<MacTable>(cfg.mac_table_entries, cfg.mac_aging_ns * kPicosPerNs);
}

void Router::add_route(Route r) {
  clear_host_bits(r);
  if (r.ports.empty()) throw std::logic_error("Router::add_route: a route without ports");
  size_t* slot = nullptr;
  if (r.family == IpVersion::kIpv6) {
    slot = &by_length6_[r.length][r.prefix6];
  } else {
    slot = &by_length4_[r.length].emplace(r.prefix, 0).first->second;
  }
  if (*slot) {  // the same prefix again: the later route replaces the earlier one
    routes_[*slot - 1] = std::move(r);
  } else {
    routes_.push_back(std::move(r));
    *slot = routes_.size();
  }
}

void Router::accept(PacketPtr p) { stage_.push(std::move(p)); }

void Router::learn(const Packet& p, const Headers& h) {
  // A multicast source address is not a station's: not learned.
  if (macs_ && h.ok && !((h.src_mac >> 40) & 1)) macs_->learn(h.outer_vid, h.src_mac, p.ingress_port, now_ps());
}

const Route* Router::match(const Headers& h) const {
  if (!h.ok) return nullptr;
  if (h.ip == IpVersion::kIpv4) {
    for (const auto& [len, table] : by_length4_) {
      const uint32_t mask = len ? ~uint32_t(0) << (32 - len) : 0;
      const auto it = table.find(h.dst_ipv4 & mask);
      if (it != table.end()) return &routes_[it->second - 1];
    }
  } else if (h.ip == IpVersion::kIpv6) {
    for (const auto& [len, table] : by_length6_) {
      std::array<uint8_t, 16> key;
      std::copy(h.dst_ip, h.dst_ip + 16, key.begin());
      for (unsigned bit = len; bit < 128; ++bit) key[bit / 8] &= uint8_t(~(0x80u >> (bit % 8)));
      const auto it = table.find(key);
      if (it != table.end()) return &routes_[it->second - 1];
    }
  }
  return nullptr;
}

size_t dst_route_index(uint64_t dst, size_t n) { return size_t(splitmix64_mix(dst) % n); }

unsigned Router::choose(const Route& r, const Headers& h, bool* diverted) const {
  const size_t n = r.ports.size();
  if (n == 1) return r.ports[0];
  // A port whose link is down (a failed neighbour, network.failures) is left out while another is up.
  if (queues_) {
    size_t up = 0;
    for (unsigned port : r.ports) up += !(*queues_)[port]->down();
    if (up && up < n) {
      Route alive = r;
      alive.ports.clear();
      for (unsigned port : r.ports)
        if (!(*queues_)[port]->down()) alive.ports.push_back(port);
      return choose(alive, h, diverted);
    }
  }
  if (r.choice == PathChoice::kEcmp) return r.ports[ecmp_hash(h) % n];
  // dst: the destination address decides (IPv6's folded to 64 bits first).
  uint64_t dst = h.dst_ipv4;
  if (h.ip == IpVersion::kIpv6)
    for (unsigned i = 0; i < 16; i += 8) {
      uint64_t half = 0;
      for (unsigned b = 0; b < 8; ++b) half = (half << 8) | h.dst_ip[i + b];
      dst = splitmix64_mix(dst ^ half);
    }
  const unsigned first = r.ports[dst_route_index(dst, n)];
  if (r.choice == PathChoice::kDst || !queues_) return first;
  // adaptive: leave the default port once its queue is above the threshold, for the least queued.
  const EgressPort& def = *(*queues_)[first];
  if (double(def.queued_bytes()) <= adaptive_threshold_ * double(def.params().queue_bytes)) return first;
  unsigned best = first;
  for (unsigned port : r.ports)
    if ((*queues_)[port]->queued_bytes() < (*queues_)[best]->queued_bytes()) best = port;
  if (diverted) *diverted = best != first;
  return best;
}

// The CRC of the 5-tuple, mixed with the switch's seed by a non-linear function: CRC-32 is
// affine, so a seed hashed along with the tuple would only XOR every switch's hash with a
// constant, and a tier of switches would all split flows the same way (hash polarisation).
uint64_t Router::ecmp_hash(const Headers& h) const {
  static const FlowKey five_tuple = parse_flow_key("5tuple");
  std::string why;
  Bytes fields;
  flow_key_bytes(five_tuple, h, nullptr, &fields, &why);  // 5tuple has no payload field: cannot fail
  return splitmix64_mix(ecmp_seed_ ^ flow_hash(fields));
}

int Router::lookup(const Packet& p) const {
  const Headers h = walk_headers(p.data.data(), p.data.size());
  const Route* r = match(h);
  return r ? int(choose(*r, h, nullptr)) : default_port_;
}

int Router::next_hop_ipv4(uint32_t dst) const {
  Headers h;
  h.ok = true;
  h.ip = IpVersion::kIpv4;
  h.dst_ipv4 = dst;
  for (unsigned i = 0; i < 4; ++i) h.dst_ip[i] = uint8_t(dst >> (24 - 8 * i));
  const Route* r = match(h);
  return r ? int(choose(*r, h, nullptr)) : default_port_;
}

void Router::forward(PacketPtr p) {
  const Headers h = walk_headers(p->data.data(), p->data.size());
  if (const Route* r = match(h)) {
    ++routed;
    if (r->multicast) return replicate(std::move(p), r->ports);
    bool off_default = false;
    const unsigned port = choose(*r, h, &off_default);
    diverted += off_default;
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

void Router::replicate(PacketPtr p, const std::vector<unsigned>& ports) {
  std::vector<unsigned> out;
  for (unsigned port : ports)
    if (port != p->ingress_port) out.push_back(port);
  if (out.empty()) {
    drops_.count("filtered");
    return;
  }
  ++multicast;
  multicast_copies += out.size();
  for (size_t k = 0; k < out.size(); ++k)
    egress[out[k]]->accept(k + 1 == out.size() ? std::move(p) : std::make_shared<Packet>(*p));
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
  out["routed"] = routed, out["diverted"] = diverted, out["defaulted"] = defaulted, out["bridged"] = bridged;
  out["flooded"] = flooded, out["flood_copies"] = flood_copies;
  out["multicast"] = multicast, out["multicast_copies"] = multicast_copies;
  StatsTree& macs = out["mac_table"];
  if (macs_) {
    macs_->report(macs);
  } else {
    MacTable(0, 0).report(macs);  // the same keys, all 0
  }
}

}  // namespace fs
