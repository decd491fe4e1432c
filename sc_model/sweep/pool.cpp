// The local process pool (see pool.h).
#include "sweep/pool.h"

#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include <chrono>
#include <cmath>

#include "common/interrupt.h"
#include "sweep/spawn.h"

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
  std::string id;
  Clock::time_point start;
  bool stopped = false;  // we passed an interrupt on to it
};

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
      *o_.progress << "sweep: " << line(running, waiting) << "; run " << c.id << " "
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

PoolResult run_pool(const SweepDir& dir, const std::vector<std::string>& ids, const PoolOptions& opt) {
  PoolResult r;
  Progress progress(opt);
  std::vector<Child> running;
  Reaper reaper{running};
  size_t next = 0;
  while (next < ids.size() || !running.empty()) {
    if (const int sig = pending_interrupt(); sig && !r.interrupted_by) {
      r.interrupted_by = sig;
      for (Child& c : running) {
        kill(c.pid, sig);
        c.stopped = true;
      }
    }
    if (!r.interrupted_by && next < ids.size() && running.size() < opt.jobs) {
      running.push_back({spawn_run(dir.run_dir(ids[next])), ids[next], Clock::now()});
      ++next;
      continue;
    }
    if (r.interrupted_by && next < ids.size()) {
      r.not_run += ids.size() - next;
      next = ids.size();
    }
    bool reaped = false;
    for (size_t i = 0; i < running.size(); ++i) {
      int status = 0;
      if (waitpid(running[i].pid, &status, WNOHANG) != running[i].pid) continue;
      const Child c = running[i];
      const double wall = std::chrono::duration<double>(Clock::now() - c.start).count();
      // An interrupt that arrived before we saw the run end may have reached the run first (a
      // batch system signals every process of a job): it was stopped, not failed.
      const bool stopped = c.stopped || pending_interrupt() != 0;
      const RunState s = run_outcome(dir.run_dir(c.id), status, wall, stopped);
      if (s.kind == RunState::kPending) ++r.not_run;
      else dir.record(c.id, s);
      if (s.kind == RunState::kDone) ++r.done;
      if (s.kind == RunState::kFailed) ++r.failed;
      running.erase(running.begin() + long(i));
      progress.finished(c, s, wall, running.size(), ids.size() - next);
      reaped = true;
      break;
    }
    progress.show(running.size(), ids.size() - next);
    if (!reaped) nap();
  }
  progress.end();
  return r;
}

}  // namespace fs::sweep
