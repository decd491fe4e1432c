// The array task (see slurm_task.h).
#include "sweep/slurm_task.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/errors.h"
#include "common/interrupt.h"
#include "sweep/pool.h"
#include "sweep/run_dir.h"
#include "sweep/slurm.h"

namespace fs::sweep {
namespace {

size_t task_index(size_t tasks, const std::string& tasks_file) {
  const char* env = std::getenv("SLURM_ARRAY_TASK_ID");
  if (!env) throw InputError("--slurm-task: SLURM_ARRAY_TASK_ID is not set: this runs inside a Slurm array task");
  const std::string text = env;
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos)
    throw InputError("--slurm-task: SLURM_ARRAY_TASK_ID is '" + text + "', not an array index");
  const size_t i = std::stoul(text);
  if (i >= tasks)
    throw InputError("--slurm-task: array task " + text + " has no run: " + tasks_file + " lists " +
                     std::to_string(tasks) + " runs");
  return i;
}

std::string host() {
  char name[256] = {0};
  gethostname(name, sizeof name - 1);
  return name;
}

}  // namespace

int run_slurm_task(const std::string& tasks_file, const std::string& dir_path, std::ostream& log) {
  if (!SweepDir::is_sweep(dir_path)) throw InputError(dir_path + ": not a sweep's output folder (no .flaresim-sweep)");
  std::ifstream in(tasks_file, std::ios::binary);
  if (!in) throw InputError(tasks_file + ": cannot read the submission's tasks file");
  std::stringstream text;
  text << in.rdbuf();
  const std::vector<std::string> ids = parse_tasks(text.str(), tasks_file);
  const size_t index = task_index(ids.size(), tasks_file);
  const SweepDir dir(dir_path);
  const std::string id = ids[index], run = dir.run_dir(id);
  log << "flaresim sweep: array task " << index << " on " << host() << ": run " << id << " in " << run << std::endl;
  if (dir.state(id).kind == RunState::kDone) {  // a run is never run twice
    log << "flaresim sweep: run " << id << " is done already; not run again" << std::endl;
    return 0;
  }
  PoolOptions opt;
  opt.jobs = 1;
  opt.total = 1;
  const PoolResult r = run_pool(dir, {id}, opt);
  const RunState s = dir.state(id);
  if (r.not_run) {  // an interrupt stopped it (the pool saw one)
    const int sig = r.interrupted_by ? r.interrupted_by : pending_interrupt();
    log << "flaresim sweep: run " << id << " stopped by " << signal_name(sig)
        << ": it stays pending; submitting the sweep again runs it" << std::endl;
    return 128 + sig;
  }
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.2f", s.wall_seconds);
  if (s.kind == RunState::kDone) {
    log << "flaresim sweep: run " << id << " done after " << secs << " s" << std::endl;
    return 0;
  }
  log << "flaresim sweep: run " << id << " failed after " << secs << " s (";
  if (s.signal) log << "killed by " << signal_name(s.signal);
  else log << "exit " << s.exit_code;
  log << "): " << s.error << " (" << run << "/stderr.txt)" << std::endl;
  return 1;
}

}  // namespace fs::sweep
