// A run of a network (network.topology other than single): the fabric built from the topology,
// background traffic and the ring allreduce on its hosts, run to its end, and the stats: the
// network's links, the traffic's messages and the allreduce (docs/STATS.md, "Network runs").
// Kept apart from the CLI so tests can drive it directly.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "config/config.h"

namespace fs {

struct NetworkRunResult {
  nlohmann::json stats;
  std::string fault;        // the handler fault that stopped the run, "" if it ran to its end
  uint64_t unfinished = 0;  // background messages started and not complete at the end
  // The ring allreduce (hosts.model = ring): why its results are wrong or incomplete ("" if
  // right or no ring), and advice on hosts.timeout_ns when it retransmitted with nothing lost.
  std::string allreduce_failure, allreduce_advice;
};

// Runs the network the configuration describes; throws InputError / SimError, or Interrupted.
// Call once per process (SystemC elaborates once).
NetworkRunResult run_network(const Config& cfg, const std::string& config_path, bool progress);

// The readable summary printed by `flaresim run` for a network.
std::string format_network_summary(const nlohmann::json& stats);

}  // namespace fs
