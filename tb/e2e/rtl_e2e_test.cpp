// End to end: the Verilated RTL twins (run --rtl) stand in for their SystemC twins without
// changing any result (the stats JSON is identical but for the wall time), --vcd writes their
// waveforms, and bad choices are refused with a clear message.
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/cli_runner.h"

namespace fs::test {
namespace {

nlohmann::json stats_of(ScratchDir& dir, const std::string& args) {
  const CliResult r = flaresim("run --stats s.json " + args, dir);
  EXPECT_EQ(r.code, 0) << args << "\n" << r.out << r.err;
  EXPECT_NE(r.out.find("verify           OK"), std::string::npos) << args << "\n" << r.out;
  auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  s.erase("wall_seconds");
  return s;
}

TEST(E2ERtl, AnAllreduceGivesTheSameStatsWithTheRtlTwinsOnAndOff) {
  ScratchDir dir;
  const std::string runs[] = {
      "--hosts.model allreduce --flare.ports 0-15 --hosts.bytes 128KiB --hosts.window 32 --hosts.stagger true",
      "--hosts.model allreduce --flare.ports 0-7 --hosts.bytes 64KiB --hosts.window 16 --scheduler.policy hier-fcfs "
      "--scheduler.subset 2 --hpu.model native",
      "--hosts.model allreduce --flare.ports 0-15 --hosts.bytes 64KiB --hosts.window 8 --hosts.loss 0.05 "
      "--hosts.timeout_ns 20000 --config " + std::string(FLARESIM_SOURCE_DIR) + "/configs/flare-64x8.ini "
      "--scheduler.policy hier-fcfs --scheduler.subset 8",
      "--hosts.model allreduce --flare.ports 0-15 --hosts.bytes 64KiB --hosts.window 32 --config " +
          std::string(FLARESIM_SOURCE_DIR) + "/configs/pspin-4x8.ini"};  // home-cluster
  for (const std::string& run : runs) {
    const auto off = stats_of(dir, run);
    const auto on = stats_of(dir, run + " --rtl pkt_sched,cluster_sched");
    EXPECT_EQ(on, off) << run;
    EXPECT_GT(off["hosts"]["blocks_completed"].get<uint64_t>(), 0u);
  }
}

// The VCD identifier of `signal` directly in scope `scope`, from the header.
std::string vcd_id(const std::string& vcd, const std::string& scope, const std::string& signal) {
  std::istringstream in(vcd);
  std::vector<std::string> scopes;
  for (std::string line; std::getline(in, line);) {
    std::istringstream w(line);
    std::string t;
    w >> t;
    if (t == "$scope") {
      std::string kind, name;
      w >> kind >> name;
      scopes.push_back(name);
    } else if (t == "$upscope") {
      scopes.pop_back();
    } else if (t == "$var" && scopes.size() == 1 && scopes[0] == scope) {
      std::string type, width, id, name;
      w >> type >> width >> id >> name;
      if (name == signal) return id;
    } else if (t == "$enddefinitions") {
      break;
    }
  }
  return "";
}

// Replays the value changes after the header; counts the rising edges of `clk` at which `bit` is 1
// (both identifiers of one block). Also checks that time never goes back.
int high_at_rising_edges(const std::string& vcd, const std::string& clk, const std::string& bit, bool* monotonic) {
  std::istringstream in(vcd.substr(vcd.find("$enddefinitions")));
  char clk_now = 'x', bit_now = 'x', clk_before = 'x';
  int count = 0;
  long long last = -1;
  *monotonic = true;
  auto settle = [&] {
    if (clk_before == '0' && clk_now == '1' && bit_now == '1') ++count;
    clk_before = clk_now;
  };
  for (std::string line; std::getline(in, line);) {
    if (line.size() > 1 && line[0] == '#') {
      settle();
      const long long t = std::stoll(line.substr(1));
      *monotonic = *monotonic && t > last;
      last = t;
    } else if (line.size() >= 2 && (line[0] == '0' || line[0] == '1')) {
      if (line.substr(1) == clk) clk_now = line[0];
      if (line.substr(1) == bit) bit_now = line[0];
    }
  }
  settle();
  return count;
}

TEST(E2ERtl, VcdHoldsTheBlocksWaveforms) {
  // 8 hosts x 4 blocks: the packet scheduler places 32 packets, so its grant_valid is high at
  // 32 rising clock edges; cluster 0's scheduler starts as many tasks as cluster 0 received.
  ScratchDir dir;
  const CliResult r = flaresim("run --stats s.json --hosts.model allreduce --flare.ports 0-7 --hosts.bytes 4KiB "
                               "--hpu.model native --rtl pkt_sched,cluster_sched --vcd w.vcd",
                               dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string vcd = slurp(dir / "w.vcd");
  ASSERT_EQ(vcd.rfind("$version", 0), 0u) << vcd.substr(0, 200);
  EXPECT_NE(vcd.find("$timescale 1ps $end"), std::string::npos);
  for (const char* scope : {"pkt_sched", "cluster_sched0", "cluster_sched3"})
    EXPECT_NE(vcd.find(std::string("$scope module ") + scope + " $end"), std::string::npos) << scope;
  const std::string grant = vcd_id(vcd, "pkt_sched", "grant_valid"), pclk = vcd_id(vcd, "pkt_sched", "clk");
  const std::string disp = vcd_id(vcd, "cluster_sched0", "disp_valid"), cclk = vcd_id(vcd, "cluster_sched0", "clk");
  ASSERT_FALSE(grant.empty() || pclk.empty() || disp.empty() || cclk.empty());
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  ASSERT_EQ(s["handlers"]["flare_dense"]["runs"], 32);
  bool monotonic = false;
  EXPECT_EQ(high_at_rising_edges(vcd, pclk, grant, &monotonic), 32);
  EXPECT_TRUE(monotonic);
  const int cluster0 = s["clusters"][0]["tasks"];
  EXPECT_GT(cluster0, 0);
  EXPECT_EQ(high_at_rising_edges(vcd, cclk, disp, &monotonic), cluster0);
}

TEST(E2ERtl, BadChoicesAreRefused) {
  ScratchDir dir;
  CliResult r = flaresim("run --stats s.json --hosts.model allreduce --flare.ports 0-1 --rtl pkt_sched,fpu", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--rtl: unknown block 'fpu': expected a comma-separated list of pkt_sched, cluster_sched, crc32, "
                       "or all, or none"),
            std::string::npos)
      << r.err;
  r = flaresim("run --stats s.json --hosts.model allreduce --flare.ports 0-1 --vcd w.vcd", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--vcd: no block runs as RTL"), std::string::npos) << r.err;
  r = flaresim("run --stats s.json --hosts.model allreduce --flare.ports 0-1 --rtl cluster_sched "
               "--pspin.hpus_per_cluster 32",
               dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("rtl cluster_sched: 32 HPUs in subsets of 32"), std::string::npos) << r.err;
  EXPECT_FALSE(exists(dir / "w.vcd"));
}

}  // namespace
}  // namespace fs::test
