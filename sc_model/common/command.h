// Running a helper program (sbatch and squeue for sweeps, addr2line for native handler faults)
// and capturing what it says: its exit status, stdout and stderr. The program runs in a process
// group of its own, so a terminal's Ctrl-C reaches flaresim alone and does not cut a submission
// in half.
#pragma once
#include <string>
#include <vector>

namespace fs {

struct CommandResult {
  bool started = false;  // false: the program was not found or could not be executed
  int status = -1;       // the exit status; 128 + N if signal N ended it
  std::string out, err;
  std::string start_error;  // why it did not start
};

// Runs argv (argv[0] looked up on PATH) with stdin from /dev/null and waits for it.
CommandResult run_command(const std::vector<std::string>& argv);

// Whether `program` is an executable file in a folder of PATH.
bool on_path(const std::string& program);

}  // namespace fs
