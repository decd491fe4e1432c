// `flaresim sweep SWEEP.ini --slurm`: the Slurm backend's command side. Chooses the pending runs
// as a local sweep does, prepares their folders, submits them as one array job and a collect job
// after it (sweep/slurm_jobs.h), says where to watch them and, with --wait, waits for the collect
// job and ends with the local sweep's report (docs/SWEEP.md, "On a Slurm cluster").
#include <time.h>

#include <chrono>
#include <filesystem>
#include <iostream>

#include "app/cmd_sweep.h"
#include "common/errors.h"
#include "common/interrupt.h"
#include "sweep/slurm_jobs.h"

namespace fs {
namespace {

using Clock = std::chrono::steady_clock;

void say_submitted(const sweep::Submission& s, const sweep::SlurmOptions& so, const sweep::SubmittedJobs& jobs) {
  const std::string both = jobs.array_job + "," + jobs.collect_job;
  std::cerr << "sweep: submitted " << s.ids.size() << " runs as Slurm array job " << jobs.array_job << " (";
  if (so.throttle) std::cerr << "at most " << so.throttle << " at a time";
  else std::cerr << "as many at a time as the cluster gives";
  std::cerr << "), and job " << jobs.collect_job << " after it to merge their results\n"
            << "sweep: submission files in " << s.folder() << " (tasks.txt: the run of each array task; logs/: "
            << "Slurm's output)\n"
            << "sweep: watch them with: squeue -j " << both << "\n"
            << "sweep: cancel them with: scancel " << jobs.array_job << " " << jobs.collect_job
            << " (cancelled runs stay pending: the same command submits them again)\n"
            << "sweep: results in " << s.dir << "/results.csv and results.json once job " << jobs.collect_job
            << " has run\n";
}

// Whether the job is still pending or running; a few failed squeue calls in a row are tolerated
// (a busy controller times out now and then).
bool still_active(const std::string& job, int& failures) {
  try {
    const bool active = sweep::job_active(job);
    failures = 0;
    return active;
  } catch (const SimError& e) {
    if (++failures >= 5) throw SimError(std::string(e.what()) + " (asking about job " + job + ", 5 times)");
    return true;
  }
}

// Prints a line when the number of submitted runs that have ended changes.
class WaitProgress {
 public:
  WaitProgress(const sweep::SweepDir& dir, const SweepPlan& plan, const std::string& job)
      : dir_(dir), plan_(plan), job_(job) {}

  void show() {
    size_t done = 0, failed = 0;
    for (const sweep::RunPoint* p : plan_.todo) {
      const sweep::RunState::Kind k = dir_.state(p->id).kind;
      done += k == sweep::RunState::kDone;
      failed += k == sweep::RunState::kFailed;
    }
    if (done + failed == last_) return;
    last_ = done + failed;
    std::cerr << "sweep: " << done + failed << " of " << plan_.todo.size() << " submitted runs ended (" << done
              << " done, " << failed << " failed); waiting for job " << job_ << "\n";
  }

 private:
  const sweep::SweepDir& dir_;
  const SweepPlan& plan_;
  std::string job_;
  size_t last_ = size_t(-1);
};

// Waits until the collect job has left the queue; 0, or the signal that stopped the waiting.
int wait_for_job(const std::string& job, WaitProgress* progress) {
  const auto start = Clock::now();
  int failures = 0;
  while (true) {
    if (const int sig = pending_interrupt()) return sig;
    const bool active = still_active(job, failures);
    if (progress) progress->show();
    if (!active) return 0;
    // Every second for a minute, then every five: squeue asks the controller each time.
    const bool early = Clock::now() - start < std::chrono::minutes(1);
    timespec ts{early ? 1 : 5, 0};
    nanosleep(&ts, nullptr);  // a signal ends it early
  }
}

int wait_and_report(const sweep::SweepSpec& spec, const std::vector<sweep::RunPoint>& points,
                    const sweep::SweepDir& dir, const SweepPlan& plan, const sweep::SubmittedJobs& jobs, bool quiet) {
  std::cerr << "sweep: waiting for job " << jobs.collect_job << " (Ctrl-C stops the waiting, not the jobs)\n";
  WaitProgress progress(dir, plan, jobs.collect_job);
  if (const int sig = wait_for_job(jobs.collect_job, quiet ? nullptr : &progress)) {
    std::cerr << "sweep: stopped waiting (" << signal_name(sig) << "); the jobs go on: squeue -j " << jobs.array_job
              << "," << jobs.collect_job << "\n";
    return 128 + sig;
  }
  // The collect job has merged; merging again here reads the same folders, and gives the report.
  const SweepTally t = merge_results(dir, spec, points);
  size_t ran_done = 0, ran_failed = 0;
  for (const sweep::RunPoint* p : plan.todo) {
    const sweep::RunState::Kind k = dir.state(p->id).kind;
    ran_done += k == sweep::RunState::kDone;
    ran_failed += k == sweep::RunState::kFailed;
  }
  report_ran(plan, ran_done, ran_failed, t, points.size(), dir);
  if (t.pending)
    std::cerr << "sweep: " << t.pending << " runs did not end (cancelled, or out of time?): the same command "
              << "submits them again\n";
  return t.done == points.size() ? 0 : 1;
}

}  // namespace

int sweep_on_slurm(const sweep::SweepSpec& spec, const std::vector<sweep::RunPoint>& points, const std::string& out,
                   const SweepCli& cli, const sweep::SlurmOptions& so, bool wait) {
  const sweep::SweepDir dir(out);
  sweep::refuse_if_jobs_active(dir);
  const SweepPlan plan = plan_runs(dir, points, cli.retry);
  if (!cli.quiet)
    std::cerr << "sweep: " << points.size() << " runs: " << plan.done_before << " done before, " << plan.failed_before
              << " failed before (not retried), " << plan.todo.size() << " to submit to Slurm from " << dir.path()
              << "\n";
  if (plan.todo.empty()) {
    std::cerr << "sweep: nothing to submit; merging the results here\n";
    const SweepTally t = merge_results(dir, spec, points);
    report_ran(plan, 0, 0, t, points.size(), dir);
    return t.done == points.size() ? 0 : 1;
  }

  sweep::Submission s;
  s.exe = own_executable();
  s.sweep_file = std::filesystem::absolute(cli.path).lexically_normal().string();
  s.dir = dir.path();
  for (const sweep::RunPoint* p : plan.todo) s.ids.push_back(p->id);
  prepare_runs(dir, plan, s.exe);
  s.number = sweep::create_submission_folder(dir);
  const sweep::SubmittedJobs jobs = sweep::submit_jobs(s, so);
  say_submitted(s, so, jobs);
  return wait ? wait_and_report(spec, points, dir, plan, jobs, cli.quiet) : 0;
}

}  // namespace fs
