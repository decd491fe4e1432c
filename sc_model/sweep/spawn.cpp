// Starting a prepared run and reading its end (see spawn.h).
#include "sweep/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstring>
#include <filesystem>
#include <vector>

#include "common/errors.h"
#include "common/interrupt.h"

extern char** environ;

namespace fs::sweep {

pid_t spawn_run(const std::string& run) {
  std::vector<std::string> args = read_command(run);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string out = run + "/stdout.txt", err = run + "/stderr.txt";

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int s : {SIGINT, SIGTERM, SIGPIPE}) sigaddset(&defaults, s);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &fa, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) throw SimError("cannot start " + args[0] + " for the run in " + run + ": " + std::strerror(rc));
  return pid;
}

RunState run_outcome(const std::string& run, int wait_status, double wall_seconds, bool stopped) {
  RunState s;
  s.wall_seconds = wall_seconds;
  if (WIFEXITED(wait_status)) s.exit_code = WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) s.signal = WTERMSIG(wait_status);
  if (s.exit_code == 0 && s.signal == 0) {
    if (std::filesystem::exists(run + "/stats.json")) {
      s.kind = RunState::kDone;
      return s;
    }
    s.error = "exited 0 but wrote no stats.json";
  }
  if (stopped) return RunState{};  // interrupted: pending again
  s.kind = RunState::kFailed;
  if (s.error.empty()) s.error = last_line(run + "/stderr.txt");
  if (s.error.empty()) s.error = s.signal ? "killed by " + signal_name(s.signal) : "no message on stderr";
  return s;
}

}  // namespace fs::sweep
