// Tests of what `flaresim sweep --slurm` submits (sc_model/sweep/slurm.h), as text and argument
// lists: the tasks file, the two batch scripts, the two sbatch command lines with and without the
// user's options, the submission folders' numbering, and reading sbatch's and squeue's answers.
// The submission itself runs against a real single-node cluster in tb/e2e/sweep_slurm_e2e_test.cpp.
#include <gtest/gtest.h>

#include "common/errors.h"
#include "sweep/slurm.h"

namespace fs::sweep {
namespace {

Submission submission() {
  Submission s;
  s.exe = "/opt/flaresim/bin/flaresim";
  s.sweep_file = "/home/me/sweeps/scaling 24.ini";
  s.dir = "/scratch/me/out";
  s.number = 3;
  s.ids = {"0123456789abcdef", "fedcba9876543210", "00000000000000aa"};
  return s;
}

template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(SweepSlurm, SubmissionFolderAndFiles) {
  const Submission s = submission();
  EXPECT_EQ(s.folder(), "/scratch/me/out/slurm/submit-3");
  EXPECT_EQ(s.tasks_file(), "/scratch/me/out/slurm/submit-3/tasks.txt");
  EXPECT_EQ(s.array_script(), "/scratch/me/out/slurm/submit-3/array.sh");
  EXPECT_EQ(s.collect_script(), "/scratch/me/out/slurm/submit-3/collect.sh");
  EXPECT_EQ(s.jobs_file(), "/scratch/me/out/slurm/submit-3/jobs.txt");
  EXPECT_EQ(s.logs(), "/scratch/me/out/slurm/submit-3/logs");
  EXPECT_EQ(s.job_name(), "flaresim-scaling_24");
}

TEST(SweepSlurm, TasksFileHasARunIdALine) {
  const Submission s = submission();
  const std::string text = tasks_text(s.ids);
  EXPECT_EQ(text, "0123456789abcdef\nfedcba9876543210\n00000000000000aa\n");
  EXPECT_EQ(parse_tasks(text, "t.txt"), s.ids);
  EXPECT_EQ(parse_tasks("0123456789abcdef", "t.txt"), std::vector<std::string>{"0123456789abcdef"});
  EXPECT_EQ(error_of([] { parse_tasks("0123456789abcdef\n0123\n", "t.txt"); }),
            "t.txt:2: '0123' is not a run id (16 hex digits)");
  EXPECT_EQ(error_of([] { parse_tasks("0123456789ABCDEF\n", "t.txt"); }),
            "t.txt:1: '0123456789ABCDEF' is not a run id (16 hex digits)");
  EXPECT_EQ(error_of([] { parse_tasks("", "t.txt"); }), "t.txt: no run id in it");
  EXPECT_THROW(parse_tasks("\n", "t.txt"), InputError);
}

TEST(SweepSlurm, ScriptsRunFlaresimWithAbsolutePaths) {
  const Submission s = submission();
  EXPECT_EQ(array_script_text(s),
            "#!/bin/sh\n"
            "# flaresim sweep /home/me/sweeps/scaling 24.ini, Slurm submission 3: array task i runs the run on line "
            "i+1 of\n"
            "# tasks.txt in its folder under /scratch/me/out/runs (docs/SWEEP.md, \"On a Slurm cluster\").\n"
            "exec /opt/flaresim/bin/flaresim sweep --slurm-task /scratch/me/out/slurm/submit-3/tasks.txt -o "
            "/scratch/me/out\n");
  EXPECT_EQ(collect_script_text(s),
            "#!/bin/sh\n"
            "# flaresim sweep /home/me/sweeps/scaling 24.ini, Slurm submission 3: merges the runs' results into\n"
            "# /scratch/me/out/results.csv and results.json once the array job has ended (docs/SWEEP.md).\n"
            "exec /opt/flaresim/bin/flaresim sweep '/home/me/sweeps/scaling 24.ini' -o /scratch/me/out --collect\n");
  Submission odd = s;  // a line break in a path must not end the comment that names it
  odd.sweep_file = "/x/a\nb.ini";
  EXPECT_EQ(collect_script_text(odd).substr(0, 38), "#!/bin/sh\n# flaresim sweep /x/a?b.ini,");
  EXPECT_NE(collect_script_text(odd).find("\nexec /opt/flaresim/bin/flaresim sweep '/x/a\nb.ini' -o "), std::string::npos);
}

TEST(SweepSlurm, SbatchCommandLinesWithoutOptions) {
  const Submission s = submission();
  const SlurmOptions none;
  EXPECT_EQ(array_sbatch_argv(s, none),
            (std::vector<std::string>{"sbatch", "--parsable", "--array=0-2", "--job-name=flaresim-scaling_24",
                                      "--output=/scratch/me/out/slurm/submit-3/logs/task-%a.out",
                                      "--chdir=/scratch/me/out/slurm/submit-3",
                                      "/scratch/me/out/slurm/submit-3/array.sh"}));
  EXPECT_EQ(collect_sbatch_argv(s, none, "4242"),
            (std::vector<std::string>{"sbatch", "--parsable", "--dependency=afterany:4242",
                                      "--job-name=flaresim-scaling_24-collect",
                                      "--output=/scratch/me/out/slurm/submit-3/logs/collect.out",
                                      "--chdir=/scratch/me/out/slurm/submit-3",
                                      "/scratch/me/out/slurm/submit-3/collect.sh"}));
}

TEST(SweepSlurm, SbatchCommandLinesWithTheUsersOptions) {
  Submission s = submission();
  s.ids.resize(1);
  SlurmOptions o;
  o.partition = "short";
  o.time = "0:10:00";
  o.account = "proj42";
  o.qos = "normal";
  o.extra = {"--mem=2G", "--constraint=intel skylake"};
  o.throttle = 8;
  const std::vector<std::string> user = {"--partition=short", "--time=0:10:00", "--account=proj42", "--qos=normal",
                                         "--mem=2G", "--constraint=intel skylake"};
  std::vector<std::string> array = {"sbatch", "--parsable", "--array=0-0%8", "--job-name=flaresim-scaling_24",
                                    "--output=/scratch/me/out/slurm/submit-3/logs/task-%a.out",
                                    "--chdir=/scratch/me/out/slurm/submit-3"};
  array.insert(array.end(), user.begin(), user.end());
  array.push_back("/scratch/me/out/slurm/submit-3/array.sh");
  EXPECT_EQ(array_sbatch_argv(s, o), array);
  const std::vector<std::string> collect = collect_sbatch_argv(s, o, "7");
  EXPECT_EQ(std::vector<std::string>(collect.begin() + 6, collect.end() - 1), user);  // no throttle: no array
  EXPECT_EQ(collect[2], "--dependency=afterany:7");
  s.dir = "/scratch/100%/out";  // sbatch reads % in --output as a pattern: written %%
  EXPECT_EQ(array_sbatch_argv(s, o)[4], "--output=/scratch/100%%/out/slurm/submit-3/logs/task-%a.out");
  EXPECT_EQ(collect_sbatch_argv(s, o, "7")[4], "--output=/scratch/100%%/out/slurm/submit-3/logs/collect.out");
  EXPECT_EQ(array_sbatch_argv(s, o)[5], "--chdir=/scratch/100%/out/slurm/submit-3");
}

TEST(SweepSlurm, ReadsSbatchsJobId) {
  EXPECT_EQ(parsable_job_id("12345\n"), "12345");
  EXPECT_EQ(parsable_job_id("12345;cluster2\n"), "12345");
  EXPECT_EQ(parsable_job_id("77"), "77");
  EXPECT_EQ(parsable_job_id("Submitted batch job 12345\n"), "");
  EXPECT_EQ(parsable_job_id(""), "");
  EXPECT_EQ(parsable_job_id(";cluster\n"), "");
}

TEST(SweepSlurm, JobsFileReadsBack) {
  EXPECT_EQ(jobs_text("41", ""), "# the Slurm jobs of this submission (flaresim sweep --slurm)\narray 41\n");
  const std::string both = jobs_text("41", "42");
  EXPECT_EQ(both, "# the Slurm jobs of this submission (flaresim sweep --slurm)\narray 41\ncollect 42\n");
  EXPECT_EQ(job_ids(both), (std::vector<std::string>{"41", "42"}));
  EXPECT_EQ(job_ids("# 1 2\narray x\ncollect 9\nnoise\n"), std::vector<std::string>{"9"});
  EXPECT_TRUE(job_ids("").empty());
}

TEST(SweepSlurm, NextSubmissionIsOneMoreThanTheLargest) {
  EXPECT_EQ(next_submission({}), 1u);
  EXPECT_EQ(next_submission({"submit-1", "submit-10", "submit-3"}), 11u);
  EXPECT_EQ(next_submission({"submit-", "submit-x", "other-7", "submit-2.old", "submit-99999999999"}), 1u);
}

TEST(SweepSlurm, SqueueAnswers) {
  EXPECT_EQ(squeue_argv({"41", "42"}), (std::vector<std::string>{"squeue", "-h", "-o", "%i", "-j", "41,42"}));
  EXPECT_TRUE(squeue_says_active(0, "41_[2-9%2]\n41_1\n", ""));
  EXPECT_FALSE(squeue_says_active(0, "", ""));
  EXPECT_FALSE(squeue_says_active(1, "", "slurm_load_jobs error: Invalid job id specified\n"));
  EXPECT_EQ(error_of([] { squeue_says_active(1, "", "slurm_load_jobs error: Unable to contact slurm controller\n"); }),
            "squeue failed (exit 1): slurm_load_jobs error: Unable to contact slurm controller");
  EXPECT_EQ(error_of([] { squeue_says_active(2, "", ""); }), "squeue failed (exit 2): nothing on stderr");
}

}  // namespace
}  // namespace fs::sweep
