// The network manager's part for sparse allreduces: the allreduces the switch takes part in
// (flare_sparse.* keys, or several in flare_sparse.allreduces), the storage each gets (auto: hash
// below the root, array at the root, Flare 7), their block-state layout (flare_sparse.h) and
// their installation into the flare_sparse handler set's memory.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "config/config.h"
#include "flare/flare_sparse.h"
#include "pspin/handler_sets.h"

namespace fs {

struct SparseAllreduce {
  std::vector<unsigned> ports;   // children in rank order
  std::string algorithm;         // single or tree
  std::string storage;           // hash or array (auto resolved)
  flare_sparse_allreduce_t table{};  // as installed (l1_offset and states_per_cluster once laid out)
};

// The sparse allreduces of the configuration (none when flare_sparse.ports and
// flare_sparse.allreduces are empty), checked, laid out in a cluster's `l1_state_bytes`; throws
// InputError naming the key or entry.
std::vector<SparseAllreduce> sparse_allreduces(const Config& cfg, uint32_t l1_state_bytes);

class FlareSparseControl : public HandlerSetControl {
 public:
  MemoryNeed memory_need(const Config& cfg, uint64_t l1_available, uint64_t l2_available) const override;
  void install(const Config& cfg, const InstallTarget& t) const override;
};

}  // namespace fs
