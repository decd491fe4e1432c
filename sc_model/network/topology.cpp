// A network's shape (network/topology.h): the leaf-spine, fat-tree, three-level fat-tree,
// dragonfly and single-switch builders,
// the checks every topology must pass (validate), each port's peer, and the shortest-path routes
// from every switch to every host (next_hops). Edge-list files are topology_file.cpp's.
#include "network/topology.h"

#include <algorithm>
#include <deque>
#include <map>
#include <utility>

#include "common/errors.h"
#include "common/units.h"

namespace fs {

const char* switch_kind_name(SwitchKind k) {
  switch (k) {
    case SwitchKind::kInc:
      return "inc";
    case SwitchKind::kPlain:
      return "plain";
    case SwitchKind::kCalibrated:
      return "calibrated";
  }
  return "?";
}

LinkParams LinkOverrides::applied_to(LinkParams defaults) const {
  if (gbps) defaults.gbps = *gbps;
  if (latency_ns) defaults.latency = *latency_ns * kPicosPerNs;
  if (queue_bytes) defaults.queue_bytes = *queue_bytes;
  if (ecn_bytes) defaults.ecn_bytes = *ecn_bytes;
  if (loss) defaults.loss = *loss;
  return defaults;
}

std::vector<unsigned> Topology::hosts() const {
  std::vector<unsigned> out;
  for (unsigned i = 0; i < nodes.size(); ++i)
    if (nodes[i].host) out.push_back(i);
  std::stable_sort(out.begin(), out.end(),
                   [&](unsigned a, unsigned b) { return nodes[a].host_index < nodes[b].host_index; });
  return out;
}

std::vector<unsigned> Topology::switches() const {
  std::vector<unsigned> out;
  for (unsigned i = 0; i < nodes.size(); ++i)
    if (!nodes[i].host) out.push_back(i);
  return out;
}

int Topology::find(const std::string& name) const {
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].name == name) return int(i);
  return -1;
}

std::vector<std::vector<PortPeer>> Topology::peers() const {
  std::vector<std::vector<PortPeer>> out(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) out[i].resize(nodes[i].ports);
  for (size_t l = 0; l < links.size(); ++l) {
    const TopoLink& k = links[l];
    // Ends outside the topology (which validate() rejects) are left out rather than written past.
    auto connect = [&](unsigned node, unsigned port, unsigned far, unsigned far_port) {
      if (node < out.size() && port < out[node].size() && far < nodes.size())
        out[node][port] = PortPeer{int(far), far_port, int(l)};
    };
    connect(k.a, k.a_port, k.b, k.b_port);
    connect(k.b, k.b_port, k.a, k.a_port);
  }
  return out;
}

// ---- Builders ----

namespace {

TopoNode switch_node(const std::string& name, unsigned ports, SwitchKind kind, const char* where) {
  TopoNode n;
  n.name = name;
  n.ports = ports;
  n.kind = kind;
  n.where = where;
  return n;
}

TopoNode host_node(unsigned index, const char* where) {
  TopoNode n;
  n.name = "host" + std::to_string(index);
  n.host = true;
  n.host_index = index;
  n.where = where;
  return n;
}

void add_link(Topology& t, unsigned a, unsigned a_port, unsigned b, unsigned b_port, const char* where) {
  TopoLink l;
  l.a = a, l.a_port = a_port;
  l.b = b, l.b_port = b_port;
  l.where = where;
  t.links.push_back(l);
}

// leaf_spine()'s network, its arguments already checked; `where` names the builder.
Topology build_leaf_spine(unsigned leaves, unsigned spines, unsigned hosts_per_leaf, SwitchKind kind,
                          const char* where) {
  Topology t;
  const unsigned first_spine = leaves, first_host = leaves + spines;
  for (unsigned l = 0; l < leaves; ++l)
    t.nodes.push_back(switch_node("leaf" + std::to_string(l), hosts_per_leaf + spines, kind, where));
  for (unsigned s = 0; s < spines; ++s)
    t.nodes.push_back(switch_node("spine" + std::to_string(s), leaves, kind, where));
  for (unsigned g = 0; g < leaves * hosts_per_leaf; ++g) t.nodes.push_back(host_node(g, where));
  for (unsigned l = 0; l < leaves; ++l) {
    for (unsigned p = 0; p < hosts_per_leaf; ++p) add_link(t, l, p, first_host + l * hosts_per_leaf + p, 0, where);
    for (unsigned s = 0; s < spines; ++s) add_link(t, l, hosts_per_leaf + s, first_spine + s, l, where);
  }
  validate(t);
  return t;
}

}  // namespace

