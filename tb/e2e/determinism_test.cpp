// Same inputs and seed give identical outputs: stats JSON (apart from wall time), egress
// capture bytes and generated traces.
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"

namespace fs::test {
namespace {

TEST(E2EDeterminism, TwoRunsGiveIdenticalStatsAndEgress) {
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 8 --bytes 16KiB --seed 3 -o t.txt", dir).code, 0);
  for (const char* n : {"1", "2"}) {
    const CliResult r = flaresim(std::string("run --trace t.txt --flare.ports 0-7 --seed 11 --stats s") + n +
                                     ".json --egress e" + n + ".pcapng -q",
                                 dir);
    ASSERT_EQ(r.code, 0) << r.err;
  }
  auto a = nlohmann::json::parse(slurp(dir / "s1.json"));
  auto b = nlohmann::json::parse(slurp(dir / "s2.json"));
  ASSERT_TRUE(a.contains("wall_seconds"));
  a.erase("wall_seconds");
  b.erase("wall_seconds");
  EXPECT_EQ(a.dump(), b.dump());
  EXPECT_EQ(a["seed"], 11);
  EXPECT_EQ(slurp(dir / "e1.pcapng"), slurp(dir / "e2.pcapng"));
  EXPECT_GT(slurp(dir / "e1.pcapng").size(), 0u);
}

TEST(E2EDeterminism, PspinPresetIsTheDefaultConfigurationWithPspinsScheduler) {
  // configs/pspin-4x8.ini documents the defaults and selects PsPIN's packet scheduling policy
  // (home-cluster, whose maximum per cluster is already the default): loading it changes no
  // other effective value.
  ScratchDir dir;
  write_file(dir / "t.txt", "");
  ASSERT_EQ(flaresim("run --trace t.txt --stats a.json -q", dir).code, 0);
  ASSERT_EQ(flaresim("run --config '" FLARESIM_SOURCE_DIR "/configs/pspin-4x8.ini' --trace t.txt --stats b.json -q", dir)
                .code,
            0);
  auto a = nlohmann::json::parse(slurp(dir / "a.json"));
  const auto b = nlohmann::json::parse(slurp(dir / "b.json"));
  EXPECT_EQ(a["config"]["scheduler"]["policy"], "fcfs");
  EXPECT_EQ(b["config"]["scheduler"]["policy"], "home-cluster");
  EXPECT_EQ(b["config"]["scheduler"]["max_outstanding"], 20);
  a["config"]["scheduler"]["policy"] = "home-cluster";
  EXPECT_EQ(a["config"], b["config"]);
  EXPECT_EQ(b["config"]["pspin"]["clusters"], 4);
  EXPECT_EQ(b["config"]["pspin"]["hpus_per_cluster"], 8);
}

TEST(E2EDeterminism, GenIsReproducibleAndSeedMatters) {
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 3 --bytes 4KiB --seed 5 -o a.txt", dir).code, 0);
  ASSERT_EQ(flaresim("gen allreduce --hosts 3 --bytes 4KiB --seed 5 -o b.txt", dir).code, 0);
  ASSERT_EQ(flaresim("gen allreduce --hosts 3 --bytes 4KiB --seed 6 -o c.txt", dir).code, 0);
  EXPECT_EQ(slurp(dir / "a.txt"), slurp(dir / "b.txt"));
  EXPECT_EQ(slurp(dir / "a.txt.expected"), slurp(dir / "b.txt.expected"));
  EXPECT_NE(slurp(dir / "a.txt"), slurp(dir / "c.txt"));
}

}  // namespace
}  // namespace fs::test
