// The a2tp switch control plane: the aggregator array a switch gets (how many, how they are cut
// across the clusters, the static shares) and its installation into the a2tp handler set's
// memory: the configuration at the start of L2 handler memory (on a network of several switches
// followed by the switch's entry in each job's tree) and of the set's share of every cluster's L1
// state area, the (zeroed, free) aggregators after it in each cluster.
#pragma once
#include <cstdint>

#include "a2tp/a2tp_switch.h"
#include "config/config.h"
#include "pspin/handler_sets.h"

namespace fs {

// The configuration a switch configured by `cfg` with `clusters` clusters installs. Throws
// InputError naming the key when the aggregators cannot be laid out.
a2tp_switch_config_t a2tp_switch_config(const Config& cfg, uint32_t clusters);

class A2tpControl : public HandlerSetControl {
 public:
  MemoryNeed memory_need(const Config& cfg, uint64_t l1_available, uint64_t l2_available) const override;
  void install(const Config& cfg, const InstallTarget& t) const override;
};

}  // namespace fs
