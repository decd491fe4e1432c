// The array task's side of `flaresim sweep --slurm`: `flaresim sweep --slurm-task TASKS -o DIR`,
// which each task of the array job runs (sweep/slurm.h writes the script). It runs the run on line
// SLURM_ARRAY_TASK_ID + 1 of TASKS from its prepared folder DIR/runs/ID exactly as the local pool
// runs one (it is the pool with one run): output in the folder, status.json at its end, and a
// SIGTERM from scancel or the time limit passed on to the run, which then stays pending.
#pragma once
#include <ostream>
#include <string>

namespace fs::sweep {

// Runs the task's run and says what became of it on `log` (Slurm's output file). Returns the
// exit status: 0 the run is done (or was already), 1 it failed, 128 + N if signal N stopped it.
// Throws InputError if SLURM_ARRAY_TASK_ID is missing or not a line of TASKS, or DIR is not a
// sweep's folder.
int run_slurm_task(const std::string& tasks_file, const std::string& dir, std::ostream& log);

}  // namespace fs::sweep
