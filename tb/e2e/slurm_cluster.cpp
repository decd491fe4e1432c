// The tests' private single-node Slurm cluster (see slurm_cluster.h).
#include "e2e/slurm_cluster.h"

#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace fs::test {
namespace {

using Clock = std::chrono::steady_clock;

// The program's path: a folder of PATH, or the sbin and bin folders Debian installs Slurm into.
std::string find_program(const std::string& name) {
  std::string dirs = std::getenv("PATH") ? std::getenv("PATH") : "";
  dirs += ":/usr/sbin:/usr/bin:/sbin:/bin";
  std::istringstream in(dirs);
  std::string d;
  while (std::getline(in, d, ':'))
    if (!d.empty() && access((d + "/" + name).c_str(), X_OK) == 0) return d + "/" + name;
  return "";
}

// A TCP port on the loopback nobody listens on now (the daemons bind it a moment later).
int free_port() {
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = 0;
  if (bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  close(s);
  return port;
}

std::string short_hostname() {
  char name[256] = {0};
  gethostname(name, sizeof name - 1);
  std::string h = name;
  return h.substr(0, h.find('.'));
}

std::string user_name() {
  const passwd* pw = getpwuid(getuid());
  return pw ? pw->pw_name : "root";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string tail(const std::string& path, size_t lines) {
  const std::string text = read_file(path);
  size_t pos = text.size();
  for (size_t n = 0; n <= lines && pos > 0; ++n) pos = text.rfind('\n', pos - 1);
  return text.substr(pos == std::string::npos ? 0 : pos + 1);
}

void write_private(const std::string& path, const std::string& text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return;
  if (write(fd, text.data(), text.size()) < 0) perror(path.c_str());
  close(fd);
}

// A munge key: 128 random bytes.
std::string random_key() {
  std::ifstream in("/dev/urandom", std::ios::binary);
  std::string key(128, '\0');
  in.read(key.data(), std::streamsize(key.size()));
  return key;
}

bool alive(pid_t pid) { return kill(pid, 0) == 0; }

std::string trim_line(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// The cluster's slurm.conf: one node (this machine, its CPUs) and one partition, every file
// under `d`, free ports, munge through its own socket, and the plugins that need no cgroups,
// accounting database or MPI library.
std::string slurm_conf_text(const std::string& d, const std::string& host, const std::string& user, bool lua) {
  std::ostringstream c;
  c << "# A single-node cluster of flaresim's tests (tb/e2e/slurm_cluster.cpp); its files are all in " << d << "\n"
    << "ClusterName=flaresimtest\nSlurmctldHost=" << host << "(127.0.0.1)\n"
    << "SlurmctldPort=" << free_port() << "\nSlurmdPort=" << free_port() << "\n"
    << "SlurmUser=" << user << "\nSlurmdUser=" << user << "\n"
    << "AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket=" << d << "/munge/munge.socket\n"
    << "StateSaveLocation=" << d << "/state\nSlurmdSpoolDir=" << d << "/spool\n"
    << "SlurmctldPidFile=" << d << "/slurmctld.pid\nSlurmdPidFile=" << d << "/slurmd.pid\n"
    << "SlurmctldLogFile=" << d << "/log/slurmctld.log\nSlurmdLogFile=" << d << "/log/slurmd.log\n"
    << "PlugStackConfig=" << d << "/plugstack.conf\nMailProg=/bin/true\n"
    << "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nJobAcctGatherType=jobacct_gather/none\n"
    << "AccountingStorageType=accounting_storage/none\nJobCompType=jobcomp/none\nMpiDefault=none\n"
    << "SwitchType=switch/none\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
    << "SchedulerType=sched/builtin\nSchedulerParameters=sched_min_interval=0,batch_sched_delay=0\n"
    << "ReturnToService=2\nKillWait=5\nInactiveLimit=0\n" << (lua ? "JobSubmitPlugins=lua\n" : "")
    << "NodeName=" << host << " NodeAddr=127.0.0.1 CPUs=" << std::thread::hardware_concurrency()
    << " State=UNKNOWN\nPartitionName=test Nodes=" << host << " Default=YES MaxTime=INFINITE State=UP\n";
  return c.str();
}

}  // namespace

LocalSlurm::LocalSlurm(const std::string& job_submit_lua) { start(job_submit_lua); }

LocalSlurm::~LocalSlurm() { shut_down(); }

std::string LocalSlurm::env() const { return "SLURM_CONF='" + conf_ + "' "; }

std::string LocalSlurm::client(const std::string& command) const {
  std::string out;
  if (FILE* p = popen((env() + command + " 2>&1").c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    pclose(p);
  }
  return out;
}

std::string LocalSlurm::log_tails() const {
  std::string s;
  for (const char* f : {"munged.log", "slurmctld.log", "slurmd.log", "munged.out", "slurmctld.out", "slurmd.out"})
    s += std::string("--- ") + dir_ + "/log/" + f + " (last lines):\n" + tail(dir_ + "/log/" + f, 15);
  return s;
}

pid_t LocalSlurm::spawn(const std::vector<std::string>& args, const std::string& log) {
  // Everything the child needs is built before fork: it only redirects and execs.
  std::vector<std::string> env_text;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "SLURM_CONF=", 11) != 0) env_text.push_back(*e);
  env_text.push_back("SLURM_CONF=" + conf_);
  std::vector<char*> argv, envp;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const std::string& e : env_text) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const int out = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);  // the daemon ends with the test process, however it ends
    if (getppid() != parent) _exit(127);
    setpgid(0, 0);
    const int null = open("/dev/null", O_RDONLY);
    dup2(null, 0);
    dup2(out, 1);
    dup2(out, 2);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  close(out);
  return pid;
}

