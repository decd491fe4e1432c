// `flaresim plot RESULTS.csv --x KEY --y METRIC ...`: runs the plotting script with Debian's
// python3 and matplotlib. The script is sc_model/app/plot.py, embedded in the binary at build time
// (plot_script.h, made by cmake/embed_file.cmake), so the command works from any folder; it
// parses the options, reads the CSV and writes the PNG (docs/PLOTS.md). This file only starts it.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "app/commands.h"
#include "common/errors.h"
#include "common/interrupt.h"
#include "plot_script.h"

extern char** environ;

namespace fs {
namespace {

// The script is one argument of `python3 -c`: Linux takes at most 128 KiB in one argument.
static_assert(kPlotScriptSize < 128 * 1024, "plot.py is too large for python3 -c");

// The interpreter python3-matplotlib installs for (PATH's python3 may be another one, a virtual
// environment's, without matplotlib); FLARESIM_PYTHON names another.
std::string python_interpreter() {
  const char* env = std::getenv("FLARESIM_PYTHON");
  return env && *env ? env : "/usr/bin/python3";
}

}  // namespace

int cmd_plot(const std::vector<std::string>& args) {
  const std::string python = python_interpreter();
  std::vector<std::string> words = {python, "-c", std::string(kPlotScript, kPlotScriptSize)};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, python.c_str(), nullptr, nullptr, argv.data(), environ);
  if (rc != 0)
    throw SimError("plot needs python3 with matplotlib: cannot run " + python + " (" + std::strerror(rc) +
                   "): install python3-matplotlib (scripts/install-deps installs it)");
  // SIGINT or SIGTERM for flaresim goes on to the script, which removes its temporary PNG and exits
  // with 128 + the signal; the top level then reports the interrupt as every command does. A script
  // that finished before the signal reached it has written its PNG and says so.
  int status = 0, forwarded = 0;
  while (true) {
    if (const int sig = pending_interrupt(); sig && !forwarded) kill(pid, forwarded = sig);
    if (waitpid(pid, &status, 0) >= 0) break;
    if (errno != EINTR) throw SimError(std::string("plot: waiting for ") + python + ": " + std::strerror(errno));
  }
  const int code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
  if (const int sig = pending_interrupt(); sig && code == 128 + sig) throw Interrupted(sig, "plotting");
  return code;
}

}  // namespace fs
