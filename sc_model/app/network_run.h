// A run of a network (network.topology other than single): the fabric built from the topology,
// background traffic on its hosts, run to its end, and the stats: the network's links and the
// traffic's messages (docs/STATS.md, "Network runs"). Kept apart from the CLI so tests can drive
// it directly.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "config/config.h"

namespace fs {

struct NetworkRunResult {
  nlohmann::json stats;
  std::string fault;        // the handler fault that stopped the run, "" if it ran to its end
  uint64_t unfinished = 0;  // background messages started and not complete at the end
};

// Runs the network the configuration describes; throws InputError / SimError, or Interrupted.
// Call once per process (SystemC elaborates once).
NetworkRunResult run_network(const Config& cfg, const std::string& config_path, bool progress);

// The readable summary printed by `flaresim run` for a network.
std::string format_network_summary(const nlohmann::json& stats);

}  // namespace fs
