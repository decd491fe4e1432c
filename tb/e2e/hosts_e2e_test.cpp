// End to end: closed-loop allreduce hosts (hosts.model = allreduce) drive the switch without a
// trace: every host gets every result right, never has more blocks in flight than its window,
// recovers lost sends by retransmission, and with a window of one block each block is one
// identical round trip; runs repeat exactly.
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"

namespace fs::test {
namespace {

nlohmann::json run_hosts(ScratchDir& dir, const std::string& opts, CliResult* out = nullptr) {
  const CliResult r = flaresim("run --stats s.json --hosts.model allreduce " + opts, dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("verify           OK"), std::string::npos) << r.out;
  if (out) *out = r;
  auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  s.erase("wall_seconds");
  return s;
}

TEST(E2EHosts, WindowIsNeverExceededAndEveryResultIsRight) {
  ScratchDir dir;
  for (const char* model : {"native", "iss"}) {
    CliResult r;
    const auto s = run_hosts(dir,
                             std::string("--flare.ports 0-7 --hosts.bytes 32KiB --hosts.window 4 --hosts.stagger true "
                                         "--flare.buffers 2 --hpu.model ") +
                                 model,
                             &r);
    // 32 blocks; the switch has 4 clusters x 2 states, and hosts stay within 4 blocks.
    EXPECT_EQ(s["hosts"]["blocks"], 32) << model;
    EXPECT_EQ(s["hosts"]["blocks_completed"], 8 * 32) << model;
    EXPECT_EQ(s["hosts"]["max_in_flight"], 4) << model;
    EXPECT_EQ(s["handlers"]["flare_dense"]["outcomes"].value("window_exceeded", 0), 0) << model;
    EXPECT_EQ(s["handlers"]["flare_dense"]["outcomes"]["result_sent"], 32) << model;
    EXPECT_NE(r.out.find("hosts            8 allreduce hosts, 256 of 256 block results back"), std::string::npos) << r.out;
  }
}

TEST(E2EHosts, BlocksSharingAStateNeverOverlap) {
  // 4 clusters x 1 state: blocks b and b + 4 share a block state. Results come back out of order
  // (blocks live on different clusters), so a host that only counted its blocks in flight would
  // send b + 4 while b is still open at the switch, which drops one of them (window_exceeded, or
  // a late b taken for a stale duplicate). A host sends b + 4 only once b is done, in block
  // order and staggered alike, with a window of 4 blocks or of 8 (more than the states);
  // nothing is ever sent twice.
  ScratchDir dir;
  for (const char* opts : {"--hosts.window 4 --hosts.stagger false", "--hosts.window 4 --hosts.stagger true",
                           "--hosts.window 8 --hosts.stagger true"}) {
    for (const char* model : {"native", "iss"}) {
      const std::string stagger = opts;
      const auto s = run_hosts(dir,
                               std::string("--flare.ports 0-7 --hosts.bytes 64KiB --flare.buffers 1 "
                                           "--hosts.timeout_ns 10000000 ") +
                                   opts + " --hpu.model " + model);
      const auto& outcomes = s["handlers"]["flare_dense"]["outcomes"];
      EXPECT_EQ(outcomes.value("window_exceeded", 0), 0) << model << " stagger " << stagger;
      EXPECT_EQ(outcomes.value("duplicate", 0), 0) << model << " stagger " << stagger;
      EXPECT_EQ(outcomes["ok"], 7 * 64) << model << " stagger " << stagger;
      EXPECT_EQ(outcomes["result_sent"], 64) << model << " stagger " << stagger;
      EXPECT_EQ(s["hosts"]["blocks_completed"], 8 * 64) << model << " stagger " << stagger;
      EXPECT_EQ(s["hosts"]["sends"], 8 * 64) << model << " stagger " << stagger;
      EXPECT_LE(s["hosts"]["max_in_flight"], 4) << model << " stagger " << stagger;
      EXPECT_EQ(s["handlers"]["flare_dense"]["blocks"]["max_open"], 4) << model << " stagger " << stagger;
      EXPECT_EQ(s["handlers"]["flare_dense"]["blocks"]["open_at_end"], 0) << model << " stagger " << stagger;
    }
  }
}

TEST(E2EHosts, OneBlockInFlightMakesEveryBlockTheSameRoundTrip) {
  // With a window of one block, both hosts send block k only when block k-1's result is back,
  // and the switch is idle in between: each block takes exactly as long as a lone block.
  ScratchDir dir;
  const auto one = run_hosts(dir, "--flare.ports 0-1 --hosts.bytes 1KiB --hosts.window 1 --hpu.model native");
  const auto eight = run_hosts(dir, "--flare.ports 0-1 --hosts.bytes 8KiB --hosts.window 1 --hpu.model native");
  ASSERT_EQ(one["hosts"]["blocks"], 1);
  ASSERT_EQ(eight["hosts"]["blocks"], 8);
  EXPECT_GT(one["hosts"]["done_us"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(eight["hosts"]["done_us"].get<double>(), 8 * one["hosts"]["done_us"].get<double>());
  EXPECT_EQ(eight["hosts"]["max_in_flight"], 1);
  EXPECT_EQ(eight["hosts"]["retransmissions"], 0);
}

TEST(E2EHosts, LostSendsAreRetransmittedAndRunsRepeat) {
  ScratchDir dir;
  const std::string opts =
      "--flare.ports 0-3 --hosts.bytes 64KiB --hosts.window 8 --hosts.loss 0.1 --hosts.timeout_ns 30000 "
      "--hpu.model native --seed 7";
  const auto a = run_hosts(dir, opts);
  // 4 hosts x 64 blocks = 256 contributions; about 10% of sends are lost and sent again.
  const uint64_t lost = a["hosts"]["lost"], re = a["hosts"]["retransmissions"], sends = a["hosts"]["sends"];
  EXPECT_GT(lost, 5u);
  EXPECT_GE(re, lost);                // every lost send is sent again (and maybe some in vain)
  EXPECT_EQ(sends, 256 + re);
  // What reached the switch: every send that was not lost, retransmissions of received ones as
  // duplicates.
  const auto& outcomes = a["handlers"]["flare_dense"]["outcomes"];
  EXPECT_EQ(outcomes["ok"].get<uint64_t>() + outcomes["result_sent"].get<uint64_t>() +
                outcomes.value("duplicate", uint64_t(0)),
            sends - lost);
  EXPECT_EQ(a["hosts"]["blocks_completed"], 256);
  const auto b = run_hosts(dir, opts);
  EXPECT_EQ(a, b);
}

TEST(E2EHosts, NeedsATraceOrHosts) {
  ScratchDir dir;
  const CliResult r = flaresim("run --stats s.json", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("missing --trace (or closed-loop hosts: --hosts.model allreduce"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace fs::test

namespace fs::test {
namespace {

TEST(E2EHosts, ASwitchThatNeverAnswersEndsTheRunAndFailsVerification) {
  // The switch takes part in allreduce 4; the hosts run allreduce 0, so every contribution is
  // dropped (unknown_allreduce). Each host sends each of its 2 blocks 16 times (1 + 15
  // retransmissions, one per timeout), then gives it up: the run ends and verification fails.
  ScratchDir dir;
  const CliResult r = flaresim("run --stats s.json --hosts.model allreduce --flare.ports 0-1 --hosts.bytes 2KiB "
                               "--hpu.model native --hosts.timeout_ns 1000 --flare.allreduces 'id=4 ports=0-1'",
                               dir);
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("verify           FAILED: 0 of 4 result packets match (missing 4"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("verification against the allreduce hosts' expected results failed"), std::string::npos) << r.err;
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(s["hosts"]["gave_up"], 4);
  EXPECT_EQ(s["hosts"]["sends"], 4 * 16);
  EXPECT_EQ(s["hosts"]["retransmissions"], 4 * 15);
  EXPECT_EQ(s["handlers"]["flare_dense"]["outcomes"]["unknown_allreduce"], 4 * 16);
  // Frames of 1082 bytes at 100 Gbit/s: w = (1082 + 24) * 8 / 100 = 88.48 ns. Both hosts send
  // block 0 then block 1; each send of block 1 ends w after that of block 0, and every resend
  // starts one timeout (1 us) after the previous send ended. Block 1's 16th send ends at
  // 17 w + 15 us, and the host gives it up one timeout later: 17 w + 16 us = 17.50416 us.
  EXPECT_DOUBLE_EQ(s["hosts"]["done_us"].get<double>(), 17.50416);
  EXPECT_EQ(s["hosts"]["allreduce_gbps"], 0.0);  // no allreduce completed
}

}  // namespace
}  // namespace fs::test
