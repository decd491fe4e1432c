// `flaresim sweep SWEEP.ini`: expands a sweep file into its runs, runs the pending ones on this
// machine with a process pool (or submits them to Slurm: app/cmd_sweep_slurm.cpp) and merges
// their results (docs/SWEEP.md). The pieces live in sc_model/sweep/; this file is the command
// line, the local backend and the report every backend ends with.
#include <unistd.h>

#include <filesystem>
#include <map>
#include <iostream>
#include <thread>

#include <boost/program_options.hpp>

#include "app/commands.h"
#include "app/cmd_sweep.h"
#include "common/build_info.h"
#include "common/errors.h"
#include "common/interrupt.h"
#include "config/config_io.h"
#include "sweep/matrix.h"
#include "sweep/pool.h"
#include "sweep/results.h"
#include "sweep/run_dir.h"
#include "sweep/slurm_jobs.h"
#include "sweep/slurm_task.h"
#include "sweep/sweep_file.h"

namespace po = boost::program_options;

namespace fs {

std::string own_executable() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw SimError("cannot find the flaresim binary (/proc/self/exe): " + ec.message());
  return exe.string();
}

SweepPlan plan_runs(const sweep::SweepDir& dir, const std::vector<sweep::RunPoint>& points, bool retry) {
  SweepPlan plan;
  for (const sweep::RunPoint& p : points) {
    const sweep::RunState s = dir.state(p.id);
    if (s.kind == sweep::RunState::kDone) ++plan.done_before;
    else if (s.kind == sweep::RunState::kFailed && !retry) ++plan.failed_before;
    else plan.todo.push_back(&p);
  }
  return plan;
}

void prepare_runs(const sweep::SweepDir& dir, const SweepPlan& plan, const std::string& exe) {
  for (const sweep::RunPoint* p : plan.todo) dir.prepare(*p, sweep::run_argv(exe, dir.run_dir(p->id), *p));
}

SweepTally merge_results(const sweep::SweepDir& dir, const sweep::SweepSpec& spec,
                         const std::vector<sweep::RunPoint>& points) {
  const std::vector<sweep::RunRecord> runs = sweep::collect(dir, points);
  sweep::write_results(dir, spec.swept_keys(), runs);
  SweepTally t;
  // Run ids do not change with the simulator: runs a different build made are kept, and said so.
  std::map<std::string, size_t> other_builds;  // git commit -> done runs it made
  for (const sweep::RunRecord& r : runs) {
    (r.state.kind == sweep::RunState::kDone ? t.done : r.state.kind == sweep::RunState::kFailed ? t.failed : t.pending)++;
    const std::string made_by = sweep::metric_text(r.stats, "flaresim.git_commit");
    if (r.state.kind == sweep::RunState::kDone && made_by != build_git_commit()) ++other_builds[made_by];
    if (r.state.kind != sweep::RunState::kFailed) continue;
    std::cerr << "sweep: failed run " << r.point->id << " (" << sweep::describe(r.point->swept) << "): ";
    if (r.state.signal) std::cerr << "killed by " << signal_name(r.state.signal);
    else std::cerr << "exit " << r.state.exit_code;
    std::cerr << ": " << r.state.error << " (" << dir.run_dir(r.point->id) << "/stderr.txt)\n";
  }
  for (const auto& [commit, n] : other_builds)
    std::cerr << "sweep: note: " << n << " of the done runs were made by flaresim " << (commit.empty() ? "(unknown)" : commit)
              << ", not by this build (" << build_git_commit()
              << "); their results are kept: use a new -o folder to run them all with this one\n";
  return t;
}

void report_ran(const SweepPlan& plan, size_t ran_done, size_t ran_failed, const SweepTally& t, size_t total,
                const sweep::SweepDir& dir) {
  std::cerr << "sweep: ran " << ran_done + ran_failed << " (" << ran_done << " done, " << ran_failed
            << " failed); skipped " << plan.done_before << " done before";
  if (plan.failed_before)
    std::cerr << " and " << plan.failed_before << " failed before (--retry-failed runs them again)";
  std::cerr << "; " << t.done << " of " << total << " runs done, " << t.failed << " failed, " << t.pending
            << " pending\n"
            << "sweep: results in " << dir.path() << "/results.csv and results.json\n";
}

