// What the backends of `flaresim sweep` share (app/cmd_sweep.cpp runs locally, app/cmd_sweep_slurm.cpp
// submits to Slurm): which runs to run, preparing their folders, merging the results and the final
// report, so that every backend skips, prepares and reports the same way.
#pragma once
#include <string>
#include <vector>

#include "sweep/matrix.h"
#include "sweep/run_dir.h"
#include "sweep/slurm.h"
#include "sweep/sweep_file.h"

namespace fs {

struct SweepCli {
  std::string path;    // the sweep file, as given
  unsigned jobs = 0;   // --jobs, 0 if not given
  bool retry = false;  // --retry-failed
  bool quiet = false;  // -q
};

struct SweepPlan {
  std::vector<const sweep::RunPoint*> todo;  // the runs to run, in matrix order
  size_t done_before = 0, failed_before = 0;  // skipped (failed ones unless --retry-failed)
};

struct SweepTally {
  size_t done = 0, failed = 0, pending = 0;
};

// The flaresim binary (/proc/self/exe), absolute.
std::string own_executable();
// Which runs to run: every run neither done nor (unless `retry`) failed.
SweepPlan plan_runs(const sweep::SweepDir& dir, const std::vector<sweep::RunPoint>& points, bool retry);
// Empties the folder of every run to run and writes its config.ini and command (running `exe`).
void prepare_runs(const sweep::SweepDir& dir, const SweepPlan& plan, const std::string& exe);
// Writes results.csv and results.json from the run folders, reports each failed run on stderr
// and counts the runs by state.
SweepTally merge_results(const sweep::SweepDir& dir, const sweep::SweepSpec& spec,
                         const std::vector<sweep::RunPoint>& points);
// "sweep: ran 4 (4 done, 0 failed); skipped ...; 4 of 4 runs done, 0 failed, 0 pending" and where
// the results are.
void report_ran(const SweepPlan& plan, size_t ran_done, size_t ran_failed, const SweepTally& t, size_t total,
                const sweep::SweepDir& dir);

// --slurm: submits the pending runs (app/cmd_sweep_slurm.cpp); with `wait`, waits for the collect
// job and reports like a local sweep. Returns the exit status.
int sweep_on_slurm(const sweep::SweepSpec& spec, const std::vector<sweep::RunPoint>& points, const std::string& out,
                   const SweepCli& cli, const sweep::SlurmOptions& so, bool wait);

}  // namespace fs
