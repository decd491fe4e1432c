// The Slurm submission's files and command lines (see slurm.h).
#include "sweep/slurm.h"

#include <cctype>
#include <filesystem>
#include <sstream>

#include "common/errors.h"
#include "common/text.h"
#include "sweep/run_dir.h"

namespace fs::sweep {
namespace {

bool is_run_id(const std::string& s) {
  return s.size() == 16 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

bool is_job_id(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

// The options both jobs take from the user.
void add_user_options(std::vector<std::string>& argv, const SlurmOptions& o) {
  if (!o.partition.empty()) argv.push_back("--partition=" + o.partition);
  if (!o.time.empty()) argv.push_back("--time=" + o.time);
  if (!o.account.empty()) argv.push_back("--account=" + o.account);
  if (!o.qos.empty()) argv.push_back("--qos=" + o.qos);
  argv.insert(argv.end(), o.extra.begin(), o.extra.end());
}

// A path as comment text: a line break in it would end the comment.
std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = '?';
  return s;
}

// A path in an sbatch file name pattern (--output), where % starts a replacement.
std::string pattern_text(const std::string& path) {
  std::string s;
  for (char c : path) s += c == '%' ? std::string("%%") : std::string(1, c);
  return s;
}

std::string script(const std::string& comment, const std::vector<std::string>& command) {
  return "#!/bin/sh\n" + comment + "exec " + command_line(command) + "\n";
}

}  // namespace

std::string Submission::folder() const { return dir + "/slurm/submit-" + std::to_string(number); }

std::string Submission::job_name() const {
  std::string stem = std::filesystem::path(sweep_file).stem().string();
  for (char& c : stem)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '_';
  return "flaresim-" + stem;
}

std::string tasks_text(const std::vector<std::string>& ids) {
  std::string text;
  for (const std::string& id : ids) text += id + "\n";
  return text;
}

std::vector<std::string> parse_tasks(const std::string& text, const std::string& where) {
  std::vector<std::string> ids;
  std::istringstream in(text);
  std::string line;
  for (size_t n = 1; std::getline(in, line); ++n) {
    if (!is_run_id(trim(line)))
      throw InputError(where + ":" + std::to_string(n) + ": '" + line + "' is not a run id (16 hex digits)");
    ids.push_back(trim(line));
  }
  if (ids.empty()) throw InputError(where + ": no run id in it");
  return ids;
}

std::string array_script_text(const Submission& s) {
  return script("# flaresim sweep " + one_line(s.sweep_file) + ", Slurm submission " + std::to_string(s.number) +
                    ": array task i runs the run on line i+1 of\n# tasks.txt in its folder under " + one_line(s.dir) +
                    "/runs (docs/SWEEP.md, \"On a Slurm cluster\").\n",
                {s.exe, "sweep", "--slurm-task", s.tasks_file(), "-o", s.dir});
}

std::string collect_script_text(const Submission& s) {
  return script("# flaresim sweep " + one_line(s.sweep_file) + ", Slurm submission " + std::to_string(s.number) +
                    ": merges the runs' results into\n# " + one_line(s.dir) +
                    "/results.csv and results.json once the array job has ended (docs/SWEEP.md).\n",
                {s.exe, "sweep", s.sweep_file, "-o", s.dir, "--collect"});
}

std::vector<std::string> array_sbatch_argv(const Submission& s, const SlurmOptions& o) {
  std::string array = "--array=0-" + std::to_string(s.ids.size() - 1);
  if (o.throttle) array += "%" + std::to_string(o.throttle);
  std::vector<std::string> argv = {"sbatch", "--parsable", array, "--job-name=" + s.job_name(),
                                   "--output=" + pattern_text(s.logs()) + "/task-%a.out", "--chdir=" + s.folder()};
  add_user_options(argv, o);
  argv.push_back(s.array_script());
  return argv;
}

std::vector<std::string> collect_sbatch_argv(const Submission& s, const SlurmOptions& o, const std::string& array_job) {
  std::vector<std::string> argv = {"sbatch", "--parsable", "--dependency=afterany:" + array_job,
                                   "--job-name=" + s.job_name() + "-collect", "--output=" + pattern_text(s.logs()) + "/collect.out",
                                   "--chdir=" + s.folder()};
  add_user_options(argv, o);
  argv.push_back(s.collect_script());
  return argv;
}

std::string parsable_job_id(const std::string& out) {
  const std::string line = trim(out.substr(0, out.find('\n')));
  const std::string id = line.substr(0, line.find(';'));
  return is_job_id(id) ? id : "";
}

std::string jobs_text(const std::string& array_job, const std::string& collect_job) {
  std::string text = "# the Slurm jobs of this submission (flaresim sweep --slurm)\narray " + array_job + "\n";
  if (!collect_job.empty()) text += "collect " + collect_job + "\n";
  return text;
}

std::vector<std::string> job_ids(const std::string& jobs_text) {
  std::vector<std::string> ids;
  std::istringstream in(jobs_text);
  std::string line;
  while (std::getline(in, line)) {
    const size_t blank = line.find(' ');
    if (blank == std::string::npos || line[0] == '#') continue;
    const std::string id = trim(line.substr(blank + 1));
    if (is_job_id(id)) ids.push_back(id);
  }
  return ids;
}

unsigned next_submission(const std::vector<std::string>& names) {
  unsigned last = 0;
  const std::string prefix = "submit-";
  for (const std::string& n : names) {
    if (n.compare(0, prefix.size(), prefix) != 0 || !is_job_id(n.substr(prefix.size())) || n.size() > prefix.size() + 9)
      continue;
    last = std::max(last, unsigned(std::stoul(n.substr(prefix.size()))));
  }
  return last + 1;
}

std::vector<std::string> squeue_argv(const std::vector<std::string>& jobs) {
  std::string list;
  for (const std::string& j : jobs) list += (list.empty() ? "" : ",") + j;
  return {"squeue", "-h", "-o", "%i", "-j", list};
}

bool squeue_says_active(int exit_status, const std::string& out, const std::string& err) {
  if (exit_status == 0) return !trim(out).empty();
  if (exit_status == 1 && err.find("Invalid job id") != std::string::npos) return false;
  const std::string said = trim(err).empty() ? "nothing on stderr" : trim(err);
  throw SimError("squeue failed (exit " + std::to_string(exit_status) + "): " + said);
}

}  // namespace fs::sweep