namespace {

// Where the runs go unless -o says: SWEEP.d next to the sweep file.
std::string default_output(const std::string& sweep_path) {
  std::filesystem::path p(sweep_path);
  return (p.parent_path() / (p.stem().string() + ".d")).string();
}

// --list: the matrix, one run per line, with its state; writes nothing.
void list_runs(const std::vector<sweep::RunPoint>& points, const std::string& out) {
  sweep::SweepDir::check(out);
  std::unique_ptr<sweep::SweepDir> dir;
  if (sweep::SweepDir::is_sweep(out)) dir = std::make_unique<sweep::SweepDir>(out);
  for (const sweep::RunPoint& p : points) {
    const char* state = dir ? sweep::state_name(dir->state(p.id).kind) : "pending";
    std::cout << p.id << "  " << state << "  " << sweep::describe(p.swept) << "\n";
  }
  std::cout << points.size() << " runs; output folder " << out << "\n";
}

// --collect: merges what the run folders hold, running nothing.
int collect_only(const sweep::SweepSpec& spec, const std::vector<sweep::RunPoint>& points, const std::string& out) {
  if (!sweep::SweepDir::is_sweep(out))
    throw InputError(out + ": not a sweep's output folder (no .flaresim-sweep): nothing to collect");
  const sweep::SweepDir dir(out);
  const SweepTally t = merge_results(dir, spec, points);
  std::cerr << "sweep: collected " << points.size() << " runs: " << t.done << " done, " << t.failed << " failed, "
            << t.pending << " pending\n"
            << "sweep: results in " << dir.path() << "/results.csv and results.json\n";
  return t.done == points.size() ? 0 : 1;
}

int run_locally(const sweep::SweepSpec& spec, const std::vector<sweep::RunPoint>& points, const std::string& out,
                const SweepCli& cli) {
  const sweep::SweepDir dir(out);
  sweep::refuse_if_jobs_active(dir);
  const SweepPlan plan = plan_runs(dir, points, cli.retry);
  const unsigned jobs = cli.jobs ? cli.jobs : std::max(1u, std::thread::hardware_concurrency());
  if (!cli.quiet)
    std::cerr << "sweep: " << points.size() << " runs: " << plan.done_before << " done before, " << plan.failed_before
              << " failed before (not retried), " << plan.todo.size() << " to run with " << jobs << " jobs in "
              << dir.path() << "\n";
  // Every run to run is prepared first (config.ini and its command), as the Slurm backend prepares
  // them at submission: the pool then runs each folder's command.
  prepare_runs(dir, plan, own_executable());
  std::vector<std::string> ids;
  for (const sweep::RunPoint* p : plan.todo) ids.push_back(p->id);
  sweep::PoolOptions po_opt;
  po_opt.jobs = jobs;
  po_opt.live = !cli.quiet && isatty(2);
  po_opt.progress = cli.quiet ? nullptr : &std::cerr;
  po_opt.total = points.size();
  po_opt.done_before = plan.done_before;
  po_opt.failed_before = plan.failed_before;
  const sweep::PoolResult r = sweep::run_pool(dir, ids, po_opt);

  const SweepTally t = merge_results(dir, spec, points);
  report_ran(plan, r.done, r.failed, t, points.size(), dir);
  if (r.interrupted_by) {
    std::cerr << "sweep: interrupted by " << signal_name(r.interrupted_by) << "; " << t.pending
              << " runs not done: run the same command again to finish them\n";
    return 128 + r.interrupted_by;
  }
  return t.failed ? 1 : 0;
}

// The options that only --slurm takes, refused without it.
const char* const kSlurmOnly[] = {"partition", "time", "account", "qos", "sbatch-arg", "wait"};

}  // namespace

