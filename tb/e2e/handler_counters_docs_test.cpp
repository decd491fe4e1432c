// The per-handler counters are listed once (sc_model/pspin/handler_counters.def): the table in
// docs/STATS.md is what `flaresim info --counters` prints, and a run's stats JSON has exactly
// the table's keys under handlers.<set>.iss.
#include <nlohmann/json.hpp>

#include <set>
#include <string>

#include "support/cli_runner.h"
#include "pspin/handler_counters.h"

namespace fs::test {
namespace {

std::string docs_table() { return generated_docs_table("STATS.md", "counters"); }

TEST(HandlerCountersDocs, StatsMdTableIsTheGeneratedOne) {
  EXPECT_EQ(docs_table(), handler_counters_markdown())
      << "docs/STATS.md is out of date: paste the output of `flaresim info --counters` between its markers";
}

TEST(HandlerCountersDocs, InfoCountersPrintsTheTable) {
  ScratchDir dir;
  const CliResult r = flaresim("info --counters", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, handler_counters_markdown());
}

void leaves(const nlohmann::json& j, const std::string& prefix, std::set<std::string>& out) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string key = prefix + it.key();
    if (it.value().is_object())
      leaves(it.value(), key + ".", out);
    else
      out.insert(key);
  }
}

TEST(HandlerCountersDocs, StatsJsonHasExactlyTheTablesCounters) {
  ScratchDir dir;
  const CliResult r = flaresim(
      "run --trace '" FLARESIM_SOURCE_DIR "/traces/examples/allreduce-16x32KiB.pcapng' --stats s.json -q", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  std::set<std::string> in_json, in_table;
  leaves(s["handlers"]["flare_dense"]["iss"], "", in_json);
  for (const HandlerCounterInfo& c : kHandlerCounters) in_table.insert(c.json);
  EXPECT_EQ(in_json, in_table);
}

}  // namespace
}  // namespace fs::test
