// The Flare network manager's part in the simulator: the allreduces the switch takes part in
// (flare.* keys, or several in flare.allreduces), the aggregation algorithm each one gets
// (Flare 6.4), and their installation into the flare_dense handler set's memory: the allreduce
// table in L2 handler memory and copied into every cluster's L1, and each allreduce's share of
// every cluster's L1 state area.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "config/config.h"
#include "pspin/handler_sets.h"

namespace fs {

// The Flare allreduce(s) the switch takes part in (what the network manager installs): the
// configuration section "flare". The flare.* keys describe one allreduce; `allreduces` lists
// several, each entry overriding those keys.
struct FlareConfig {
  uint32_t allreduce_id = 0;
  std::string ports = "0-15";     // ports of the children (hosts or switches), in rank order
  std::string algorithm = "auto"; // auto (Flare 6.4: by bytes and reproducible), single, multi, tree
  unsigned multi_buffers = 0;     // B for multi; 0 = by size (4 above 256 KiB, else 2)
  uint64_t bytes = 0;             // data per host, for algorithm = auto; 0 = unknown (single)
  bool reproducible = false;      // float sums the same whatever the arrival order (tree)
  std::string parent = "none";    // port of the parent switch, or none at the root
  unsigned rank = 0;              // this switch's rank among its parent's children
  unsigned max_payload = 1024;    // element bytes per block buffer
  unsigned buffers = 0;           // block states per cluster (blocks in flight / clusters); 0 = fill L1
  unsigned trees = 1;             // network runs: reduction trees the blocks go to round-robin
  std::string allreduces;         // ';'-separated entries of key=value words (id= and ports= at least),
                                  // or kFlareNoAllreduces
};
// flare.allreduces for a switch that takes part in no allreduce (a network's switches off every tree).
constexpr const char* kFlareNoAllreduces = "none";
constexpr const char* kFlareSection = "flare";
inline FlareConfig& flare_config(Config& cfg) { return cfg.sections.get<FlareConfig>(kFlareSection); }
inline const FlareConfig& flare_config(const Config& cfg) { return cfg.sections.get<FlareConfig>(kFlareSection); }
// The section's keys (flaresim info lists them).
std::vector<ConfigKey> flare_config_keys();

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

// The flare_dense handler set's control plane: the memory it needs (all L1 state it can get
// unless every allreduce names its buffers; the allreduce table and the children's ports in L2)
// and its installer, which writes them into its L2 handler memory and a copy of the table at the
// start of its share of every cluster's L1 state area.
class FlareDenseControl : public HandlerSetControl {
 public:
  MemoryNeed memory_need(const Config& cfg, uint64_t l1_available, uint64_t l2_available) const override;
  void install(const Config& cfg, const InstallTarget& t) const override;
};

}  // namespace fs
