// Canary's switch control plane: the descriptor table each switch gets (its size, its mapping,
// the timeout and lifetime in PsPIN cycles) and its installation into the canary handler set's
// memory: the configuration at the start of L2 handler memory and of the set's share of every
// cluster's L1 state area, the (zeroed, free) descriptors after it in each cluster.
#pragma once
#include <cstdint>

#include "config/config.h"
#include "pspin/handler_sets.h"

namespace fs {

// The table a switch configured by `cfg` has in an L1 share of `l1_state_bytes`.
struct CanaryTable {
  uint32_t slots = 0;      // descriptors per cluster
  uint32_t app_slots = 0;  // static mapping: an application's share of them
  uint32_t timeout_cycles = 0, lifetime_cycles = 0;
};
// Throws InputError naming the key when the table cannot be laid out.
CanaryTable canary_table(const Config& cfg, uint64_t l1_state_bytes);

class CanaryControl : public HandlerSetControl {
 public:
  MemoryNeed memory_need(const Config& cfg, uint64_t l1_available, uint64_t l2_available) const override;
  void install(const Config& cfg, const InstallTarget& t) const override;
};

}  // namespace fs
