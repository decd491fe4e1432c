// End to end on a real Slurm: `flaresim sweep --slurm` against a private single-node cluster
// started by the test (tb/e2e/slurm_cluster.h: munged, slurmctld and slurmd of Debian's packages,
// nothing mocked). The array job's runs give the local pool's results row for row; each array
// task ran its line of tasks.txt and logged it; the same command again submits only what is not
// done; a run cancelled with scancel stays pending while a failed one is reported; a submission
// is refused while an earlier one's jobs are queued; jobs the cluster refuses are reported with
// what was and was not submitted. Every daemon and job is gone afterwards.
#include <thread>

#include "e2e/slurm_cluster.h"
#include "e2e/sweep_test_support.h"
#include "support/cli_runner.h"

namespace fs::test {
namespace {

const std::string kBase = FLARESIM_SOURCE_DIR "/configs/pspin-4x8.ini";

// results.csv's rows without the last cell (wall_seconds, which differs from run to run).
std::vector<std::string> rows_without_wall(const std::string& csv_path) {
  std::vector<std::string> rows;
  for (const std::string& line : lines_of(slurp(csv_path))) rows.push_back(line.substr(0, line.rfind(',')));
  return rows;
}

// `flaresim ARGS` in `dir` with the cluster's SLURM_CONF, stopped after a minute at most (it takes seconds).
CliResult flaresim_on(const LocalSlurm& cluster, const std::string& args, const ScratchDir& dir) {
  const std::string out = dir / ".stdout", err = dir / ".stderr";
  const std::string cmd = "cd '" + dir.path() + "' && " + cluster.env() + "timeout 60 '" FLARESIM_BIN "' " + args +
                          " >'" + out + "' 2>'" + err + "'";
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}

struct Jobs {
  std::string array, collect;
};

// The digits right after the first `prefix` in `text` ("" if none). (No <regex>: GCC 12 warns
// about its insides in the sanitizer build, and warnings are errors.)
std::string number_after(const std::string& text, const std::string& prefix) {
  const size_t at = text.find(prefix);
  if (at == std::string::npos) return "";
  const size_t start = at + prefix.size();
  return text.substr(start, text.find_first_not_of("0123456789", start) - start);
}

// The job ids the submission printed.
Jobs submitted_jobs(const std::string& err) {
  return {number_after(err, " as Slurm array job "), number_after(err, "), and job ")};
}

// Waits up to `seconds` for `done()`; whether it became true.
template <class F>
bool eventually(int seconds, F done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return true;
}

TEST(E2ESweepSlurm, ArrayJobGivesTheLocalPoolsResultsAndResumes) {
  LocalSlurm cluster;
  ASSERT_TRUE(cluster.up()) << cluster.error();
  const std::string conf = cluster.conf();
  ScratchDir dir;
  // Six closed-loop allreduce runs of a few milliseconds: three policies by two sizes.
  write_file(dir / "s.ini", "[sweep]\nbase = " + kBase +
                                "\n[axes]\nscheduler.policy = fcfs, hier-fcfs, home-cluster\n[zip]\n"
                                "hosts.bytes = 4KiB, 8KiB\nhosts.window = 2, 4\n[set]\nhosts.model = allreduce\n"
                                "flare.ports = 0-3\n");
  const CliResult local = flaresim("sweep s.ini -o local -q --jobs 2", dir);
  ASSERT_EQ(local.code, 0) << local.err;

  const CliResult r = flaresim_on(cluster, "sweep s.ini -o on-slurm --slurm --jobs 2 --wait", dir);
  ASSERT_EQ(r.code, 0) << r.err << "\n" << cluster.log_tails();
  const std::string out = dir / "on-slurm", sub = out + "/slurm/submit-1";
  const Jobs jobs = submitted_jobs(r.err);
  ASSERT_TRUE(!jobs.array.empty() && !jobs.collect.empty()) << r.err;
  EXPECT_NE(r.err.find("sweep: 6 runs: 0 done before, 0 failed before (not retried), 6 to submit to Slurm from " +
                       out + "\nsweep: submitted 6 runs as Slurm array job " + jobs.array +
                       " (at most 2 at a time), and job " + jobs.collect + " after it to merge their results\n"
                       "sweep: submission files in " + sub +
                       " (tasks.txt: the run of each array task; logs/: Slurm's output)\n"
                       "sweep: watch them with: squeue -j " + jobs.array + "," + jobs.collect + "\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("sweep: ran 6 (6 done, 0 failed); skipped 0 done before; 6 of 6 runs done, 0 failed, 0 pending\n"
                       "sweep: results in " + out + "/results.csv and results.json\n"),
            std::string::npos)
      << r.err;

  // Row for row the local pool's results (same ids, values, metrics and states).
  const std::vector<std::string> rows = rows_without_wall(out + "/results.csv");
  EXPECT_EQ(rows, rows_without_wall(dir / "local/results.csv"));
  ASSERT_EQ(rows.size(), 7u);

  // The array really ran: task i ran line i of tasks.txt, and said so in its Slurm log.
  const std::vector<std::string> tasks = lines_of(slurp(sub + "/tasks.txt"));
  ASSERT_EQ(tasks.size(), 6u);
  for (size_t i = 0; i < tasks.size(); ++i) {
    const std::string& id = tasks[i];
    EXPECT_EQ(rows[i + 1].substr(0, 17), id + ",");
    const std::string log = slurp(sub + "/logs/task-" + std::to_string(i) + ".out");
    EXPECT_EQ(log.rfind("flaresim sweep: array task " + std::to_string(i) + " on " + host_name() + ": run " + id + " in " +
                            out + "/runs/" + id + "\nflaresim sweep: run " + id + " done after ",
                        0),
              0u)
        << log;
    EXPECT_NE(slurp(out + "/runs/" + id + "/status.json").find("\"status\": \"done\""), std::string::npos) << id;
  }
  EXPECT_EQ(slurp(sub + "/logs/collect.out"),
            "sweep: collected 6 runs: 6 done, 0 failed, 0 pending\nsweep: results in " + out +
                "/results.csv and results.json\n");
  EXPECT_EQ(slurp(sub + "/jobs.txt"), "# the Slurm jobs of this submission (flaresim sweep --slurm)\narray " +
                                          jobs.array + "\ncollect " + jobs.collect + "\n");

  // The same command again: nothing to submit.
  const CliResult again = flaresim_on(cluster, "sweep s.ini -o on-slurm --slurm --jobs 2 --wait", dir);
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.err.find("sweep: nothing to submit; merging the results here\n"), std::string::npos) << again.err;
  EXPECT_FALSE(exists(out + "/slurm/submit-2"));

