// What `flaresim sweep --slurm` submits, as text and argument lists (pure: nothing here runs or
// writes anything): a submission's folder DIR/slurm/submit-K/ and its files (tasks.txt: line i
// is the run id of array index i; array.sh and collect.sh, the batch scripts; jobs.txt, the job
// ids), the two sbatch command lines (one array job of the pending runs, one collect job that
// depends on it), and reading sbatch's and squeue's answers. sweep/slurm_jobs.h submits them;
// sweep/slurm_task.h is the array task's side.
#pragma once
#include <string>
#include <vector>

namespace fs::sweep {

// The user's Slurm options: each becomes an sbatch option of both jobs.
struct SlurmOptions {
  std::string partition, time, account, qos;  // "" if not given
  std::vector<std::string> extra;             // --sbatch-arg, one sbatch argument each
  unsigned throttle = 0;                      // at most this many array tasks at once; 0: no limit
};

// One submission: absolute paths only (the jobs run on other machines, in other folders).
struct Submission {
  std::string exe;         // the flaresim binary
  std::string sweep_file;  // the sweep file
  std::string dir;         // the sweep's output folder
  unsigned number = 0;     // K of DIR/slurm/submit-K
  std::vector<std::string> ids;  // the run of each array index

  std::string folder() const;  // DIR/slurm/submit-K
  std::string tasks_file() const { return folder() + "/tasks.txt"; }
  std::string array_script() const { return folder() + "/array.sh"; }
  std::string collect_script() const { return folder() + "/collect.sh"; }
  std::string jobs_file() const { return folder() + "/jobs.txt"; }
  std::string logs() const { return folder() + "/logs"; }
  std::string job_name() const;  // flaresim-STEM: the sweep file's name without .ini, blanks and such as _
};

// tasks.txt: one run id a line, array index 0 first.
std::string tasks_text(const std::vector<std::string>& ids);
// The run ids of a tasks file's text. Throws InputError naming `where` and the line if a line is
// not a run id (16 hex digits) or there is none.
std::vector<std::string> parse_tasks(const std::string& text, const std::string& where);

// The array job's script: runs `flaresim sweep --slurm-task TASKS -o DIR`.
std::string array_script_text(const Submission& s);
// The collect job's script: runs `flaresim sweep SWEEP -o DIR --collect`.
std::string collect_script_text(const Submission& s);

// sbatch --parsable --array=0-(K-1)[%N] --job-name --output=LOGS/task-%a.out (a % of the path
// written %%) --chdir=FOLDER, the user's options, then the array script.
std::vector<std::string> array_sbatch_argv(const Submission& s, const SlurmOptions& o);
// sbatch --parsable --dependency=afterany:JOB --job-name=NAME-collect --output=LOGS/collect.out
// --chdir, the user's options, then the collect script.
std::vector<std::string> collect_sbatch_argv(const Submission& s, const SlurmOptions& o, const std::string& array_job);

// The job id in `sbatch --parsable`'s output ("123" or "123;cluster", then a line break); "" if
// its first line is not that.
std::string parsable_job_id(const std::string& out);

// jobs.txt: "array JOB" and, once submitted, "collect JOB", one a line after a comment line;
// job_ids() reads back every id of such a text.
std::string jobs_text(const std::string& array_job, const std::string& collect_job);
std::vector<std::string> job_ids(const std::string& jobs_text);

// The number of the next submission folder given the names in DIR/slurm/: one more than the
// largest submit-K (1 if none).
unsigned next_submission(const std::vector<std::string>& names);

// squeue -h -o %i -j JOB,...: lists the jobs that are still pending or running.
std::vector<std::string> squeue_argv(const std::vector<std::string>& jobs);
// Whether squeue's answer says that a job is still pending or running: it printed a line. An
// exit status 1 with "Invalid job id" means the jobs are gone (ended long enough ago); any other
// failure throws SimError quoting squeue's message.
bool squeue_says_active(int exit_status, const std::string& out, const std::string& err);

}  // namespace fs::sweep
