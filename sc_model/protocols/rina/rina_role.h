// Rina's part in a network run (hosts.model rina): which switches run the rina handler and what
// each is told (its fabric address; the parser rule for a group's switch; a switch's part in a
// group above racks it sums for; multicast routes of the plain switches between such a group's
// switch and its members), worked out from the topology's routes before the run; then the
// members run the job (rina_jobs.h).
#pragma once
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "config/config.h"
#include "network/route_walk.h"
#include "plugin/protocol.h"
#include "protocols/rina/rina_config.h"
#include "protocols/rina/rina_groups.h"

namespace fs {

// Rina's part in a network run: with hosts.model rina, every switch gets its fabric address, the
// switches of INA groups the rina parser rule, the INA switches below a group above racks their
// part in it (rina_sum_part_t), and the plain switches between such a group's switch and its
// members a multicast route for the group's address; the members run RinaJobs.
class RinaFabricRole : public NetworkRole {
 public:
  // InputError for a member list or set-up the job cannot run.
  RinaFabricRole(const Config& cfg, const Topology& t);
  void configure_switch(unsigned index, Config& c) const override;
  std::unique_ptr<NetworkAllreduce> attach(Network& net) const override;

 private:
  void route_group(const Topology& t, const NextHops& hops, const RinaGroup& g,
                   std::set<std::pair<unsigned, uint32_t>>& routed);

  Config cfg_;
  std::vector<unsigned> members_;
  std::vector<bool> ina_switch_;    // by switch position: a group's INA switch
  std::vector<std::string> routes_;  // by switch position: multicast routes to groups above racks below it
  std::vector<std::vector<RinaSumPart>> parts_;  // by switch position: its parts in groups above it
  NextHops switch_hops_;                          // switch_next_hops of the topology
};

}  // namespace fs
