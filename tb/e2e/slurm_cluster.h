// A private single-node Slurm cluster for the end-to-end tests of `flaresim sweep --slurm`:
// munged (its own key, socket, pid, log and seed files), slurmctld and slurmd, started in the
// foreground as children of the test process from a temporary folder, with a slurm.conf of their
// own (this machine's name and CPUs, free TCP ports picked at run time, every state, spool and
// log file in the folder). Nothing of the system's is used or written: not /etc/slurm, not
// /etc/munge, not the default ports. The object stops what it started, by pid, whatever the test
// did: the jobs (scancel), then the daemons (SIGTERM, then SIGKILL), each daemon also getting
// SIGTERM from the kernel if the test process dies first; then it removes its folder.
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

namespace fs::test {

class LocalSlurm {
 public:
  // Starts the cluster and waits until its node is idle. A job_submit.lua script, if given, is
  // the cluster's job submission plugin (Slurm's job_submit/lua): a policy that refuses some jobs.
  explicit LocalSlurm(const std::string& job_submit_lua = "");
  ~LocalSlurm();
  LocalSlurm(const LocalSlurm&) = delete;
  LocalSlurm& operator=(const LocalSlurm&) = delete;

  // Whether the node came up; if not, error() says why, with the daemons' log tails.
  bool up() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  // The cluster's slurm.conf: SLURM_CONF for sbatch, squeue and the rest.
  const std::string& conf() const { return conf_; }
  // "SLURM_CONF='...' " to put before a shell command.
  std::string env() const;
  // The last lines of every daemon's log, for a failure message.
  std::string log_tails() const;
  // Runs a Slurm client command (squeue, scancel, ...) against this cluster; its stdout and stderr.
  std::string client(const std::string& command) const;
  // Stops the jobs and the daemons and removes the folder (the destructor does it if the test
  // has not). "" if everything stopped as asked; otherwise what had to be forced: a daemon that
  // needed SIGKILL, processes of the cluster's jobs that were still there.
  std::string shut_down();

  // The processes (other than the caller) whose environment names `conf` as SLURM_CONF: the
  // cluster's job steps and whatever they started.
  static std::vector<pid_t> processes_using(const std::string& conf);

 private:
  void start(const std::string& job_submit_lua);
  pid_t spawn(const std::vector<std::string>& argv, const std::string& log);
  bool wait_until(const std::string& what, int seconds, bool (LocalSlurm::*ready)() const);
  bool munge_ready() const;
  bool node_idle() const;
  std::string dead_daemon();  // the daemon that has exited (reaped), if one has ("" if none)

  std::string dir_, conf_, host_, error_;
  struct Daemon {
    std::string name;
    pid_t pid;  // 0 once reaped
  };
  std::vector<Daemon> daemons_;
};

}  // namespace fs::test
