// End to end: a2tp jobs with co-located parameter servers (a2tp.ps colocated, a2tp_layout.h):
// every host of the training job is a worker and the PS of one shard of its fragments, and the
// worker on a shard's PS host hands its gradients over there. Counts worked out by hand per
// fragment: on one switch of 4 hosts, each fragment's 3 remote gradients are taken, summed and
// complete the shard's mask, the PS's result frees the aggregator and goes to the 3 others; on a
// leaf-spine of two leaves of 3 hosts and one spine, the PS's leaf completes from its 2 hosts and
// the spine's sum, the other leaf sends its 3 hosts' sum up; on the Dragonfly 72 shards, every
// router on every shard's tree. Every result is exact (the jobs check each against their own
// sum) and reaches each worker once.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/a2tp_run.h"
#include "support/cli_runner.h"

namespace fs::test {
namespace {

using Counts = std::map<std::string, uint64_t>;

nlohmann::json run_ok(const std::string& network, const std::string& extra, const ScratchDir& dir) {
  const CliResult r = flaresim("run " + network +
                                   " --network.kind inc --hosts.model a2tp --a2tp.mode atp --a2tp.ps colocated "
                                   "--stats s.json -q " + extra,
                               dir);
  const nlohmann::json s = a2tp_stats_ok(r, dir);
  EXPECT_EQ(s["allreduce"]["retransmissions"], 0);
  EXPECT_EQ(s["allreduce"]["details"]["to_ps"], 0);
  return s;
}

Counts outcomes(const nlohmann::json& s, unsigned sw) { return a2tp_outcomes(s, sw); }

TEST(A2tpColocated, OnOneSwitchEachShardsPsCompletesWhatItsThreeOthersSent) {
  ScratchDir dir;
  // 20 fragments of 248 bytes, 5 to each of the 4 shards.
  const nlohmann::json s = run_ok("--network.topology leaf_spine --network.leaves 1 --network.spines 0 "
                                  "--network.hosts_per_leaf 4 --pspin.clusters 2 --hpu.model native",
                                  "--a2tp.slots 8 --a2tp.aggregators 64 --hosts.bytes 4960", dir);
  const uint64_t F = 20;
  const nlohmann::json& a = s["allreduce"];
  EXPECT_EQ(a["hosts"], 4);
  EXPECT_EQ(a["groups"], 1);
  EXPECT_EQ(a["details"]["fragments"], F);
  EXPECT_EQ(a["details"]["ps_results"], F);
  EXPECT_EQ(a["details"]["to_switch"], 3 * F);  // the PS host's own gradients never leave it
  EXPECT_EQ(a["packets_sent"], 3 * F);
  ASSERT_EQ(a["jobs"].size(), 4u);
  // A shard's row counts its 5 fragments' 1240 bytes; the training job's goodput a worker's 4960
  // over the slowest shard's push.
  double slowest = 0;
  for (const auto& row : a["jobs"]) {
    EXPECT_NEAR(row["aggregation_gbps"].get<double>() * row["push_us"].get<double>(), 1240 * 8e-3, 1e-9) << row;
    slowest = std::max(slowest, row["push_us"].get<double>());
  }
  EXPECT_NEAR(a["goodput_gbps"].get<double>(), 4960 * 8e-3 / slowest, 1e-9);
  EXPECT_EQ(outcomes(s, 0), (Counts{{"taken", F}, {"aggregated", F}, {"completed", F}, {"released", F}}));
  const nlohmann::json& sw = s["network"]["per_switch"][0];
  EXPECT_EQ(sw["packets_in"], 3 * F + F);   // the gradients, the PSes' results
  EXPECT_EQ(sw["packets_out"], F + 3 * F);  // the switch's results to the PSes, the copies to the others
}

class A2tpColocatedLeafSpine : public testing::TestWithParam<const char*> {};

TEST_P(A2tpColocatedLeafSpine, ThePsLeafCompletesAndTheOtherLeafSendsItsSumUp) {
  ScratchDir dir;
  // 24 fragments, 4 to each of the 6 shards: 12 with the PS under leaf0, 12 under leaf1.
  const nlohmann::json s = run_ok("--network.topology leaf_spine --network.leaves 2 --network.spines 1 "
                                  "--network.hosts_per_leaf 3 --pspin.clusters 4 --hpu.model " +
                                      std::string(GetParam()),
                                  "--a2tp.slots 8 --a2tp.aggregators 64 --hosts.bytes 5952", dir);
  const uint64_t F = 24, H = 12;
  EXPECT_EQ(s["allreduce"]["hosts"], 6);
  EXPECT_EQ(s["allreduce"]["details"]["ps_results"], F);
  for (unsigned leaf = 0; leaf < 2; ++leaf) {
    EXPECT_EQ(outcomes(s, leaf), (Counts{{"taken", F}, {"aggregated", F}, {"completed", H}, {"passed_on", H},
                                         {"released", H}, {"forwarded", H}}))
        << leaf;
    // PS leaf: 2 gradients, the spine's sum, the PS's result; the other: 3 gradients, the result.
    EXPECT_EQ(s["network"]["per_switch"][leaf]["packets_in"], 4 * F) << leaf;
    EXPECT_EQ(s["network"]["per_switch"][leaf]["packets_out"], 4 * F) << leaf;
  }
  EXPECT_EQ(outcomes(s, 2), (Counts{{"passed_on", F}, {"forwarded", F}}));
}

INSTANTIATE_TEST_SUITE_P(Hpus, A2tpColocatedLeafSpine, testing::Values("native", "iss"));

TEST(A2tpColocated, OnTheDragonflyEachOf72ShardsIsSummedUpItsOwnTree) {
  ScratchDir dir;
  // 144 fragments, 2 to each shard. A fragment's gradients reaching switches: its 71 remote
  // workers' and a sum from each of the 35 routers other than its PS's, which completes it.
  const nlohmann::json s = run_ok("--network.topology dragonfly --pspin.clusters 2 --hpu.model native",
                                  "--a2tp.slots 4 --a2tp.aggregators 512 --hosts.bytes 35712", dir);
  const uint64_t F = 144;
  EXPECT_EQ(s["allreduce"]["hosts"], 72);
  EXPECT_EQ(s["allreduce"]["jobs"].size(), 72u);
  Counts total;
  for (unsigned sw = 0; sw < 36; ++sw)
    for (const auto& [k, v] : outcomes(s, sw)) total[k] += v;
  EXPECT_EQ(total["completed"], F);
  EXPECT_EQ(total["released"], F);
  EXPECT_EQ(total["passed_on"], 35 * F);
  EXPECT_EQ(total["forwarded"], 35 * F);
  EXPECT_EQ(total["taken"] + total["aggregated"] + total["passed_on"] + total["completed"], 106 * F);
  EXPECT_EQ(total.size(), 6u);
}

TEST(A2tpColocated, SeveralIterationsWithComputeEachCompleteOnEveryShard) {
  ScratchDir dir;
  const nlohmann::json s = run_ok("--network.topology leaf_spine --network.leaves 2 --network.spines 1 "
                                  "--network.hosts_per_leaf 3 --pspin.clusters 4 --hpu.model native",
                                  "--a2tp.slots 8 --a2tp.aggregators 64 --hosts.bytes 5952 --a2tp.iterations 3 "
                                  "--a2tp.compute_us 5",
                                  dir);
  EXPECT_EQ(s["allreduce"]["details"]["ps_results"], 3 * 24);
  for (const auto& row : s["allreduce"]["jobs"]) EXPECT_EQ(row["iterations"], 3) << row;
  // Each iteration: 5 us of compute before its push, so at least 15 us in all.
  EXPECT_GT(s["allreduce"]["done_us"].get<double>(), 15.0);
}

TEST(A2tpColocated, TablesForEveryShardThatDoNotFitAreRefusedNamingTheKey) {
  ScratchDir dir;
  const CliResult r = flaresim(
      "run --network.topology leaf_spine --network.leaves 2 --network.spines 1 --network.hosts_per_leaf 3 "
      "--network.kind inc --hosts.model a2tp --a2tp.mode atp --a2tp.ps colocated --a2tp.slots 16 "
      "--a2tp.aggregators 64 --hosts.bytes 5952",
      dir);
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("a2tp.slots: 6 shards' tables of 16 entries each are more than the 64 aggregators"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace fs::test
