// The sweep's merged results: results.csv (one row per run: id, the swept keys in file order,
// the headline metrics, status, exit code, wall seconds) and results.json (the same per run
// plus its full stats), both rebuilt from the run folders each time and written atomically.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/matrix.h"
#include "sweep/run_dir.h"

namespace fs::sweep {

struct RunRecord {
  const RunPoint* point = nullptr;
  RunState state;
  nlohmann::json stats;  // the run's stats.json, or null
};

// Reads every point's state and stats from its folder (a failed run's stats too, if it wrote
// them). A run whose stats.json does not parse becomes failed, with the parser's message as its
// error.
std::vector<RunRecord> collect(const SweepDir& dir, const std::vector<RunPoint>& points);

// The headline metrics, as dotted paths into the stats (docs/STATS.md): a fixed list, then per
// handler set found in any run (by name) its cycles.avg, latency_ns.avg and latency_ns.p99.
std::vector<std::string> headline_metrics(const std::vector<RunRecord>& runs);

// The value at a dotted path of the stats as CSV text: a number as the stats JSON writes it, a
// string as is, "" if absent.
std::string metric_text(const nlohmann::json& stats, const std::string& path);

// A CSV field, quoted (RFC 4180) if it holds a comma, quote, line break or outer blank.
std::string csv_field(const std::string& s);

// exit_code is the run's exit status, 128 + N if signal N ended it, "" for a pending run.
std::string results_csv(const std::vector<std::string>& swept_keys, const std::vector<RunRecord>& runs);
// An array, one object per run: run, dir, index, swept (key: value), metrics (path: value or
// null), status, exit_code, signal, wall_seconds, error and stats (the run's stats, or null).
nlohmann::json results_json(const std::vector<RunRecord>& runs);

// Writes DIR/results.csv and DIR/results.json.
void write_results(const SweepDir& dir, const std::vector<std::string>& swept_keys, const std::vector<RunRecord>& runs);

}  // namespace fs::sweep
