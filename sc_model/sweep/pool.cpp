// The local process pool (see pool.h).
#include "sweep/pool.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "common/errors.h"
#include "common/interrupt.h"

extern char** environ;

namespace fs::sweep {

std::string format_duration(double seconds) {
  const long s = long(std::lround(std::max(0.0, seconds)));
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

namespace {

using Clock = std::chrono::steady_clock;

struct Child {
  pid_t pid;
  const RunPoint* point;
  Clock::time_point start;
  bool stopped = false;  // we passed an interrupt on to it
};

// Starts `flaresim run` for `p` in its prepared folder, in a process group of its own, with
// stdin from /dev/null and stdout, stderr to the folder's stdout.txt and stderr.txt.
pid_t spawn_run(const SweepDir& dir, const RunPoint& p, const std::string& exe) {
  const std::string run = dir.run_dir(p.id);
  const std::vector<std::string> args = run_argv(exe, run, p);
  dir.prepare(p, args);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
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
  const int rc = posix_spawn(&pid, exe.c_str(), &fa, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) throw SimError("cannot start " + exe + " for run " + p.id + ": " + std::strerror(rc));
  return pid;
}

// What a child's wait status means for its run; kPending if it was stopped by an interrupt.
RunState outcome(const SweepDir& dir, const Child& c, int status, double wall) {
  RunState s;
  s.wall_seconds = wall;
  if (WIFEXITED(status)) s.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) s.signal = WTERMSIG(status);
  const std::string run = dir.run_dir(c.point->id);
  if (s.exit_code == 0 && s.signal == 0) {
    if (std::filesystem::exists(run + "/stats.json")) {
      s.kind = RunState::kDone;
      return s;
    }
    s.error = "exited 0 but wrote no stats.json";
  }
  if (c.stopped) return RunState{};  // interrupted: pending again
  s.kind = RunState::kFailed;
  if (s.error.empty()) s.error = last_line(run + "/stderr.txt");
  if (s.error.empty()) s.error = s.signal ? "killed by " + signal_name(s.signal) : "no message on stderr";
  return s;
}

class Progress {
 public:
  explicit Progress(const PoolOptions& o) : o_(o) {}

  void finished(const Child& c, const RunState& s, double wall, size_t running, size_t waiting) {
    if (s.kind == RunState::kPending) {  // stopped by an interrupt: it will run again
      ++stopped_;
    } else {
      (s.kind == RunState::kDone ? done_ : failed_)++;
      wall_sum_ += wall;
      ++timed_;
    }
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.2f", wall);
    if (!o_.live && o_.progress)
      *o_.progress << "sweep: " << line(running, waiting) << "; run " << c.point->id << " "
                   << (s.kind == RunState::kPending ? "stopped" : state_name(s.kind)) << " after " << secs << " s\n";
  }

  void show(size_t running, size_t waiting) {
    if (!o_.live || !o_.progress) return;
    const auto now = Clock::now();
    if (drawn_ && now - last_ < std::chrono::milliseconds(300)) return;
    last_ = now;
    drawn_ = true;
    *o_.progress << "\r\033[K" << "sweep: " << line(running, waiting) << std::flush;
  }

  void end() {
    if (drawn_ && o_.progress) *o_.progress << "\r\033[K" << std::flush;
  }


 private:
  std::string line(size_t running, size_t waiting) const {
    const size_t left = running + waiting;
    std::string eta = "?";
    if (timed_) {
      const double avg = wall_sum_ / double(timed_);
      eta = format_duration(avg * std::ceil(double(left) / double(std::max(1u, o_.jobs))));
    }
    return std::to_string(o_.done_before + done_) + "/" + std::to_string(o_.total) + " done, " +
           std::to_string(o_.failed_before + failed_) + " failed, " + std::to_string(running) + " running, " +
           std::to_string(waiting) + " waiting, ETA " + (left ? eta : "0:00");
  }

  const PoolOptions& o_;
  size_t done_ = 0, failed_ = 0, stopped_ = 0, timed_ = 0;
  double wall_sum_ = 0;
  bool drawn_ = false;
  Clock::time_point last_{};
};

void nap() {
  timespec ts{0, 20 * 1000 * 1000};
  nanosleep(&ts, nullptr);  // a signal ends it early, which is what we want
}

}  // namespace

namespace {

// Ends the children still running when the pool gives up with an error.
struct Reaper {
  std::vector<Child>& running;
  ~Reaper() {
    for (const Child& c : running) kill(c.pid, SIGTERM);
    for (const Child& c : running) waitpid(c.pid, nullptr, 0);
  }
};

}  // namespace

PoolResult run_pool(const SweepDir& dir, const std::vector<const RunPoint*>& todo, const PoolOptions& opt) {
  PoolResult r;
  Progress progress(opt);
  std::vector<Child> running;
  Reaper reaper{running};
  size_t next = 0;
  while (next < todo.size() || !running.empty()) {
    if (const int sig = pending_interrupt(); sig && !r.interrupted_by) {
      r.interrupted_by = sig;
      for (Child& c : running) {
        kill(c.pid, sig);
        c.stopped = true;
      }
    }
    if (!r.interrupted_by && next < todo.size() && running.size() < opt.jobs) {
      running.push_back({spawn_run(dir, *todo[next], opt.exe), todo[next], Clock::now()});
      ++next;
      continue;
    }
    if (r.interrupted_by && next < todo.size()) {
      r.not_run += todo.size() - next;
      next = todo.size();
    }
    bool reaped = false;
    for (size_t i = 0; i < running.size(); ++i) {
      int status = 0;
      if (waitpid(running[i].pid, &status, WNOHANG) != running[i].pid) continue;
      const Child c = running[i];
      const double wall = std::chrono::duration<double>(Clock::now() - c.start).count();
      const RunState s = outcome(dir, c, status, wall);
      if (s.kind == RunState::kPending) ++r.not_run;
      else dir.record(c.point->id, s);
      if (s.kind == RunState::kDone) ++r.done;
      if (s.kind == RunState::kFailed) ++r.failed;
      running.erase(running.begin() + long(i));
      progress.finished(c, s, wall, running.size(), todo.size() - next);
      reaped = true;
      break;
    }
    progress.show(running.size(), todo.size() - next);
    if (!reaped) nap();
  }
  progress.end();
  return r;
}

}  // namespace fs::sweep
