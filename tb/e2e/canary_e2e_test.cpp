// Canary from the command line (hosts.model canary on a leaf-spine of in-network-compute switches,
// docs/NETWORKS.md "Canary across a network"): the summary line, the stats' allreduce section and
// its details, the switches' handler outcomes counted by hand, the same stats from the same seed
// under link loss and a failing spine, and the set-ups it refuses, with exit code 2 and nothing
// written.
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"

namespace fs::test {
namespace {

const std::string kFabric =
    "run --network.topology leaf_spine --network.leaves 2 --network.spines 2 --network.hosts_per_leaf 4 "
    "--network.kind inc --hpu.model native --hosts.model canary --canary.mapping static --canary.timeout_ns 5000 ";
const std::string kCanary = kFabric + "--hosts.bytes 8KiB --hosts.timeout_ns 1000000 ";

nlohmann::json stats_of(const ScratchDir& dir, const std::string& name) {
  auto s = nlohmann::json::parse(slurp(dir / name));
  s.erase("wall_seconds");
  return s;
}

uint64_t outcome_sum(const nlohmann::json& s, const std::string& outcome) {
  uint64_t n = 0;
  for (const auto& sw : s["network"]["per_switch"])
    if (sw["handler_outcomes"].contains("canary") && sw["handler_outcomes"]["canary"].contains(outcome))
      n += sw["handler_outcomes"]["canary"][outcome].get<uint64_t>();
  return n;
}

TEST(CanaryE2e, SummaryStatsAndHandlerOutcomes) {
  ScratchDir dir;
  const CliResult r = flaresim(kCanary + "--stats s.json", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("allreduce        canary: 8 hosts, 8192 bytes each, done in "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" Gbit/s per host), results OK\n"), std::string::npos) << r.out;
  const auto s = stats_of(dir, "s.json");
  const auto& a = s["allreduce"];
  EXPECT_EQ(a["model"], "canary");
  EXPECT_EQ(a["hosts"], 8);
  EXPECT_EQ(a["results_ok"], true);
  // 8 blocks of 256 elements, each sent by the 7 members that do not lead it: 56 packets of 61
  // header bytes and 1 KiB of data, and a broadcast from each block's leader.
  EXPECT_EQ(a["packets_sent"], 56);
  EXPECT_EQ(a["bytes_sent"], (56 + 8) * 1085);
  const nlohmann::json details = {{"collisions", 0},       {"duplicate_results", 0}, {"failures", 0},
                                  {"fallback_blocks", 0},  {"late_packets", 0},      {"leader_packets", 16},
                                  {"noise_delays", 0},     {"requests", 0},          {"restorations", 0},
                                  {"results_resent", 0}};
  EXPECT_EQ(a["details"], details);
  // Per block (tb/network/canary_fabric_test.cpp works it out): descriptors at both leaves and
  // the spine, three timeouts, the far leaf's aggregate a straggler at the leader's leaf, three
  // broadcasts; two packets reach the leader.
  EXPECT_EQ(outcome_sum(s, "allocated"), 24u);
  EXPECT_EQ(outcome_sum(s, "timeout_sent"), 24u);
  EXPECT_EQ(outcome_sum(s, "straggler"), 8u);
  EXPECT_EQ(outcome_sum(s, "broadcast"), 24u);
  // While the allreduce ran: host0 sent its 7 blocks' data and block 0's broadcast, 8 frames of
  // 1085 bytes, each 8 x (1085 + 24) / 100 ns = 88.72 ns on the wire; the run goes on for the
  // descriptors' lifetimes (1 ms) after the allreduce, so over the whole run the link is idler.
  const auto& during = s["network"]["during_allreduce"];
  EXPECT_EQ(during["until_us"], a["done_us"]);
  for (const auto& l : s["network"]["per_link"])
    if (l["from"] == "host0:0") {
      EXPECT_DOUBLE_EQ(l["utilisation_during_allreduce"].get<double>(), 8 * 88.72e-3 / a["done_us"].get<double>());
      EXPECT_LT(l["utilisation"].get<double>(), l["utilisation_during_allreduce"].get<double>() / 10);
    }
  EXPECT_GT(during["utilisation"]["mean"].get<double>(), s["network"]["utilisation"]["mean"].get<double>());
  // The other models report no details.
  const CliResult ring = flaresim(
      "run --network.topology leaf_spine --hosts.model ring --hosts.bytes 8KiB --stats ring.json", dir);
  ASSERT_EQ(ring.code, 0) << ring.err;
  EXPECT_EQ(stats_of(dir, "ring.json")["allreduce"]["details"], nlohmann::json::object());
}

TEST(CanaryE2e, SameSeedSameStatsUnderLossAndAFailingSpine) {
  ScratchDir dir;
  const std::string run = kFabric + "--hosts.bytes 32KiB --hosts.timeout_ns 60000 --network.link_loss 0.02 "
                                    "--network.failures spine0@8us ";
  ASSERT_EQ(flaresim(run + "--stats a.json", dir).code, 0);
  ASSERT_EQ(flaresim(run + "--stats b.json", dir).code, 0);
  const auto a = stats_of(dir, "a.json"), b = stats_of(dir, "b.json");
  EXPECT_EQ(a, b);
  EXPECT_EQ(a["allreduce"]["results_ok"], true);
  EXPECT_GT(a["network"]["lost"].get<uint64_t>(), 0u);
  EXPECT_EQ(a["network"]["failed_switches"], 1);
  EXPECT_GT(a["allreduce"]["details"]["requests"].get<uint64_t>(), 0u);
  const CliResult other = flaresim(run + "--seed 2 --stats c.json", dir);
  ASSERT_EQ(other.code, 0) << other.err;
  EXPECT_NE(stats_of(dir, "c.json")["network"]["lost"], a["network"]["lost"]);
}

TEST(CanaryE2e, RefusedSetUpsWriteNothing) {
  ScratchDir dir;
  struct Case {
    std::string args, error;
  } cases[] = {
      {"run --hosts.model canary --stats s.json",
       "hosts.model = canary runs on a network (network.topology leaf_spine, fat_tree, fat_tree3, dragonfly or file; a single switch is a "
       "file with one switch)"},
      {kCanary + "--hosts.dtype float32 --stats s.json",
       "hosts.dtype, hosts.op: Canary's switches sum int32 elements; set hosts.dtype int32 and hosts.op sum"},
      {kCanary + "--hosts.members 0 --stats s.json",
       "hosts.members: a Canary allreduce needs at least 2 hosts (a leader and a sender); got 1"},
      {kCanary + "--canary.descriptors 1000000 --stats s.json", "canary.descriptors: 1000000 descriptors of "},
      {kCanary + "--network.failures core@1us --stats s.json",
       "entry 'core@1us': 'core' is not a switch of the topology"},
      {"run --network.topology leaf_spine --network.hosts_per_leaf 130 --network.kind inc --hosts.model canary "
       "--stats s.json",
       "switch leaf0: canary: a Canary switch has at most 128 ports (its descriptors' children bitmap); this one "
       "has 132"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    const CliResult r = flaresim(c.args, dir);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find(c.error), std::string::npos) << r.err;
    EXPECT_FALSE(exists(dir / "s.json"));
  }
}

}  // namespace
}  // namespace fs::test