std::string LocalSlurm::dead_daemon() {
  for (Daemon& d : daemons_) {
    int status = 0;
    if (d.pid > 0 && waitpid(d.pid, &status, WNOHANG) == d.pid) {
      d.pid = 0;  // reaped: nothing to stop
      return d.name;
    }
  }
  return "";
}

bool LocalSlurm::wait_until(const std::string& what, int seconds, bool (LocalSlurm::*ready)() const) {
  const auto deadline = Clock::now() + std::chrono::seconds(seconds);
  while (Clock::now() < deadline) {
    if ((this->*ready)()) return true;
    if (const std::string dead = dead_daemon(); !dead.empty()) {
      error_ = dead + " exited while waiting for " + what;
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  error_ = "no " + what + " after " + std::to_string(seconds) + " s";
  return false;
}

bool LocalSlurm::munge_ready() const {
  struct stat st;
  return stat((dir_ + "/munge/munge.socket").c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
}

bool LocalSlurm::node_idle() const {
  return client("sinfo -h -o %T -n " + host_) == "idle\n";
}

void LocalSlurm::start(const std::string& job_submit_lua) {
  const std::string munged = find_program("munged"), slurmctld = find_program("slurmctld"),
                    slurmd = find_program("slurmd");
  for (const auto& [name, path] : {std::pair{"munged", munged}, {"slurmctld", slurmctld}, {"slurmd", slurmd},
                                   {"sbatch", find_program("sbatch")}, {"squeue", find_program("squeue")}})
    if (path.empty()) error_ += std::string(error_.empty() ? "" : "; ") + name + " is not installed";
  if (!error_.empty()) {
    error_ += ": run scripts/install-deps (it installs slurm-wlm and munge)";
    return;
  }
  char tmpl[] = "/tmp/flaresim-slurm-XXXXXX";
  if (!mkdtemp(tmpl)) {
    error_ = std::string("cannot create a temporary folder: ") + std::strerror(errno);
    return;
  }
  dir_ = tmpl;
  for (const char* sub : {"munge", "log", "state", "spool"}) mkdir((dir_ + "/" + sub).c_str(), 0700);
  conf_ = dir_ + "/slurm.conf";
  host_ = short_hostname();
  write_private(dir_ + "/munge/munge.key", random_key());
  write_private(dir_ + "/plugstack.conf", "");
  if (!job_submit_lua.empty()) write_private(dir_ + "/job_submit.lua", job_submit_lua);  // next to slurm.conf
  std::ofstream(conf_) << slurm_conf_text(dir_, host_, user_name(), !job_submit_lua.empty());

  const std::string d = dir_;
  // --force: munged otherwise refuses a socket in a folder others cannot enter (mkdtemp's 0700).
  daemons_.push_back({"munged",
                      spawn({munged, "--foreground", "--force", "--socket=" + d + "/munge/munge.socket",
                             "--key-file=" + d + "/munge/munge.key", "--pid-file=" + d + "/munge/munged.pid",
                             "--log-file=" + d + "/log/munged.log", "--seed-file=" + d + "/munge/munged.seed"},
                            d + "/log/munged.out")});
  if (!wait_until("munged's socket", 10, &LocalSlurm::munge_ready)) {
    error_ += "\n" + log_tails();
    return;
  }
  daemons_.push_back({"slurmctld", spawn({slurmctld, "-D", "-f", conf_}, d + "/log/slurmctld.out")});
  daemons_.push_back({"slurmd", spawn({slurmd, "-D", "-f", conf_, "-N", host_}, d + "/log/slurmd.out")});
  if (!wait_until("idle node " + host_ + " (sinfo)", 30, &LocalSlurm::node_idle)) error_ += "\n" + log_tails();
}

std::vector<pid_t> LocalSlurm::processes_using(const std::string& conf) {
  std::vector<pid_t> pids;
  const std::string needle = "SLURM_CONF=" + conf;
  DIR* proc = opendir("/proc");
  if (!proc) return pids;
  while (const dirent* e = readdir(proc)) {
    const pid_t pid = pid_t(std::atoi(e->d_name));
    if (pid <= 0 || pid == getpid()) continue;
    std::string env = read_file("/proc/" + std::string(e->d_name) + "/environ");
    std::istringstream vars(env);
    std::string var;
    while (std::getline(vars, var, '\0'))
      if (var == needle) {
        pids.push_back(pid);
        break;
      }
  }
  closedir(proc);
  return pids;
}

std::string LocalSlurm::shut_down() {
  if (dir_.empty()) return "";
  std::string forced;
  // The jobs first, while the controller is there to cancel them.
  bool ctld_alive = false;
  for (const Daemon& d : daemons_) ctld_alive |= d.name == "slurmctld" && d.pid > 0 && alive(d.pid);
  if (ctld_alive && !client("squeue -h -o %i").empty()) {
    client("scancel --user=" + user_name());
    const auto deadline = Clock::now() + std::chrono::seconds(15);
    while (Clock::now() < deadline && !client("squeue -h -o %i").empty())
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  // Then the daemons, the last started first: SIGTERM, and SIGKILL after 10 s.
  for (auto d = daemons_.rbegin(); d != daemons_.rend(); ++d) {
    if (d->pid <= 0) continue;
    kill(d->pid, SIGTERM);
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    int status = 0;
    while (waitpid(d->pid, &status, WNOHANG) == 0 && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (alive(d->pid)) {
      kill(d->pid, SIGKILL);
      waitpid(d->pid, &status, 0);
      forced += d->name + " needed SIGKILL; ";
    }
  }
  daemons_.clear();
  // Whatever a job left (nothing, normally): by pid, found through its environment.
  for (pid_t pid : processes_using(conf_)) {
    const std::string name = trim_line(read_file("/proc/" + std::to_string(pid) + "/comm"));
    kill(pid, SIGKILL);
    forced += "process " + std::to_string(pid) + " (" + name + ") of a job was still there; ";
  }
  std::system(("rm -rf '" + dir_ + "'").c_str());
  dir_.clear();
  return forced;
}

}  // namespace fs::test