  // A run whose status is gone is submitted again, alone, in a new submission folder.
  std::remove((out + "/runs/" + tasks[4] + "/status.json").c_str());
  const CliResult resume = flaresim_on(cluster, "sweep s.ini -o on-slurm --slurm --wait -q", dir);
  EXPECT_EQ(resume.code, 0) << resume.err << "\n" << cluster.log_tails();
  EXPECT_NE(resume.err.find("(as many at a time as the cluster gives)"), std::string::npos) << resume.err;
  EXPECT_EQ(slurp(out + "/slurm/submit-2/tasks.txt"), tasks[4] + "\n");
  EXPECT_EQ(slurp(sub + "/tasks.txt").size(), 6 * 17u);  // the first submission's files are kept
  EXPECT_EQ(rows_without_wall(out + "/results.csv"), rows);

  EXPECT_EQ(cluster.client("squeue -h -o %i"), "");
  EXPECT_EQ(cluster.shut_down(), "");
  EXPECT_TRUE(LocalSlurm::processes_using(conf).empty());
}

TEST(E2ESweepSlurm, CancelledRunStaysPendingAndFailedRunIsReported) {
  LocalSlurm cluster;
  ASSERT_TRUE(cluster.up()) << cluster.error();
  const std::string conf = cluster.conf();
  ScratchDir dir;
  // A run that fails at once (a handler runs longer than 100 cycles) and one of many seconds.
  write_file(dir / "s.ini", "[sweep]\nbase = " + kBase +
                                "\n[zip]\nhosts.bytes = 4KiB, 64MiB\nhpu.max_cycles = 100, 1000000\n[set]\n"
                                "hosts.model = allreduce\nhosts.window = 16\nflare.ports = 0-3\n");
  const CliResult r = flaresim_on(cluster, "sweep s.ini --slurm --jobs 2", dir);
  ASSERT_EQ(r.code, 0) << r.err << "\n" << cluster.log_tails();
  const Jobs jobs = submitted_jobs(r.err);
  ASSERT_TRUE(!jobs.array.empty() && !jobs.collect.empty()) << r.err;
  const std::string out = dir / "s.d", sub = out + "/slurm/submit-1";
  EXPECT_NE(r.err.find("sweep: results in " + out + "/results.csv and results.json once job " + jobs.collect +
                       " has run\n"),
            std::string::npos)
      << r.err;
  const std::vector<std::string> tasks = lines_of(slurp(sub + "/tasks.txt"));
  ASSERT_EQ(tasks.size(), 2u);
  const std::string failing = out + "/runs/" + tasks[0], long_run = out + "/runs/" + tasks[1];
  ASSERT_TRUE(eventually(60, [&] { return exists(failing + "/status.json") && exists(long_run + "/stderr.txt"); }))
      << cluster.client("squeue") << cluster.log_tails();

  // While its jobs are queued or running, the sweep is not submitted again.
  const CliResult twice = flaresim_on(cluster, "sweep s.ini --slurm", dir);
  EXPECT_EQ(twice.code, 2);
  const std::string refused = "flaresim: " + out +
                              ": Slurm jobs of an earlier submission are still queued or running (squeue -j ";
  EXPECT_TRUE(twice.err == refused + jobs.array + "," + jobs.collect + "): wait until they have ended, or cancel "
                                                                       "them (scancel " + jobs.array + " " +
                               jobs.collect + "), then submit again\n" ||
              twice.err == refused + jobs.collect + "," + jobs.array + "): wait until they have ended, or cancel "
                                                                       "them (scancel " + jobs.collect + " " +
                               jobs.array + "), then submit again\n")
      << twice.err;
  EXPECT_FALSE(exists(out + "/slurm/submit-2"));

  // scancel stops the long run: its task passes SIGTERM on, and the run stays pending.
  cluster.client("scancel " + jobs.array);
  ASSERT_TRUE(eventually(60, [&] { return cluster.client("squeue -h -o %i").empty(); }))
      << cluster.client("squeue") << cluster.log_tails();
  EXPECT_FALSE(exists(long_run + "/status.json"));
  const std::string log = slurp(sub + "/logs/task-1.out");
  EXPECT_NE(log.find("flaresim sweep: run " + tasks[1] +
                     " stopped by SIGTERM: it stays pending; submitting the sweep again runs it\n"),
            std::string::npos)
      << log;
  EXPECT_NE(slurp(sub + "/logs/task-0.out").find("flaresim sweep: run " + tasks[0] + " failed after "),
            std::string::npos);
  EXPECT_EQ(slurp(sub + "/logs/collect.out")
                .rfind("sweep: failed run " + tasks[0] + " (hosts.bytes = 4KiB, hpu.max_cycles = 100): exit 1: flaresim: ", 0),
            0u)
      << slurp(sub + "/logs/collect.out");
  EXPECT_NE(slurp(sub + "/logs/collect.out").find("sweep: collected 2 runs: 0 done, 1 failed, 1 pending\n"),
            std::string::npos);
  const std::vector<std::string> rows = rows_without_wall(out + "/results.csv");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1].substr(rows[1].size() - 9), ",failed,1");
  EXPECT_EQ(rows[2].substr(rows[2].size() - 9), ",pending,");

  EXPECT_EQ(cluster.shut_down(), "");
  EXPECT_TRUE(LocalSlurm::processes_using(conf).empty());
}