Topology leaf_spine(unsigned leaves, unsigned spines, unsigned hosts_per_leaf, SwitchKind kind) {
  const std::string prefix = "leaf-spine: ";
  if (leaves == 0) throw InputError(prefix + "leaves must be at least 1, not 0");
  if (hosts_per_leaf == 0) throw InputError(prefix + "hosts per leaf must be at least 1, not 0");
  if (spines == 0 && leaves > 1)
    throw InputError(prefix + std::to_string(leaves) + " leaves need at least one spine between them");
  if (leaves > kMaxSwitchPorts)
    throw InputError(prefix + "a spine would have " + std::to_string(leaves) + " ports (one per leaf), more than " +
                     std::to_string(kMaxSwitchPorts));
  const uint64_t leaf_ports = uint64_t(hosts_per_leaf) + spines;
  if (leaf_ports > kMaxSwitchPorts)
    throw InputError(prefix + "a leaf would have " + std::to_string(leaf_ports) +
                     " ports (hosts per leaf + spines), more than " + std::to_string(kMaxSwitchPorts));
  return build_leaf_spine(leaves, spines, hosts_per_leaf, kind, "leaf_spine");
}

Topology fat_tree(unsigned k, SwitchKind kind) {
  if (k < 2 || k % 2 != 0) throw InputError("fat tree: k must be even and at least 2, not " + std::to_string(k));
  if (k > kMaxSwitchPorts)
    throw InputError("fat tree: k must be at most " + std::to_string(kMaxSwitchPorts) + " (a switch's ports), not " +
                     std::to_string(k));
  return build_leaf_spine(k, k / 2, k / 2, kind, "fat_tree");
}

Topology fat_tree3(unsigned k, SwitchKind kind) {
  const std::string prefix = "three-level fat tree: ";
  if (k < 2 || k % 2 != 0) throw InputError(prefix + "k must be even and at least 2, not " + std::to_string(k));
  if (k > 256) throw InputError(prefix + "k must be at most 256 (k^3 / 4 hosts), not " + std::to_string(k));
  const unsigned half = k / 2, edges = k * half, cores = half * half;
  const unsigned first_agg = edges, first_core = 2 * edges, first_host = 2 * edges + cores;
  const char* where = "fat_tree3";
  Topology t;
  for (unsigned e = 0; e < edges; ++e) t.nodes.push_back(switch_node("edge" + std::to_string(e), k, kind, where));
  for (unsigned a = 0; a < edges; ++a) t.nodes.push_back(switch_node("agg" + std::to_string(a), k, kind, where));
  for (unsigned c = 0; c < cores; ++c) t.nodes.push_back(switch_node("core" + std::to_string(c), k, kind, where));
  for (unsigned h = 0; h < edges * half; ++h) t.nodes.push_back(host_node(h, where));
  for (unsigned pod = 0; pod < k; ++pod)
    for (unsigned i = 0; i < half; ++i) {
      const unsigned edge = pod * half + i, agg = first_agg + pod * half + i;
      for (unsigned p = 0; p < half; ++p) {
        add_link(t, edge, p, first_host + edge * half + p, 0, where);              // edge i's hosts
        add_link(t, edge, half + p, first_agg + pod * half + p, i, where);         // to the pod's aggregation switches
        add_link(t, agg, half + p, first_core + i * half + p, pod, where);         // aggregation i to cores i*k/2..
      }
    }
  validate(t);
  return t;
}

