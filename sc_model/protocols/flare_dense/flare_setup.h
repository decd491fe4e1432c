// The Flare network manager's part in the simulator: the allreduces the switch takes part in
// (flare.* keys, or several in flare.allreduces), the aggregation algorithm each one gets
// (Flare 6.4), and their installation into the flare_dense handler set's memory: the allreduce
// table in L2 handler memory and each allreduce's share of every cluster's L1 state area.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/config.h"
#include "pspin/handler_sets.h"

namespace fs {

struct FlareAllreduce {
  uint32_t id = 0;
  std::vector<unsigned> ports;  // children in rank order
  std::string algorithm;        // single, multi or tree (auto resolved)
  unsigned buffers_per_block = 1;
  uint32_t parent = 0xFFFFFFFFu;  // FLARE_NO_PARENT at the root
  unsigned rank_at_parent = 0;
  unsigned max_payload = 1024;
  unsigned states_per_cluster = 0;  // 0 until laid out (share of the L1 state area)
  uint32_t state_bytes = 0, l1_offset = 0;
};

// The allreduces of the configuration, checked, with their algorithms chosen and their L1 shares
// laid out in a cluster's `l1_state_bytes`; throws InputError naming the key or entry.
std::vector<FlareAllreduce> flare_allreduces(const Config& cfg, uint32_t l1_state_bytes);

// The flare_dense installer: writes the allreduce table into handler memory.
void install_flare_dense(const Config& cfg, const InstallTarget& t);

}  // namespace fs