// A cluster whose job submission policy (job_submit/lua) refuses every job named *-collect: a
// refused array job leaves nothing; a refused collect job leaves the array running and says how
// to merge its results and how to cancel it.
TEST(E2ESweepSlurm, RefusedJobsAreReportedWithWhatWasSubmitted) {
  LocalSlurm cluster(
      "function slurm_job_submit(job_desc, part_list, submit_uid)\n"
      "  if job_desc.name ~= nil and string.find(job_desc.name, '-collect$') then\n"
      "    slurm.log_user('this cluster takes no collect job')\n"
      "    return slurm.ERROR\n"
      "  end\n"
      "  return slurm.SUCCESS\n"
      "end\n"
      "function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)\n"
      "  return slurm.SUCCESS\n"
      "end\n");
  ASSERT_TRUE(cluster.up()) << cluster.error();
  const std::string conf = cluster.conf();
  ScratchDir dir;
  write_file(dir / "s.ini", "[sweep]\nbase = " + kBase +
                                "\n[axes]\nsim.seed = 1, 2\n[set]\nhosts.model = allreduce\nhosts.bytes = 4KiB\n"
                                "flare.ports = 0-3\n");
  const std::string out = dir / "s.d";

  CliResult r = flaresim_on(cluster, "sweep s.ini --slurm --partition nope -q", dir);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err.rfind("flaresim: --slurm: the array job of 2 runs was not submitted: sbatch exited 1 and said: "
                        "sbatch: error: invalid partition specified: nope\n",
                        0),
            0u)
      << r.err;
  EXPECT_NE(r.err.find("  (the command: sbatch --parsable --array=0-1 --job-name=flaresim-s --output=" + out +
                       "/slurm/submit-1/logs/task-%a.out --chdir=" + out + "/slurm/submit-1 --partition=nope " + out +
                       "/slurm/submit-1/array.sh)\n  Nothing was submitted.\n"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(exists(out + "/slurm/submit-1"));

  r = flaresim_on(cluster, "sweep s.ini --slurm -q", dir);
  EXPECT_EQ(r.code, 1);
  const std::string array = number_after(r.err, "--slurm: the array job ");
  ASSERT_FALSE(array.empty()) << r.err;
  EXPECT_EQ(r.err.rfind("flaresim: --slurm: the array job " + array + " of 2 runs was submitted, but its collect job "
                        "was not: sbatch exited 1 and said: sbatch: error: this cluster takes no collect job\n",
                        0),
            0u)
      << r.err;
  const std::string collect = std::string(FLARESIM_BIN) + " sweep " + dir.path() + "/s.ini -o " + out + " --collect";
  EXPECT_NE(r.err.find("\n  The runs go on (squeue -j " + array + "); when they have ended, merge their results "
                       "with: " + collect + "\n  or cancel them: scancel " + array + "\n"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(slurp(out + "/slurm/submit-1/jobs.txt"),
            "# the Slurm jobs of this submission (flaresim sweep --slurm)\narray " + array + "\n");

  // The runs go on; the command it gave merges them.
  ASSERT_TRUE(eventually(60, [&] { return cluster.client("squeue -h -o %i").empty(); }))
      << cluster.client("squeue") << cluster.log_tails();
  const int merged = std::system((collect + " 2>/dev/null").c_str());
  EXPECT_TRUE(WIFEXITED(merged) && WEXITSTATUS(merged) == 0);
  const std::vector<std::string> rows = rows_without_wall(out + "/results.csv");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1].substr(rows[1].size() - 7), ",done,0") << rows[1];
  EXPECT_EQ(rows[2].substr(rows[2].size() - 7), ",done,0") << rows[2];

  EXPECT_EQ(cluster.shut_down(), "");
  EXPECT_TRUE(LocalSlurm::processes_using(conf).empty());
}

}  // namespace
}  // namespace fs::test