Topology dragonfly(unsigned a, unsigned g, unsigned h, unsigned p, SwitchKind kind) {
  const std::string prefix = "dragonfly: ";
  if (a == 0 || h == 0 || p == 0)
    throw InputError(prefix + "routers per group (a), global links per router (h) and hosts per router (p) must be "
                     "at least 1");
  if (g < 2 || uint64_t(g) > uint64_t(a) * h + 1)
    throw InputError(prefix + std::to_string(g) + " groups: from 2 to a h + 1 = " + std::to_string(uint64_t(a) * h + 1) +
                     " (each pair of groups shares one global link)");
  const uint64_t ports = uint64_t(p) + (a - 1) + h;
  if (ports > kMaxSwitchPorts)
    throw InputError(prefix + "a router would have " + std::to_string(ports) + " ports (p + a - 1 + h), more than " +
                     std::to_string(kMaxSwitchPorts));
  if (uint64_t(g) * a * p > 65536) throw InputError(prefix + "more than 65536 hosts (g a p)");
  const char* where = "dragonfly";
  Topology t;
  const unsigned routers = g * a, first_host = routers;
  for (unsigned grp = 0; grp < g; ++grp)
    for (unsigned r = 0; r < a; ++r)
      t.nodes.push_back(switch_node("router" + std::to_string(grp) + "_" + std::to_string(r), unsigned(ports), kind, where));
  for (unsigned x = 0; x < routers * p; ++x) t.nodes.push_back(host_node(x, where));
  const auto router = [a](unsigned grp, unsigned r) { return grp * a + r; };
  for (unsigned grp = 0; grp < g; ++grp)
    for (unsigned r = 0; r < a; ++r) {
      for (unsigned q = 0; q < p; ++q) add_link(t, router(grp, r), q, first_host + router(grp, r) * p + q, 0, where);
      // Local links: router r's port p + j leads to the j-th other router of its group.
      for (unsigned o = r + 1; o < a; ++o) add_link(t, router(grp, r), p + o - 1, router(grp, o), p + r, where);
    }
  // Global links: group grp's l-th one (router l / h, its global port l mod h) leads to group
  // (grp + l + 1) mod g, whose (g - 2 - l)-th one leads back; each pair of groups once.
  for (unsigned grp = 0; grp < g; ++grp)
    for (unsigned l = 0; l + 1 < g; ++l) {
      const unsigned far = (grp + l + 1) % g, back = g - 2 - l;
      if (far < grp) continue;
      add_link(t, router(grp, l / h), p + a - 1 + l % h, router(far, back / h), p + a - 1 + back % h, where);
    }
  validate(t);
  return t;
}

Topology single_switch(unsigned ports, SwitchKind kind) {
  if (ports == 0 || ports > kMaxSwitchPorts)
    throw InputError("single switch: ports must be from 1 to " + std::to_string(kMaxSwitchPorts) + ", not " +
                     std::to_string(ports));
  Topology t;
  t.nodes.push_back(switch_node("switch0", ports, kind, "single_switch"));
  for (unsigned p = 0; p < ports; ++p) {
    t.nodes.push_back(host_node(p, "single_switch"));
    add_link(t, 0, p, 1 + p, 0, "single_switch");
  }
  validate(t);
  return t;
}

// ---- The switch graph: what validate() and next_hops() search ----

