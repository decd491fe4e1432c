// Talking to Slurm for `flaresim sweep --slurm`: writing a submission's folder and submitting its
// array job and collect job with sbatch, refusing a new submission while an earlier one's jobs
// are still queued, and asking squeue whether a job is still pending or running. The text of
// every file and command line is sweep/slurm.h's.
#pragma once
#include <string>
#include <vector>

#include "sweep/run_dir.h"
#include "sweep/slurm.h"

namespace fs::sweep {

// Throws InputError if sbatch is not on PATH (this is not a Slurm login node).
void require_sbatch();

// Throws InputError naming them if jobs of an earlier submission into `dir` (their ids in
// DIR/slurm/submit-*/jobs.txt) are still pending or running: a new submission would run their
// runs a second time, at the same time, in the same folders.
void refuse_if_jobs_active(const SweepDir& dir);

// Creates DIR/slurm/submit-K/ and its logs/ with the next free K (never an existing folder).
unsigned create_submission_folder(const SweepDir& dir);

struct SubmittedJobs {
  std::string array_job, collect_job;
};

// Writes the submission's tasks.txt, array.sh and collect.sh, submits the array job, then the
// collect job after it, recording their ids in jobs.txt. If the array job is refused, the
// submission's folder is removed and SimError quotes sbatch; if the collect job is refused,
// SimError says that the array job was submitted and how to merge its results or cancel it.
SubmittedJobs submit_jobs(const Submission& s, const SlurmOptions& o);

// Whether `job` is still pending or running (squeue); throws SimError if squeue fails otherwise.
bool job_active(const std::string& job);

}  // namespace fs::sweep
