// Tests of the sweep's pure parts (sc_model/sweep/): the sweep file's grammar and its errors
// (file:line and reason), the expansion's order (axes nested in file order, [zip] keys advancing
// together, [set] in every run), the run ids (stable FNV-1a, sensitive to every key's value and
// to a trace's path and content), the run folders' states and the CSV/JSON merge.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <filesystem>
#include <sstream>

#include "common/errors.h"
#include "config/config.h"
#include "config/config_io.h"
#include "support/cli_runner.h"
#include "sweep/matrix.h"
#include "sweep/results.h"
#include "sweep/run_dir.h"
#include "sweep/spawn.h"
#include "sweep/sweep_file.h"

namespace fs::sweep {
namespace {

using fs::test::ScratchDir;
using fs::test::slurp;
using fs::test::write_file;

SweepSpec parse(const std::string& text, const std::string& path = "dir/s.ini") {
  std::istringstream in(text);
  return parse_sweep(path, in);
}

// The message of the InputError parsing `text` throws ("" if none).
std::string parse_error(const std::string& text) {
  try {
    parse(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::vector<std::string> swept_text(const std::vector<RunPoint>& points) {
  std::vector<std::string> out;
  for (const RunPoint& p : points) out.push_back(describe(p.swept));
  return out;
}

TEST(SweepFile, SplitsValuesWithQuotes) {
  EXPECT_EQ(split_values("4, 16 ,64"), (std::vector<std::string>{"4", "16", "64"}));
  EXPECT_EQ(split_values("\"0-3,7\", 0-15"), (std::vector<std::string>{"0-3,7", "0-15"}));
  EXPECT_EQ(split_values("\" a \""), (std::vector<std::string>{" a "}));
  auto error = [](const std::string& t) {
    try {
      split_values(t);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error("4,,16"), "empty value in '4,,16'");
  EXPECT_EQ(error("4,"), "empty value in '4,'");
  EXPECT_EQ(error("\"0-3"), "unterminated quote in '\"0-3'");
  EXPECT_EQ(error("\"a\"b"), "text after a quoted value in '\"a\"b'");
  EXPECT_EQ(error("x\"a\""), "a quote must enclose a whole value in 'x\"a\"'");
}

TEST(SweepFile, ReadsSectionsCommentsAndPaths) {
  const SweepSpec s = parse(
      "# comment\n"
      "; comment too\n"
      "[sweep]\n"
      "base = ../configs/pspin-4x8.ini   # relative to the sweep file\n"
      "[axes]\n"
      "pspin.clusters = 4, 16\n"
      "[zip]\n"
      "hosts.bytes = 64KiB, 1MiB, 4KiB\n"
      "hosts.window = 128, 256, 1\n"
      "[axes]\n"
      "trace = a.pcapng, /abs/b.pcapng\n"
      "[set]\n"
      "parser.rules = udp_dport=4950 -> flare_dense; udp_dport=4951 -> flare_dense\n"
      "flare.ports = \"0-3,7\"\n");
  EXPECT_EQ(s.base, "configs/pspin-4x8.ini");
  EXPECT_EQ(s.base_line, 4);
  ASSERT_EQ(s.dims.size(), 3u);
  EXPECT_EQ(s.dims[0].axes[0].key, "pspin.clusters");
  EXPECT_EQ(s.dims[0].axes[0].line, 6);
  EXPECT_EQ(s.dims[1].axes.size(), 2u);
  EXPECT_EQ(s.dims[1].size(), 3u);
  EXPECT_EQ(s.dims[2].axes[0].values, (std::vector<std::string>{"dir/a.pcapng", "/abs/b.pcapng"}));
  EXPECT_EQ(s.swept_keys(), (std::vector<std::string>{"pspin.clusters", "hosts.bytes", "hosts.window", "trace"}));
  ASSERT_EQ(s.set.size(), 2u);
  EXPECT_EQ(s.set[0].value, "udp_dport=4950 -> flare_dense; udp_dport=4951 -> flare_dense");
  EXPECT_EQ(s.set[1].value, "0-3,7");
}

TEST(SweepFile, ErrorsNameFileLineAndReason) {
  EXPECT_EQ(parse_error("[axes]\npspin.clusterz = 1, 2\n"), "dir/s.ini:2: " + unknown_key_message("pspin.clusterz"));
  EXPECT_EQ(parse_error("[axes]\npspin.clusters = 1, many\n"),
            "dir/s.ini:2: bad value 'many' for 'pspin.clusters': expected a whole number from 1 to 4096");
  EXPECT_EQ(parse_error("[set]\nhosts.bytes = 3XiB\n[axes]\nsim.seed = 1\n").rfind("dir/s.ini:2: bad value '3XiB' for 'hosts.bytes'", 0), 0u);
  EXPECT_EQ(parse_error("[axes]\npspin.clusters = 1,,2\n"), "dir/s.ini:2: key 'pspin.clusters': empty value in '1,,2'");
  EXPECT_EQ(parse_error("[axes]\npspin.clusters =\n"), "dir/s.ini:2: key 'pspin.clusters' has no value");
  EXPECT_EQ(parse_error("[axes]\npspin.clusters = 1\n\n[set]\npspin.clusters = 2\n"),
            "dir/s.ini:5: key 'pspin.clusters' is already given on line 2");
  EXPECT_EQ(parse_error("[zip]\nhosts.bytes = 1KiB, 2KiB\nhosts.window = 1\n"),
            "dir/s.ini:3: [zip] key 'hosts.window' has 1 value but 'hosts.bytes' (line 2) has 2; the keys of a "
            "[zip] advance together and need as many values each");
  EXPECT_EQ(parse_error("[axes]\njunk\n"), "dir/s.ini:2: expected 'key = value' or a [section], got 'junk'");
  EXPECT_EQ(parse_error("[axes]\n= 4\n"), "dir/s.ini:2: missing key before '='");
  EXPECT_EQ(parse_error("[zop]\n"), "dir/s.ini:1: unknown section [zop] (valid: [sweep], [axes], [zip], [set])");
  EXPECT_EQ(parse_error("[axes\n"), "dir/s.ini:1: malformed section header '[axes'");
  EXPECT_EQ(parse_error("hosts.bytes = 1\n"),
            "dir/s.ini:1: 'hosts.bytes' comes before any section ([sweep], [axes], [zip] or [set])");
  EXPECT_EQ(parse_error("[zip]\n[axes]\nhosts.bytes = 1\n"), "dir/s.ini:1: [zip] section has no keys");
  EXPECT_EQ(parse_error("[axes]\nhosts.bytes = 1\n[zip]\n"), "dir/s.ini:3: [zip] section has no keys");
  EXPECT_EQ(parse_error("[set]\nhosts.model = allreduce\n"), "dir/s.ini: the sweep has no [axes] or [zip] key: nothing to sweep");
  EXPECT_EQ(parse_error("[set]\nhosts.bytes = 1, 2\n"),
            "dir/s.ini:2: [set] key 'hosts.bytes' takes one value, got 2 (a value holding a comma is written in double quotes)");
  EXPECT_EQ(parse_error("[sweep]\nbase = a.ini\nbase = b.ini\n"), "dir/s.ini:3: 'base' is already given on line 2");
  EXPECT_EQ(parse_error("[sweep]\njobs = 4\n"), "dir/s.ini:2: unknown [sweep] key 'jobs' (valid: base)");
}

TEST(SweepMatrix, CrossProductInFileOrderZipTogetherSetEverywhere) {
  const SweepSpec s = parse(
      "[axes]\n"
      "pspin.clusters = 4, 16\n"
      "[zip]\n"
      "hosts.bytes = 64KiB, 1MiB\n"
      "hosts.window = 128, 256\n"
      "[axes]\n"
      "scheduler.policy = fcfs, hier-fcfs\n"
      "[set]\n"
      "hosts.model = allreduce\n");
  const std::vector<RunPoint> points = expand(s);
  EXPECT_EQ(swept_text(points),
            (std::vector<std::string>{
                "pspin.clusters = 4, hosts.bytes = 64KiB, hosts.window = 128, scheduler.policy = fcfs",
                "pspin.clusters = 4, hosts.bytes = 64KiB, hosts.window = 128, scheduler.policy = hier-fcfs",
                "pspin.clusters = 4, hosts.bytes = 1MiB, hosts.window = 256, scheduler.policy = fcfs",
                "pspin.clusters = 4, hosts.bytes = 1MiB, hosts.window = 256, scheduler.policy = hier-fcfs",
                "pspin.clusters = 16, hosts.bytes = 64KiB, hosts.window = 128, scheduler.policy = fcfs",
                "pspin.clusters = 16, hosts.bytes = 64KiB, hosts.window = 128, scheduler.policy = hier-fcfs",
                "pspin.clusters = 16, hosts.bytes = 1MiB, hosts.window = 256, scheduler.policy = fcfs",
                "pspin.clusters = 16, hosts.bytes = 1MiB, hosts.window = 256, scheduler.policy = hier-fcfs",
            }));
  for (size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(points[i].index, i);
    EXPECT_NE(points[i].config_text.find("\nhosts.model = allreduce\n"), std::string::npos);
    EXPECT_EQ(points[i].id.size(), 16u);
    for (size_t j = 0; j < i; ++j) EXPECT_NE(points[i].id, points[j].id);
  }
  // The effective values, as canonical text: sizes in bytes.
  EXPECT_NE(points[2].config_text.find("\nhosts.bytes = 1048576\n"), std::string::npos);
  EXPECT_NE(points[2].config_text.find("\npspin.clusters = 4\n"), std::string::npos);
  EXPECT_NE(points[7].config_text.find("\nscheduler.policy = hier-fcfs\n"), std::string::npos);
}

TEST(SweepMatrix, BaseFileThenSetThenAxes) {
  ScratchDir d;
  write_file(d / "base.ini", "[pspin]\nclusters = 8\n[hosts]\nmodel = allreduce\nwindow = 7\nbytes = 4KiB\n");
  write_file(d / "s.ini", "[sweep]\nbase = base.ini\n[set]\nhosts.window = 9\n[axes]\nhosts.bytes = 1KiB, 2KiB\n");
  const std::vector<RunPoint> points = expand(parse_sweep_file(d / "s.ini"));
  ASSERT_EQ(points.size(), 2u);
  for (const RunPoint& p : points) {
    EXPECT_NE(p.config_text.find("\npspin.clusters = 8\n"), std::string::npos);  // base
    EXPECT_NE(p.config_text.find("\nhosts.window = 9\n"), std::string::npos);    // [set] over base
  }
  EXPECT_NE(points[0].config_text.find("\nhosts.bytes = 1024\n"), std::string::npos);  // axis over base
  EXPECT_NE(points[1].config_text.find("\nhosts.bytes = 2048\n"), std::string::npos);
  // A changed base file changes every id.
  const std::string before = points[0].id;
  write_file(d / "base.ini", "[pspin]\nclusters = 16\n[hosts]\nmodel = allreduce\nwindow = 7\nbytes = 4KiB\n");
  EXPECT_NE(expand(parse_sweep_file(d / "s.ini"))[0].id, before);
}

TEST(SweepMatrix, InvalidCombinationNamesTheRun) {
  try {
    expand(parse("[axes]\nscheduler.subset = 3, 4\n[set]\nhosts.model = allreduce\n"));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "dir/s.ini: run 1 of 2 (scheduler.subset = 3): bad value '3' for 'scheduler.subset': must divide "
              "pspin.hpus_per_cluster (8)");
  }
  try {
    expand(parse("[axes]\nhosts.bytes = 64KiB, 65536\n[set]\nhosts.model = allreduce\n"));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "dir/s.ini: run 2 of 2 (hosts.bytes = 65536): the same effective configuration as run 1 (hosts.bytes = "
              "64KiB); each run must differ");
  }
}

TEST(SweepMatrix, RunWithoutTraceOrHostsIsRefused) {
  try {
    expand(parse("[axes]\nsim.seed = 1, 2\n"));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "dir/s.ini: run 1 of 2 (sim.seed = 1): no input: give a 'trace' or closed-loop "
                                     "hosts ('hosts.model = allreduce')");
  }
}

TEST(SweepHash, Fnv1aKnownValuesAndHex) {
  EXPECT_EQ(hex16(fnv1a64("")), "cbf29ce484222325");
  EXPECT_EQ(hex16(fnv1a64("a")), "af63dc4c8601ec8c");
  EXPECT_EQ(hex16(fnv1a64("foobar")), "85944171f73967e8");
  EXPECT_EQ(fnv1a64("bar", fnv1a64("foo")), fnv1a64("foobar"));
}

TEST(SweepHash, CanonicalTextHasEveryKeySortedAndReadsBack) {
  const Config defaults;
  const std::string text = config_ini_text(defaults);
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  ASSERT_EQ(lines.size(), config_schema().size());
  EXPECT_TRUE(std::is_sorted(lines.begin(), lines.end()));
  for (const ConfigKey& k : config_schema())
    EXPECT_NE(("\n" + text).find("\n" + k.name + " = " + k.show(defaults) + "\n"), std::string::npos) << k.name;
  Config again;
  std::istringstream back(text);
  apply_ini(again, "text", back);
  EXPECT_EQ(config_ini_text(again), text);
}

TEST(SweepHash, IdChangesWithEveryLineOfTheConfiguration) {
  const std::string text = config_ini_text(Config{});
  std::map<std::string, std::string> cache;
  const std::string id = run_id(text, "", "", cache);
  EXPECT_EQ(id, run_id(text, "", "", cache));  // stable
  EXPECT_EQ(id, hex16(fnv1a64(text)));
  size_t start = 0, changed = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    std::string edited = text;
    edited.insert(end, "0");  // the key's value, one character longer
    EXPECT_NE(run_id(edited, "", "", cache), id) << text.substr(start, end - start);
    ++changed;
    start = end + 1;
  }
  EXPECT_EQ(changed, config_schema().size());
}

TEST(SweepHash, IdDependsOnTracePathAndContent) {
  ScratchDir d;
  write_file(d / "a.txt", "trace one");
  write_file(d / "b.txt", "trace one");
  const std::string text = config_ini_text(Config{});
  auto id = [&](const std::string& trace, const std::string& verify) {
    std::map<std::string, std::string> cache;  // fresh: the file is read again
    return run_id(text, trace, verify, cache);
  };
  const std::string a = id(d / "a.txt", "");
  EXPECT_EQ(a, id(d / "a.txt", ""));
  EXPECT_NE(a, id("", ""));
  EXPECT_NE(a, id(d / "b.txt", ""));  // same content, another path
  EXPECT_NE(a, id("", d / "a.txt"));  // as --verify rather than --trace
  write_file(d / "a.txt", "trace two");  // same size, other content
  EXPECT_NE(a, id(d / "a.txt", ""));
  EXPECT_EQ(file_fingerprint(d / "b.txt", "trace"), hex16(fnv1a64("trace one")));
  try {
    id(d / "missing.txt", "");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "trace '" + (d / "missing.txt") + "' cannot be opened");
  }
}

RunPoint point(const std::string& id, std::vector<Override> swept) {
  RunPoint p;
  p.id = id;
  p.swept = std::move(swept);
  return p;
}

TEST(SweepDir, RefusesAFolderThatIsNotASweepsAndReadsStates) {
  ScratchDir d;
  std::filesystem::create_directories(d / "mine");
  write_file(d / "mine/notes.txt", "keep");
  try {
    SweepDir dir(d / "mine");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), d / "mine" +
                                         ": exists and is not a flaresim sweep folder (it has no .flaresim-sweep); "
                                         "choose another -o or empty it");
  }
  EXPECT_EQ(slurp(d / "mine/notes.txt"), "keep");
  write_file(d / "file", "x");
  EXPECT_THROW(SweepDir(d / "file"), InputError);

  SweepDir dir(d / "out");
  EXPECT_TRUE(fs::test::exists(d / "out/.flaresim-sweep"));
  SweepDir again(d / "out");  // ours: opened again
  const RunPoint p = point("0123456789abcdef", {{"sim.seed", "1"}});
  EXPECT_EQ(dir.state(p.id).kind, RunState::kPending);
  dir.prepare(p, {"flaresim", "run", "--config", "a b.ini"});
  EXPECT_EQ(slurp(dir.run_dir(p.id) + "/command"), "flaresim run --config 'a b.ini'\n");
  RunState done;
  done.kind = RunState::kDone;
  done.wall_seconds = 1.5;
  dir.record(p.id, done);
  EXPECT_EQ(dir.state(p.id).kind, RunState::kPending);  // done, but no stats.json: runs again
  write_file(dir.run_dir(p.id) + "/stats.json", "{}");
  EXPECT_EQ(dir.state(p.id).kind, RunState::kDone);
  EXPECT_EQ(dir.state(p.id).wall_seconds, 1.5);
  RunState failed;
  failed.kind = RunState::kFailed;
  failed.exit_code = 2;
  failed.error = "flaresim: bad";
  dir.record(p.id, failed);
  EXPECT_EQ(dir.state(p.id).kind, RunState::kFailed);
  EXPECT_EQ(dir.state(p.id).error, "flaresim: bad");
  write_file(dir.run_dir(p.id) + "/status.json", "{\"status\": ");  // cut short
  EXPECT_EQ(dir.state(p.id).kind, RunState::kPending);
  dir.prepare(p, {"flaresim"});  // a rerun starts from an empty folder
  EXPECT_FALSE(fs::test::exists(dir.run_dir(p.id) + "/stats.json"));
  EXPECT_FALSE(fs::test::exists(dir.run_dir(p.id) + "/status.json"));
}

