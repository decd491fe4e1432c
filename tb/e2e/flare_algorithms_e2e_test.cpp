// End to end: every Flare dense algorithm (single buffer, 2 and 4 buffers, tree) gives the right
// results through the whole switch with native HPUs and with interleaved ISS HPUs (where
// contributions of a block really meet: locks, buffer choice and tree counters are contended),
// checked by the verifier against the generator's expected blocks; and a contribution for an
// allreduce the switch does not take part in is dropped and counted.
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"

namespace fs::test {
namespace {

struct Case {
  const char* algorithm;
  unsigned buffers;
};

TEST(E2EFlareAlgorithms, EveryAlgorithmOnBothHpuModels) {
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 8 --bytes 24KiB --dtype int16 --op min --seed 4 -o t.txt", dir).code, 0);
  for (const Case& c : {Case{"single", 0}, Case{"multi", 2}, Case{"multi", 4}, Case{"tree", 0}}) {
    for (const char* model : {"native", "iss"}) {
      const std::string what = std::string(c.algorithm) + std::to_string(c.buffers) + " " + model;
      const CliResult r = flaresim(std::string("run --trace t.txt --flare.ports 0-7 --verify t.txt.expected -q --stats s.json "
                                               "--pspin.clusters 2 --flare.algorithm ") +
                                       c.algorithm + " --flare.multi_buffers " + std::to_string(c.buffers) +
                                       " --hpu.model " + model,
                                   dir);
      ASSERT_EQ(r.code, 0) << what << ": " << r.err;
      EXPECT_NE(r.out.find("verify           OK"), std::string::npos) << what << "\n" << r.out;
      const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
      // 24 KiB of int16 per host: 24 blocks of 512 elements, 8 contributions each.
      const auto& outcomes = s["handlers"]["flare_dense"]["outcomes"];
      EXPECT_EQ(outcomes["result_sent"], 24) << what;
      EXPECT_EQ(outcomes["ok"], 24 * 7) << what;
      EXPECT_EQ(s["drops"]["total"], 0) << what;
    }
  }
}

TEST(E2EFlareAlgorithms, HostsWithinTheirWindowNeverOverrunTheStates) {
  // 8 hosts, 64 blocks, at most 8 blocks in flight per host, staggered within each group of 8.
  // The switch has 4 clusters x 4 block states = 16: block b shares its state with b + 16, so
  // hosts must not run 16 blocks ahead of an unfinished block. A trace cannot see results come
  // back: the generator assumes each block's result 150 us after its last contribution, which
  // the default (ISS) switch meets here even with the single buffer's lock contention (with
  // 5 us it does not, and the switch drops what overruns: window_exceeded).
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 8 --bytes 64KiB --window 8 --stagger --result-latency 150us -o t.txt", dir).code,
            0);
  for (const char* algorithm : {"single", "tree"}) {
    const CliResult r = flaresim(std::string("run --trace t.txt --flare.ports 0-7 --verify t.txt.expected -q --stats s.json "
                                             "--flare.buffers 4 --flare.algorithm ") +
                                     algorithm,
                                 dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("verify           OK"), std::string::npos) << algorithm << "\n" << r.out;
    const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
    EXPECT_EQ(s["handlers"]["flare_dense"]["outcomes"]["result_sent"], 64) << algorithm;
    EXPECT_EQ(s["drops"]["total"], 0) << algorithm;
  }
}

TEST(E2EFlareAlgorithms, UnknownAllreduceIsDroppedAndCounted) {
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 2 --bytes 2KiB --allreduce-id 5 -o t.txt", dir).code, 0);
  const CliResult r = flaresim("run --trace t.txt --flare.ports 0-1 -q --stats s.json --flare.allreduce_id 4", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  // 2 KiB per host: 2 blocks x 2 hosts = 4 contributions, none for allreduce 4.
  EXPECT_EQ(s["handlers"]["flare_dense"]["outcomes"]["unknown_allreduce"], 4);
  EXPECT_EQ(s["drops"]["by_handler"]["flare_dense"]["unknown_allreduce"], 4);
  EXPECT_EQ(s["drops"]["total"], 4);
  EXPECT_EQ(s["totals"]["packets_out"], 0);
}

}  // namespace
}  // namespace fs::test

namespace fs::test {
namespace {

TEST(E2EFlareAlgorithms, BlocksOfTwoAllreducesWithTheSameIdAreCountedApart) {
  // Allreduces 1 (ports 0-1) and 2 (ports 2-3) both have a block 0, open at the same time: the
  // blocks-in-flight statistic sees two blocks, not one.
  ScratchDir dir;
  write_file(dir / "t.txt",
             "0ns 0 flare ar=1 block=0 rank=0 values=1,2\n"
             "0ns 2 flare ar=2 block=0 rank=0 values=5,6\n"
             "1us 1 flare ar=1 block=0 rank=1 values=3,4\n"
             "1us 3 flare ar=2 block=0 rank=1 values=7,8\n");
  const CliResult r = flaresim("run --trace t.txt -q --stats s.json --hpu.model native "
                               "--flare.allreduces 'id=1 ports=0-1; id=2 ports=2-3'",
                               dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  const auto& h = s["handlers"]["flare_dense"];
  EXPECT_EQ(h["outcomes"]["result_sent"], 2);
  EXPECT_EQ(h["blocks"]["completed"], 2);
  EXPECT_EQ(h["blocks"]["max_open"], 2);
  EXPECT_EQ(h["blocks"]["open_at_end"], 0);
}

}  // namespace
}  // namespace fs::test
