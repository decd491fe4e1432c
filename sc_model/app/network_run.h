// A run of a network (network.topology other than single): the fabric built from the topology,
// each protocol's share of the switches, background traffic and an allreduce on its hosts (the
// ring, or a protocol's such as Flare's trees), run to its end, and the stats: the network's
// links, the traffic's messages and the allreduce (docs/STATS.md, "Network runs").
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
  // The allreduce (hosts.model): why its results are wrong or incomplete ("" if right or none),
  // and for the ring, advice on hosts.timeout_ns when it retransmitted with nothing lost.
  std::string allreduce_failure, allreduce_advice;
};

// Runs the network the configuration describes; throws InputError / SimError, or Interrupted.
// With `calibration`, the calibration table of the handler runs on every inc switch (ISS HPUs)
// is written to it; with `egress`, a pcapng capture of every frame a host received (interface =
// host index, time = its last bit's arrival). Call once per process (SystemC elaborates once).
NetworkRunResult run_network(const Config& cfg, const std::string& config_path, bool progress,
                             std::ostream* calibration = nullptr, std::ostream* egress = nullptr);

// The readable summary printed by `flaresim run` for a network.
std::string format_network_summary(const nlohmann::json& stats);

}  // namespace fs
