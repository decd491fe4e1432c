// The rina switch control plane: the slots a switch gets (how many, how they are cut across the
// clusters) and their installation into the rina handler set's memory: the configuration at the
// start of L2 handler memory (the group an agent's TASK sets up after it) and of the set's share
// of every cluster's L1 state area, the (zeroed, free) slots after it in each cluster.
#pragma once
#include <cstdint>

#include "config/config.h"
#include "pspin/handler_sets.h"
#include "rina/rina_switch.h"

namespace fs {

// The configuration a switch configured by `cfg` with `clusters` clusters installs.
rina_switch_config_t rina_switch_config(const Config& cfg, uint32_t clusters);

class RinaControl : public HandlerSetControl {
 public:
  MemoryNeed memory_need(const Config& cfg, uint64_t l1_available, uint64_t l2_available) const override;
  void install(const Config& cfg, const InstallTarget& t) const override;
};

}  // namespace fs
