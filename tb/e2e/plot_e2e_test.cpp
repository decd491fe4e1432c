// End to end: `flaresim plot` on hand-written CSVs. --describe prints the series it would draw,
// checked here against means, minima and maxima worked out by hand from the CSV (rows not done
// left out and counted, repeated points averaged, x sizes in bytes, numeric and first-seen orders,
// units from the keys' names); a drawing is a PNG of the configured size; the default name
// replaces only a PNG flaresim plot wrote; errors are exact and write nothing; a missing python3
// or matplotlib is named with the package to install; a signal reaches the script.
#include <string>

#include "support/cli_runner.h"

namespace fs::test {
namespace {

// Two policies, two sizes, several seeds: three fcfs rows share 64KiB (mean 30 of 10, 20, 60);
// at 1MiB hier-fcfs has one failed row, one pending and one done (40).
const char* kResults =
    "run,scheduler.policy,hosts.bytes,sim.seed,hosts.done_us,hosts.allreduce_gbps,status,exit_code,wall_seconds\n"
    "r1,fcfs,64KiB,1,10,2,done,0,0.1\n"
    "r2,fcfs,64KiB,2,20,4,done,0,0.1\n"
    "r3,fcfs,64KiB,3,60,9,done,0,0.1\n"
    "r4,fcfs,1MiB,1,100,5,done,0,0.1\n"
    "r5,hier-fcfs,64KiB,1,5,7,done,0,0.1\n"
    "r6,hier-fcfs,1MiB,1,50,8,failed,1,0.1\n"
    "r7,hier-fcfs,1MiB,2,,,pending,,\n"
    "r8,hier-fcfs,1MiB,3,40,6,done,0,0.1\n";

const char* kColumns =
    "run, scheduler.policy, hosts.bytes, sim.seed, hosts.done_us, hosts.allreduce_gbps, status, exit_code, wall_seconds";

const std::string kPerPolicy = "--x hosts.bytes --y hosts.done_us --group scheduler.policy";
const std::string kDefaultName = "plot-hosts.done_us-vs-hosts.bytes-by-scheduler.policy.png";

const char* kMissingPlotLibrary =
    "install python3-matplotlib (scripts/install-deps installs it)\n";

TEST(E2EPlot, DescribePrintsEachSeriesPointWithItsMeanMinAndMax) {
  ScratchDir dir;
  write_file(dir / "results.csv", kResults);
  const CliResult r = flaresim("plot results.csv " + kPerPolicy + " --describe", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out,
            "csv: results.csv\n"
            "rows: 6 of 8 plotted\n"
            "output: " + kDefaultName + "\n"
            "title: hosts.done_us against hosts.bytes, per scheduler.policy\n"
            "x: hosts.bytes (bytes): sizes in bytes\n"
            "panel 1: y hosts.done_us (µs)\n"
            "  series fcfs, hosts.done_us: 2 points\n"
            "    x 65536: mean 30, min 10, max 60, 3 rows\n"
            "    x 1048576: mean 100, min 100, max 100, 1 row\n"
            "  series hier-fcfs, hosts.done_us: 2 points\n"
            "    x 65536: mean 5, min 5, max 5, 1 row\n"
            "    x 1048576: mean 40, min 40, max 40, 1 row\n"
            "note: 2 rows left out, status not done: 1 failed, 1 pending\n"
            "note: a point is the mean of the rows sharing its x and series (1 to 3 rows); bars: min to max\n");
  EXPECT_EQ(files_in(dir), (std::set<std::string>{"results.csv"}));  // --describe writes nothing
}

// Without --group the rows sharing an x are averaged across policies; metrics of different units
// go on panels of their own; --where keeps seed 1 (r1, r4, r5; r6 failed).
TEST(E2EPlot, MetricsOfDifferentUnitsGetAPanelEach) {
  ScratchDir dir;
  write_file(dir / "results.csv", kResults);
  const CliResult r = flaresim(
      "plot results.csv --x hosts.bytes --where sim.seed=1 --y hosts.done_us --y hosts.allreduce_gbps --logx "
      "--label 'hosts.bytes=message size' --title 'seed 1' --describe",
      dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "csv: results.csv\n"
            "rows: 3 of 8 plotted\n"
            "output: plot-hosts.done_us+hosts.allreduce_gbps-vs-hosts.bytes.png\n"
            "title: seed 1\n"
            "x: message size (bytes): sizes in bytes, log2 scale\n"
            "panel 1: y hosts.done_us (µs)\n"
            "  series hosts.done_us: 2 points\n"
            "    x 65536: mean 7.5, min 5, max 10, 2 rows\n"
            "    x 1048576: mean 100, min 100, max 100, 1 row\n"
            "panel 2: y hosts.allreduce_gbps (Gbit/s)\n"
            "  series hosts.allreduce_gbps: 2 points\n"
            "    x 65536: mean 4.5, min 2, max 7, 2 rows\n"
            "    x 1048576: mean 5, min 5, max 5, 1 row\n"
            "note: 1 row left out, status not done: 1 failed\n"
            "note: a point is the mean of the rows sharing its x and series (1 to 2 rows); bars: min to max\n");
}

// Numbers sort numerically along x and as groups; names keep the order they first appear in.
// A CSV with no status column plots every row. --panel and --ref-y make a second panel.
TEST(E2EPlot, NumbersSortAndNamesKeepTheirOrder) {
  ScratchDir dir;
  write_file(dir / "t.csv",
             "clusters,policy,rate_gbps,cost_cycles\n"
             "16,b,3,30\n"
             "4,b,1,10\n"
             "8,a,2,20\n"
             "4,a,5,50\n");
  CliResult r = flaresim("plot t.csv --x clusters --y rate_gbps --group policy --ref-y '2.5=goal' "
                         "--panel --y cost_cycles --ylabel cost --describe",
                         dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "csv: t.csv\n"
            "rows: 4 of 4 plotted\n"
            "output: plot-rate_gbps+cost_cycles-vs-clusters-by-policy.png\n"
            "title: rate_gbps, cost_cycles against clusters, per policy\n"
            "x: clusters: numbers\n"
            "panel 1: y rate_gbps (Gbit/s)\n"
            "  series b, rate_gbps: 2 points\n"
            "    x 4: mean 1, min 1, max 1, 1 row\n"
            "    x 16: mean 3, min 3, max 3, 1 row\n"
            "  series a, rate_gbps: 2 points\n"
            "    x 4: mean 5, min 5, max 5, 1 row\n"
            "    x 8: mean 2, min 2, max 2, 1 row\n"
            "  reference goal: 2.5\n"
            "panel 2: y cost (cycles)\n"
            "  series b, cost_cycles: 2 points\n"
            "    x 4: mean 10, min 10, max 10, 1 row\n"
            "    x 16: mean 30, min 30, max 30, 1 row\n"
            "  series a, cost_cycles: 2 points\n"
            "    x 4: mean 50, min 50, max 50, 1 row\n"
            "    x 8: mean 20, min 20, max 20, 1 row\n");
  r = flaresim("plot t.csv --x policy --y rate_gbps --group clusters --describe", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "csv: t.csv\n"
            "rows: 4 of 4 plotted\n"
            "output: plot-rate_gbps-vs-policy-by-clusters.png\n"
            "title: rate_gbps against policy, per clusters\n"
            "x: policy: categories b, a\n"
            "panel 1: y rate_gbps (Gbit/s)\n"
            "  series 4, rate_gbps: 2 points\n"
            "    x b: mean 1, min 1, max 1, 1 row\n"
            "    x a: mean 5, min 5, max 5, 1 row\n"
            "  series 8, rate_gbps: 1 point\n"
            "    x a: mean 2, min 2, max 2, 1 row\n"
            "  series 16, rate_gbps: 1 point\n"
            "    x b: mean 3, min 3, max 3, 1 row\n");
}

// The unit of each headline metric of results.csv (docs/SWEEP.md) and of the other suffixes of
// docs/STATS.md's "Units from key names"; a name that says none gets no unit. Each unit is a
// panel of its own, so the panel lines list the mapping.
TEST(E2EPlot, UnitsComeFromTheKeysNames) {
  ScratchDir dir;
  const std::vector<std::string> keys = {
      "sim.time_us", "hosts.timeout_ns", "handlers.flare_dense.latency_ns.p99", "sim.time_ps", "x_ms",
      "wall_seconds", "throughput.handled_gbps", "bandwidth_tbps", "pspin.l1_bytes", "input_buffer_max_kib",
      "y_mib", "handlers.flare_dense.cycles.avg", "handler_cycles_avg", "hpus.utilisation.avg",
      "throughput.handled_packets", "frames", "drops.total", "latency_ns.count", "blocks_open_avg", "exit_code",
      "hosts.window", "status_us_not"};
  std::string header = "x", row = "1", ys;
  for (const std::string& k : keys) {
    header += "," + k;
    row += ",1";
    ys += " --y " + k;
  }
  write_file(dir / "u.csv", header + "\n" + row + "\n");
  const CliResult r = flaresim("plot u.csv --x x" + ys + " --describe", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  std::string panels;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("panel ", 0) == 0) panels += line + "\n";
  EXPECT_EQ(panels,
            "panel 1: y sim.time_us (µs)\n"
            "panel 2: y hosts.timeout_ns, handlers.flare_dense.latency_ns.p99 (ns)\n"
            "panel 3: y sim.time_ps (ps)\n"
            "panel 4: y x_ms (ms)\n"
            "panel 5: y wall_seconds (s)\n"
            "panel 6: y throughput.handled_gbps (Gbit/s)\n"
            "panel 7: y bandwidth_tbps (Tbit/s)\n"
            "panel 8: y pspin.l1_bytes (bytes)\n"
            "panel 9: y input_buffer_max_kib (KiB)\n"
            "panel 10: y y_mib (MiB)\n"
            "panel 11: y handlers.flare_dense.cycles.avg, handler_cycles_avg (cycles)\n"
            "panel 12: y hpus.utilisation.avg (fraction of the time)\n"
            "panel 13: y throughput.handled_packets (packets)\n"
            "panel 14: y frames (frames)\n"
            "panel 15: y drops.total, latency_ns.count (count)\n"
            "panel 16: y blocks_open_avg, exit_code, hosts.window, status_us_not\n");
}

TEST(E2EPlot, WritesAPngOfTheConfiguredSize) {
  ScratchDir dir;
  write_file(dir / "results.csv", kResults);
  const CliResult r = flaresim("plot results.csv " + kPerPolicy + " --size 6x4 --dpi 50 -o out.png", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "flaresim plot: wrote out.png: 2 series, 4 points from 6 rows\n"
            "flaresim plot: 2 rows left out, status not done: 1 failed, 1 pending\n"
            "flaresim plot: a point is the mean of the rows sharing its x and series (1 to 3 rows); bars: min to max\n");
  EXPECT_EQ(png_size(dir / "out.png"), std::make_pair(300u, 200u));
  EXPECT_NE(slurp(dir / "out.png").find(std::string("tEXtSoftware\0flaresim plot", 26)), std::string::npos);
  EXPECT_EQ(files_in(dir), (std::set<std::string>{"results.csv", "out.png"}));  // no temporary file left
}

// The default name, next to the CSV, is replaced when flaresim plot wrote it and refused
// otherwise; -o overwrites what it names.
TEST(E2EPlot, TheDefaultNameReplacesOnlyItsOwnPlot) {
  ScratchDir dir;
  std::filesystem::create_directory(dir / "sweep");
  write_file(dir / "sweep/results.csv", kResults);
  const std::string cmd = "plot sweep/results.csv " + kPerPolicy + " --size 4x3 --dpi 40";
  CliResult r = flaresim(cmd, dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(png_size(dir / ("sweep/" + kDefaultName)), std::make_pair(160u, 120u));
  r = flaresim(cmd, dir);
  EXPECT_EQ(r.code, 0) << r.err;

  write_file(dir / ("sweep/" + kDefaultName), "my own notes\n");
  r = flaresim(cmd, dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "flaresim: sweep/" + kDefaultName +
                       " exists and flaresim plot did not write it: not overwritten (give -o to name the output, "
                       "or -o with this name to overwrite it)\n");
  EXPECT_EQ(slurp(dir / ("sweep/" + kDefaultName)), "my own notes\n");

  r = flaresim(cmd + " -o sweep/" + kDefaultName, dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(png_size(dir / ("sweep/" + kDefaultName)), std::make_pair(160u, 120u));
}

TEST(E2EPlot, ErrorsNameTheFileAndTheReasonAndWriteNothing) {
  ScratchDir dir;
  write_file(dir / "results.csv", kResults);
  write_file(dir / "undone.csv", "run,hosts.bytes,hosts.done_us,status\na,64KiB,,failed\nb,1MiB,,pending\nc,1MiB,,failed\n");
  write_file(dir / "words.csv", "run,hosts.bytes,hosts.done_us,status\na,64KiB,12,done\nb,1MiB,fast,done\n");
  struct Case {
    std::string args, err;
  };
  const std::vector<Case> cases = {
      {"nope.csv --x a --y b", "flaresim: cannot read nope.csv: No such file or directory\n"},
      {"results.csv --x hosts.bytes --y hosts.nope",
       std::string("flaresim: results.csv: no column 'hosts.nope' (for --y hosts.nope); its columns: ") + kColumns + "\n"},
      {"results.csv --x hosts.size --y hosts.done_us",
       std::string("flaresim: results.csv: no column 'hosts.size' (for --x); its columns: ") + kColumns + "\n"},
      {"undone.csv --x hosts.bytes --y hosts.done_us",
       "flaresim: undone.csv: no row to plot: none of its 3 rows is done (status: 2 failed, 1 pending)\n"},
      {"words.csv --x hosts.bytes --y hosts.done_us", "flaresim: words.csv:3: hosts.done_us is 'fast', not a number\n"},
      {"results.csv --x hosts.bytes --y hosts.done_us --where sim.seed=9",
       "flaresim: results.csv: no row has sim.seed = 9 (values: 1, 2, 3)\n"},
      {"results.csv --x scheduler.policy --y hosts.done_us --logx",
       "flaresim: --logx: scheduler.policy holds names (fcfs, hier-fcfs), not numbers\n"},
      {"results.csv --x hosts.bytes --y hosts.done_us --y hosts.allreduce_gbps --ref-y 1=one",
       "flaresim: panel 1 has --ref-y but metrics of different units (hosts.done_us: µs, hosts.allreduce_gbps: "
       "Gbit/s): put them on panels of their own (--panel)\n"},
      {"results.csv --x hosts.bytes --y hosts.done_us --panel --logy", "flaresim: panel 2: no --y METRIC after its --panel\n"},
      {"results.csv --x hosts.bytes --y hosts.done_us -o out.svg",
       "flaresim: -o out.svg: the output is a PNG: give a name ending in .png\n"},
  };
  for (const Case& c : cases) {
    const CliResult r = flaresim("plot " + c.args, dir);
    EXPECT_EQ(r.code, 2) << c.args;
    EXPECT_EQ(r.err, c.err) << c.args;
    EXPECT_EQ(r.out, "") << c.args;
  }
  EXPECT_EQ(files_in(dir), (std::set<std::string>{"results.csv", "undone.csv", "words.csv"}));
}

TEST(E2EPlot, AMissingPythonIsNamedWithItsPackage) {
  ScratchDir dir;
  write_file(dir / "results.csv", kResults);
  const CliResult r = flaresim("plot results.csv " + kPerPolicy, dir, "FLARESIM_PYTHON=/nonexistent/python3");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, std::string("flaresim: plot needs python3 with matplotlib: cannot run /nonexistent/python3 (No "
                               "such file or directory): ") + kMissingPlotLibrary);
  EXPECT_EQ(files_in(dir), (std::set<std::string>{"results.csv"}));
}

// A matplotlib that cannot be imported (one that raises, first on PYTHONPATH) stops a drawing
// with the package to install; --describe does not need it.
TEST(E2EPlot, AMissingMatplotlibIsNamedWithItsPackage) {
  ScratchDir dir;
  write_file(dir / "results.csv", kResults);
  std::filesystem::create_directories(dir / "fake/matplotlib");
  write_file(dir / "fake/matplotlib/__init__.py", "raise ImportError('hidden by the test')\n");
  CliResult r = flaresim("plot results.csv " + kPerPolicy + " -o out.png", dir, "PYTHONPATH='" + dir / "fake" + "'");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, std::string("flaresim: plot needs matplotlib for /usr/bin/python3 (cannot import it: hidden by "
                               "the test): ") + kMissingPlotLibrary);
  EXPECT_FALSE(exists(dir / "out.png"));
  r = flaresim("plot results.csv " + kPerPolicy + " --describe", dir, "PYTHONPATH='" + dir / "fake" + "'");
  EXPECT_EQ(r.code, 0) << r.err;
}

// SIGTERM for flaresim goes on to the script (here a stand-in interpreter that says when it is
// ready and records the signal), and flaresim reports the interrupt as every command does.
TEST(E2EPlot, ASignalReachesTheScriptAndIsReported) {
  ScratchDir dir;
  write_file(dir / "fake-python",
             "#!/bin/sh\n"
             "trap 'echo TERM >forwarded; kill $! 2>/dev/null; exit 143' TERM\n"
             "sleep 30 & touch started; wait\n");
  std::filesystem::permissions(dir / "fake-python", std::filesystem::perms::owner_all);
  const std::string cmd = "cd '" + dir.path() + "' && (FLARESIM_PYTHON=./fake-python '" FLARESIM_BIN
                          "' plot r.csv --x a --y b 2>err.txt & pid=$!; "
                          "while [ ! -e started ]; do sleep 0.05; done; kill -TERM $pid; wait $pid; echo $? >code.txt)";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_EQ(slurp(dir / "code.txt"), "143\n");
  EXPECT_EQ(slurp(dir / "forwarded"), "TERM\n");
  EXPECT_EQ(slurp(dir / "err.txt"), "flaresim: interrupted by SIGTERM while plotting; no output file was written\n");
}

}  // namespace
}  // namespace fs::test
