// One run as a child process, the same for every backend that runs a run on the machine it is
// on (the local pool, a Slurm array task): starting a prepared run folder's `command` with its
// output in the folder, and what the child's end means for the run (done, failed, or pending
// again if it was stopped).
#pragma once
#include <sys/types.h>

#include <string>

#include "sweep/run_dir.h"

namespace fs::sweep {

// Starts the command of the prepared run folder `run` (its `command` file, run_dir.h) in a process
// group of its own, with stdin from /dev/null, stdout and stderr into the folder's stdout.txt and
// stderr.txt, and SIGINT, SIGTERM and SIGPIPE at their default actions, unblocked. Throws
// SimError naming the run if it cannot be started.
pid_t spawn_run(const std::string& run);

// The run's state from its child's wait status: done if it exited 0 and wrote stats.json;
// pending (stopped, to run again) if `stopped` and it did not finish; failed otherwise, with the
// last line of its stderr.txt as the error.
RunState run_outcome(const std::string& run, int wait_status, double wall_seconds, bool stopped);

}  // namespace fs::sweep
