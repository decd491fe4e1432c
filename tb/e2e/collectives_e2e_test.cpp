// End to end: the host baselines (hosts.model ps and hierarchical_ring) through `flaresim run` on
// a leaf-spine and on the three-level fat tree: every member ends with exactly the sum of all
// (each member checks it), in the schedule's steps (2 for the parameter server, 2(n - 1) +
// 2(R - 1) for R racks of n); a parameter server whose windows overflow the queues it incasts on
// loses packets and the run says the allreduce did not complete; racks of different sizes and
// other set-ups they cannot run are refused naming the key.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli_runner.h"

namespace fs::test {
namespace {

const std::string kLeafSpine =
    "run --network.topology leaf_spine --network.leaves 3 --network.spines 2 --network.hosts_per_leaf 4 "
    "--hosts.bytes 256KiB --stats s.json -q ";
const std::string kFatTree = "run --network.topology fat_tree3 --network.k 4 --hosts.bytes 256KiB --stats s.json -q ";

nlohmann::json run_ok(const std::string& args, const ScratchDir& dir) {
  const CliResult r = flaresim(args, dir);
  EXPECT_EQ(r.code, 0) << r.err;
  return nlohmann::json::parse(slurp(dir / "s.json"));
}

TEST(Collectives, BothBaselinesReduceExactlyOnBothNetworks) {
  ScratchDir dir;
  struct Case {
    std::string net, model;
    unsigned hosts, steps;
  };
  // Leaf-spine: 3 racks of 4; the fat tree: 8 racks (edges) of 2.
  for (const Case& c : {Case{kLeafSpine, "ps", 12, 2}, Case{kLeafSpine, "hierarchical_ring", 12, 2 * 3 + 2 * 2},
                        Case{kFatTree, "ps", 16, 2}, Case{kFatTree, "hierarchical_ring", 16, 2 * 1 + 2 * 7}}) {
    SCOPED_TRACE(c.model + " " + std::to_string(c.hosts));
    const nlohmann::json s = run_ok(c.net + "--hosts.model " + c.model, dir);
    const nlohmann::json& a = s["allreduce"];
    EXPECT_EQ(a["model"], c.model);
    EXPECT_EQ(a["results_ok"], true);
    EXPECT_EQ(a["unfinished_ranks"], 0);
    EXPECT_EQ(a["hosts"], c.hosts);
    EXPECT_EQ(a["stray_packets"], 0);
    EXPECT_EQ(a["details"]["steps"], c.steps);
    // 256 KiB is 256 blocks of 1 KiB. The members send every other server its shard (256 less
    // their own in all) and each server its shard to the N - 1 others: 2 (N - 1) 256 packets.
    if (c.model == "ps") {
      EXPECT_EQ(a["details"]["transfers"], 2 * c.hosts * (c.hosts - 1));
      EXPECT_EQ(a["packets_sent"], 2 * (c.hosts - 1) * 256);
    }
  }
}

TEST(Collectives, AParameterServerThatOverflowsItsQueuesSaysItDidNotComplete) {
  ScratchDir dir;
  const CliResult r = flaresim(kFatTree + "--hosts.model ps --collectives.window 64 --ports.egress_queue_bytes 64KiB", dir);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("the ps allreduce did not complete:"), std::string::npos) << r.err;
  const nlohmann::json s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_GT(s["network"]["drops"].get<uint64_t>(), 0u);
  EXPECT_EQ(s["allreduce"]["results_ok"], false);
}

TEST(Collectives, SetUpsTheyCannotRunAreRefusedNamingTheKey) {
  ScratchDir dir;
  const auto refused = [&](const std::string& args) {
    const CliResult r = flaresim(args, dir);
    EXPECT_EQ(r.code, 2) << r.err;
    return r.err;
  };
  EXPECT_NE(refused(kLeafSpine + "--hosts.model hierarchical_ring --hosts.members 0-4")
                .find("hosts.members: hosts.model hierarchical_ring needs as many members behind every switch (4 behind "
                      "leaf0, 1 behind another)"),
            std::string::npos);
  EXPECT_NE(refused(kLeafSpine + "--hosts.model ps --hosts.dtype float32").find("hosts.dtype: hosts.model ps reduces int32"),
            std::string::npos);
  EXPECT_NE(refused(kLeafSpine + "--hosts.model ps --hosts.groups 2").find("hosts.groups: hosts.model ps runs one allreduce"),
            std::string::npos);
  EXPECT_NE(refused("run --hosts.model ps -q").find("hosts.model = ps runs on a network"), std::string::npos);
}

}  // namespace
}  // namespace fs::test
