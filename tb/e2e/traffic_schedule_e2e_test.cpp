// Background traffic whose load steps in time (traffic.schedule), through `flaresim run`: a
// schedule of one step starts every message exactly where traffic.load does; a step to the same
// load changes nothing (within the stats' microsecond digits); silence until T shifts every start
// by T (the process is memoryless and restarts its draw at T); silence from T keeps exactly the
// messages that started before T; malformed schedules are refused naming the entry.
#include <nlohmann/json.hpp>

#include <vector>

#include "support/cli_runner.h"

namespace fs::test {
namespace {

// Hosts 0 and 1 send 40 messages of 4 KiB each to host 3.
const std::string kIncast =
    "run --network.topology leaf_spine --network.leaves 1 --network.spines 0 --network.hosts_per_leaf 4 "
    "--traffic.pattern incast --traffic.hosts 0,1 --traffic.incast_target 3 --traffic.messages 40 "
    "--traffic.message_bytes 4KiB --stats s.json -q ";

std::vector<double> starts(const std::string& args, const ScratchDir& dir) {
  const CliResult r = flaresim(kIncast + args, dir);
  EXPECT_EQ(r.code, 0) << r.err;
  const nlohmann::json s = nlohmann::json::parse(slurp(dir / "s.json"));
  std::vector<double> out;
  for (const nlohmann::json& m : s["traffic"]["per_message"]) out.push_back(m["started_us"].get<double>());
  return out;
}

TEST(TrafficSchedule, StepsOfLoadStartMessagesAsTheirLoadsWould) {
  ScratchDir dir;
  const std::vector<double> steady = starts("--traffic.load 0.3", dir);
  ASSERT_EQ(steady.size(), 80u);
  EXPECT_EQ(starts("--traffic.schedule 0.3", dir), steady);
  const std::vector<double> same = starts("--traffic.schedule 0.3,0.3@20us", dir);
  const std::vector<double> late = starts("--traffic.schedule 0,0.3@20us", dir);
  ASSERT_EQ(same.size(), 80u);
  ASSERT_EQ(late.size(), 80u);
  for (size_t i = 0; i < steady.size(); ++i) {
    EXPECT_NEAR(same[i], steady[i], 1.5e-6) << i;
    EXPECT_NEAR(late[i], steady[i] + 20, 1.5e-6) << i;
  }
  const std::vector<double> stopped = starts("--traffic.schedule 0.3,0@20us", dir);
  size_t before = 0;
  while (before < steady.size() && steady[before] < 20) ++before;
  ASSERT_GT(before, 0u);
  ASSERT_LT(before, steady.size());
  // per_message is in start order, so the messages before 20 us are a prefix.
  EXPECT_EQ(stopped, std::vector<double>(steady.begin(), steady.begin() + long(before)));
}

TEST(TrafficSchedule, AMalformedScheduleIsRefusedNamingTheEntry) {
  ScratchDir dir;
  const auto refused = [&](const std::string& schedule) {
    const CliResult r = flaresim(kIncast + "--traffic.schedule '" + schedule + "'", dir);
    EXPECT_EQ(r.code, 2);
    return r.err;
  };
  EXPECT_NE(refused("0.3,x@2us").find("traffic.schedule: 'x@2us': the load 'x' is not a number from 0 to 1"),
            std::string::npos);
  EXPECT_NE(refused("2").find("traffic.schedule: '2': the load '2' is not a number from 0 to 1"), std::string::npos);
  EXPECT_NE(refused("0.3@1us").find("traffic.schedule: '0.3@1us': the times must start at 0 and increase"),
            std::string::npos);
  EXPECT_NE(refused("0.2,0.3@5us,0.1@5us").find("traffic.schedule: '0.1@5us': the times must start at 0"),
            std::string::npos);
  EXPECT_NE(refused("0.2,0.3@5parsecs").find("traffic.schedule: '0.3@5parsecs': "), std::string::npos);
}

}  // namespace
}  // namespace fs::test
