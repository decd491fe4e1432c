// Flare dense across a network from the command line (hosts.model = allreduce on a leaf-spine,
// docs/NETWORKS.md): the summary line and the stats' allreduce and link figures (each block once
// up and once down its tree: worked from the frame size and the wiring), the same stats from the
// same seed with background traffic beside it, roots that change with the seed, a member whose
// results cannot reach it failing the run after its stats are written, and the errors for trees
// through plain switches.
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"

namespace fs::test {
namespace {

const std::string kFlare =
    "run --network.topology leaf_spine --network.leaves 2 --network.spines 2 --network.hosts_per_leaf 4 "
    "--network.kind inc --hpu.model native --hosts.model allreduce --hosts.timeout_ns 1000000 ";
constexpr uint64_t kFrame = 42 + 16 + 1024;  // a block of 256 int32 in a Flare frame

nlohmann::json stats_of(const ScratchDir& dir, const std::string& name) {
  auto s = nlohmann::json::parse(slurp(dir / name));
  s.erase("wall_seconds");
  return s;
}

// Packets that left "node:port" (the stats' per_link entry).
uint64_t from(const nlohmann::json& s, const std::string& end) {
  for (const auto& l : s["network"]["per_link"])
    if (l["from"] == end) return l["packets"].get<uint64_t>();
  ADD_FAILURE() << "no link from " << end;
  return 0;
}

TEST(FlareFabricE2e, TwoTreesOnALeafSpine) {
  ScratchDir dir;
  const CliResult r = flaresim(kFlare + "--hosts.bytes 16KiB --flare.trees 2 --stats s.json", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("allreduce        allreduce over 2 trees: 8 hosts, 16384 bytes each, done in "), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("results OK\n"), std::string::npos) << r.out;
  const auto s = stats_of(dir, "s.json");
  const auto& a = s["allreduce"];
  EXPECT_EQ(a["model"], "allreduce");
  EXPECT_EQ(a["trees"], 2);
  EXPECT_EQ(a["levels"], 2);
  EXPECT_EQ(a["packets_sent"], 8 * 16);
  EXPECT_EQ(a["bytes_sent"], 8 * 16 * kFrame);
  EXPECT_EQ(a["retransmissions"], 0);
  EXPECT_EQ(a["results_ok"], true);
  // 16 blocks up from each host and 16 results down to it; 8 blocks (one tree's) each way
  // between each leaf and each spine.
  EXPECT_EQ(s["network"]["bytes_between_switches"], 2 * 2 * 8 * 2 * kFrame);
  EXPECT_EQ(s["network"]["bytes_total"], 2 * 8 * 16 * kFrame + 2 * 2 * 8 * 2 * kFrame);
  for (const char* end : {"leaf0:4", "leaf0:5", "leaf1:4", "spine0:1", "spine1:0"}) EXPECT_EQ(from(s, end), 8u) << end;
  // The switches' stats: leaf0 took 16 blocks from each of 4 hosts and 16 results from the spines.
  EXPECT_EQ(s["network"]["per_switch"][0]["packets_in"], 4 * 16 + 16);
}

TEST(FlareFabricE2e, SameSeedSameStatsWithTrafficAndRootsFromTheSeed) {
  ScratchDir dir;
  const std::string mixed = kFlare + "--hosts.bytes 8KiB --hosts.members 0-5 --traffic.pattern uniform "
                                     "--traffic.hosts 6,7 --traffic.messages 4 --traffic.message_bytes 8KiB ";
  ASSERT_EQ(flaresim(mixed + "--stats a.json -q", dir).code, 0);
  ASSERT_EQ(flaresim(mixed + "--stats b.json -q", dir).code, 0);
  const auto a = stats_of(dir, "a.json"), b = stats_of(dir, "b.json");
  EXPECT_EQ(a, b);
  EXPECT_EQ(a["allreduce"]["results_ok"], true);
  EXPECT_EQ(a["traffic"]["unfinished"], 0);
  // One tree: its root is spine0 or spine1 as the seed draws it; over seeds 1-8 both occur.
  std::set<std::string> roots;
  for (int seed = 1; seed <= 8; ++seed) {
    const std::string name = "r" + std::to_string(seed) + ".json";
    ASSERT_EQ(flaresim(kFlare + "--hosts.bytes 4KiB --sim.seed " + std::to_string(seed) + " --stats " + name + " -q", dir).code, 0);
    const auto s = stats_of(dir, name);
    EXPECT_EQ(s["allreduce"]["results_ok"], true);
    const uint64_t up0 = from(s, "leaf0:4"), up1 = from(s, "leaf0:5");
    EXPECT_EQ(up0 + up1, 4u);
    EXPECT_TRUE(up0 == 0 || up1 == 0) << "one tree, one root";
    roots.insert(up0 ? "spine0" : "spine1");
  }
  EXPECT_EQ(roots, (std::set<std::string>{"spine0", "spine1"}));
}

TEST(FlareFabricE2e, AMemberResultsCannotReachFailsAfterWritingItsStats) {
  ScratchDir dir;
  // Host b's link queues at most 1000 bytes: its 4 results (1082-byte frames) are dropped; it
  // sends each block 16 times (15 retransmissions, which the switch, done with the block, does
  // not answer) and gives up. a and c get every result.
  write_file(dir / "lossy.topo",
             "switch s0 ports=3\nhost a\nhost b\nhost c\nlink s0:0 a\nlink s0:1 b queue_bytes=1000\nlink s0:2 c\n");
  const CliResult r = flaresim("run --network.topology file --network.file lossy.topo --hpu.model native "
                               "--hosts.model allreduce --hosts.bytes 4KiB --hosts.timeout_ns 2000 --stats s.json",
                               dir);
  EXPECT_EQ(r.code, 1) << r.err;  // the run failed
  EXPECT_NE(r.err.find("the Flare allreduce did not complete: 1 of 3 members are missing results (the first of them "
                       "has 0 of 4 blocks; 4 blocks given up in all)"),
            std::string::npos)
      << r.err;
  const auto s = stats_of(dir, "s.json");
  EXPECT_EQ(s["allreduce"]["results_ok"], false);
  EXPECT_EQ(s["allreduce"]["gave_up"], 4);
  EXPECT_EQ(s["allreduce"]["retransmissions"], 4 * 15);
  EXPECT_EQ(s["allreduce"]["packets_sent"], 3 * 4 + 4 * 15);
  EXPECT_EQ(s["allreduce"]["unfinished_ranks"], 1);
  EXPECT_EQ(s["network"]["drops"], 4);
}

TEST(FlareFabricE2e, TreesThroughPlainSwitchesAreRefused) {
  ScratchDir dir;
  const std::string net =
      "run --network.topology leaf_spine --network.leaves 2 --network.spines 2 --network.hosts_per_leaf 4 "
      "--hosts.model allreduce ";
  const CliResult plain = flaresim(net, dir);  // network.kind defaults to plain
  EXPECT_EQ(plain.code, 2);  // bad input
  EXPECT_NE(plain.err.find("leaf_spine: switch leaf0 is plain (no packet-processing unit) but Flare tree 0 (root "
                           "spine"),
            std::string::npos)
      << plain.err;
  EXPECT_NE(plain.err.find("make it inc or calibrated (network.kind, network.kinds)"), std::string::npos) << plain.err;
  const CliResult spines = flaresim(net + "--network.kind inc --network.kinds 'spine*=plain'", dir);
  EXPECT_EQ(spines.code, 2);
  EXPECT_NE(spines.err.find("switch spine"), std::string::npos) << spines.err;
  // Background traffic alone through inc switches smaller than flare.ports' default: no switch
  // holds an allreduce, so nothing asks for ports it lacks.
  const CliResult traffic = flaresim(
      "run --network.topology fat_tree --network.k 4 --network.kind inc --traffic.pattern permutation -q", dir);
  EXPECT_EQ(traffic.code, 0) << traffic.err;
  EXPECT_TRUE(files_in(dir).empty());
}

}  // namespace
}  // namespace fs::test