namespace {

struct SwitchHop {
  unsigned port;  // the port of this switch
  unsigned to;    // the switch at its far end, as a position in Topology::switches()
};

// Each node's position in t.switches(), -1 for a host.
std::vector<int> switch_positions(const Topology& t) {
  const std::vector<unsigned> switches = t.switches();
  std::vector<int> position(t.nodes.size(), -1);
  for (size_t i = 0; i < switches.size(); ++i) position[switches[i]] = int(i);
  return position;
}

// The switch at the far end of host node `h`'s link, as a position in t.switches(); -1 if none.
int switch_of_host(const std::vector<std::vector<PortPeer>>& peers, const std::vector<int>& position, unsigned h) {
  if (peers[h].empty() || peers[h][0].node < 0) return -1;
  return position[size_t(peers[h][0].node)];
}

// For each switch (by position in t.switches()), its ports that lead to another switch, in port
// order. Hosts are not in it: they never forward.
std::vector<std::vector<SwitchHop>> switch_graph(const Topology& t, const std::vector<std::vector<PortPeer>>& peers,
                                                 const std::vector<int>& position) {
  const std::vector<unsigned> switches = t.switches();
  std::vector<std::vector<SwitchHop>> graph(switches.size());
  for (size_t i = 0; i < switches.size(); ++i) {
    const std::vector<PortPeer>& ports = peers[switches[i]];
    for (unsigned p = 0; p < ports.size(); ++p)
      if (ports[p].node >= 0 && position[size_t(ports[p].node)] >= 0)
        graph[i].push_back(SwitchHop{p, unsigned(position[size_t(ports[p].node)])});
  }
  return graph;
}

// Hops from switch `from` to every switch (-1: no path), by breadth-first search.
std::vector<int> hop_counts(const std::vector<std::vector<SwitchHop>>& graph, unsigned from) {
  std::vector<int> hops(graph.size(), -1);
  std::deque<unsigned> frontier{from};
  hops[from] = 0;
  while (!frontier.empty()) {
    const unsigned s = frontier.front();
    frontier.pop_front();
    for (const SwitchHop& h : graph[s])
      if (hops[h.to] < 0) {
        hops[h.to] = hops[s] + 1;
        frontier.push_back(h.to);
      }
  }
  return hops;
}

// For every switch, its ports on shortest paths to switch `target` (sorted; `target` itself and
// switches with no path get none).
std::vector<std::vector<unsigned>> ports_toward(const std::vector<std::vector<SwitchHop>>& graph, unsigned target) {
  const std::vector<int> hops = hop_counts(graph, target);
  std::vector<std::vector<unsigned>> ports(graph.size());
  for (size_t s = 0; s < graph.size(); ++s)
    for (const SwitchHop& h : graph[s])  // in port order, so each list comes out sorted
      if (hops[s] > 0 && hops[h.to] == hops[s] - 1) ports[s].push_back(h.port);
  return ports;
}

// ---- validate()'s checks ----

[[noreturn]] void reject(const std::string& where, const std::string& reason) {
  throw InputError(where + ": " + reason);
}

std::string kind_and_name(const TopoNode& n) { return (n.host ? "host " : "switch ") + n.name; }

std::string port_range(unsigned ports) {
  return ports == 1 ? "1 port (0)" : std::to_string(ports) + " ports (0-" + std::to_string(ports - 1) + ")";
}

// Unique names, sensible port counts, hosts numbered 0..H-1, at least one switch and one host.
void check_nodes(const Topology& t) {
  std::map<std::string, const TopoNode*> by_name;
  for (const TopoNode& n : t.nodes) {
    const auto [it, added] = by_name.emplace(n.name, &n);
    if (!added) reject(n.where, "duplicate name '" + n.name + "' (first declared at " + it->second->where + ")");
    if (n.host && n.ports != 1)
      reject(n.where, "host " + n.name + " has " + std::to_string(n.ports) + " ports; a host has one");
    if (!n.host && (n.ports == 0 || n.ports > kMaxSwitchPorts))
      reject(n.where, "switch " + n.name + " has " + std::to_string(n.ports) + " ports; a switch has 1 to " +
                          std::to_string(kMaxSwitchPorts));
  }
  const std::vector<unsigned> hosts = t.hosts();
  for (size_t i = 0; i < hosts.size(); ++i) {
    const TopoNode& h = t.nodes[hosts[i]];
    if (h.host_index != i)
      reject(h.where, "host " + h.name + " has host_index " + std::to_string(h.host_index) + "; the " +
                          std::to_string(hosts.size()) + " hosts must be numbered 0 to " +
                          std::to_string(hosts.size() - 1) + ", each once");
  }
  if (t.switches().empty()) throw InputError("the topology has no switch");
  if (t.switches().size() > 0xFFFFu)  // switch addresses (fs_fabric_switch_ipv4) are 16 bits
    throw InputError("the topology has " + std::to_string(t.switches().size()) + " switches; at most 65535");
  if (hosts.empty()) throw InputError("the topology has no host");
}

// Every link between two existing ports of two different nodes, not both hosts, no port twice.
void check_links(const Topology& t) {
  std::map<std::pair<unsigned, unsigned>, const TopoLink*> used;  // (node, port) -> its link
  for (const TopoLink& l : t.links) {
    for (unsigned node : {l.a, l.b})
      if (node >= t.nodes.size())
        reject(l.where, "a link to node " + std::to_string(node) + ", but the topology has " +
                            std::to_string(t.nodes.size()) + " nodes");
    const TopoNode &a = t.nodes[l.a], &b = t.nodes[l.b];
    if (l.a == l.b) reject(l.where, "a link from " + a.name + " to itself");
    for (const auto& [node, port] : {std::pair(l.a, l.a_port), std::pair(l.b, l.b_port)}) {
      const TopoNode& n = t.nodes[node];
      if (port >= n.ports)
        reject(l.where, kind_and_name(n) + " has " + port_range(n.ports) + ", not " + std::to_string(port));
      const auto [it, added] = used.emplace(std::pair(node, port), &l);
      if (!added) reject(l.where, n.name + ":" + std::to_string(port) + " is already linked at " + it->second->where);
    }
    if (a.host && b.host)
      reject(l.where, "a link between hosts " + a.name + " and " + b.name + " (a host links only to a switch)");
  }
}

// Every host linked to a switch, and every switch and host reachable from the first host's switch
// through switches alone. Expects check_nodes() and check_links() passed.
void check_connected(const Topology& t) {
  const std::vector<std::vector<PortPeer>> peers = t.peers();
  const std::vector<unsigned> hosts = t.hosts(), switches = t.switches();
  for (unsigned h : hosts)
    if (peers[h][0].node < 0) reject(t.nodes[h].where, "host " + t.nodes[h].name + " is not linked to any switch");
  const std::vector<int> position = switch_positions(t);
  const std::vector<int> hops =
      hop_counts(switch_graph(t, peers, position), unsigned(switch_of_host(peers, position, hosts[0])));
  const std::string first_host = t.nodes[hosts[0]].name;
  for (unsigned h : hosts)
    if (hops[size_t(switch_of_host(peers, position, h))] < 0)
      reject(t.nodes[h].where,
             "host " + t.nodes[h].name + " cannot reach host " + first_host + ": no path through switches");
  for (size_t s = 0; s < switches.size(); ++s)
    if (hops[s] < 0)
      reject(t.nodes[switches[s]].where, "switch " + t.nodes[switches[s]].name +
                                             " is not connected to the rest of the network (no path to host " +
                                             first_host + ")");
}

}  // namespace

