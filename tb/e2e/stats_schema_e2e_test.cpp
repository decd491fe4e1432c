// The stats as a table-maker sees them (docs/STATS.md): the same keys in every run, no dots in
// key names, the verification's outcome and the build inside, the CSV row, the configuration
// written out (--dump-config) and read back from an INI file or a stats JSON (--config).
#include <cstdio>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "support/cli_runner.h"

namespace fs::test {
namespace {

// Every path of the stats' objects, an array counted as one leaf ("ports[]").
void shape(const nlohmann::json& j, const std::string& path, std::set<std::string>& out) {
  if (j.is_object()) {
    for (const auto& kv : j.items()) shape(kv.value(), path + "/" + kv.key(), out);
    return;
  }
  out.insert(path + (j.is_array() ? "[]" : ""));
}

// Every key anywhere (inside arrays too) that holds a dot.
void dotted_keys(const nlohmann::json& j, const std::string& path, std::vector<std::string>& out) {
  if (j.is_object()) {
    for (const auto& kv : j.items()) {
      if (kv.key().find('.') != std::string::npos) out.push_back(path + "/" + kv.key());
      dotted_keys(kv.value(), path + "/" + kv.key(), out);
    }
  } else if (j.is_array()) {
    for (const auto& e : j) dotted_keys(e, path + "[]", out);
  }
}

// path -> value text of every value outside arrays, keys joined with '.' (what the CSV holds).
void leaves(const nlohmann::json& j, const std::string& path, std::map<std::string, std::string>& out) {
  if (j.is_object()) {
    for (const auto& kv : j.items()) leaves(kv.value(), path.empty() ? kv.key() : path + "." + kv.key(), out);
  } else if (!j.is_array()) {
    out[path] = j.is_string() ? j.get<std::string>() : j.dump();
  }
}

nlohmann::json stats_of(const ScratchDir& dir, const std::string& name) {
  return nlohmann::json::parse(slurp(dir / name));
}

TEST(StatsSchema, EveryRunHasTheSameKeysAndNoKeyHoldsADot) {
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 4 --bytes 4KiB -o t.txt", dir).code, 0);
  // A trace on native HPUs, checked against its expected results ...
  const CliResult a = flaresim("run --trace t.txt --flare.ports 0-3 --stats a.json --verify t.txt.expected", dir);
  ASSERT_EQ(a.code, 0) << a.err;
  // ... and closed-loop hosts on ISS HPUs, another algorithm, scheduler and size: other sections
  // of the model at work, the same keys.
  const CliResult b = flaresim("run --hosts.model allreduce --flare.ports 0-3 --hosts.bytes 8KiB --hpu.model iss "
                               "--flare.algorithm tree --scheduler.policy hier-fcfs --scheduler.subset 4 "
                               "--pspin.clusters 2 --stats b.json -q",
                               dir);
  ASSERT_EQ(b.code, 0) << b.err;
  const auto sa = stats_of(dir, "a.json"), sb = stats_of(dir, "b.json");
  std::set<std::string> ka, kb;
  shape(sa, "", ka);
  shape(sb, "", kb);
  EXPECT_EQ(ka, kb);
  std::vector<std::string> dots;
  dotted_keys(sa, "", dots);
  dotted_keys(sb, "", dots);
  EXPECT_EQ(dots, std::vector<std::string>{});
  // Sections a run does not use are there with zeros.
  EXPECT_EQ(sa["hosts"]["model"], "none");
  EXPECT_EQ(sa["hosts"]["sends"], 0);
  EXPECT_EQ(sb["hosts"]["model"], "allreduce");
  EXPECT_EQ(sb["hosts"]["blocks_completed"], 4 * 8);
  EXPECT_EQ(sa["timers"]["armed"], 0);
  EXPECT_EQ(sa["drops"]["by_handler"]["flare_dense"]["duplicate"], 0);
  // The verification's outcome: the file's for a, the hosts' own for b.
  EXPECT_EQ(sa["verify"]["ok"], true);
  EXPECT_EQ(sa["verify"]["checks"], 1);
  EXPECT_EQ(sa["verify"]["file"]["checked"], true);
  EXPECT_EQ(sa["verify"]["file"]["expected_packets"], 4 * 4);  // 4 blocks x 4 hosts
  EXPECT_EQ(sa["verify"]["file"]["matched"], 16);
  EXPECT_EQ(sa["verify"]["file"]["expected_file"], "t.txt.expected");
  EXPECT_EQ(sa["verify"]["hosts"]["checked"], false);
  EXPECT_EQ(sb["verify"]["hosts"]["checked"], true);
  EXPECT_EQ(sb["verify"]["hosts"]["matched"], 4 * 8);
  EXPECT_EQ(sb["verify"]["file"]["checked"], false);
  // Cycles per outcome add up to the runs' (every run has one outcome).
  const auto& h = sb["handlers"]["flare_dense"];
  uint64_t runs = 0;
  double cycles = 0;
  for (const auto& kv : h["cycles_by_outcome"].items()) {
    runs += kv.value()["count"].get<uint64_t>();
    cycles += kv.value()["avg"].get<double>() * kv.value()["count"].get<double>();
  }
  EXPECT_EQ(runs, h["runs"].get<uint64_t>());
  EXPECT_DOUBLE_EQ(cycles, h["cycles"]["avg"].get<double>() * h["cycles"]["count"].get<double>());
  EXPECT_EQ(h["cycles_by_outcome"]["result_sent"]["count"], h["outcomes"]["result_sent"]);
}

TEST(StatsSchema, AFailedVerificationIsInTheStats) {
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 4 --bytes 4KiB -o t.txt", dir).code, 0);
  // A fifth child that never sends: the blocks never complete, every result is missing.
  const CliResult r = flaresim("run --trace t.txt --flare.ports 0-4 --stats s.json -q --verify t.txt.expected", dir);
  ASSERT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("verify.ok is false"), std::string::npos) << r.err;
  const auto s = stats_of(dir, "s.json");
  EXPECT_EQ(s["verify"]["ok"], false);
  EXPECT_EQ(s["verify"]["file"]["ok"], false);
  EXPECT_EQ(s["verify"]["file"]["missing"], 16);
  EXPECT_EQ(s["verify"]["file"]["matched"], 0);
}

TEST(StatsSchema, TheBuildIsRecorded) {
  ScratchDir dir;
  FILE* git = popen("git -C '" FLARESIM_SOURCE_DIR "' rev-parse HEAD", "r");
  ASSERT_NE(git, nullptr);
  char buf[128] = {};
  const bool read = fgets(buf, sizeof buf, git) != nullptr;
  pclose(git);
  ASSERT_TRUE(read) << "git rev-parse HEAD printed nothing";
  const std::string head = std::string(buf).substr(0, 40);
  const CliResult v = flaresim("--version", dir);
  ASSERT_EQ(v.code, 0);
  ASSERT_EQ(flaresim("run --trace /dev/null --stats s.json -q", dir).code, 0);
  const auto s = stats_of(dir, "s.json");
  const std::string commit = s["flaresim"]["git_commit"];
  // The commit the build was made from, "-dirty" if tracked files had changed.
  EXPECT_TRUE(commit == head || commit == head + "-dirty") << commit << " vs " << head;
  EXPECT_EQ(v.out, "flaresim " + s["flaresim"]["version"].get<std::string>() + " (git " + commit + ")\n");
  EXPECT_EQ(s["flaresim"]["stats_schema"], 2);
}

TEST(StatsSchema, CsvIsOneRowOfEveryValueOutsideArrays) {
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 4 --bytes 4KiB -o t.txt", dir).code, 0);
  const std::string run = "run --trace t.txt --flare.ports 0-3 -q --parser.rules 'udp_dport=4950 -> flare_dense' ";
  ASSERT_EQ(flaresim(run + "--stats s.json", dir).code, 0);
  ASSERT_EQ(flaresim(run + "--stats s.csv", dir).code, 0);  // .csv: csv
  ASSERT_EQ(flaresim(run + "--stats s.txt --stats-format csv", dir).code, 0);
  // The same row but for its last field, wall_seconds (the wall-clock time of the run).
  auto but_wall = [](std::string t) { return t.substr(0, t.rfind(',')); };
  EXPECT_EQ(but_wall(slurp(dir / "s.txt")), but_wall(slurp(dir / "s.csv")));
  const std::string text = slurp(dir / "s.csv");
  const size_t nl = text.find('\n');
  ASSERT_NE(nl, std::string::npos);
  ASSERT_EQ(text.back(), '\n');
  ASSERT_EQ(text.find('\n', nl + 1), text.size() - 1) << "two lines";
  const auto head = csv_fields(text.substr(0, nl)), row = csv_fields(text.substr(nl + 1, text.size() - nl - 2));
  ASSERT_EQ(head.size(), row.size());
  std::map<std::string, std::string> want;
  leaves(stats_of(dir, "s.json"), "", want);
  want.erase("wall_seconds");
  std::map<std::string, std::string> got;
  for (size_t i = 0; i < head.size(); ++i) got[head[i]] = row[i];
  ASSERT_EQ(head.back(), "wall_seconds");
  got.erase("wall_seconds");
  EXPECT_EQ(got, want);
  EXPECT_EQ(got["config.parser.rules"], "udp_dport=4950 -> flare_dense");
  EXPECT_EQ(got["handlers.flare_dense.outcomes.result_sent"], "4");  // a multicast per block
  EXPECT_EQ(got.count("ports"), 0u);
  const CliResult bad = flaresim(run + "--stats s2.json --stats-format xml", dir);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("bad value 'xml' for '--stats-format': expected json or csv"), std::string::npos) << bad.err;
}

