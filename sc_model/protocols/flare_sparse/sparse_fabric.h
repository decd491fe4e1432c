// Flare sparse across a network, and the host-based sparse baseline it is compared with. With
// hosts.model = sparse_allreduce on a network, flare_sparse.trees static reduction trees
// (network/reduction_tree.h) span the member hosts (hosts.members), as Flare dense's do: tree t is
// the sparse allreduce flare_sparse.allreduce_id + t, installed in every switch it passes (its
// children's ports in rank order, its parent's port and its rank there; storage auto gives hash
// tables below the root and an array at the root); switches off every tree hold none. Member r
// holds rank r's vector of the flare_sparse workload (sparse_workload.h) and sends block b, a
// block's packets back to back, to tree b mod N, with the window, block-state rule and timeouts
// of block_window_host.h. A member is done with a block when it has every result packet the
// block's last one announces; the merged result is then checked against the workload's reference
// (sparse_verify.h's rule). With hosts.model = sparcml the members run the host-based baseline of
// sparcml_allreduce.h on the same vectors, on any kind of switch.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "config/config.h"
#include "network/reduction_tree.h"
#include "network/topology.h"
#include "plugin/protocol.h"

namespace fs {

// The hosts.model values of flare_sparse that run on a network.
constexpr const char* kSparseAllreduceModel = "sparse_allreduce";
constexpr const char* kSparcmlModel = "sparcml";

class FlareSparseFabricRole : public NetworkRole {
 public:
  // InputError for a bad member list, or a tree through a plain switch.
  FlareSparseFabricRole(const Config& cfg, const Topology& t);

  // flare_sparse.allreduces for switch `index`: an entry per tree through it, or none.
  void configure_switch(unsigned index, Config& c) const override;
  std::unique_ptr<NetworkAllreduce> attach(Network& net) const override;

  const std::vector<ReductionTree>& trees() const { return trees_; }

 private:
  Config cfg_;
  std::vector<unsigned> members_;
  std::vector<ReductionTree> trees_;  // sparse_allreduce's; none for sparcml
};

}  // namespace fs
