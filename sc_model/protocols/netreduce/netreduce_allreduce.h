// NetReduce's hosts on a network: with hosts.model netreduce the members of hosts.members form
// one ring (rank order = member order) of NetReduceRing workers whose messages the switch of their
// rack aggregates (its netreduce handlers; NetReduce 3.1-3.2), or, when they hang off several
// switches, those switches as leaves and the first switch linked to all of them as their root
// (3.3: netreduce_switch.h's roles); with hosts.model roce_ring the
// same members run the host ring allreduce over the same RDMA transport (RoceRing), NetReduce's
// baseline. Both take hosts.bytes of int32 gradients per member (drawn from sim.seed),
// netreduce.* for the ring's shape and hosts.timeout_ns as the NICs' go-back-N timeout, and both
// check every member's result against the sum computed here.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "config/config.h"
#include "network/allreduce_run.h"
#include "network/network.h"
#include "network/topology.h"
#include "plugin/protocol.h"

namespace fs {

constexpr const char* kNetReduceModel = "netreduce";
constexpr const char* kRoceRingModel = "roce_ring";
// The parser rule a NetReduce run puts in front of its switch's parser.rules: RoCEv2 RC send
// and write packets (BTH opcodes 0x00-0x0F) go to the netreduce handlers; acknowledgements are
// routed.
constexpr const char* kNetReduceParserRule = "udp_dport=4791,payload[0]&0xF0=0 -> netreduce";

class NetReduceFabricRole : public NetworkRole {
 public:
  // InputError for members that do not form a ring NetReduce can aggregate (fewer than 2, more
  // than a switch's ranks, on switches no one switch links, on a plain switch).
  NetReduceFabricRole(const Config& cfg, const Topology& t);
  void configure_switch(unsigned index, Config& c) const override;
  std::unique_ptr<NetworkAllreduce> attach(Network& net) const override;

 private:
  static void check_runs_handlers(const Topology& t, const std::vector<unsigned>& switches);
  Config cfg_;
  std::vector<unsigned> members_;
  // Switches as the i-th of the topology's: the one rack's, or (a ring across racks) the leaves,
  // each member's leaf (its index in leaves_) and the root.
  int rack_switch_ = -1;
  std::vector<unsigned> leaves_;
  std::vector<unsigned> leaf_of_rank_;
  int root_ = -1;
};

}  // namespace fs
