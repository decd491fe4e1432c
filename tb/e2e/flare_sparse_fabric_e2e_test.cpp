// Flare sparse and SparCML across a network from the command line (hosts.model sparse_allreduce
// and sparcml on a leaf-spine, docs/NETWORKS.md): the summary lines, the stats' allreduce section,
// the same stats from the same seed (background traffic beside the allreduce), the two on the
// same vectors sending far fewer bytes than a dense ring, and sparcml refused on a single switch.
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"

namespace fs::test {
namespace {

const std::string kFabric =
    "run --network.topology leaf_spine --network.leaves 2 --network.spines 2 --network.hosts_per_leaf 4 "
    "--hosts.timeout_ns 1000000 --hosts.bytes 64KiB --hosts.dtype int32 --flare_sparse.density 0.01 ";
const std::string kSparse = kFabric + "--network.kind inc --hpu.model native --hosts.model sparse_allreduce ";
const std::string kSparcml = kFabric + "--hosts.model sparcml ";

nlohmann::json stats_of(const ScratchDir& dir, const std::string& name) {
  auto s = nlohmann::json::parse(slurp(dir / name));
  s.erase("wall_seconds");
  return s;
}

TEST(FlareSparseFabricE2e, FlareSparseOnTwoTreesAndSparcmlOnPlainSwitches) {
  ScratchDir dir;
  const CliResult flare = flaresim(kSparse + "--flare_sparse.trees 2 --flare_sparse.span 2048 --stats f.json", dir);
  ASSERT_EQ(flare.code, 0) << flare.err;
  EXPECT_NE(flare.out.find("allreduce        sparse_allreduce over 2 trees: 8 hosts, 65536 bytes each, done in "),
            std::string::npos)
      << flare.out;
  EXPECT_NE(flare.out.find("results OK\n"), std::string::npos) << flare.out;
  const auto f = stats_of(dir, "f.json")["allreduce"];
  EXPECT_EQ(f["model"], "sparse_allreduce");
  EXPECT_EQ(f["trees"], 2);
  EXPECT_EQ(f["levels"], 2);
  // 16384 elements in blocks of 2048: 8 blocks, about 20 pairs each, one packet per host and block.
  EXPECT_EQ(f["packets_sent"], 8 * 8);
  EXPECT_EQ(f["results_ok"], true);

  const CliResult sparcml = flaresim(kSparcml + "--stats c.json", dir);
  ASSERT_EQ(sparcml.code, 0) << sparcml.err;
  EXPECT_NE(sparcml.out.find("allreduce        sparcml: 8 hosts, 65536 bytes each, done in "), std::string::npos)
      << sparcml.out;
  const auto c = stats_of(dir, "c.json");
  EXPECT_EQ(c["allreduce"]["model"], "sparcml");
  EXPECT_EQ(c["allreduce"]["trees"], 0);
  EXPECT_EQ(c["allreduce"]["acks_sent"], 2 * 8 * 7);  // a message to each other rank in each phase
  EXPECT_EQ(c["allreduce"]["results_ok"], true);
  // The ring moves 2 (P - 1) / P of each 64 KiB vector over each host's link and back: 1% non-zeros
  // as 8-byte pairs, and their union of at most 8%, take less than a tenth of that.
  const CliResult ring = flaresim(kFabric + "--hosts.model ring --stats r.json", dir);
  ASSERT_EQ(ring.code, 0) << ring.err;
  const auto r = stats_of(dir, "r.json");
  EXPECT_LT(c["network"]["bytes_total"].get<double>(), 0.25 * r["network"]["bytes_total"].get<double>());
  EXPECT_LT(stats_of(dir, "f.json")["network"]["bytes_total"].get<double>(),
            0.25 * r["network"]["bytes_total"].get<double>());
}

TEST(FlareSparseFabricE2e, SameSeedSameStatsWithTrafficBeside) {
  ScratchDir dir;
  const std::string mixed = "--hosts.members 0-5 --traffic.pattern uniform --traffic.hosts 6,7 --traffic.messages 4 "
                            "--traffic.message_bytes 8KiB ";
  for (const std::string& run : {kSparse + "--flare_sparse.span 2048 ", kSparcml}) {
    ASSERT_EQ(flaresim(run + mixed + "--stats a.json -q", dir).code, 0);
    ASSERT_EQ(flaresim(run + mixed + "--stats b.json -q", dir).code, 0);
    const auto a = stats_of(dir, "a.json"), b = stats_of(dir, "b.json");
    EXPECT_EQ(a, b);
    EXPECT_EQ(a["allreduce"]["hosts"], 6);
    EXPECT_EQ(a["allreduce"]["results_ok"], true);
    EXPECT_EQ(a["traffic"]["unfinished"], 0);
  }
}

TEST(FlareSparseFabricE2e, SparcmlRunsOnNetworksOnly) {
  ScratchDir dir;
  const CliResult r = flaresim("run --hosts.model sparcml --hosts.bytes 4KiB", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("hosts.model = sparcml runs on a network (network.topology leaf_spine, fat_tree, fat_tree3, dragonfly or file)"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace fs::test
