// `flaresim sweep SWEEP.ini`: expands a sweep file into its runs, runs the pending ones on this
// machine with a process pool and merges their results (docs/SWEEP.md). The pieces live in
// sc_model/sweep/; this file is the command line and the report.
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <thread>

#include <boost/program_options.hpp>

#include "app/commands.h"
#include "common/errors.h"
#include "common/interrupt.h"
#include "config/config_io.h"
#include "sweep/matrix.h"
#include "sweep/pool.h"
#include "sweep/results.h"
#include "sweep/run_dir.h"
#include "sweep/sweep_file.h"

namespace po = boost::program_options;

namespace fs {
namespace {

// Where the runs go unless -o says: SWEEP.d next to the sweep file.
std::string default_output(const std::string& sweep_path) {
  std::filesystem::path p(sweep_path);
  return (p.parent_path() / (p.stem().string() + ".d")).string();
}

std::string own_executable() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw SimError("cannot find the flaresim binary (/proc/self/exe): " + ec.message());
  return exe.string();
}

// --list: the matrix, one run per line, with its state; writes nothing.
void list_runs(const std::vector<sweep::RunPoint>& points, const std::string& out) {
  sweep::SweepDir::check(out);
  const bool have = std::filesystem::exists(std::filesystem::path(out) / ".flaresim-sweep");
  std::unique_ptr<sweep::SweepDir> dir;
  if (have) dir = std::make_unique<sweep::SweepDir>(out);
  for (const sweep::RunPoint& p : points) {
    const char* state = dir ? sweep::state_name(dir->state(p.id).kind) : "pending";
    std::cout << p.id << "  " << state << "  " << sweep::describe(p.swept) << "\n";
  }
  std::cout << points.size() << " runs; output folder " << out << "\n";
}

void report_failed(const std::vector<sweep::RunRecord>& runs, const sweep::SweepDir& dir) {
  for (const sweep::RunRecord& r : runs) {
    if (r.state.kind != sweep::RunState::kFailed) continue;
    std::cerr << "sweep: failed run " << r.point->id << " (" << sweep::describe(r.point->swept) << "): ";
    if (r.state.signal) std::cerr << "killed by " << signal_name(r.state.signal);
    else std::cerr << "exit " << r.state.exit_code;
    std::cerr << ": " << r.state.error << " (" << dir.run_dir(r.point->id) << "/stderr.txt)\n";
  }
}

}  // namespace

int cmd_sweep(const std::vector<std::string>& args) {
  po::options_description opts("flaresim sweep options");
  opts.add_options()
      ("help,h", "show this help")
      ("output,o", po::value<std::string>(), "output folder (default: SWEEP.d next to the sweep file)")
      ("jobs,j", po::value<unsigned>(), "runs at a time (default: the number of cores)")
      ("list", "print the runs (id, state, swept values) and run nothing")
      ("dry-run", "the same as --list")
      ("retry-failed", "run the runs that failed before again (otherwise they are reported, not rerun)")
      ("quiet,q", "no progress lines");
  po::options_description all;
  all.add(opts).add_options()("sweep-file", po::value<std::vector<std::string>>());
  po::positional_options_description pos;
  pos.add("sweep-file", -1);
  const po::variables_map vm = parse_command_line(args, all, &pos);
  if (vm.count("help")) {
    std::cout << "usage: flaresim sweep SWEEP.ini [-o DIR] [--jobs N] [--list] [--retry-failed]\n\n"
              << opts << "\nThe sweep file's format, the output folder and results.csv: docs/SWEEP.md.\n";
    return 0;
  }
  if (!vm.count("sweep-file") || vm["sweep-file"].as<std::vector<std::string>>().size() != 1)
    throw InputError("usage: flaresim sweep SWEEP.ini [options] (one sweep file; see 'flaresim sweep --help')");
  const std::string path = vm["sweep-file"].as<std::vector<std::string>>()[0];
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  if (vm.count("jobs")) jobs = vm["jobs"].as<unsigned>();
  if (jobs == 0) throw InputError("bad value '0' for '--jobs': expected at least 1");

  const sweep::SweepSpec spec = sweep::parse_sweep_file(path);
  const std::vector<sweep::RunPoint> points = sweep::expand(spec);
  const std::string out = vm.count("output") ? vm["output"].as<std::string>() : default_output(path);
  if (vm.count("list") || vm.count("dry-run")) {
    list_runs(points, out);
    return 0;
  }

  const sweep::SweepDir dir(out);
  const bool retry = vm.count("retry-failed") > 0;
  std::vector<const sweep::RunPoint*> todo;
  size_t done_before = 0, failed_before = 0;
  for (const sweep::RunPoint& p : points) {
    const sweep::RunState s = dir.state(p.id);
    if (s.kind == sweep::RunState::kDone) ++done_before;
    else if (s.kind == sweep::RunState::kFailed && !retry) ++failed_before;
    else todo.push_back(&p);
  }
  const bool quiet = vm.count("quiet") > 0;
  if (!quiet)
    std::cerr << "sweep: " << points.size() << " runs: " << done_before << " done before, " << failed_before
              << " failed before (not retried), " << todo.size() << " to run with " << jobs << " jobs in " << dir.path()
              << "\n";

  // Every run to run is prepared first (config.ini and its command), as a batch backend prepares
  // them at submission: the pool then runs each folder's command.
  const std::string exe = own_executable();
  std::vector<std::string> ids;
  for (const sweep::RunPoint* p : todo) {
    dir.prepare(*p, sweep::run_argv(exe, dir.run_dir(p->id), *p));
    ids.push_back(p->id);
  }
  sweep::PoolOptions po_opt;
  po_opt.jobs = jobs;
  po_opt.live = !quiet && isatty(2);
  po_opt.progress = quiet ? nullptr : &std::cerr;
  po_opt.total = points.size();
  po_opt.done_before = done_before;
  po_opt.failed_before = failed_before;
  const sweep::PoolResult r = sweep::run_pool(dir, ids, po_opt);

  const std::vector<sweep::RunRecord> runs = sweep::collect(dir, points);
  sweep::write_results(dir, spec.swept_keys(), runs);
  size_t done = 0, failed = 0, pending = 0;
  for (const sweep::RunRecord& rec : runs)
    (rec.state.kind == sweep::RunState::kDone ? done : rec.state.kind == sweep::RunState::kFailed ? failed : pending)++;
  report_failed(runs, dir);
  std::cerr << "sweep: ran " << r.done + r.failed << " (" << r.done << " done, " << r.failed << " failed); skipped "
            << done_before << " done before";
  if (failed_before) std::cerr << " and " << failed_before << " failed before (--retry-failed runs them again)";
  std::cerr << "; " << done << " of " << points.size() << " runs done, " << failed << " failed, " << pending
            << " pending\n"
            << "sweep: results in " << dir.path() << "/results.csv and results.json\n";
  if (r.interrupted_by) {
    std::cerr << "sweep: interrupted by " << signal_name(r.interrupted_by) << "; " << pending
              << " runs not done: run the same command again to finish them\n";
    return 128 + r.interrupted_by;
  }
  return failed ? 1 : 0;
}

}  // namespace fs
