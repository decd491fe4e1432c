// End to end: `flaresim sweep` runs every point of a small sweep file as a `flaresim run`, and
// results.csv holds each run's swept values and the metrics its own stats.json holds; a rerun
// runs only what is not done (a run whose done marker is gone, the runs an interrupt stopped),
// a failed run is reported with its error and exit status and rerun with --retry-failed; a bad
// sweep file or a folder that is not a sweep's stops the sweep before anything runs.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <thread>

#include <nlohmann/json.hpp>

#include "e2e/sweep_test_support.h"
#include "support/cli_runner.h"

namespace fs::test {
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

// results.csv as rows of cells (the sweeps here have no value that needs quoting).
std::vector<std::vector<std::string>> read_csv(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  for (const std::string& line : split(slurp(path), '\n'))
    if (!line.empty()) rows.push_back(split(line, ','));
  return rows;
}

// The stats value at a dotted path, read here without the sweep's code.
const nlohmann::json& at(const nlohmann::json& j, const std::string& path) {
  const nlohmann::json* cur = &j;
  for (const std::string& part : split(path, '.')) cur = &cur->at(part);
  return *cur;
}

TEST(E2ESweep, RunsEveryPointAndResultsHoldEachRunsStats) {
  ScratchDir dir;
  write_file(dir / "s.ini", kSweep);
  const CliResult r = flaresim("sweep s.ini --jobs 2", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("sweep: 4 runs: 0 done before, 0 failed before (not retried), 4 to run with 2 jobs in " +
                       dir.path() + "/s.d\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("sweep: ran 4 (4 done, 0 failed); skipped 0 done before; 4 of 4 runs done, 0 failed, 0 pending\n"),
            std::string::npos)
      << r.err;

  const auto rows = read_csv(dir / "s.d/results.csv");
  ASSERT_EQ(rows.size(), 5u);
  const std::vector<std::string> header = rows[0];
  EXPECT_EQ(slurp(dir / "s.d/results.csv").substr(0, slurp(dir / "s.d/results.csv").find('\n')),
            "run,scheduler.policy,hosts.bytes,hosts.window,sim.time_us,throughput.handled_gbps,"
            "throughput.handled_packets,throughput.out_gbps,drops.total,hpus.utilisation.avg,hosts.allreduce_gbps,"
            "hosts.done_us,handlers.canary.cycles.avg,handlers.canary.latency_ns.avg,handlers.canary.latency_ns.p99,"
            "handlers.flare_dense.cycles.avg,handlers.flare_dense.latency_ns.avg,"
            "handlers.flare_dense.latency_ns.p99,handlers.flare_sparse.cycles.avg,handlers.flare_sparse.latency_ns.avg,"
            "handlers.flare_sparse.latency_ns.p99,status,exit_code,wall_seconds");
  const std::vector<std::vector<std::string>> swept = {
      {"fcfs", "4KiB", "2"}, {"fcfs", "8KiB", "4"}, {"hier-fcfs", "4KiB", "2"}, {"hier-fcfs", "8KiB", "4"}};
  const nlohmann::json merged = nlohmann::json::parse(slurp(dir / "s.d/results.json"));
  ASSERT_EQ(merged.size(), 4u);
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto& row = rows[i];
    ASSERT_EQ(row.size(), header.size());
    const std::string run = dir / ("s.d/runs/" + row[0]);
    EXPECT_EQ(std::vector<std::string>(row.begin() + 1, row.begin() + 4), swept[i - 1]);
    // The run saw its values: the stats echo the effective configuration.
    const nlohmann::json stats = nlohmann::json::parse(slurp(run + "/stats.json"));
    EXPECT_EQ(stats["config"]["scheduler"]["policy"], row[1]);
    EXPECT_EQ(stats["config"]["hosts"]["bytes"], row[2] == "4KiB" ? 4096 : 8192);
    EXPECT_EQ(stats["config"]["hosts"]["window"], std::stoi(row[3]));
    EXPECT_EQ(stats["config"]["hosts"]["model"], "allreduce");
    EXPECT_EQ(stats["config"]["pspin"]["clusters"], 4);  // from the base file
    EXPECT_NE(slurp(run + "/config.ini").find("\nhosts.bytes = " + std::string(row[2] == "4KiB" ? "4096" : "8192") + "\n"),
              std::string::npos);
    // Each metric cell is the run's own stats value.
    for (size_t c = 4; c + 3 < header.size(); ++c) {
      const nlohmann::json& v = at(stats, header[c]);
      if (header[c] == "hosts.allreduce_gbps" || header[c].find("gbps") != std::string::npos ||
          header[c].find("avg") != std::string::npos || header[c].find("_us") != std::string::npos ||
          header[c].find("p99") != std::string::npos)
        EXPECT_EQ(std::stod(row[c]), v.get<double>()) << header[c] << " of " << row[0];
      else
        EXPECT_EQ(std::stoull(row[c]), v.get<uint64_t>()) << header[c] << " of " << row[0];
    }
    EXPECT_EQ(row[header.size() - 3], "done");
    EXPECT_EQ(row[header.size() - 2], "0");
    EXPECT_GT(std::stod(row[header.size() - 1]), 0.0);
    EXPECT_EQ(merged[i - 1]["run"], row[0]);
    EXPECT_EQ(merged[i - 1]["stats"], stats);
    EXPECT_EQ(merged[i - 1]["swept"]["hosts.bytes"], row[2]);
  }

  // Rerun: nothing left to do, and no run is touched.
  std::map<std::string, long long> before;
  for (const std::string& id : run_ids(dir / "s.d/results.csv")) before[id] = mtime(dir / ("s.d/runs/" + id + "/stats.json"));
  const CliResult again = flaresim("sweep s.ini -q", dir);
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.err.find("sweep: ran 0 (0 done, 0 failed); skipped 4 done before; 4 of 4 runs done"), std::string::npos)
      << again.err;
  for (const auto& [id, t] : before) EXPECT_EQ(mtime(dir / ("s.d/runs/" + id + "/stats.json")), t) << id;