// The command file's line is what runs: it reads back into the same words.
TEST(SweepDir, CommandLineReadsBackIntoItsWords) {
  const std::vector<std::string> argv = {"/x/flaresim", "run", "--config", "a b.ini", "it's", "", "%x=1,2", "a\"b"};
  const std::string line = command_line(argv);
  EXPECT_EQ(line, "/x/flaresim run --config 'a b.ini' 'it'\\''s' '' %x=1,2 'a\"b'");
  EXPECT_EQ(split_command(line, "f"), argv);
  EXPECT_EQ(split_command("  a\\ b\t'c'd \n", "f"), (std::vector<std::string>{"a b", "cd"}));
  auto error = [](const std::string& line) {
    try {
      split_command(line, "runs/x/command");
    } catch (const SimError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error("flaresim 'run"), "runs/x/command: unterminated quote in the command line");
  EXPECT_EQ(error(" \n"), "runs/x/command: the command line is empty");
  ScratchDir d;
  try {
    read_command(d / "runs/x");
    FAIL() << "no error";
  } catch (const SimError& e) {
    EXPECT_EQ(std::string(e.what()), d / "runs/x/command: cannot read the run's command (was its folder prepared?)");
  }
}

// A run's child: its output goes to its folder, and its end becomes done, failed or pending.
TEST(SweepSpawn, ChildOutputAndOutcome) {
  ScratchDir d;
  SweepDir dir(d / "out");
  const RunPoint p = point("0123456789abcdef", {{"sim.seed", "1"}});
  auto run = [&](const std::vector<std::string>& argv, bool stopped) {
    dir.prepare(p, argv);
    const pid_t pid = spawn_run(dir.run_dir(p.id));
    int status = 0;
    EXPECT_EQ(waitpid(pid, &status, 0), pid);
    return run_outcome(dir.run_dir(p.id), status, 0.5, stopped);
  };
  const std::string run_dir = dir.run_dir(p.id);
  RunState s = run({"/bin/sh", "-c", "echo out; echo first >&2; echo 'the reason' >&2; exit 3"}, false);
  EXPECT_EQ(s.kind, RunState::kFailed);
  EXPECT_EQ(s.exit_code, 3);
  EXPECT_EQ(s.signal, 0);
  EXPECT_EQ(s.error, "the reason");
  EXPECT_EQ(s.wall_seconds, 0.5);
  EXPECT_EQ(slurp(run_dir + "/stdout.txt"), "out\n");
  EXPECT_EQ(run({"/bin/sh", "-c", "exit 3"}, true).kind, RunState::kPending);  // stopped
  s = run({"/bin/sh", "-c", "kill -TERM $$"}, false);
  EXPECT_EQ(s.kind, RunState::kFailed);
  EXPECT_EQ(s.signal, SIGTERM);
  EXPECT_EQ(s.error, "killed by SIGTERM");
  s = run({"/bin/sh", "-c", "exit 0"}, false);
  EXPECT_EQ(s.kind, RunState::kFailed);
  EXPECT_EQ(s.error, "exited 0 but wrote no stats.json");
  s = run({"/bin/sh", "-c", "echo {} > \"$0/stats.json\"", run_dir}, true);  // finished although stopped
  EXPECT_EQ(s.kind, RunState::kDone);
  dir.prepare(p, {d / "no-such-binary"});
  try {
    spawn_run(run_dir);
    FAIL() << "no error";
  } catch (const SimError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot start " + d / "no-such-binary" + " for the run in " + run_dir +
                                         ": No such file or directory");
  }
}

