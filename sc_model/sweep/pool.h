// The local backend of `flaresim sweep`: runs prepared run folders (their `command`, through
// sweep/spawn.h) as child processes, at most `jobs` at a time, recording each run's end in its
// folder (sweep/run_dir.h) and showing progress. A first SIGINT or SIGTERM stops launching,
// passes the signal on to the running children (which are in process groups of their own, so a
// terminal's Ctrl-C reaches the sweep alone) and waits for them; their runs stay pending. A Slurm
// array task (sweep/slurm_task.h) is this pool with one run.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "sweep/run_dir.h"

namespace fs::sweep {

struct PoolOptions {
  unsigned jobs = 1;
  bool live = false;        // redraw one progress line (a terminal) instead of a line per finished run
  std::ostream* progress = nullptr;
  size_t total = 0;         // runs in the sweep
  size_t done_before = 0;   // runs already done (skipped)
  size_t failed_before = 0; // runs that failed before and are not retried
};

struct PoolResult {
  size_t done = 0, failed = 0;  // runs that ended this time
  size_t not_run = 0;           // pending runs left by an interrupt (including those it stopped)
  int interrupted_by = 0;       // the signal, or 0
};

// Runs the runs `ids`, each prepared in `dir` (SweepDir::prepare): a run's end is recorded in its
// status.json, except that a run stopped by an interrupt (one passed on to it, or one that
// reached the pool by the time the run ended without finishing) stays pending.
PoolResult run_pool(const SweepDir& dir, const std::vector<std::string>& ids, const PoolOptions& opt);

// "1:05", "0:07", "2:03:04"
std::string format_duration(double seconds);

}  // namespace fs::sweep
