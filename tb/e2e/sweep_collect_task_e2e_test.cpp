// End to end, the parts of the Slurm backend that need no cluster: `flaresim sweep --collect`
// merges what the run folders hold and runs nothing; the array task's mode (`--slurm-task`, with
// SLURM_ARRAY_TASK_ID as Slurm sets it) runs its line of the tasks file from the prepared folder,
// skips a run that is done, and leaves its run pending when SIGTERM stops it; the Slurm options
// are refused without --slurm, and --slurm without sbatch on PATH writes nothing.
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <thread>

#include "e2e/sweep_test_support.h"
#include "support/cli_runner.h"

namespace fs::test {
namespace {

TEST(E2ESweepCollect, MergesTheRunFoldersAndRunsNothing) {
  ScratchDir dir;
  write_file(dir / "s.ini", kSweep);
  ASSERT_EQ(flaresim("sweep s.ini -q", dir).code, 0);
  const std::string csv = slurp(dir / "s.d/results.csv"), json = slurp(dir / "s.d/results.json");
  const std::vector<std::string> ids = run_ids(dir / "s.d/results.csv");
  ASSERT_EQ(ids.size(), 4u);
  std::remove((dir / "s.d/results.csv").c_str());
  std::remove((dir / "s.d/results.json").c_str());
  CliResult r = flaresim("sweep s.ini --collect", dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "sweep: collected 4 runs: 4 done, 0 failed, 0 pending\nsweep: results in " + dir.path() +
                       "/s.d/results.csv and results.json\n");
  EXPECT_EQ(slurp(dir / "s.d/results.csv"), csv);
  EXPECT_EQ(slurp(dir / "s.d/results.json"), json);

  // A run without its status is pending: collected as such, not run.
  const long long stats_time = mtime(dir / ("s.d/runs/" + ids[1] + "/stats.json"));
  std::remove((dir / ("s.d/runs/" + ids[1] + "/status.json")).c_str());
  r = flaresim("sweep s.ini --collect", dir);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "sweep: collected 4 runs: 3 done, 0 failed, 1 pending\nsweep: results in " + dir.path() +
                       "/s.d/results.csv and results.json\n");
  EXPECT_EQ(mtime(dir / ("s.d/runs/" + ids[1] + "/stats.json")), stats_time);
  EXPECT_FALSE(exists(dir / ("s.d/runs/" + ids[1] + "/status.json")));
  const std::vector<std::string> rows = lines_of(slurp(dir / "s.d/results.csv"));
  // The swept values, then 8 headline metrics and 3 per handler set (canary, flare_dense and
  // flare_sparse, which the default rules name), all empty, then the status.
  EXPECT_EQ(rows[2], ids[1] + ",fcfs,8KiB,4,,,,,,,,,,,,,,,,,,pending,,");

  // Nothing to collect where no sweep ran; nothing is created.
  r = flaresim("sweep s.ini --collect -o none", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "flaresim: none: not a sweep's output folder (no .flaresim-sweep): nothing to collect\n");
  EXPECT_FALSE(exists(dir / "none"));
}

// `flaresim ARGS` in `dir` with an environment variable set ("NAME=VALUE").
CliResult flaresim_env(const std::string& var, const std::string& args, const ScratchDir& dir) {
  const std::string cmd = "cd '" + dir.path() + "' && " + var + " '" FLARESIM_BIN "' " + args + " >.stdout 2>.stderr";
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir / ".stdout"), slurp(dir / ".stderr")};
}

