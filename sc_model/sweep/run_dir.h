// The sweep's output folder on disk: DIR/.flaresim-sweep (marks the folder as a sweep's, so a
// user's folder is never written into), and DIR/runs/ID/ per run with config.ini (the effective
// configuration), command (the `flaresim run` command line), stdout.txt, stderr.txt, stats.json
// and status.json, written atomically once the run has ended: a run is done only if status.json
// says so and stats.json is there, so a run killed half-way is pending again. Any backend
// (the local pool, a batch system) prepares, runs and records runs through these functions.
#pragma once
#include <string>
#include <vector>

#include "sweep/matrix.h"

namespace fs::sweep {

struct RunState {
  enum Kind { kPending, kDone, kFailed } kind = kPending;
  int exit_code = 0;      // the run's exit status (failed: nonzero, or 0 with a signal)
  int signal = 0;         // the signal that ended it, or 0
  double wall_seconds = 0;
  std::string error;      // failed: the last line of its stderr
};

const char* state_name(RunState::Kind k);  // "pending", "done", "failed"

class SweepDir {
 public:
  // Opens (creating it if needed) the output folder. A folder that exists, is not empty and has
  // no .flaresim-sweep is refused: it is not a sweep's.
  explicit SweepDir(const std::string& dir);
  // Checks what open would refuse, creating nothing (for --list).
  static void check(const std::string& dir);
  // Whether `dir` is a sweep's folder already (has .flaresim-sweep).
  static bool is_sweep(const std::string& dir);

  const std::string& path() const { return dir_; }
  std::string run_dir(const std::string& id) const;  // absolute
  RunState state(const std::string& id) const;

  // Empties the run's folder and writes its config.ini and command.
  void prepare(const RunPoint& p, const std::vector<std::string>& argv) const;
  // Writes status.json (to a temporary name, then renamed).
  void record(const std::string& id, const RunState& s) const;

 private:
  std::string dir_;
};

// The `flaresim run` command line of a point: `exe` run --config RUN/config.ini --stats
// RUN/stats.json [--trace T] [--verify V].
std::vector<std::string> run_argv(const std::string& exe, const std::string& run_dir, const RunPoint& p);

// The words, each shell-quoted if needed, joined by blanks: a `command` file's line.
std::string command_line(const std::vector<std::string>& argv);
// The words of a command line as command_line() writes it (blank-separated words, single-quoted
// parts, backslash escapes outside quotes). Throws SimError (an unterminated quote, no word);
// `where` names the line in the message.
std::vector<std::string> split_command(const std::string& line, const std::string& where);
// The command of a prepared run folder (its `command` file), as words. Throws SimError naming
// the file if it is missing or cannot be read back.
std::vector<std::string> read_command(const std::string& run_dir);
// The last non-empty line of a file (a failed run's error), at most 500 characters.
std::string last_line(const std::string& path);
// Writes `text` to `path` through a temporary file renamed into place; throws SimError.
void write_atomically(const std::string& path, const std::string& text);

}  // namespace fs::sweep
