// Flare dense across a network (hosts.model = allreduce with network.topology other than
// single): flare.trees static reduction trees (network/reduction_tree.h) spanning the member
// hosts (hosts.members), rooted at switches at the members' centre in an order drawn from the
// seed. Tree t is the Flare allreduce flare.allreduce_id + t, installed in every switch it passes
// (its children's ports in rank order, its parent's port and its rank there, the other flare.*
// keys as configured); switches off every tree hold none. A member sends block b of its data, block
// id b, to tree b mod N (blocks round-robin over the trees, as PANAMA does), with the window,
// block-state rule and timeouts of block_window_host.h: block b waits for every earlier block that
// shares its state at a switch of its tree. Every result is checked as it arrives
// against the reduction of all members' data (integers exactly; float32 sums within the
// rounding any summation order may cause: (members - 1) 2^-24 times the sum of magnitudes).
// With hosts.groups, group g of the members is an allreduce of its own on its own trees: ids
// flare.allreduce_id + g N + t, roots drawn from the seed per group; member r of hosts.members
// sends rank r's data whatever its group.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "config/config.h"
#include "network/reduction_tree.h"
#include "network/topology.h"
#include "plugin/protocol.h"

namespace fs {

class FlareFabricRole : public NetworkRole {
 public:
  // InputError for a bad member list, or a tree through a plain switch.
  FlareFabricRole(const Config& cfg, const Topology& t);

  // flare.allreduces for switch `index`: an entry per tree through it, or none.
  void configure_switch(unsigned index, Config& c) const override;
  std::unique_ptr<NetworkAllreduce> attach(Network& net) const override;

  // One allreduce of hosts.groups: its members (from member first_rank of hosts.members on,
  // whose data they send), its trees, tree t's id first_id + t.
  struct Group {
    std::vector<unsigned> members;
    std::vector<ReductionTree> trees;
    uint32_t first_id = 0;
    unsigned first_rank = 0;
  };
  bool active() const { return active_; }  // hosts.model is allreduce
  const std::vector<Group>& groups() const { return groups_; }

 private:
  Config cfg_;
  bool active_ = false;
  std::vector<Group> groups_;
};

}  // namespace fs
