// End to end: an a2tp job (hosts.model a2tp, ATP's windows and a table of aggregators, so that it
// never meets itself) on a leaf-spine of two leaves of 3 hosts and one spine: workers 0-4, its
// PS host 5 on leaf1. Its tree, worked out by hand: leaf0 has workers 0-2 and sends their sum up,
// the spine has them from leaf0 alone and sends it on, leaf1 (the PS's switch) has it with
// workers 3 and 4 and completes each fragment; results come back down the same way, leaf0
// copying them to its 3 hosts. Whichever switches are plain, every result is exact (the jobs
// check each against their own sum), arrives once at each worker, and each switch's outcomes are
// the hand-counted ones per fragment; a plain switch's multicast route makes the copies its
// handler would.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/a2tp_run.h"
#include "support/cli_runner.h"

namespace fs::test {
namespace {

constexpr uint64_t kFragments = 20;  // 4960 bytes of 248-byte fragments

nlohmann::json run_ok(const std::string& kinds, const std::string& hpu, const ScratchDir& dir,
                      const std::string& extra = "") {
  const CliResult r = flaresim(
      "run --network.topology leaf_spine --network.leaves 2 --network.spines 1 --network.hosts_per_leaf 3 "
      "--network.kinds '" + kinds + "' --pspin.clusters 4 --hpu.model " + hpu +
          " --hosts.model a2tp --a2tp.mode atp --a2tp.slots 16 --a2tp.aggregators 64 --hosts.bytes 4960 "
          "--stats s.json -q " + extra,
      dir);
  const nlohmann::json s = a2tp_stats_ok(r, dir);
  EXPECT_EQ(s["allreduce"]["details"]["fragments"], kFragments);
  EXPECT_EQ(s["allreduce"]["details"]["ps_results"], kFragments);  // the PS sent one per fragment
  return s;
}

// The switch's non-zero a2tp outcomes (leaf0, leaf1, spine0 in that order).
std::map<std::string, uint64_t> outcomes(const nlohmann::json& s, unsigned sw) { return a2tp_outcomes(s, sw); }
const nlohmann::json& switch_stats(const nlohmann::json& s, unsigned sw) { return s["network"]["per_switch"][sw]; }

using Counts = std::map<std::string, uint64_t>;
const uint64_t F = kFragments;

class A2tpTreeAllInc : public testing::TestWithParam<const char*> {};

TEST_P(A2tpTreeAllInc, EachSwitchSumsWhatComesFromBelowIt) {
  ScratchDir dir;
  const nlohmann::json s = run_ok("leaf0=inc;leaf1=inc;spine0=inc", GetParam(), dir);
  // leaf0: worker 0's or 1's gradient takes the aggregator, the other is summed, the third
  // completes its mask and goes up; the result comes back and goes out to the 3 hosts.
  EXPECT_EQ(outcomes(s, 0), (Counts{{"taken", F}, {"aggregated", F}, {"passed_on", F}, {"forwarded", F}}));
  EXPECT_EQ(switch_stats(s, 0)["packets_in"], 3 * F + F);
  EXPECT_EQ(switch_stats(s, 0)["packets_out"], F + 3 * F);
  // The spine's mask is leaf0's: its one sum completes it at once.
  EXPECT_EQ(outcomes(s, 2), (Counts{{"passed_on", F}, {"forwarded", F}}));
  EXPECT_EQ(switch_stats(s, 2)["packets_in"], 2 * F);
  // leaf1: workers 3 and 4 and the spine's sum; the PS's result frees the aggregator.
  EXPECT_EQ(outcomes(s, 1), (Counts{{"taken", F}, {"aggregated", F}, {"completed", F}, {"released", F}}));
  EXPECT_EQ(switch_stats(s, 1)["packets_in"], 3 * F + F);
  EXPECT_EQ(switch_stats(s, 1)["packets_out"], F + 3 * F);  // to the PS; to hosts 3, 4 and the spine
}

INSTANTIATE_TEST_SUITE_P(Hpus, A2tpTreeAllInc, testing::Values("native", "iss"));

TEST(A2tpTree, APlainSpineForwardsTheSumsAndRoutesTheResultsDown) {
  ScratchDir dir;
  const nlohmann::json s = run_ok("leaf0=inc;leaf1=inc;spine0=plain", "native", dir);
  EXPECT_EQ(outcomes(s, 0), (Counts{{"taken", F}, {"aggregated", F}, {"passed_on", F}, {"forwarded", F}}));
  EXPECT_EQ(outcomes(s, 1), (Counts{{"taken", F}, {"aggregated", F}, {"completed", F}, {"released", F}}));
  EXPECT_EQ(switch_stats(s, 2)["routing"]["multicast"], F);
  EXPECT_EQ(switch_stats(s, 2)["routing"]["multicast_copies"], F);  // to leaf0 alone
  EXPECT_EQ(switch_stats(s, 2)["packets_out"], 2 * F);
}

TEST(A2tpTree, UnderAPlainLeafTheSpineSumsItsThreeWorkers) {
  ScratchDir dir;
  const nlohmann::json s = run_ok("leaf0=plain;leaf1=inc;spine0=inc", "native", dir);
  EXPECT_EQ(switch_stats(s, 0)["routing"]["multicast"], F);
  EXPECT_EQ(switch_stats(s, 0)["routing"]["multicast_copies"], 3 * F);
  EXPECT_EQ(switch_stats(s, 0)["packets_out"], 3 * F + 3 * F);  // the gradients up, the results down
  EXPECT_EQ(outcomes(s, 2), (Counts{{"taken", F}, {"aggregated", F}, {"passed_on", F}, {"forwarded", F}}));
  EXPECT_EQ(switch_stats(s, 2)["packets_out"], F + F);  // one sum up, one result down, per fragment
  EXPECT_EQ(outcomes(s, 1), (Counts{{"taken", F}, {"aggregated", F}, {"completed", F}, {"released", F}}));
}

TEST(A2tpTree, AllPlainButThePsSwitchIsAtpOnOneSwitch) {
  ScratchDir dir;
  const nlohmann::json s = run_ok("leaf0=plain;leaf1=inc;spine0=plain", "native", dir);
  // leaf1 sums all five workers: taken, three aggregated, completed.
  EXPECT_EQ(outcomes(s, 1), (Counts{{"taken", F}, {"aggregated", 3 * F}, {"completed", F}, {"released", F}}));
}

TEST(A2tpTree, ALostGradientsResendsFlushEachSwitchsPartialOnTheWayToThePs) {
  ScratchDir dir;
  // Worker 0's third gradient (fragment 2) is lost: leaf0 holds workers 1 and 2's partial, leaf1
  // workers 3 and 4's, and no result comes. All five workers time out on it together and send it
  // again straight to the PS. On leaf0 the first of workers 0-2's resends flushes its partial
  // after it, flagged RESEND and SUM, the other two pass; the spine holds nothing of fragment 2,
  // so all four pass; on leaf1 the first of the six resends flushes workers 3 and 4's partial and
  // the rest pass. The PS completes fragment 2 from worker 0's gradient and the two partials.
  const nlohmann::json s =
      run_ok("leaf0=inc;leaf1=inc;spine0=inc", "native", dir, "--hosts.timeout_ns 20000 --network.lose 'host0>leaf0:3'");
  EXPECT_EQ(s["allreduce"]["retransmissions"], 5);
  EXPECT_EQ(outcomes(s, 0), (Counts{{"taken", F}, {"aggregated", F}, {"passed_on", F - 1}, {"flushed", 1},
                                    {"resent", 2}, {"forwarded", F}}));
  EXPECT_EQ(outcomes(s, 2), (Counts{{"passed_on", F - 1}, {"resent", 4}, {"forwarded", F}}));
  EXPECT_EQ(outcomes(s, 1), (Counts{{"taken", F}, {"aggregated", F}, {"completed", F - 1}, {"flushed", 1},
                                    {"resent", 5}, {"released", F - 1}, {"forwarded", 1}}));
}

// The Dragonfly (a = 4, g = 9, h = 2, 2 hosts a router): a job of 71 workers, more than one
// bitmap word holds, its PS host 71 on router8_3, every router INA. Every router has a worker, so
// all 36 are on the tree, and each but router8_3 sends one sum on per fragment: a fragment's
// gradients reaching switches are the 71 workers' and those 35 sums, 106 in all, each taken,
// aggregated, passed on or completing; the one completion is router8_3's. The PS's result comes
// back down through all 36, and each worker has each result once.
TEST(A2tpTree, OnTheDragonflyAJobOf71WorkersIsSummedOnItsWayUp) {
  ScratchDir dir;
  const CliResult r = flaresim(
      "run --network.topology dragonfly --network.kind inc --pspin.clusters 2 --hpu.model native "
      "--hosts.model a2tp --a2tp.mode atp --a2tp.slots 16 --a2tp.aggregators 64 --hosts.bytes 4960 --stats s.json -q",
      dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json s = a2tp_stats_ok(r, dir);
  const nlohmann::json& a = s["allreduce"];
  EXPECT_EQ(a["hosts"], 71);
  EXPECT_EQ(a["details"]["ps_results"], kFragments);
  EXPECT_EQ(a["retransmissions"], 0);
  Counts total;
  const auto& switches = s["network"]["per_switch"];
  ASSERT_EQ(switches.size(), 36u);
  for (unsigned sw = 0; sw < 36; ++sw) {
    const Counts o = outcomes(s, sw);
    for (const auto& [k, v] : o) total[k] += v;
    const bool ps_switch = switches[sw]["name"] == "router8_3";
    EXPECT_EQ(o.count("completed") ? o.at("completed") : 0, ps_switch ? F : 0) << sw;
    EXPECT_EQ(o.count("passed_on") ? o.at("passed_on") : 0, ps_switch ? 0 : F) << sw;
    EXPECT_EQ(o.count(ps_switch ? "released" : "forwarded") ? o.at(ps_switch ? "released" : "forwarded") : 0, F) << sw;
  }
  EXPECT_EQ(total["taken"] + total["aggregated"] + total["passed_on"] + total["completed"], 106 * F);
  EXPECT_EQ(total.size(), 6u);  // taken, aggregated, passed_on, completed, forwarded, released: nothing else
}

}  // namespace
}  // namespace fs::test