  // A run without its done marker (status.json) runs again, alone.
  const std::string lost = run_ids(dir / "s.d/results.csv")[2];
  std::remove((dir / ("s.d/runs/" + lost + "/status.json")).c_str());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const CliResult third = flaresim("sweep s.ini -q", dir);
  EXPECT_EQ(third.code, 0) << third.err;
  EXPECT_NE(third.err.find("sweep: ran 1 (1 done, 0 failed); skipped 3 done before; 4 of 4 runs done"), std::string::npos)
      << third.err;
  for (const auto& [id, t] : before) {
    if (id == lost) EXPECT_NE(mtime(dir / ("s.d/runs/" + id + "/stats.json")), t) << id;
    else EXPECT_EQ(mtime(dir / ("s.d/runs/" + id + "/stats.json")), t) << id;
  }
  // The rerun run's results are the same (a run depends only on its configuration); only wall times differ.
  auto without_wall = [](std::vector<std::vector<std::string>> t) {
    for (auto& row : t) row.pop_back();
    return t;
  };
  EXPECT_EQ(without_wall(read_csv(dir / "s.d/results.csv")), without_wall(rows));
  EXPECT_EQ(third.err.find("note:"), std::string::npos) << third.err;

  // A run another build of flaresim made is kept, and the sweep says so.
  const std::string other = dir / ("s.d/runs/" + run_ids(dir / "s.d/results.csv")[1] + "/stats.json");
  auto stats = nlohmann::json::parse(slurp(other));
  stats["flaresim"]["git_commit"] = "0123abc";
  write_file(other, stats.dump());
  const CliResult fourth = flaresim("sweep s.ini -q", dir);
  EXPECT_EQ(fourth.code, 0) << fourth.err;
  EXPECT_NE(fourth.err.find("sweep: note: 1 of the done runs were made by flaresim 0123abc, not by this build ("),
            std::string::npos)
      << fourth.err;
  EXPECT_NE(fourth.err.find("sweep: ran 0 (0 done, 0 failed); skipped 4 done before"), std::string::npos) << fourth.err;
}