int cmd_sweep(const std::vector<std::string>& args) {
  po::options_description opts("flaresim sweep options");
  opts.add_options()
      ("help,h", "show this help")
      ("output,o", po::value<std::string>(), "output folder (default: SWEEP.d next to the sweep file)")
      ("jobs,j", po::value<unsigned>(),
       "runs at a time (default: the number of cores); with --slurm, array tasks at a time (default: no limit "
       "but the cluster's)")
      ("list", "print the runs (id, state, swept values) and run nothing")
      ("dry-run", "the same as --list")
      ("retry-failed", "run the runs that failed before again (otherwise they are reported, not rerun)")
      ("collect", "run nothing: merge results.csv and results.json from the run folders")
      ("quiet,q", "no progress lines");
  po::options_description slurm_opts("On a Slurm cluster (docs/SWEEP.md)");
  slurm_opts.add_options()
      ("slurm", "submit the pending runs as one Slurm array job, and a job after it that merges the results")
      ("partition", po::value<std::string>(), "sbatch --partition of both jobs")
      ("time", po::value<std::string>(), "sbatch --time: each run's (and the collect job's) time limit")
      ("account", po::value<std::string>(), "sbatch --account")
      ("qos", po::value<std::string>(), "sbatch --qos")
      ("sbatch-arg", po::value<std::vector<std::string>>(),
       "one more sbatch argument for both jobs, such as --sbatch-arg=--mem=2G (repeatable)")
      ("wait", "wait until the collect job has run, then report like a local sweep (exit 0: every run done)");
  po::options_description all;
  all.add(opts).add(slurm_opts).add_options()
      ("sweep-file", po::value<std::vector<std::string>>())
      ("slurm-task", po::value<std::string>());  // internal: what an array task runs
  po::positional_options_description pos;
  pos.add("sweep-file", -1);
  const po::variables_map vm = parse_command_line(args, all, &pos);
  if (vm.count("help")) {
    std::cout << "usage: flaresim sweep SWEEP.ini [-o DIR] [--jobs N] [--list] [--retry-failed] [--collect]\n"
              << "       flaresim sweep SWEEP.ini --slurm [--partition P] [--time T] [--account A] [--qos Q]\n"
              << "                      [--sbatch-arg=ARG ...] [--jobs N] [--wait] [-o DIR] [--retry-failed]\n\n"
              << opts << "\n" << slurm_opts
              << "\nThe sweep file's format, the output folder, results.csv and Slurm: docs/SWEEP.md.\n";
    return 0;
  }
  if (vm.count("slurm-task")) {
    if (!vm.count("output")) throw InputError("--slurm-task needs -o DIR, the sweep's output folder");
    return sweep::run_slurm_task(vm["slurm-task"].as<std::string>(), vm["output"].as<std::string>(), std::cout);
  }
  if (!vm.count("sweep-file") || vm["sweep-file"].as<std::vector<std::string>>().size() != 1)
    throw InputError("usage: flaresim sweep SWEEP.ini [options] (one sweep file; see 'flaresim sweep --help')");
  SweepCli cli;
  cli.path = vm["sweep-file"].as<std::vector<std::string>>()[0];
  if (vm.count("jobs")) cli.jobs = vm["jobs"].as<unsigned>();
  if (vm.count("jobs") && cli.jobs == 0) throw InputError("bad value '0' for '--jobs': expected at least 1");
  cli.retry = vm.count("retry-failed") > 0;
  cli.quiet = vm.count("quiet") > 0;
  const bool slurm = vm.count("slurm") > 0;
  if (!slurm)
    for (const char* o : kSlurmOnly)
      if (vm.count(o)) throw InputError(std::string("--") + o + " goes with --slurm");
  if (slurm && vm.count("collect")) throw InputError("--collect runs nothing: it does not go with --slurm");
  if (slurm) sweep::require_sbatch();  // before anything is written

  const sweep::SweepSpec spec = sweep::parse_sweep_file(cli.path);
  const std::vector<sweep::RunPoint> points = sweep::expand(spec);
  const std::string out = vm.count("output") ? vm["output"].as<std::string>() : default_output(cli.path);
  if (vm.count("list") || vm.count("dry-run")) {
    list_runs(points, out);
    return 0;
  }
  if (vm.count("collect")) return collect_only(spec, points, out);
  if (!slurm) return run_locally(spec, points, out, cli);

  sweep::SlurmOptions so;
  for (auto [key, field] : {std::pair{"partition", &so.partition}, {"time", &so.time}, {"account", &so.account},
                            {"qos", &so.qos}})
    if (vm.count(key)) *field = vm[key].as<std::string>();
  if (vm.count("sbatch-arg")) so.extra = vm["sbatch-arg"].as<std::vector<std::string>>();
  so.throttle = cli.jobs;
  return sweep_on_slurm(spec, points, out, cli, so, vm.count("wait") > 0);
}

}  // namespace fs