void validate(const Topology& t) {
  check_nodes(t);
  check_links(t);
  check_connected(t);
}

std::vector<std::vector<std::vector<unsigned>>> next_hops(const Topology& t) {
  const std::vector<std::vector<PortPeer>> peers = t.peers();
  const std::vector<unsigned> switches = t.switches(), hosts = t.hosts();
  const std::vector<int> position = switch_positions(t);
  const std::vector<std::vector<SwitchHop>> graph = switch_graph(t, peers, position);

  std::vector<std::vector<std::vector<unsigned>>> routes(switches.size(),
                                                         std::vector<std::vector<unsigned>>(hosts.size()));
  // The routes toward a switch serve every host on it: one search per switch with hosts.
  std::vector<std::vector<std::vector<unsigned>>> toward(switches.size());
  for (size_t h = 0; h < hosts.size(); ++h) {
    const int s = switch_of_host(peers, position, hosts[h]);
    if (s < 0) continue;  // not linked to a switch (validate() rejects it): no route
    if (toward[size_t(s)].empty()) toward[size_t(s)] = ports_toward(graph, unsigned(s));
    for (size_t i = 0; i < switches.size(); ++i) routes[i][h] = toward[size_t(s)][i];
    routes[size_t(s)][h] = {peers[hosts[h]][0].port};
  }
  return routes;
}

std::vector<std::vector<std::vector<unsigned>>> switch_next_hops(const Topology& t) {
  const std::vector<std::vector<PortPeer>> peers = t.peers();
  const std::vector<std::vector<SwitchHop>> graph = switch_graph(t, peers, switch_positions(t));
  std::vector<std::vector<std::vector<unsigned>>> routes(graph.size(), std::vector<std::vector<unsigned>>(graph.size()));
  for (size_t j = 0; j < graph.size(); ++j) {
    const std::vector<std::vector<unsigned>> toward = ports_toward(graph, unsigned(j));
    for (size_t i = 0; i < graph.size(); ++i) routes[i][j] = toward[i];
  }
  return routes;
}

}  // namespace fs