TEST(E2ESweepSlurmTask, RunsItsLineOfTheTasksFile) {
  ScratchDir dir;
  write_file(dir / "s.ini", kSweep);
  ASSERT_EQ(flaresim("sweep s.ini -q", dir).code, 0);  // prepares and runs every folder
  const std::vector<std::string> ids = run_ids(dir / "s.d/results.csv");
  const std::string run = dir / ("s.d/runs/" + ids[2]);
  std::remove((run + "/status.json").c_str());  // pending again
  write_file(dir / "tasks.txt", ids[0] + "\n" + ids[2] + "\n");

  CliResult r = flaresim("sweep --slurm-task tasks.txt -o s.d", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "flaresim: --slurm-task: SLURM_ARRAY_TASK_ID is not set: this runs inside a Slurm array task\n");
  r = flaresim("sweep --slurm-task tasks.txt", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "flaresim: --slurm-task needs -o DIR, the sweep's output folder\n");

  const long long done_before = mtime(dir / ("s.d/runs/" + ids[0] + "/stats.json"));
  r = flaresim_env("SLURM_ARRAY_TASK_ID=1", "sweep --slurm-task tasks.txt -o s.d", dir);
  EXPECT_EQ(r.code, 0) << r.err;
  const std::vector<std::string> said = lines_of(r.out);
  ASSERT_EQ(said.size(), 2u) << r.out;
  EXPECT_EQ(said[0], "flaresim sweep: array task 1 on " + host_name() + ": run " + ids[2] + " in " + run);
  EXPECT_EQ(said[1].rfind("flaresim sweep: run " + ids[2] + " done after ", 0), 0u) << said[1];
  EXPECT_NE(slurp(run + "/status.json").find("\"status\": \"done\""), std::string::npos);
  EXPECT_NE(slurp(run + "/stdout.txt").find("allreduce"), std::string::npos) << slurp(run + "/stdout.txt");

  r = flaresim_env("SLURM_ARRAY_TASK_ID=0", "sweep --slurm-task tasks.txt -o s.d", dir);
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(lines_of(r.out).back(), "flaresim sweep: run " + ids[0] + " is done already; not run again");
  EXPECT_EQ(mtime(dir / ("s.d/runs/" + ids[0] + "/stats.json")), done_before);

  r = flaresim_env("SLURM_ARRAY_TASK_ID=2", "sweep --slurm-task tasks.txt -o s.d", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "flaresim: --slurm-task: array task 2 has no run: tasks.txt lists 2 runs\n");
  r = flaresim_env("SLURM_ARRAY_TASK_ID=x", "sweep --slurm-task tasks.txt -o s.d", dir);
  EXPECT_EQ(r.err, "flaresim: --slurm-task: SLURM_ARRAY_TASK_ID is 'x', not an array index\n");
  write_file(dir / "bad.txt", ids[0] + "\nnot-an-id\n");
  r = flaresim_env("SLURM_ARRAY_TASK_ID=0", "sweep --slurm-task bad.txt -o s.d", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "flaresim: bad.txt:2: 'not-an-id' is not a run id (16 hex digits)\n");
  r = flaresim_env("SLURM_ARRAY_TASK_ID=0", "sweep --slurm-task tasks.txt -o elsewhere", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "flaresim: elsewhere: not a sweep's output folder (no .flaresim-sweep)\n");
}

TEST(E2ESweepSlurmTask, SigtermLeavesItsRunPending) {
  ScratchDir dir;
  // A prepared folder by hand: a sweep's marker and a run whose command takes many seconds.
  const std::string id = "00000000000000aa", run = dir / ("s.d/runs/" + id);
  std::filesystem::create_directories(run);
  write_file(dir / "s.d/.flaresim-sweep", "");
  write_file(run + "/command", std::string(FLARESIM_BIN) + " run --config " + kBase +
                                   " --hosts.model allreduce --hosts.bytes 64MiB --hosts.window 16 --flare.ports 0-3 "
                                   "--stats " + run + "/stats.json\n");
  write_file(dir / "tasks.txt", id + "\n");
  const pid_t pid = fork();
  if (pid == 0) {
    setenv("SLURM_ARRAY_TASK_ID", "0", 1);
    if (chdir(dir.path().c_str()) != 0 || !freopen(".stdout", "w", stdout) || !freopen(".stderr", "w", stderr)) _exit(127);
    execl(FLARESIM_BIN, FLARESIM_BIN, "sweep", "--slurm-task", "tasks.txt", "-o", "s.d", (char*)nullptr);
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!exists(run + "/stderr.txt") && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the run is under way
  kill(pid, SIGTERM);  // the task alone: it passes the signal on
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM) << slurp(dir / ".stderr");
  EXPECT_EQ(lines_of(slurp(dir / ".stdout")).back(),
            "flaresim sweep: run " + id + " stopped by SIGTERM: it stays pending; submitting the sweep again runs it");
  EXPECT_FALSE(exists(run + "/status.json"));
  EXPECT_FALSE(exists(run + "/stats.json"));
  EXPECT_NE(slurp(run + "/stderr.txt").find("flaresim: interrupted by SIGTERM while "), std::string::npos)
      << slurp(run + "/stderr.txt");
}

TEST(E2ESweepSlurmOptions, NeedSlurmAndSbatch) {
  ScratchDir dir;
  write_file(dir / "s.ini", kSweep);
  for (const std::string o : {"wait", "partition p", "time 1:00", "account a", "qos q", "sbatch-arg=--mem=1G"}) {
    const CliResult r = flaresim("sweep s.ini --" + o, dir);
    EXPECT_EQ(r.code, 2) << o;
    EXPECT_EQ(r.err, "flaresim: --" + o.substr(0, o.find_first_of(" =")) + " goes with --slurm\n");
  }
  CliResult r = flaresim("sweep s.ini --slurm --collect", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "flaresim: --collect runs nothing: it does not go with --slurm\n");
  r = flaresim_env("PATH=/nonexistent", "sweep s.ini --slurm", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "flaresim: --slurm: sbatch is not on PATH: submit from a machine of a Slurm cluster (a login "
                   "node), or run the sweep here without --slurm\n");
  EXPECT_EQ(files_in(dir), std::set<std::string>{"s.ini"});
}

}  // namespace
}  // namespace fs::test
