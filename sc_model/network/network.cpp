// A network of switches and hosts built from a topology (see network.h).
#include "network/network.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "common/errors.h"
#include "common/fnv1a.h"
#include "common/sc_time_util.h"
#include "common/splitmix64.h"
#include "common/stats.h"
#include "common/text.h"
#include "fs_packet.h"
#include "net/trace_reader.h"

namespace fs {
namespace {

// SystemC names hold no '.' (its hierarchy separator); a topology's names may.
std::string module_name(const std::string& node) {
  std::string s = node;
  std::replace(s.begin(), s.end(), '.', '_');
  return s;
}

bool kind_of(const std::string& name, SwitchKind* out) {
  for (SwitchKind k : {SwitchKind::kInc, SwitchKind::kPlain, SwitchKind::kCalibrated})
    if (name == switch_kind_name(k)) return *out = k, true;
  return false;
}

// The configuration a switch node runs with: the network's, with the node's port count, and
// frames no route takes (none to a host of the network) dropped as no_route rather than bridged:
// a fabric routes, and its routes reach every host. A plain switch matches nothing (it has no
// unit to hand frames to); a calibrated one runs its handlers natively, charged as
// hpu.calibration's table says.
Config switch_config(const Config& cfg, const TopoNode& node) {
  Config c = cfg;
  c.ports.count = node.ports;
  c.routing.default_route = "drop";
  if (node.kind == SwitchKind::kPlain) c.parser.rules = "";
  if (node.kind == SwitchKind::kCalibrated) c.hpu.model = HpuModel::kNative;  // charged by hpu.calibration
  return c;
}

// The routes of the i-th switch: one per host, over the ports of its shortest paths, and one
// per other switch (its fs_fabric_switch_ipv4 address: switch j is j + 1).
void install_routes(Router& router, const std::vector<std::vector<unsigned>>& to_host,
                    const std::vector<std::vector<unsigned>>& to_switch, PathChoice choice) {
  auto add = [&](uint32_t address, const std::vector<unsigned>& ports) {
    Route r;
    r.prefix = address;
    r.length = 32;
    r.ports = ports;
    r.choice = choice;
    router.add_route(std::move(r));
  };
  for (unsigned h = 0; h < to_host.size(); ++h) add(fs_host_ipv4(h), to_host[h]);
  for (unsigned j = 0; j < to_switch.size(); ++j)
    if (!to_switch[j].empty()) add(fs_fabric_switch_ipv4(j + 1), to_switch[j]);
}

// Where a link's parameters come from: the ports section and network.link_loss, then the link's
// own; the direction from node `from` draws its losses from its own stream of sim.seed.
LinkParams link_params(const Config& cfg, const Topology& t, int link, unsigned from) {
  LinkParams defaults = LinkParams::of(cfg.ports);
  if (link < 0) return defaults;  // an unlinked port
  defaults.loss = cfg.network.link_loss;
  const TopoLink& l = t.links[size_t(link)];
  LinkParams p = l.params.applied_to(defaults);
  const uint64_t direction = 2 * uint64_t(link) + (from == l.a ? 0 : 1);
  p.loss_seed = splitmix64_mix(component_seed(cfg.seed, "network.link_loss") + direction * kSplitmixGolden);
  return p;
}

// network.failures: (time, switch index) of each 'NAME@TIME' entry, earliest first; InputError
// names a bad entry.
std::vector<std::pair<Picos, size_t>> parse_failures(const std::string& text, const Topology& t,
                                                     const std::vector<int>& switch_of_node) {
  std::vector<std::pair<Picos, size_t>> out;
  std::stringstream entries(text);
  for (std::string entry; std::getline(entries, entry, ';');) {
    entry = trim(entry);
    if (entry.empty()) continue;
    auto bad = [&](const std::string& why) {
      throw InputError("bad value '" + text + "' for 'network.failures': entry '" + entry + "': " + why);
    };
    const size_t at = entry.find('@');
    if (at == std::string::npos) bad("expected NAME@TIME, e.g. spine0@20us");
    const std::string name = trim(entry.substr(0, at));
    const int node = t.find(name);
    if (node < 0 || t.nodes[size_t(node)].host) bad("'" + name + "' is not a switch of the topology");
    Picos when = 0;
    std::string err;
    if (!parse_time_token(trim(entry.substr(at + 1)), &when, &err)) bad(err);
    out.emplace_back(when, size_t(switch_of_node[size_t(node)]));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// network.lose: each 'FROM>TO:N[,N...]' entry as (FROM's node, its port towards TO, frame
// numbers); InputError names a bad entry.
struct LostFrames {
  unsigned node = 0, port = 0;
  std::vector<uint64_t> frames;
};
std::vector<LostFrames> parse_lost_frames(const std::string& text, const Topology& t) {
  std::vector<LostFrames> out;
  const std::vector<std::vector<PortPeer>> peers = t.peers();
  std::stringstream entries(text);
  for (std::string entry; std::getline(entries, entry, ';');) {
    entry = trim(entry);
    if (entry.empty()) continue;
    auto bad = [&](const std::string& why) {
      throw InputError("bad value '" + text + "' for 'network.lose': entry '" + entry + "': " + why);
    };
    const size_t arrow = entry.find('>'), colon = entry.find(':');
    if (arrow == std::string::npos || colon == std::string::npos || colon < arrow)
      bad("expected FROM>TO:N[,N...], e.g. host0>leaf0:1,5");
    const std::string from = trim(entry.substr(0, arrow)), to = trim(entry.substr(arrow + 1, colon - arrow - 1));
    const int a = t.find(from), b = t.find(to);
    if (a < 0) bad("no node '" + from + "' in the topology");
    if (b < 0) bad("no node '" + to + "' in the topology");
    LostFrames l;
    l.node = unsigned(a);
    bool linked = false;
    for (unsigned p = 0; p < peers[size_t(a)].size() && !linked; ++p)
      if (peers[size_t(a)][p].node == b) l.port = p, linked = true;
    if (!linked) bad("'" + from + "' has no link to '" + to + "'");
    std::stringstream numbers(entry.substr(colon + 1));
    for (std::string n; std::getline(numbers, n, ',');) {
      n = trim(n);
      char* end = nullptr;
      const unsigned long long v = n.empty() || n[0] == '-' ? 0 : std::strtoull(n.c_str(), &end, 10);
      if (!v || !end || *end) bad("'" + n + "' is not a frame number (1, 2, ...)");
      l.frames.push_back(v);
    }
    out.push_back(std::move(l));
  }
  return out;
}

// The distribution Canary's link-utilisation CDFs plot: min, p10, ..., max (nearest rank), mean.
void report_distribution(std::vector<double> values, StatsTree& u) {
  std::sort(values.begin(), values.end());
  const std::pair<const char*, double> points[] = {{"min", 0},   {"p10", 10}, {"p25", 25}, {"p50", 50},
                                                   {"p75", 75}, {"p90", 90}, {"p99", 99}, {"max", 100}};
  for (const auto& [key, p] : points) u[key] = nearest_rank(values, p);
  double mean = 0;
  for (double x : values) mean += x;
  u["mean"] = values.empty() ? 0.0 : mean / double(values.size());
}

}  // namespace

void apply_kinds(Topology& t, const std::string& kinds) {
  std::stringstream entries(kinds);
  for (std::string entry; std::getline(entries, entry, ';');) {
    entry = trim(entry);
    if (entry.empty()) continue;
    auto bad = [&](const std::string& why) {
      throw InputError("bad value '" + entry + "' for 'network.kinds': " + why);
    };
    const size_t eq = entry.find('=');
    if (eq == std::string::npos) bad("expected 'NAME=KIND' or 'PREFIX*=KIND'");
    const std::string pattern = trim(entry.substr(0, eq)), kind_name = trim(entry.substr(eq + 1));
    SwitchKind kind;
    if (!kind_of(kind_name, &kind)) bad("'" + kind_name + "' is not a switch kind (inc, plain or calibrated)");
    const bool prefix = !pattern.empty() && pattern.back() == '*';
    const std::string stem = prefix ? pattern.substr(0, pattern.size() - 1) : pattern;
    unsigned matched = 0;
    for (TopoNode& n : t.nodes) {
      if (n.host || !(prefix ? n.name.compare(0, stem.size(), stem) == 0 : n.name == stem)) continue;
      n.kind = kind;
      ++matched;
    }
    if (!matched) bad("no switch is named '" + pattern + "'");
  }
}

Topology topology_of(const NetworkConfig& net) {
  SwitchKind kind = SwitchKind::kInc;
  kind_of(net.kind, &kind);  // a choice key: always a kind
  Topology t;
  if (net.topology == "leaf_spine") {
    t = leaf_spine(net.leaves, net.spines, net.hosts_per_leaf, kind);
  } else if (net.topology == "fat_tree") {
    t = fat_tree(net.k, kind);
  } else if (net.topology == "fat_tree3") {
    t = fat_tree3(net.k, kind);
  } else if (net.topology == "dragonfly") {
    t = dragonfly(net.dragonfly_a, net.dragonfly_g, net.dragonfly_h, net.dragonfly_p, kind);
  } else if (net.topology == "file") {
    if (net.file.empty()) throw InputError("network.topology = file needs network.file");
    t = parse_topology_file(net.file);
  } else {
    throw std::logic_error("topology_of: a single switch is not a network");
  }
  apply_kinds(t, net.kinds);
  return t;
}

Network::Network(sc_core::sc_module_name name, const Config& cfg, Topology topology, const SwitchConfigurer& configure)
    : sc_core::sc_module(name), topology_(std::move(topology)) {
  validate(topology_);
  switch_nodes_ = topology_.switches();
  switch_of_node_.assign(topology_.nodes.size(), -1);
  const std::vector<std::vector<PortPeer>> peers = topology_.peers();
  for (size_t i = 0; i < switch_nodes_.size(); ++i) {
    const TopoNode& node = topology_.nodes[switch_nodes_[i]];
    if (node.kind == SwitchKind::kCalibrated && cfg.hpu.calibration.empty())
      throw InputError(node.where + ": switch " + node.name +
                       " is calibrated, but hpu.calibration names no calibration table (make one with flaresim run "
                       "--hpu.model iss --calibration-out FILE)");
    SwitchShape shape;
    shape.pspin = node.kind != SwitchKind::kPlain;
    for (unsigned p = 0; p < node.ports; ++p) {
      const int link = peers[switch_nodes_[i]][p].link;
      shape.links.push_back(link_params(cfg, topology_, link, switch_nodes_[i]));
    }
    switch_of_node_[switch_nodes_[i]] = int(i);
    Config c = switch_config(cfg, node);
    if (configure) configure(unsigned(i), c);
    try {
      switches_.push_back(std::make_unique<Switch>(module_name(node.name).c_str(), c, shape));
    } catch (const InputError& e) {  // what the switch's own configuration gets wrong: name it
      throw InputError("switch " + node.name + ": " + e.what());
    }
  }
  for (unsigned node : topology_.hosts()) {
    const TopoNode& n = topology_.nodes[node];
    const PortPeer& up = peers[node][0];
    hosts_.push_back(std::make_unique<HostPort>(module_name(n.name).c_str(), n.host_index,
                                                link_params(cfg, topology_, up.link, node), host_drops));
  }
  // Every link, both ways: a switch port's egress to the far end's ingress (or host).
  for (const TopoLink& l : topology_.links) {
    for (const auto& [from, from_port, to, to_port] :
         {std::tuple{l.a, l.a_port, l.b, l.b_port}, std::tuple{l.b, l.b_port, l.a, l.a_port}}) {
      PacketSinkIf* far = topology_.nodes[to].host
                              ? static_cast<PacketSinkIf*>(hosts_[topology_.nodes[to].host_index].get())
                              : switches_[switch_of_node_[to]]->ingress()[to_port].get();
      if (topology_.nodes[from].host) {
        hosts_[topology_.nodes[from].host_index]->nic().link(far);
      } else {
        switches_[switch_of_node_[from]]->egress()[from_port]->link(far);
      }
    }
  }
  const auto hops = next_hops(topology_), switch_hops = switch_next_hops(topology_);
  for (size_t i = 0; i < switches_.size(); ++i)
    install_routes(switches_[i]->router(), hops[i], switch_hops[i], cfg.routing.multipath);
  for (const LostFrames& l : parse_lost_frames(cfg.network.lose, topology_))
    for (uint64_t n : l.frames) const_cast<EgressPort&>(sender(l.node, l.port)).lose_frame(n);
  failures_ = parse_failures(cfg.network.failures, topology_, switch_of_node_);
  if (!failures_.empty()) SC_THREAD(fail_switches);
}

void Network::fail_switches() {
  const std::vector<std::vector<PortPeer>> peers = topology_.peers();
  for (const auto& [when, s] : failures_) {
    if (when > now_ps()) wait(ps_time(when - now_ps()));
    // Every link of the switch goes down, both ways: its neighbours see their port down.
    const unsigned node = switch_nodes_[s];
    for (unsigned port = 0; port < peers[node].size(); ++port) {
      const PortPeer& far = peers[node][port];
      if (far.node < 0) continue;
      switches_[s]->egress()[port]->set_down();
      const_cast<EgressPort&>(sender(unsigned(far.node), far.port)).set_down();
    }
    ++failed_switches;
  }
}

std::string Network::fatal_error() const {
  for (const auto& sw : switches_)
    if (sw->has_pspin() && !sw->pspin().fatal_error().empty())
      return std::string(sw->basename()) + ": " + sw->pspin().fatal_error();
  return "";
}

const EgressPort& Network::sender(unsigned node, unsigned port) const {
  if (topology_.nodes[node].host) return hosts_[topology_.nodes[node].host_index]->nic();
  return *switches_[switch_of_node_[node]]->egress()[port];
}

void Network::member_done() {
  if (++members_done_ != members_joined_) return;
  allreduce_end_ = now_ps();
  for (const TopoLink& l : topology_.links)
    for (const auto& [from, port] : {std::pair{l.a, l.a_port}, std::pair{l.b, l.b_port}})
      busy_at_end_.push_back(sender(from, port).busy_ps);
}

void Network::report(StatsTree& out, Picos end) const {
  out["switches"] = switches_.size();
  out["hosts"] = hosts_.size();
  out["links"] = topology_.links.size();
  uint64_t bytes_total = 0, bytes_fabric = 0, ecn = 0, drops = 0, lost = 0;
  std::vector<double> utilisation, during;  // every link direction's, over the run and while the allreduce ran
  StatsTree& links = out["per_link"].make_array();
  for (const TopoLink& l : topology_.links) {
    const bool fabric = !topology_.nodes[l.a].host && !topology_.nodes[l.b].host;
    for (const auto& [from, from_port, to, to_port] :
         {std::tuple{l.a, l.a_port, l.b, l.b_port}, std::tuple{l.b, l.b_port, l.a, l.a_port}}) {
      const EgressPort& e = sender(from, from_port);
      StatsTree& d = links.append();
      d["from"] = topology_.nodes[from].name + ":" + std::to_string(from_port);
      d["to"] = topology_.nodes[to].name + ":" + std::to_string(to_port);
      d["packets"] = e.packets_out, d["bytes"] = e.bytes_out;
      const double u = end ? double(e.busy_ps) / double(end) : 0.0;
      d["utilisation"] = u;
      const size_t k = utilisation.size();  // this direction's place in busy_at_end_
      const double while_allreduce = allreduce_end_ ? double(busy_at_end_[k]) / double(allreduce_end_) : 0.0;
      d["utilisation_during_allreduce"] = while_allreduce;
      during.push_back(while_allreduce);
      d["queue_max_bytes"] = e.queue_bytes.max();
      d["queue_mean_bytes"] = e.queue_bytes.average(end);
      d["ecn_marked"] = e.ecn_marked, d["drops"] = e.dropped, d["lost"] = e.lost;
      utilisation.push_back(u);
      bytes_total += e.bytes_out;
      if (fabric) bytes_fabric += e.bytes_out;
      ecn += e.ecn_marked, drops += e.dropped, lost += e.lost;
    }
  }
  out["bytes_total"] = bytes_total;
  out["bytes_between_switches"] = bytes_fabric;
  out["ecn_marked"] = ecn;
  out["drops"] = drops;
  out["lost"] = lost;
  out["failed_switches"] = failed_switches;
  // The distribution of link utilisation (every direction of every link): Canary's CDF plots,
  // over the whole run and while the allreduce ran (zeros until its last member is done).
  report_distribution(utilisation, out["utilisation"]);
  StatsTree& d = out["during_allreduce"];
  d["until_us"] = double(allreduce_end_) / double(kPicosPerUs);
  report_distribution(during, d["utilisation"]);
  StatsTree& hosts = out["per_host"].make_array();
  for (const auto& h : hosts_) h->report(hosts.append());
}

}  // namespace fs
