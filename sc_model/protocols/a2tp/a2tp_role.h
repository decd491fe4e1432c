// a2tp's part in a network run (hosts.model a2tp): the parser rule and, where a job has a tree
// of switches, each switch's part in it or a plain switch's multicast routes, worked out from
// the topology's routes before the run; then the members run the jobs (a2tp_jobs.h).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "config/config.h"
#include "network/topology.h"
#include "plugin/protocol.h"
#include "protocols/a2tp/a2tp_config.h"

namespace fs {

// a2tp's part in a network run: with hosts.model a2tp, every switch with a PsPIN unit gets the
// a2tp parser rule (and, static, a2tp.jobs = the a2tp jobs), and the members run A2tpJobs. On a
// network of several switches (or with colocated PSes) each such switch also gets its part in each job's tree
// (a2tp_tree.h), and a plain switch on a job's tree routes for the job's group address a copy of
// its results to each of its children there.
class A2tpFabricRole : public NetworkRole {
 public:
  // InputError for a network or member list the jobs cannot run on.
  A2tpFabricRole(const Config& cfg, const Topology& t);
  void configure_switch(unsigned index, Config& c) const override;
  std::unique_ptr<NetworkAllreduce> attach(Network& net) const override;

 private:
  Config cfg_;
  std::vector<unsigned> members_;
  std::vector<std::vector<A2tpTreeJob>> trees_;  // by switch, by a2tp job (several switches, or colocated PSes)
  std::vector<bool> plain_;                      // by switch
  std::vector<uint32_t> groups_;                 // by a2tp job: its group address
  unsigned wire_jobs_ = 0;                       // a2tp jobs (a2tp_layout.h)
};

}  // namespace fs
