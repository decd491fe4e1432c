// Reading an a2tp network run's stats in end-to-end tests: the checks every finished run passes
// (exact results, every worker done, each result taken once) and a switch's handler outcomes.
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"

namespace fs::test {

// The stats `r` wrote to s.json in `dir`, after checking the run succeeded with exact results,
// no worker unfinished and no result taken twice.
inline nlohmann::json a2tp_stats_ok(const CliResult& r, const ScratchDir& dir) {
  EXPECT_EQ(r.code, 0) << r.err;
  const nlohmann::json s = nlohmann::json::parse(slurp(dir / "s.json"));
  const nlohmann::json& a = s["allreduce"];
  EXPECT_TRUE(a["results_ok"].get<bool>());
  EXPECT_EQ(a["unfinished_ranks"], 0);
  EXPECT_EQ(a["details"]["duplicate_results"], 0);  // each worker had each result once
  return s;
}

// Switch `sw`'s non-zero a2tp outcomes (the topology's switch order).
inline std::map<std::string, uint64_t> a2tp_outcomes(const nlohmann::json& s, unsigned sw) {
  std::map<std::string, uint64_t> out;
  for (const auto& [k, v] : s["network"]["per_switch"][sw]["handler_outcomes"]["a2tp"].items())
    if (v.get<uint64_t>()) out[k] = v.get<uint64_t>();
  return out;
}

}  // namespace fs::test
