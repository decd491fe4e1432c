// End to end: a2tp training jobs (hosts.model a2tp) through `flaresim run` on one switch with the
// a2tp handler (native HPUs): every job's every fragment comes back to each worker as exactly
// the sum of its workers' gradients (each worker checks it against the sum the jobs compute
// from the generated gradients; a wrong or missing one fails the run), under collisions in 4
// aggregators with ATP's, A2TP's and static sharing; the PS sends one result per fragment; a
// lost gradient is sent again straight to the PS, which completes the switch's partial sum; a
// lost result is sent again by the PS to its worker alone; with ATP's tables of aggregators a job
// never meets itself and two jobs' tables move apart; the Col bit reaches the holder's
// workers in a2tp mode only; ECN marks on the PS's link follow the queue depth each frame finds,
// and reach the workers as ECE; a
// PS with an aggregation rate queues what it sums; background traffic on a worker's link makes
// its job straggle; fragments never answered are given up and the run fails saying so;
// set-ups the jobs cannot run are refused naming the key.
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>

#include <nlohmann/json.hpp>

#include "a2tp/a2tp_proto.h"
#include "support/cli_runner.h"

namespace fs::test {
namespace {

// 8 hosts on one switch; with hosts.groups 2, jobs of hosts 0-3 and 4-7 (3 workers and a PS).
const std::string kNetwork =
    "run --network.topology leaf_spine --network.leaves 1 --network.spines 0 --network.hosts_per_leaf 8"
    " --network.kind inc --hpu.model native --hosts.model a2tp --hosts.timeout_ns 20000 --stats s.json -q ";

nlohmann::json run_ok(const std::string& args, const ScratchDir& dir) {
  const CliResult r = flaresim(kNetwork + args, dir);
  EXPECT_EQ(r.code, 0) << r.err;
  return nlohmann::json::parse(slurp(dir / "s.json"));
}

const nlohmann::json& outcomes(const nlohmann::json& s) { return s["network"]["per_switch"][0]["handler_outcomes"]["a2tp"]; }
uint64_t outcome(const nlohmann::json& s, const char* name) {
  const nlohmann::json& o = outcomes(s);
  return o.contains(name) ? o[name].get<uint64_t>() : 0;
}

class A2tpJobsModes : public testing::TestWithParam<const char*> {};

TEST_P(A2tpJobsModes, TwoJobsGetExactSumsThroughFourSharedAggregators) {
  ScratchDir dir;
  const nlohmann::json s = run_ok(std::string("--a2tp.mode ") + GetParam() +
                                      " --hosts.groups 2 --a2tp.aggregators 4 --hosts.bytes 16KiB"
                                      " --a2tp.iterations 2 --a2tp.compute_us 1",
                                  dir);
  const nlohmann::json& a = s["allreduce"];
  EXPECT_EQ(a["model"], "a2tp");
  EXPECT_EQ(a["results_ok"], true);
  EXPECT_EQ(a["unfinished_ranks"], 0);
  EXPECT_EQ(a["hosts"], 6);
  // 16 KiB is 4096 values: 66 fragments of 62 and one of 4.
  EXPECT_EQ(a["details"]["fragments"], 67);
  // Each fragment's first sends (to the switch or the PS), and one result from its PS.
  EXPECT_EQ(a["details"]["to_switch"].get<uint64_t>() + a["details"]["to_ps"].get<uint64_t>(), 6u * 2 * 67);
  EXPECT_EQ(a["details"]["ps_results"], 2 * 2 * 67);
  EXPECT_EQ(a["details"]["ps_refused"], 0);
  ASSERT_EQ(a["jobs"].size(), 2u);
  for (const auto& job : a["jobs"]) {
    EXPECT_EQ(job["iterations"], 2);
    EXPECT_EQ(job["workers"], 3);
    EXPECT_GT(job["aggregation_gbps"].get<double>(), 0);
  }
  EXPECT_EQ(outcome(s, "malformed") + outcome(s, "no_route") + outcome(s, "no_share"), 0u);
  // Four aggregators for two jobs' windows: fragments meet in them.
  if (std::string(GetParam()) != "static") {
    EXPECT_GT(outcome(s, "collision"), 0u);
  }
  if (std::string(GetParam()) == "a2tp") {
    EXPECT_GT(a["details"]["col_acks"].get<uint64_t>(), 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Sharing, A2tpJobsModes, testing::Values("atp", "a2tp", "static"));

TEST(A2tpJobs, ALostGradientIsSentToThePsWhichCompletesTheSwitchsPartialSum) {
  ScratchDir dir;
  // One job (hosts 0-2 workers, host 3 its PS), 17 fragments; worker 0's third gradient is lost.
  const nlohmann::json s = run_ok("--hosts.members 0-3 --a2tp.aggregators 4096 --hosts.bytes 4KiB "
                                  "--network.lose 'host0>leaf0:3'",
                                  dir);
  const nlohmann::json& a = s["allreduce"];
  EXPECT_EQ(a["results_ok"], true);
  // The three workers sent fragment 2 at the same times (same start, same pace), so all three
  // time out on it together and send it again straight to the PS; the first of those to reach
  // the switch flushes workers 1 and 2's partial sum after it (flushed), the other two only pass
  // (resent).
  EXPECT_EQ(a["retransmissions"], 3);
  EXPECT_EQ(outcome(s, "flushed"), 1u);
  EXPECT_EQ(outcome(s, "resent"), 2u);
  EXPECT_EQ(outcome(s, "completed"), 16u);
  EXPECT_EQ(a["details"]["ps_results"], 17);
  // The PS completes fragment 2 with worker 0's gradient and the partial sum; a resend of worker
  // 1 or 2 that reaches it after that is answered with the result, to that worker alone, which
  // it then has twice. Which of them come late is up to the order the switch forwards them in;
  // at least one of the three is in time.
  EXPECT_LE(a["details"]["ps_resends"].get<uint64_t>(), 2u);
  EXPECT_EQ(a["details"]["ps_resends"], a["details"]["duplicate_results"]);
}

TEST(A2tpJobs, ALostResultIsSentAgainToItsWorkerAlone) {
  ScratchDir dir;
  const nlohmann::json s = run_ok("--hosts.members 0-3 --a2tp.aggregators 4096 --hosts.bytes 4KiB "
                                  "--network.lose 'leaf0>host1:2'",
                                  dir);
  const nlohmann::json& a = s["allreduce"];
  EXPECT_EQ(a["results_ok"], true);
  EXPECT_EQ(a["retransmissions"], 1);   // worker 1's gradient, straight to the PS
  EXPECT_EQ(a["details"]["ps_resends"], 1);  // the PS's answer: the result, to worker 1
  EXPECT_EQ(a["details"]["ps_results"], 17);
  EXPECT_EQ(a["details"]["duplicate_results"], 0);
  EXPECT_EQ(outcome(s, "completed"), 17u);
}

TEST(A2tpJobs, EcnMarksOnTheWayComeBackToTheWorkers) {
  ScratchDir dir;
  const std::string job = "--hosts.members 0-3 --a2tp.aggregators 4096 --hosts.bytes 64KiB --a2tp.window 64 ";
  // Marking any frame queued behind another: the PS's link carries the switch's results while
  // the PS sends its own, so some are marked.
  nlohmann::json s = run_ok(job + "--ports.ecn_bytes 1", dir);
  EXPECT_EQ(s["allreduce"]["results_ok"], true);
  EXPECT_GT(s["network"]["ecn_marked"].get<uint64_t>(), 0u);
  EXPECT_GT(s["allreduce"]["details"]["ecn_acks"].get<uint64_t>(), 0u);
  s = run_ok(job + "--ports.ecn_bytes 0", dir);
  EXPECT_EQ(s["allreduce"]["results_ok"], true);
  EXPECT_EQ(s["network"]["ecn_marked"], 0);
  EXPECT_EQ(s["allreduce"]["details"]["ecn_acks"], 0);
}

// One aggregator, two jobs of 3 workers with one fragment each, all six sent at once: the first
// gradient to reach the switch takes the aggregator, its job's other two are summed in, and the
// other job's three find it held (one collision, then two bypassed). The collider's fragment is
// completed by its PS, whose result is flagged Col (a gradient of it collided) in either mode. The
// holder's result carries the Col bit only in a2tp mode (A2TP 4.3.1): all three of its workers
// count it there, none under ATP.
TEST(A2tpJobs, TheColBitReachesTheHoldersWorkersInA2tpModeOnly) {
  for (const char* mode : {"a2tp", "atp"}) {
    SCOPED_TRACE(mode);
    ScratchDir dir;
    const nlohmann::json s = run_ok(std::string("--a2tp.mode ") + mode +
                                        " --hosts.groups 2 --a2tp.aggregators 1 --hosts.bytes 248 --a2tp.threshold 0.25",
                                    dir);
    const nlohmann::json& a = s["allreduce"];
    EXPECT_EQ(a["results_ok"], true);
    EXPECT_EQ(outcome(s, "taken"), 1u);
    EXPECT_EQ(outcome(s, "aggregated"), 1u);
    EXPECT_EQ(outcome(s, "completed"), 1u);
    EXPECT_EQ(outcome(s, "collision"), 1u);
    EXPECT_EQ(outcome(s, "bypassed"), 2u);
    EXPECT_EQ(outcome(s, "released"), 1u);   // the holder's result from its PS frees the aggregator
    EXPECT_EQ(outcome(s, "forwarded"), 1u);  // the collider's passes by
    const uint64_t col0 = a["jobs"][0]["col_acks"].get<uint64_t>(), col1 = a["jobs"][1]["col_acks"].get<uint64_t>();
    const uint64_t holder = std::min(col0, col1), collider = std::max(col0, col1);
    EXPECT_EQ(collider, 3u);
    EXPECT_EQ(holder, std::string(mode) == "a2tp" ? 3u : 0u);
    EXPECT_EQ(a["details"]["col_acks"], col0 + col1);
    EXPECT_EQ(a["jobs"][0]["threshold"], 0.25);  // the H the workers use, in the stats
  }
}

// One job of 3 workers and one fragment; worker 0's gradient is lost. The three time out at the
// same instant and send it again straight to the PS: the first RESEND to reach the switch is sent
// on, then the partial sum of workers 1 and 2 it flushes, then the other two RESENDs, four frames
// of F bytes at once onto the PS's link. They find 0, F, 2F and 3F bytes queued there (a frame
// leaves the queue with its last bit), and a frame is marked when it finds more than
// ports.ecn_bytes: 3, 2, 1 and 0 marks at 1, F, 2F and 3F. Marked frames that reach the PS before
// it completes the fragment come back to every worker as ECE: at 1 the second frame, which is
// always before the end, is marked; at 3F nothing is.
TEST(A2tpJobs, EcnMarksOnThePsLinkFollowTheQueueDepthTheyFind) {
  const uint64_t frame = A2TP_PAYLOAD_OFFSET + A2TP_HEADER_BYTES + A2TP_ELEMENTS * A2TP_ELEMENT_BYTES;
  const std::pair<uint64_t, uint64_t> marks[] = {{1, 3}, {frame, 2}, {2 * frame, 1}, {3 * frame, 0}};
  for (const auto& [threshold, marked] : marks) {
    SCOPED_TRACE(threshold);
    ScratchDir dir;
    const nlohmann::json s = run_ok("--hosts.members 0-3 --a2tp.aggregators 8 --hosts.bytes 248 "
                                    "--network.lose 'host0>leaf0:1' --ports.ecn_bytes " + std::to_string(threshold),
                                    dir);
    EXPECT_EQ(s["allreduce"]["results_ok"], true);
    EXPECT_EQ(s["allreduce"]["retransmissions"], 3);
    const nlohmann::json* ps_link = nullptr;
    for (const nlohmann::json& l : s["network"]["per_link"])
      if (l["from"] == "leaf0:3" && l["to"] == "host3:0") ps_link = &l;
    ASSERT_NE(ps_link, nullptr);
    EXPECT_EQ((*ps_link)["packets"], 4);
    EXPECT_EQ((*ps_link)["queue_max_bytes"], 4 * frame);
    EXPECT_EQ((*ps_link)["ecn_marked"], marked);
    if (threshold == 1) {
      EXPECT_EQ(s["allreduce"]["details"]["ecn_acks"], 3);
    }
    if (marked == 0) {
      EXPECT_EQ(s["allreduce"]["details"]["ecn_acks"], 0);
    }
  }
}

// ATP's dynamic allocation (a2tp.slots): a job's fragments cycle through a table of distinct
// aggregators and fragment s waits for s - T's result, so one job alone never meets itself, where
// hashing every fragment anew (16 in flight over 16 aggregators) makes it collide with itself.
TEST(A2tpJobs, WithATableOfAggregatorsAJobNeverMeetsItself) {
  ScratchDir dir;
  const std::string job = "--a2tp.mode atp --hosts.members 0-3 --a2tp.aggregators 16 --a2tp.window 16 --hosts.bytes 64KiB ";
  nlohmann::json s = run_ok(job + "--a2tp.slots 16", dir);
  EXPECT_EQ(s["allreduce"]["results_ok"], true);
  // 64 KiB is 16384 values: 264 fragments of 62 and one of 16, each taken, completed and released.
  EXPECT_EQ(s["allreduce"]["details"]["fragments"], 265);
  EXPECT_EQ(outcome(s, "taken"), 265u);
  EXPECT_EQ(outcome(s, "completed"), 265u);
  EXPECT_EQ(outcome(s, "released"), 265u);
  EXPECT_EQ(outcome(s, "collision"), 0u);
  EXPECT_EQ(s["allreduce"]["details"]["ps_moves"], 0);
  s = run_ok(job + "--a2tp.slots 0", dir);
  EXPECT_EQ(s["allreduce"]["results_ok"], true);
  EXPECT_GT(outcome(s, "collision"), 0u);
}

// Two jobs' tables of 24 over 64 aggregators overlap at first. Each fragment that collides is
// moved by its PS to an aggregator its job has not met (its other gradients are bypassed: one
// collision a fragment), until the tables are apart; from then on nothing collides, so six
// iterations collide no more than three. Every result stays exact throughout.
TEST(A2tpJobs, TwoJobsTablesMoveApartAndThenNeverCollide) {
  ScratchDir dir;
  const std::string jobs = "--a2tp.mode atp --hosts.groups 2 --a2tp.aggregators 64 --a2tp.slots 24 --a2tp.window 32 "
                           "--hosts.bytes 16KiB --a2tp.compute_us 1 --a2tp.iterations ";
  const nlohmann::json three = run_ok(jobs + "3", dir);
  const nlohmann::json six = run_ok(jobs + "6", dir);
  for (const nlohmann::json* s : {&three, &six}) {
    EXPECT_EQ((*s)["allreduce"]["results_ok"], true);
    EXPECT_GT(outcome(*s, "collision"), 0u);
    EXPECT_EQ((*s)["allreduce"]["details"]["ps_moves"], outcome(*s, "collision"));
  }
  EXPECT_EQ(outcome(six, "collision"), outcome(three, "collision"));
  EXPECT_EQ(outcome(six, "completed") + outcome(six, "collision"), 2u * 6 * 67);
}

TEST(A2tpJobs, AParameterServerWithAnAggregationRateQueuesWhatItSums) {
  ScratchDir dir;
  // Two jobs through 4 aggregators send many gradients to their PSes; at 1 Gbit/s they queue.
  const std::string jobs = "--hosts.groups 2 --a2tp.aggregators 4 --hosts.bytes 16KiB ";
  nlohmann::json s = run_ok(jobs + "--a2tp.ps_gbps 1", dir);
  EXPECT_EQ(s["allreduce"]["results_ok"], true);
  EXPECT_GT(s["allreduce"]["details"]["ps_queue_max"].get<uint64_t>(), 1u);
  const double slow = s["allreduce"]["done_us"].get<double>();
  s = run_ok(jobs, dir);
  EXPECT_EQ(s["allreduce"]["results_ok"], true);
  EXPECT_EQ(s["allreduce"]["details"]["ps_queue_max"], 0);
  EXPECT_LT(s["allreduce"]["done_us"].get<double>(), slow);
}

TEST(A2tpJobs, BackgroundTrafficOnAWorkersLinkMakesItsJobStraggle) {
  ScratchDir dir;
  // Jobs of hosts 0-4 and 5-9; host 8 (job 1's worker 3) also sends background messages to host
  // 10 at 60% of its line rate, ECN-capable, through the same NIC.
  std::string eleven = kNetwork;
  eleven.replace(eleven.find("hosts_per_leaf 8"), 16, "hosts_per_leaf 11");
  const CliResult r = flaresim(
      eleven + "--hosts.members 0-9 --hosts.groups 2 --a2tp.aggregators 4096 --a2tp.mode static --hosts.bytes 256KiB "
               "--ports.ecn_bytes 65536 --traffic.pattern incast --traffic.hosts 8,10 --traffic.incast_target 10 "
               "--traffic.load 0.6 --traffic.messages 200",
      dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json s = nlohmann::json::parse(slurp(dir / "s.json"));
  const nlohmann::json& a = s["allreduce"];
  EXPECT_EQ(a["results_ok"], true);
  EXPECT_EQ(s["traffic"]["completed"], 200);
  const double leader = a["jobs"][0]["aggregation_gbps"].get<double>();
  const double straggler = a["jobs"][1]["aggregation_gbps"].get<double>();
  EXPECT_LT(straggler, 0.75 * leader) << leader << " " << straggler;
}

TEST(A2tpJobs, FragmentsThatNeverGetAResultAreGivenUpAndTheRunSaysSo) {
  ScratchDir dir;
  // Every frame is lost: each worker sends its one fragment 16 times, then gives it up.
  const CliResult r = flaresim(kNetwork + "--hosts.members 0-3 --a2tp.aggregators 8 --hosts.bytes 248 "
                                          "--network.link_loss 1",
                               dir);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("the a2tp jobs did not complete: 3 of 3 workers are missing results (3 fragments given "
                       "up in all)"),
            std::string::npos)
      << r.err;
  const nlohmann::json s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(s["allreduce"]["gave_up"], 3);
  EXPECT_EQ(s["allreduce"]["retransmissions"], 3 * 15);
  EXPECT_EQ(s["allreduce"]["unfinished_ranks"], 3);
  EXPECT_EQ(s["allreduce"]["results_ok"], false);
}

TEST(A2tpJobs, SetUpsTheJobsCannotRunAreRefusedNamingTheKey) {
  ScratchDir dir;
  const auto refused = [&](const std::string& args) {
    const CliResult r = flaresim(kNetwork + args, dir);
    EXPECT_NE(r.code, 0);
    return r.err;
  };
  EXPECT_NE(refused("--hosts.groups 2").find("a2tp.aggregators: hosts.model a2tp needs the switch's aggregators"),
            std::string::npos);
  EXPECT_NE(refused("--a2tp.aggregators 8 --a2tp.stragglers '0.1=2'")
                .find("a2tp.stragglers: '0.1=2': the level '2' is not a number above 0 and at most 1"),
            std::string::npos);
  EXPECT_NE(refused("--a2tp.aggregators 8 --hosts.groups 2 --a2tp.stragglers '1.3=0.5'")
                .find("a2tp.stragglers: job 1 has no worker 3 (2 jobs)"),
            std::string::npos);
  EXPECT_NE(refused("--a2tp.aggregators 8 --a2tp.threshold 1").find("a2tp.threshold: '1' is neither auto nor"),
            std::string::npos);
  EXPECT_NE(refused("--a2tp.aggregators 8 --a2tp.slots 9")
                .find("a2tp.slots: a job's table of 9 aggregators is longer than the 8 the switch has"),
            std::string::npos);
  EXPECT_NE(refused("--a2tp.aggregators 8 --a2tp.slots 4 --a2tp.mode static")
                .find("a2tp.slots: a2tp.mode static names each fragment's slot in its job's share"),
            std::string::npos);
  EXPECT_NE(refused("--a2tp.aggregators 8 --hosts.members '0,2,3,4'")
                .find("hosts.members: job 0's workers must be consecutive hosts"),
            std::string::npos);
  // Two spines: a worker's path to its PS is the routes' choice, which must be fixed.
  const CliResult two = flaresim(
      "run --network.topology leaf_spine --network.leaves 2 --network.spines 2 --hosts.model a2tp "
      "--a2tp.aggregators 8 --routing.multipath ecmp -q",
      dir);
  EXPECT_NE(two.code, 0);
  EXPECT_NE(two.err.find("routing.multipath: hosts.model a2tp on a network of several switches needs dst"),
            std::string::npos)
      << two.err;
}

}  // namespace
}  // namespace fs::test
