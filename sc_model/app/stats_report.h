// Turns a finished switch into the stats JSON (schema in docs/STATS.md) and formats the
// readable summary. Every figure an architect asks for lives here, computed from the counters
// the blocks keep.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "plugin/protocol.h"
#include "switch/switch.h"

namespace fs {

// The stats' schema number (`flaresim.stats_schema`), raised when a key is renamed or moved.
constexpr int kStatsSchema = 2;

nlohmann::json collect_stats(Switch& sw, Picos end_time);

// A block's report as JSON: numbers keep their kind (whole or not).
nlohmann::json to_json(const StatsTree& t);

// The stats' "verify" section: `ok` (every check that ran passed), `checks` (how many ran), and
// `file` (run --verify: `expected_file`) and `hosts` (the closed-loop hosts' own check), each
// {checked, ok, expected_packets, matched, missing, wrong, duplicate, unexpected}, zeros and
// checked false when it did not run.
nlohmann::json verify_section(const std::string& expected_file, const VerifyReport* file, const VerifyReport* hosts);

// --stats-format csv: every number, text and true/false of the stats outside arrays, by its path
// (keys joined with '.'), in the JSON's order. Arrays (per port, per HPU, histograms, ...) are
// in the JSON only.
std::vector<std::pair<std::string, std::string>> flatten_stats(const nlohmann::json& stats);
// Two CSV lines: the paths, then the values.
std::string stats_csv(const nlohmann::json& stats);

}  // namespace fs
