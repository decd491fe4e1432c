// Submitting to Slurm and asking it about jobs (see slurm_jobs.h).
#include "sweep/slurm_jobs.h"

#include <errno.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/command.h"
#include "common/errors.h"
#include "common/text.h"

namespace fsys = std::filesystem;

namespace fs::sweep {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

// What sbatch said when it failed, for a message.
std::string sbatch_said(const CommandResult& r) {
  if (!r.started) return "cannot run sbatch: " + r.start_error;
  std::string said = trim(r.err);
  if (said.empty()) said = trim(r.out);
  if (said.empty()) said = "nothing";
  return "sbatch exited " + std::to_string(r.status) + " and said: " + said;
}

// Runs sbatch; the job id, or "" (with `why` set) if it failed.
std::string sbatch(const std::vector<std::string>& argv, std::string& why) {
  const CommandResult r = run_command(argv);
  if (r.started && r.status == 0) {
    const std::string id = parsable_job_id(r.out);
    if (!id.empty()) return id;
    why = "sbatch printed '" + trim(r.out) + "' where its job id should be";
    return "";
  }
  why = sbatch_said(r);
  return "";
}

}  // namespace

void require_sbatch() {
  if (!on_path("sbatch"))
    throw InputError("--slurm: sbatch is not on PATH: submit from a machine of a Slurm cluster (a login node), or "
                     "run the sweep here without --slurm");
}

void refuse_if_jobs_active(const SweepDir& dir) {
  std::error_code ec;
  const std::string slurm = dir.path() + "/slurm";
  if (!fsys::is_directory(slurm, ec)) return;
  std::vector<std::string> jobs;
  for (const auto& e : fsys::directory_iterator(slurm, ec))
    for (const std::string& id : job_ids(read_text(e.path().string() + "/jobs.txt"))) jobs.push_back(id);
  if (jobs.empty() || !on_path("squeue")) return;
  const CommandResult r = run_command(squeue_argv(jobs));
  const std::string checking = "cannot check whether the jobs of the earlier submissions in " + slurm +
                               " are still queued: ";
  if (!r.started) throw SimError(checking + "cannot run squeue: " + r.start_error);
  try {
    if (!squeue_says_active(r.status, r.out, r.err)) return;
  } catch (const SimError& e) {
    throw SimError(checking + e.what());
  }
  std::vector<std::string> active;
  std::istringstream lines(r.out);
  std::string line;
  while (std::getline(lines, line)) {
    const std::string id = trim(line).substr(0, trim(line).find('_'));
    if (!id.empty() && std::find(active.begin(), active.end(), id) == active.end()) active.push_back(id);
  }
  throw InputError(dir.path() + ": Slurm jobs of an earlier submission are still queued or running (squeue -j " +
                   join(active, ",") + "): wait until they have ended, or cancel them (scancel " + join(active, " ") +
                   "), then submit again");
}

unsigned create_submission_folder(const SweepDir& dir) {
  const std::string slurm = dir.path() + "/slurm";
  std::error_code ec;
  fsys::create_directories(slurm, ec);
  if (ec) throw SimError(slurm + ": cannot create the folder: " + ec.message());
  std::vector<std::string> names;
  for (const auto& e : fsys::directory_iterator(slurm, ec)) names.push_back(e.path().filename().string());
  for (unsigned k = next_submission(names);; ++k) {  // another submission may take a number meanwhile
    const std::string folder = slurm + "/submit-" + std::to_string(k);
    if (mkdir(folder.c_str(), 0755) == 0) {
      fsys::create_directories(folder + "/logs", ec);
      if (ec) throw SimError(folder + "/logs: cannot create the folder: " + ec.message());
      return k;
    }
    if (errno != EEXIST) throw SimError(folder + ": cannot create the folder: " + std::strerror(errno));
  }
}

SubmittedJobs submit_jobs(const Submission& s, const SlurmOptions& o) {
  write_atomically(s.tasks_file(), tasks_text(s.ids));
  write_atomically(s.array_script(), array_script_text(s));
  write_atomically(s.collect_script(), collect_script_text(s));
  SubmittedJobs jobs;
  std::string why;
  const std::vector<std::string> array = array_sbatch_argv(s, o);
  jobs.array_job = sbatch(array, why);
  if (jobs.array_job.empty()) {
    std::error_code ec;
    fsys::remove_all(s.folder(), ec);
    throw SimError("--slurm: the array job of " + std::to_string(s.ids.size()) + " runs was not submitted: " + why +
                   "\n  (the command: " + command_line(array) + ")\n  Nothing was submitted.");
  }
  write_atomically(s.jobs_file(), jobs_text(jobs.array_job, ""));
  const std::vector<std::string> collect = collect_sbatch_argv(s, o, jobs.array_job);
  jobs.collect_job = sbatch(collect, why);
  if (jobs.collect_job.empty())
    throw SimError("--slurm: the array job " + jobs.array_job + " of " + std::to_string(s.ids.size()) +
                   " runs was submitted, but its collect job was not: " + why + "\n  (the command: " +
                   command_line(collect) + ")\n  The runs go on (squeue -j " + jobs.array_job +
                   "); when they have ended, merge their results with: " +
                   command_line({s.exe, "sweep", s.sweep_file, "-o", s.dir, "--collect"}) +
                   "\n  or cancel them: scancel " + jobs.array_job);
  write_atomically(s.jobs_file(), jobs_text(jobs.array_job, jobs.collect_job));
  return jobs;
}

bool job_active(const std::string& job) {
  const CommandResult r = run_command(squeue_argv({job}));
  if (!r.started) throw SimError("cannot run squeue: " + r.start_error);
  return squeue_says_active(r.status, r.out, r.err);
}

}  // namespace fs::sweep
