// Calibrated handler costs from the command line (docs/NETWORKS.md, "Switch kinds"): an ISS run
// writes the table (--calibration-out), a native run charged by it (hpu.calibration) gives
// every handler run exactly its outcome's fitted cycles and finishes within 2% of the ISS run's
// time (the fit is each outcome's mean, so runs slowed by lock contention and runs that were not
// are charged alike), calibrated switches in a network, and the errors for a native calibration
// run and a calibrated switch without a table; an ISS network run's table, with the outcomes of
// the switches of a reduction tree counted by hand.
#include <cmath>

#include <nlohmann/json.hpp>

#include "common/text.h"
#include "support/cli_runner.h"

namespace fs::test {
namespace {

// The fitted cycles of `outcome` of flare_dense in a calibration table's text.
double fixed_cycles(const std::string& table, const std::string& outcome) {
  for (const std::string& line : lines_of(table)) {
    const std::vector<std::string> w = line_words(line);
    if (w.size() == 8 && w[0] == "flare_dense" && w[1] == outcome) return std::stod(w[3]);
  }
  ADD_FAILURE() << "no flare_dense " << outcome << " in\n" << table;
  return -1;
}

TEST(CalibrationE2e, IssRunCalibratesNativeRuns) {
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 8 --bytes 64KiB -o t.txt", dir).code, 0);
  const CliResult iss =
      flaresim("run --trace t.txt --flare.ports 0-7 --hpu.model iss --calibration-out cal.txt --stats iss.json -q", dir);
  ASSERT_EQ(iss.code, 0) << iss.err;
  const std::string table = slurp(dir / "cal.txt");
  const CliResult nat = flaresim("run --trace t.txt --flare.ports 0-7 --hpu.model native --hpu.calibration cal.txt "
                                 "--stats nat.json -q --verify t.txt.expected",
                                 dir);
  ASSERT_EQ(nat.code, 0) << nat.err;
  const auto a = nlohmann::json::parse(slurp(dir / "iss.json")), b = nlohmann::json::parse(slurp(dir / "nat.json"));
  // Every packet is 1082 bytes: one size, so each outcome's fit is flat, and a native run of it
  // costs its rounded mean (native runs have no runtime entry or exit cycles) plus the time its
  // fs_dma_copy calls wait on the cluster's DMA engine, which the ISS's cycles had and the fit
  // leaves out. Most runs that end ok copy nothing: their cycles are the fit's exactly.
  const auto& ok = b["handlers"]["flare_dense"]["cycles_by_outcome"]["ok"];
  EXPECT_EQ(ok["min"].get<uint64_t>(), uint64_t(std::llround(fixed_cycles(table, "ok"))));
  EXPECT_EQ(ok["p50"].get<uint64_t>(), ok["min"].get<uint64_t>());
  const auto& sent = b["handlers"]["flare_dense"]["cycles_by_outcome"]["result_sent"];
  EXPECT_GE(sent["min"].get<uint64_t>(), uint64_t(std::llround(fixed_cycles(table, "result_sent"))));
  EXPECT_EQ(ok["count"], a["handlers"]["flare_dense"]["cycles_by_outcome"]["ok"]["count"]);
  EXPECT_EQ(b["handlers"]["flare_dense"]["runs"], a["handlers"]["flare_dense"]["runs"]);
  const double t_iss = a["sim"]["time_us"].get<double>(), t_nat = b["sim"]["time_us"].get<double>();
  EXPECT_NEAR(t_nat / t_iss, 1.0, 0.02) << t_iss << " us on the ISS, " << t_nat << " us calibrated";

  const CliResult wrong = flaresim("run --trace t.txt --flare.ports 0-7 --hpu.model native --calibration-out c2.txt", dir);
  EXPECT_EQ(wrong.code, 2);
  EXPECT_NE(wrong.err.find("--calibration-out: a calibration measures handlers on the ISS (--hpu.model iss), not on "
                           "native HPUs"),
            std::string::npos)
      << wrong.err;
  EXPECT_FALSE(exists(dir / "c2.txt"));

  // A network of calibrated switches (the background traffic runs no handler, but the switches
  // are built with their PsPIN units, the table and Flare's children among their 4 ports).
  const CliResult net = flaresim("run --network.topology leaf_spine --network.kind calibrated --hpu.calibration cal.txt "
                                 "--flare.ports 0-1 --traffic.pattern uniform --traffic.messages 2 --stats net.json -q",
                                 dir);
  ASSERT_EQ(net.code, 0) << net.err;
  const auto n = nlohmann::json::parse(slurp(dir / "net.json"));
  for (const auto& s : n["network"]["per_switch"]) EXPECT_EQ(s["kind"], "calibrated");
  EXPECT_EQ(n["traffic"]["unfinished"], 0);
}

// The runs of `outcome` of flare_dense in a calibration table's text (-1 if absent).
long runs_of(const std::string& table, const std::string& outcome) {
  for (const std::string& line : lines_of(table)) {
    const std::vector<std::string> w = line_words(line);
    if (w.size() == 8 && w[0] == "flare_dense" && w[1] == outcome) return std::stol(w[2]);
  }
  return -1;
}

TEST(CalibrationE2e, AnIssNetworkRunCalibratesTheTreesOutcomes) {
  ScratchDir dir;
  // Two leaves of two members under one spine, 4 blocks: per block each leaf folds its first
  // contribution (ok) and sends the second's aggregate up (sent_up); the spine folds the first
  // leaf's (ok) and multicasts the result (result_sent); each leaf forwards it down
  // (result_forwarded). So ok 2 x 4 + 4, sent_up 2 x 4, result_sent 4, result_forwarded 2 x 4.
  const std::string net = "run --network.topology leaf_spine --network.leaves 2 --network.spines 1 "
                          "--network.hosts_per_leaf 2 --hosts.model allreduce --hosts.bytes 4KiB "
                          "--hosts.timeout_ns 1000000 ";
  const CliResult iss = flaresim(net + "--network.kind inc --hpu.model iss --calibration-out cal.txt -q", dir);
  ASSERT_EQ(iss.code, 0) << iss.err;
  const std::string table = slurp(dir / "cal.txt");
  EXPECT_EQ(runs_of(table, "ok"), 12);
  EXPECT_EQ(runs_of(table, "sent_up"), 8);
  EXPECT_EQ(runs_of(table, "result_sent"), 4);
  EXPECT_EQ(runs_of(table, "result_forwarded"), 8);
  EXPECT_EQ(runs_of(table, "*"), 32);
  const CliResult cal = flaresim(net + "--network.kind calibrated --hpu.calibration cal.txt", dir);
  ASSERT_EQ(cal.code, 0) << cal.err;
  EXPECT_NE(cal.out.find("allreduce over 1 tree: 4 hosts, 4096 bytes each, done in "), std::string::npos) << cal.out;
  EXPECT_NE(cal.out.find("results OK"), std::string::npos) << cal.out;
  const CliResult native = flaresim(net + "--network.kind inc --hpu.model native --calibration-out c2.txt", dir);
  EXPECT_EQ(native.code, 2);
  EXPECT_NE(native.err.find("--calibration-out: a calibration measures handlers on the ISS (--hpu.model iss), not on "
                            "native HPUs"),
            std::string::npos)
      << native.err;
  EXPECT_FALSE(exists(dir / "c2.txt"));
}

}  // namespace
}  // namespace fs::test