TEST(SweepResults, CsvQuotingAndMetricText) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("0-3,7"), "\"0-3,7\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field(" lead"), "\" lead\"");
  EXPECT_EQ(csv_field("a\nb"), "\"a\nb\"");
  const nlohmann::json stats = nlohmann::json::parse(R"({"sim": {"time_us": 6.8354}, "drops": {"total": 3},
      "hosts": {"model": "allreduce"}})");
  EXPECT_EQ(metric_text(stats, "sim.time_us"), "6.8354");
  EXPECT_EQ(metric_text(stats, "drops.total"), "3");
  EXPECT_EQ(metric_text(stats, "hosts.model"), "allreduce");
  EXPECT_EQ(metric_text(stats, "hosts.allreduce_gbps"), "");
  EXPECT_EQ(metric_text(stats, "sim.time_us.x"), "");
  EXPECT_EQ(metric_text(nullptr, "sim.time_us"), "");
}

TEST(SweepResults, CsvAndJsonOfKnownRuns) {
  const RunPoint a = point("aaaaaaaaaaaaaaaa", {{"flare.ports", "0-3,7"}, {"sim.seed", "1"}});
  const RunPoint b = point("bbbbbbbbbbbbbbbb", {{"flare.ports", "0-15"}, {"sim.seed", "2"}});
  const RunPoint c = point("cccccccccccccccc", {{"flare.ports", "0-15"}, {"sim.seed", "3"}});
  std::vector<RunRecord> runs(3);
  runs[0].point = &a;
  runs[0].state.kind = RunState::kDone;
  runs[0].state.wall_seconds = 0.25;
  runs[0].stats = nlohmann::json::parse(R"({"sim": {"time_us": 12.5}, "throughput": {"handled_gbps": 40.25,
      "handled_packets": 64, "out_gbps": 40}, "drops": {"total": 0}, "hpus": {"utilisation": {"avg": 0.5}},
      "handlers": {"zeta": {"cycles": {"avg": 100.5}, "latency_ns": {"avg": 900, "p99": 1200}},
                   "alpha": {"cycles": {"avg": 7}, "latency_ns": {"avg": 8, "p99": 9}}}})");
  runs[1].point = &b;
  runs[1].state.kind = RunState::kFailed;
  runs[1].state.exit_code = 1;
  runs[1].state.wall_seconds = 0.125;
  runs[1].state.error = "flaresim: handler zeta ran longer than hpu.max_cycles";
  runs[2].point = &c;  // pending
  EXPECT_EQ(headline_metrics(runs),
            (std::vector<std::string>{"sim.time_us", "throughput.handled_gbps", "throughput.handled_packets",
                                      "throughput.out_gbps", "drops.total", "hpus.utilisation.avg",
                                      "hosts.allreduce_gbps", "hosts.done_us", "handlers.alpha.cycles.avg",
                                      "handlers.alpha.latency_ns.avg", "handlers.alpha.latency_ns.p99",
                                      "handlers.zeta.cycles.avg", "handlers.zeta.latency_ns.avg",
                                      "handlers.zeta.latency_ns.p99"}));
  EXPECT_EQ(results_csv({"flare.ports", "sim.seed"}, runs),
            "run,flare.ports,sim.seed,sim.time_us,throughput.handled_gbps,throughput.handled_packets,"
            "throughput.out_gbps,drops.total,hpus.utilisation.avg,hosts.allreduce_gbps,hosts.done_us,"
            "handlers.alpha.cycles.avg,handlers.alpha.latency_ns.avg,handlers.alpha.latency_ns.p99,"
            "handlers.zeta.cycles.avg,handlers.zeta.latency_ns.avg,handlers.zeta.latency_ns.p99,status,exit_code,"
            "wall_seconds\n"
            "aaaaaaaaaaaaaaaa,\"0-3,7\",1,12.5,40.25,64,40,0,0.5,,,7,8,9,100.5,900,1200,done,0,0.250\n"
            "bbbbbbbbbbbbbbbb,0-15,2,,,,,,,,,,,,,,,failed,1,0.125\n"
            "cccccccccccccccc,0-15,3,,,,,,,,,,,,,,,pending,,\n");
  const nlohmann::json j = results_json(runs);
  ASSERT_EQ(j.size(), 3u);
  EXPECT_EQ(j[0]["run"], "aaaaaaaaaaaaaaaa");
  EXPECT_EQ(j[0]["dir"], "runs/aaaaaaaaaaaaaaaa");
  EXPECT_EQ(j[0]["swept"]["flare.ports"], "0-3,7");
  EXPECT_EQ(j[0]["metrics"]["handlers.zeta.cycles.avg"], 100.5);
  EXPECT_TRUE(j[0]["metrics"]["hosts.allreduce_gbps"].is_null());
  EXPECT_EQ(j[0]["stats"], runs[0].stats);
  EXPECT_EQ(j[0]["status"], "done");
  EXPECT_EQ(j[1]["status"], "failed");
  EXPECT_EQ(j[1]["exit_code"], 1);
  EXPECT_EQ(j[1]["error"], "flaresim: handler zeta ran longer than hpu.max_cycles");
  EXPECT_TRUE(j[1]["stats"].is_null());
  EXPECT_EQ(j[2]["status"], "pending");
  EXPECT_TRUE(j[2]["exit_code"].is_null());
}

}  // namespace
}  // namespace fs::sweep