// Starts `flaresim ARGS...` in `dir` without waiting, stdout and stderr into dir/.stdout, .stderr.
pid_t start_flaresim(const ScratchDir& dir, std::vector<std::string> args) {
  args.insert(args.begin(), FLARESIM_BIN);
  const pid_t pid = fork();
  if (pid == 0) {
    if (chdir(dir.path().c_str()) != 0) _exit(127);
    const int out = open(".stdout", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open(".stderr", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, 1);
    dup2(err, 2);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

size_t count_status_files(const std::string& runs) {
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(runs))
    if (exists(e.path().string() + "/status.json")) ++n;
  return n;
}

TEST(E2ESweep, InterruptedSweepResumesWithOnlyTheMissingRuns) {
  ScratchDir dir;
  // Four runs of a tenth of a second or more each (Release), one at a time.
  write_file(dir / "s.ini", "[sweep]\nbase = " + kBase +
                                "\n[axes]\nsim.seed = 1, 2, 3, 4\n[set]\nhosts.model = allreduce\n"
                                "flare.ports = 0-3\nhosts.bytes = 256KiB\n");
  const pid_t pid = start_flaresim(dir, {"sweep", "s.ini", "--jobs", "1"});
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while ((!exists(dir / "s.d/runs") || count_status_files(dir / "s.d/runs") == 0) &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  kill(pid, SIGINT);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  const std::string err = slurp(dir / ".stderr");
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 128 + SIGINT) << err;
  const size_t done = count_status_files(dir / "s.d/runs");
  ASSERT_GE(done, 1u) << err;
  ASSERT_LT(done, 4u) << err;
  EXPECT_NE(err.find("sweep: interrupted by SIGINT; " + std::to_string(4 - done) +
                     " runs not done: run the same command again to finish them"),
            std::string::npos)
      << err;
  // The run the interrupt stopped has no status: it is pending, not failed.
  const auto rows = read_csv(dir / "s.d/results.csv");
  size_t pending = 0;
  std::map<std::string, long long> finished;
  for (size_t i = 1; i < rows.size(); ++i) {
    EXPECT_NE(rows[i][rows[i].size() - 3], "failed");
    if (rows[i][rows[i].size() - 3] == "pending") ++pending;
    else finished[rows[i][0]] = mtime(dir / ("s.d/runs/" + rows[i][0] + "/stats.json"));
  }
  EXPECT_EQ(pending, 4 - done);

  const CliResult r = flaresim("sweep s.ini --jobs 1 -q", dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("sweep: ran " + std::to_string(4 - done) + " (" + std::to_string(4 - done) +
                       " done, 0 failed); skipped " + std::to_string(done) + " done before; 4 of 4 runs done"),
            std::string::npos)
      << r.err;
  for (const auto& [id, t] : finished) EXPECT_EQ(mtime(dir / ("s.d/runs/" + id + "/stats.json")), t) << id;
}

TEST(E2ESweep, FailedRunIsReportedAndRetriedOnRequest) {
  ScratchDir dir;
  write_file(dir / "s.ini", "[sweep]\nbase = " + kBase +
                                "\n[axes]\nhpu.max_cycles = 100, 1000000\n[set]\nhosts.model = allreduce\n"
                                "flare.ports = 0-3\nhosts.bytes = 4KiB\n");
  const CliResult r = flaresim("sweep s.ini -q", dir);
  EXPECT_EQ(r.code, 1) << r.err;
  const auto ids = run_ids(dir / "s.d/results.csv");
  ASSERT_EQ(ids.size(), 2u);
  const std::string failed = ids[0], ok = ids[1];
  const std::string why =
      "flaresim: handler flare_dense (cluster 0, HPU 0): ran longer than hpu.max_cycles = 100 cycles (pc ";
  EXPECT_NE(r.err.find("sweep: failed run " + failed + " (hpu.max_cycles = 100): exit 1: " + why), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("(" + dir.path() + "/s.d/runs/" + failed + "/stderr.txt)\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("sweep: ran 2 (1 done, 1 failed)"), std::string::npos) << r.err;
  const auto rows = read_csv(dir / "s.d/results.csv");
  EXPECT_EQ(rows[1][rows[1].size() - 3], "failed");
  EXPECT_EQ(rows[1][rows[1].size() - 2], "1");
  EXPECT_EQ(rows[2][rows[2].size() - 3], "done");
  const nlohmann::json status = nlohmann::json::parse(slurp(dir / ("s.d/runs/" + failed + "/status.json")));
  EXPECT_EQ(status["status"], "failed");
  EXPECT_EQ(status["exit_code"], 1);
  EXPECT_EQ(status["error"].get<std::string>().rfind(why, 0), 0u) << status;
  EXPECT_EQ(nlohmann::json::parse(slurp(dir / "s.d/results.json"))[0]["error"], status["error"]);

  // A plain rerun reports it without running it; --retry-failed runs it (and only it) again.
  const long long ok_time = mtime(dir / ("s.d/runs/" + ok + "/stats.json"));
  const long long failed_time = mtime(dir / ("s.d/runs/" + failed + "/status.json"));
  const CliResult again = flaresim("sweep s.ini -q", dir);
  EXPECT_EQ(again.code, 1);
  EXPECT_NE(again.err.find("sweep: failed run " + failed), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("sweep: ran 0 (0 done, 0 failed); skipped 1 done before and 1 failed before "
                           "(--retry-failed runs them again)"),
            std::string::npos)
      << again.err;
  EXPECT_EQ(mtime(dir / ("s.d/runs/" + failed + "/status.json")), failed_time);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const CliResult retry = flaresim("sweep s.ini -q --retry-failed", dir);
  EXPECT_EQ(retry.code, 1);
  EXPECT_NE(retry.err.find("sweep: ran 1 (0 done, 1 failed); skipped 1 done before; 1 of 2 runs done, 1 failed"),
            std::string::npos)
      << retry.err;
  EXPECT_NE(mtime(dir / ("s.d/runs/" + failed + "/status.json")), failed_time);
  EXPECT_EQ(mtime(dir / ("s.d/runs/" + ok + "/stats.json")), ok_time);
}

TEST(E2ESweep, TraceAndVerifyPathsAreSweptLikeKeys) {
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 4 --bytes 4KiB -o ar.pcapng", dir).code, 0);
  std::filesystem::create_directories(dir / "sweeps");
  write_file(dir / "sweeps/t.ini", "[sweep]\nbase = " + kBase +
                                       "\n[axes]\nscheduler.policy = fcfs, home-cluster\n[set]\n"
                                       "trace = ../ar.pcapng\nverify = ../ar.pcapng.expected\nflare.ports = 0-3\n");
  const CliResult r = flaresim("sweep sweeps/t.ini -q", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  for (const std::string& id : run_ids(dir / "sweeps/t.d/results.csv")) {
    const std::string run = dir / ("sweeps/t.d/runs/" + id);
    EXPECT_NE(slurp(run + "/stdout.txt").find("verify           OK"), std::string::npos) << slurp(run + "/stdout.txt");
    EXPECT_EQ(nlohmann::json::parse(slurp(run + "/stats.json"))["inputs"]["trace"], dir / "ar.pcapng");
    EXPECT_NE(slurp(run + "/command").find(" --trace " + dir.path() + "/ar.pcapng --verify " + dir.path() +
                                           "/ar.pcapng.expected\n"),
              std::string::npos);
  }
  // Another trace under the same name is new input: every run is pending again.
  const std::vector<std::string> before = run_ids(dir / "sweeps/t.d/results.csv");
  ASSERT_EQ(flaresim("gen allreduce --hosts 4 --bytes 8KiB -o ar.pcapng", dir).code, 0);
  const CliResult list = flaresim("sweep sweeps/t.ini --list", dir);
  EXPECT_EQ(list.code, 0);
  for (const std::string& id : before) EXPECT_EQ(list.out.find(id), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("  pending  scheduler.policy = fcfs\n"), std::string::npos) << list.out;
}

TEST(E2ESweep, ListPrintsTheRunsAndWritesNothing) {
  ScratchDir dir;
  write_file(dir / "s.ini", kSweep);
  const CliResult r = flaresim("sweep s.ini --list", dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(files_in(dir), std::set<std::string>{"s.ini"});
  const auto lines = split(r.out, '\n');
  ASSERT_EQ(lines.size(), 6u) << r.out;
  EXPECT_EQ(lines[0].substr(16), "  pending  scheduler.policy = fcfs, hosts.bytes = 4KiB, hosts.window = 2");
  EXPECT_EQ(lines[3].substr(16), "  pending  scheduler.policy = hier-fcfs, hosts.bytes = 8KiB, hosts.window = 4");
  EXPECT_EQ(lines[4], "4 runs; output folder s.d");
  ASSERT_EQ(flaresim("sweep s.ini -q", dir).code, 0);
  EXPECT_NE(flaresim("sweep s.ini --dry-run", dir).out.find(lines[0].substr(0, 16) + "  done  scheduler.policy = fcfs"),
            std::string::npos);
}

TEST(E2ESweep, ExampleSweepFileOfTheDocsExpands) {
  ScratchDir dir;
  const CliResult r =
      flaresim("sweep " FLARESIM_SOURCE_DIR "/configs/sweeps/allreduce-policies.ini --list -o out", dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("  pending  scheduler.policy = fcfs, hosts.bytes = 64KiB, hosts.window = 4\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  pending  scheduler.policy = home-cluster, hosts.bytes = 256KiB, hosts.window = 16\n6 runs; "
                       "output folder out\n"),
            std::string::npos)
      << r.out;
  EXPECT_TRUE(files_in(dir).empty());
}

TEST(E2ESweep, ScalingSweepFileOfTheDocsExpandsTo24Runs) {
  ScratchDir dir;
  const CliResult r = flaresim("sweep " FLARESIM_SOURCE_DIR "/configs/sweeps/scaling-24.ini --list -o out", dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("  pending  pspin.clusters = 2, scheduler.policy = fcfs, hosts.window = 4\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  pending  pspin.clusters = 16, scheduler.policy = home-cluster, hosts.window = 16\n24 runs; "
                       "output folder out\n"),
            std::string::npos)
      << r.out;
  EXPECT_TRUE(files_in(dir).empty());
}

TEST(E2ESweep, BadSweepFileOrOutputFolderRunsNothing) {
  ScratchDir dir;
  write_file(dir / "s.ini", "[axes]\nscheduler.policy = fcfs, fifo\n");
  CliResult r = flaresim("sweep s.ini", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("flaresim: s.ini:2: bad value 'fifo' for 'scheduler.policy': expected one of ", 0), 0u) << r.err;
  EXPECT_EQ(files_in(dir), std::set<std::string>{"s.ini"});

  write_file(dir / "s.ini", kSweep);
  std::filesystem::create_directories(dir / "mine");
  write_file(dir / "mine/results.csv", "my own results\n");
  r = flaresim("sweep s.ini -o mine", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "flaresim: mine: exists and is not a flaresim sweep folder (it has no .flaresim-sweep); choose "
                   "another -o or empty it\n");
  EXPECT_EQ(slurp(dir / "mine/results.csv"), "my own results\n");

  r = flaresim("sweep s.ini --jobs 0", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "flaresim: bad value '0' for '--jobs': expected at least 1\n");
  r = flaresim("sweep", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "flaresim: usage: flaresim sweep SWEEP.ini [options] (one sweep file; see 'flaresim sweep --help')\n");
  r = flaresim("sweep nope.ini", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "flaresim: nope.ini: cannot open sweep file\n");
}

}  // namespace
}  // namespace fs::test
