// A network's shape, before anything is simulated: its nodes (switches, each of a kind, and
// hosts), the links between their ports with each link's own parameters, and the routes every
// switch gets from it (shortest paths; equal-cost ports become one multipath route). Built by
// the leaf-spine, fat-tree (two- and three-level) and dragonfly builders, from an edge-list
// file, or as the single switch
// flaresim has always simulated. network/network.h turns a Topology into switches and hosts.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "switch/link.h"

namespace fs {

// What a switch node is (docs/NETWORKS.md says what each models and what it leaves out).
enum class SwitchKind {
  kInc,         // in-network compute: the full PsPIN unit (ISS or native HPUs, as configured)
  kPlain,       // no packet-processing unit: it only forwards
  kCalibrated,  // handlers run natively, each charged its cycles from a calibration table
};
const char* switch_kind_name(SwitchKind k);  // "inc", "plain", "calibrated"

// The most ports a switch node may have: the ports section's limit on ports.count.
constexpr unsigned kMaxSwitchPorts = 4096;

struct TopoNode {
  std::string name;
  bool host = false;
  unsigned ports = 1;  // a host has one
  SwitchKind kind = SwitchKind::kInc;  // a switch's
  unsigned host_index = 0;             // a host's: 0, 1, ... in the order hosts were declared
  std::string where;                   // "file:line" of its declaration, or the builder's name
};

// A link's parameters where they differ from the network's defaults (the ports section).
struct LinkOverrides {
  std::optional<double> gbps;
  std::optional<uint64_t> latency_ns, queue_bytes, ecn_bytes;
  std::optional<double> loss;
  LinkParams applied_to(LinkParams defaults) const;
};

struct TopoLink {
  unsigned a = 0, a_port = 0;  // node index and port at one end
  unsigned b = 0, b_port = 0;  // and at the other
  LinkOverrides params;
  std::string where;
};

// Where a port leads: the node and port at the far end, or nothing.
struct PortPeer {
  int node = -1;  // -1: the port is not linked
  unsigned port = 0;
  int link = -1;  // index into Topology::links
};

struct Topology {
  std::vector<TopoNode> nodes;
  std::vector<TopoLink> links;

  std::vector<unsigned> hosts() const;     // node indices of the hosts, by host_index
  std::vector<unsigned> switches() const;  // node indices of the switches, in declaration order
  int find(const std::string& name) const;  // node index, or -1
  // Every node's ports, each with its peer (computed from links).
  std::vector<std::vector<PortPeer>> peers() const;
};

// Leaf-spine: `leaves` leaf switches leaf0.., each with `hosts_per_leaf` hosts on ports
// 0..hosts_per_leaf-1 and spine s on port hosts_per_leaf+s; `spines` spine switches spine0..,
// leaf l on port l. Hosts host0.. are numbered leaf by leaf. Every switch of kind `kind`.
Topology leaf_spine(unsigned leaves, unsigned spines, unsigned hosts_per_leaf, SwitchKind kind);
// The two-level k-ary fat tree (k even, >= 2): leaf_spine(k, k/2, k/2): k-port switches, k²/2
// hosts.
Topology fat_tree(unsigned k, SwitchKind kind);
// The standard three-level k-ary fat tree (k even, 2 to 256): k pods of k/2 edge switches
// edge0.. (k/2 hosts each, on ports 0..k/2-1; the pod's aggregation switches on ports k/2..) and
// k/2 aggregation switches agg0.. (the pod's edges on ports 0..k/2-1, cores on k/2..), and
// (k/2)² cores core0.. (core i k/2 + j on aggregation switch i of every pod, pod p on port p):
// k³/4 hosts, numbered edge by edge.
Topology fat_tree3(unsigned k, SwitchKind kind);
// A dragonfly (Kim et al., ISCA 2008) of g groups of a routers router<group>_<r>, fully linked
// inside a group, each with p hosts (ports 0..p-1; the group's other routers on p..p+a-2, in
// order) and h global links (ports p+a-1..), 2 <= g <= a h + 1: group i's l-th global link
// (router l / h, its global port l mod h) leads to group (i + l + 1) mod g, so that each pair of
// groups shares one (with g < a h + 1 the last global ports stay unlinked). g a p hosts, numbered
// router by router; g a (a - 1) / 2 local and g (g - 1) / 2 global links.
Topology dragonfly(unsigned a, unsigned g, unsigned h, unsigned p, SwitchKind kind);
// One switch "switch0" of `ports` ports with a host on each (host p on port p): what a
// single-switch run is.
Topology single_switch(unsigned ports, SwitchKind kind);

// An edge-list file; InputError "FILE:LINE: reason" for anything wrong in it (docs/NETWORKS.md
// gives the format), and for a topology validate() rejects.
Topology parse_topology_file(const std::string& path);
Topology parse_topology_text(const std::string& text, const std::string& file_name);

// Checks what every topology must be: unique names, every link between existing ports, no port
// used twice, every host linked to a switch, every host reachable from every other. InputError
// names the offending declaration's `where`.
void validate(const Topology& t);

// The routes: for switch node s and host h (host_index), the ports of s on shortest paths to h
// (sorted; several = equal-cost paths). next_hops(t)[i][h] for the i-th of t.switches().
std::vector<std::vector<std::vector<unsigned>>> next_hops(const Topology& t);
// The routes to the switches themselves (their fs_fabric_switch_ipv4 addresses): for the i-th
// and j-th of t.switches(), the ports of switch i on shortest paths to switch j (none for i = j).
std::vector<std::vector<std::vector<unsigned>>> switch_next_hops(const Topology& t);

}  // namespace fs