TEST(StatsSchema, ARunIsRerunFromItsStatsOrItsDumpedConfig) {
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 4 --bytes 4KiB --seed 7 -o t.txt", dir).code, 0);
  const CliResult a = flaresim("run --trace t.txt --flare.ports 0-3 -q --pspin.clusters 2 --hpu.model iss --seed 7 "
                               "--scheduler.policy home-cluster --stats a.json --dump-config a.ini",
                               dir);
  ASSERT_EQ(a.code, 0) << a.err;
  const std::string ini = slurp(dir / "a.ini");
  EXPECT_NE(ini.find("\npspin.clusters = 2\n"), std::string::npos) << ini;
  EXPECT_NE(ini.find("\nscheduler.policy = home-cluster\n"), std::string::npos) << ini;
  EXPECT_NE(ini.find("\nsim.seed = 7\n"), std::string::npos) << ini;
  // From the stats JSON and from the INI file: the same run, the same configuration written out.
  ASSERT_EQ(flaresim("run --trace t.txt -q --config a.json --stats b.json --dump-config b.ini", dir).code, 0);
  ASSERT_EQ(flaresim("run --trace t.txt -q --config a.ini --stats c.json --dump-config c.ini", dir).code, 0);
  EXPECT_EQ(slurp(dir / "b.ini"), ini);
  EXPECT_EQ(slurp(dir / "c.ini"), ini);
  auto sa = stats_of(dir, "a.json"), sb = stats_of(dir, "b.json");
  for (auto* s : {&sa, &sb}) s->erase("wall_seconds"), s->erase("inputs");
  EXPECT_EQ(sa.dump(), sb.dump());
  // A JSON file that is not a stats file, or no JSON at all.
  write_file(dir / "x.json", "{\"sim\": {}}");
  const CliResult x = flaresim("run --trace t.txt --config x.json", dir);
  EXPECT_EQ(x.code, 2);
  EXPECT_NE(x.err.find("x.json: a JSON file without a \"config\" object"), std::string::npos) << x.err;
  write_file(dir / "y.json", "{\"config\": {\"pspin\": {\"clusters\": 2,");
  const CliResult y = flaresim("run --trace t.txt --config y.json", dir);
  EXPECT_EQ(y.code, 2);
  EXPECT_NE(y.err.find("y.json: starts with '{' but is not valid JSON"), std::string::npos) << y.err;
  write_file(dir / "z.json", "{\"config\": {\"pspin\": {\"clusterz\": 2}}}");
  const CliResult z = flaresim("run --trace t.txt --config z.json", dir);
  EXPECT_EQ(z.code, 2);
  EXPECT_NE(z.err.find("z.json: unknown configuration key 'pspin.clusterz'"), std::string::npos) << z.err;
  write_file(dir / "w.json", "{\"config\": {\"pspin\": {\"clusters\": [2]}}}");
  const CliResult w = flaresim("run --trace t.txt --config w.json", dir);
  EXPECT_EQ(w.code, 2);
  EXPECT_NE(w.err.find("w.json: config.pspin.clusters is array, not a value"), std::string::npos) << w.err;
}

}  // namespace
}  // namespace fs::test
