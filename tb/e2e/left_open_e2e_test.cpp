// A run that ends with handler state still waiting says so (stats, summary and a warning on
// stderr): Flare blocks missing contributions because flare.ports names a child that never
// sends, or because a host's contributions are rejected.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli_runner.h"

namespace fs::test {
namespace {

const std::string kExample = FLARESIM_SOURCE_DIR "/traces/examples/allreduce-16x32KiB.pcapng";

// The example trace has 32 blocks (32 KiB per host in 1 KiB packets) from hosts on ports 0-15.
// With port 16 named as a 17th child, every block gets 16 of its 17 contributions: all 32 stay
// open, each waiting on port 16, and no result goes out.
TEST(E2ELeftOpen, AChildThatNeverSendsLeavesEveryBlockOpen) {
  ScratchDir dir;
  const CliResult r =
      flaresim("run --trace '" + kExample + "' --stats s.json --flare.ports 0-16 --hpu.model native", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("left open        32 blocks of flare_dense still wait for packets at the end (first: block 0 "
                       "of group 0, packets from ports 0-15)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("flare            allreduce 0: 32 blocks left open, waiting on ports 16\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("flaresim: warning: the run ended with 32 blocks of handler set flare_dense still waiting for "
                       "packets (stats: handlers.flare_dense.blocks.open)"),
            std::string::npos)
      << r.err;
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(s["flare"]["left_open"], nlohmann::json::parse(R"([{"allreduce":0,"blocks":32,"waiting_on_ports":[16]}])"));
  const auto& blocks = s["handlers"]["flare_dense"]["blocks"];
  EXPECT_EQ(blocks["open_at_end"], 32);
  EXPECT_EQ(blocks["completed"], 0);
  ASSERT_EQ(blocks["open"].size(), 32u);
  for (unsigned b = 0; b < 32; ++b) {
    EXPECT_EQ(blocks["open"][b]["block"], b);
    EXPECT_EQ(blocks["open"][b]["group"], 0);
    EXPECT_EQ(blocks["open"][b]["ports"].size(), 16u);
  }
  EXPECT_EQ(s["commands"]["multicasts"], 0);
  // Quiet runs still warn.
  const CliResult q =
      flaresim("run -q --trace '" + kExample + "' --stats q.json --flare.ports 0-16 --hpu.model native", dir);
  EXPECT_EQ(q.out, "");
  EXPECT_NE(q.err.find("flaresim: warning: the run ended with 32 blocks"), std::string::npos) << q.err;
}

// Six children on ports 0-5 and a trace from the hosts on ports 0-3 (ranks 0-3): each of the 4
// blocks gets 4 of its 6 contributions and waits on ports 4 and 5.
TEST(E2ELeftOpen, TheWaitedOnPortsAreTheChildrenThatDidNotContribute) {
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 4 --bytes 4KiB -o t.txt", dir).code, 0);
  const CliResult r = flaresim("run --trace t.txt --stats s.json --flare.ports 0-5 --hpu.model native", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("flare            allreduce 0: 4 blocks left open, waiting on ports 4-5\n"), std::string::npos)
      << r.out;
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(s["flare"]["left_open"], nlohmann::json::parse(R"([{"allreduce":0,"blocks":4,"waiting_on_ports":[4,5]}])"));
  EXPECT_EQ(s["handlers"]["flare_dense"]["outcomes"]["ok"], 16);
  EXPECT_EQ(s["handlers"]["flare_dense"]["blocks"]["open"][3]["ports"], nlohmann::json::parse("[0,1,2,3]"));
  // A run that completes everything reports nothing open.
  const CliResult ok = flaresim("run --trace t.txt --stats ok.json --flare.ports 0-3 --hpu.model native", dir);
  ASSERT_EQ(ok.code, 0);
  EXPECT_EQ(ok.out.find("left open"), std::string::npos);
  EXPECT_EQ(ok.err.find("warning"), std::string::npos);
  const auto o = nlohmann::json::parse(slurp(dir / "ok.json"));
  EXPECT_EQ(o["flare"]["left_open"], nlohmann::json::array());
  EXPECT_EQ(o["handlers"]["flare_dense"]["blocks"]["open"], nlohmann::json::array());
}

}  // namespace
}  // namespace fs::test
