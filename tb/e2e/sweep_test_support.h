// What the sweep's end-to-end tests share (sweep_e2e_test, sweep_collect_task_e2e_test,
// sweep_slurm_e2e_test): the base configuration, a small sweep of four closed-loop runs, and
// readers of what a sweep leaves behind.
#pragma once
#include <sys/stat.h>
#include <unistd.h>

#include <sstream>
#include <string>
#include <vector>

#include "support/cli_runner.h"

namespace fs::test {

inline const std::string kBase = FLARESIM_SOURCE_DIR "/configs/pspin-4x8.ini";

// Four closed-loop allreduce runs of a few milliseconds: two policies crossed with two sizes,
// each size with its own window.
inline const std::string kSweep =
    "[sweep]\n"
    "base = " + kBase + "\n"
    "[axes]\n"
    "scheduler.policy = fcfs, hier-fcfs\n"
    "[zip]\n"
    "hosts.bytes = 4KiB, 8KiB\n"
    "hosts.window = 2, 4\n"
    "[set]\n"
    "hosts.model = allreduce\n"
    "flare.ports = 0-3\n";

// The run ids of results.csv, in its order (the first cell of every row but the header).
inline std::vector<std::string> run_ids(const std::string& csv) {
  std::vector<std::string> ids;
  const std::vector<std::string> rows = lines_of(slurp(csv));
  for (size_t i = 1; i < rows.size(); ++i) ids.push_back(rows[i].substr(0, rows[i].find(',')));
  return ids;
}

// Modification time of a file in nanoseconds (0 if missing).
inline long long mtime(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return 0;
  return (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
}

inline std::string host_name() {
  char name[256] = {0};
  gethostname(name, sizeof name - 1);
  return name;
}

}  // namespace fs::test
