// A network of switches and hosts, built from a Topology (network/topology.h): one Switch per
// switch node (the full PsPIN unit or plain, as the node's kind says; every port with its link's
// parameters), one HostPort per host, every link wired in both directions, and each switch's
// routes to every host (host h: fs_host_ipv4(h)/32 over the ports of its shortest paths, one
// chosen per packet as routing.multipath says: up/down routing in a leaf-spine or fat tree).
// Links may lose frames (network.link_loss, a topology file's loss=) and switches may fail
// (network.failures: all their links go down; routes avoid down ports where they can). It
// reports what crossed every link. What runs on the hosts is attached afterwards
// (network/traffic.h, a protocol's host agents).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/stats_tree.h"
#include "config/config.h"
#include "network/host_port.h"
#include "network/topology.h"
#include "switch/switch.h"

namespace fs {

// The topology the network section describes (the builders, or the edge-list file), with
// network.kinds applied; InputError for a bad file or kind entry.
Topology topology_of(const NetworkConfig& net);
// Applies network.kinds ('NAME=KIND' or 'PREFIX*=KIND' entries separated by ';') to the switches
// of `t`; InputError names a bad entry or one that matches no switch.
void apply_kinds(Topology& t, const std::string& kinds);

// Adjusts the configuration switch `index` (Topology::switches() order) is built with: what a
// protocol installs in each switch of a network (e.g. its part of the reduction trees).
using SwitchConfigurer = std::function<void(unsigned index, Config& switch_cfg)>;

class Network : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Network);
  Network(sc_core::sc_module_name name, const Config& cfg, Topology topology, const SwitchConfigurer& configure = {});

  const Topology& topology() const { return topology_; }
  // The switches in the order of topology().switches(), and the hosts by host index.
  size_t switch_count() const { return switches_.size(); }
  Switch& switch_at(size_t i) { return *switches_[i]; }
  const std::string& switch_name(size_t i) const { return topology_.nodes[switch_nodes_[i]].name; }
  SwitchKind switch_kind(size_t i) const { return topology_.nodes[switch_nodes_[i]].kind; }
  size_t host_count() const { return hosts_.size(); }
  HostPort& host(unsigned h) { return *hosts_.at(h); }
  // Calls `f` with every frame any host receives (host index, arrival time, frame): what a
  // network run's --egress captures.
  void observe_host_arrivals(const HostPort::ArrivalObserver& f) {
    for (auto& h : hosts_) h->observe_arrivals(f);
  }
  // The first handler fault an in-network-compute switch stopped on ("" if none).
  std::string fatal_error() const;
  // An allreduce on `members` hosts joins the run (each of hosts.groups concurrent ones, when
  // it is built); a member of one has all its results (or gave its last block up). When every
  // member that joined is done, every link direction's busy time so far is kept: the stats' link
  // utilisation while the allreduces ran (network.during_allreduce), without what crosses the
  // links afterwards (background traffic, late timers).
  void join_allreduce(size_t members) { members_joined_ += members; }
  void member_done();

  // The stats' "network" section (docs/STATS.md): the topology, every link direction's bytes,
  // utilisation, queue and ECN and drop counts, and their distribution over links.
  void report(StatsTree& out, Picos end) const;
  DropLedger host_drops;  // the hosts' NICs (which never drop: their queues hold everything)
  uint64_t failed_switches = 0;  // network.failures that have happened

 private:
  // The egress port at one end of a link (a switch's port, or a host's NIC).
  const EgressPort& sender(unsigned node, unsigned port) const;
  // network.failures: at each time, every link of the switch goes down.
  void fail_switches();

  Topology topology_;
  std::vector<unsigned> switch_nodes_;         // node index of each switch
  std::vector<int> switch_of_node_;            // switch index of each node, -1 for hosts
  std::vector<std::unique_ptr<Switch>> switches_;
  std::vector<std::unique_ptr<HostPort>> hosts_;
  std::vector<std::pair<Picos, size_t>> failures_;  // (time, switch index), earliest first
  size_t members_joined_ = 0, members_done_ = 0;
  Picos allreduce_end_ = 0;            // when the last member was done (0: not yet)
  std::vector<Picos> busy_at_end_;     // each link direction's busy time then, in report order
};

}  // namespace fs
