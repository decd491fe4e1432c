// End to end: Rina's groups above racks (Rina §IV-D) on the 3-level fat tree (k = 4, 16 hosts,
// 64 KiB each: 16384 values, packets of 256), every other switch plain. A core makes everyone one
// group (G = 1): it pulls all 16 members through the plain switches below, which copy its
// multicasts down by their routes, sums each of the 64 packets from 16 GRADs and sends the sum to
// all. An aggregation switch makes its pod's 4 members one group beside 12 autonomous workers
// (G = 13), with itself as the group's entry: partial sums come to it and go on to the agent,
// complete ones it relays. INA switches below a group's switch sum their members' GRADs for it
// and copy its packets down. Every result exact and delivered once to each member; the counts
// worked out by hand.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "support/cli_runner.h"

namespace fs::test {
namespace {

nlohmann::json run_ok(const std::string& kinds, const std::string& hpu, const ScratchDir& dir,
                      const std::string& extra = "") {
  const CliResult r = flaresim(
      "run --network.topology fat_tree3 --network.k 4 --network.kind plain --network.kinds '" + kinds +
          "' --pspin.clusters 4 --hpu.model " + hpu +
          " --hosts.model rina --rina.aggregators 64 --hosts.bytes 64KiB --stats s.json -q " + extra,
      dir);
  EXPECT_EQ(r.code, 0) << r.err;
  const nlohmann::json s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_TRUE(s["allreduce"]["results_ok"].get<bool>());
  EXPECT_EQ(s["allreduce"]["unfinished_ranks"], 0);
  EXPECT_EQ(s["allreduce"]["stray_packets"], 0);
  EXPECT_EQ(s["allreduce"]["details"]["duplicate_deliveries"], 0);
  return s;
}

const nlohmann::json& sw(const nlohmann::json& s, const std::string& name) {
  for (const nlohmann::json& p : s["network"]["per_switch"])
    if (p["name"] == name) return p;
  throw std::runtime_error("no switch " + name);
}
uint64_t outcome(const nlohmann::json& s, const std::string& name, const char* what) {
  const nlohmann::json& all = sw(s, name)["handler_outcomes"];
  if (!all.contains("rina")) return 0;
  return all["rina"].contains(what) ? all["rina"][what].get<uint64_t>() : 0;
}

class RinaAboveRacksCore : public testing::TestWithParam<const char*> {};

TEST_P(RinaAboveRacksCore, ACoreSumsEveryoneThroughThePlainSwitchesBelowIt) {
  ScratchDir dir;
  const nlohmann::json s = run_ok("core0=inc", GetParam(), dir);
  const nlohmann::json& d = s["allreduce"]["details"];
  EXPECT_EQ(d["ring_groups"], 1);
  EXPECT_EQ(d["ina_groups"], 1);
  EXPECT_EQ(d["steps"], 1);
  EXPECT_EQ(d["tasks"], 1);
  EXPECT_EQ(d["pulls"], 16);
  EXPECT_EQ(d["grads"], 16 * 64);
  EXPECT_EQ(d["deliveries"], 16 * 64);
  EXPECT_EQ(outcome(s, "core0", "tasked"), 1u);
  EXPECT_EQ(outcome(s, "core0", "taken"), 64u);
  EXPECT_EQ(outcome(s, "core0", "aggregated"), 64u * 14);
  EXPECT_EQ(outcome(s, "core0", "completed"), 64u);
  // core0 is on every pod's first aggregation switch; each of them, and each edge, copies the
  // PULL and the 64 sums to its two children.
  for (const char* name : {"agg0", "agg2", "agg4", "agg6", "edge0", "edge1", "edge2", "edge3", "edge4", "edge5",
                           "edge6", "edge7"}) {
    EXPECT_EQ(sw(s, name)["routing"]["multicast"], 65) << name;
    EXPECT_EQ(sw(s, name)["routing"]["multicast_copies"], 130) << name;
  }
  for (const char* name : {"agg1", "agg3", "agg5", "agg7", "core1"}) EXPECT_EQ(sw(s, name)["routing"]["multicast"], 0);
}

INSTANTIATE_TEST_SUITE_P(Hpus, RinaAboveRacksCore, testing::Values("native", "iss"));

TEST(RinaAboveRacks, InARingOfOneGroupTheSumAnswersEachGrad) {
  // No next entry ACKs a one-group ring's sums: with windows of 4 GRADs, the 64 packets go only
  // as the switch's sums come back.
  ScratchDir dir;
  const nlohmann::json s = run_ok("core0=inc", "native", dir, "--rina.window 4");
  EXPECT_EQ(s["allreduce"]["details"]["grads"], 16 * 64);
  EXPECT_EQ(s["allreduce"]["details"]["deliveries"], 16 * 64);
}

TEST(RinaAboveRacks, AnAggregationSwitchRunsItsPodAsOneGroupAndIsItsEntry) {
  ScratchDir dir;
  const nlohmann::json s = run_ok("agg0=inc;agg1=inc;edge0=inc", "native", dir);
  const nlohmann::json& d = s["allreduce"]["details"];
  EXPECT_EQ(d["ring_groups"], 13);
  EXPECT_EQ(d["ina_groups"], 1);
  EXPECT_EQ(d["autonomous_workers"], 12);
  EXPECT_EQ(d["steps"], 25);
  EXPECT_EQ(d["ring_steps"], 30);
  EXPECT_EQ(d["deliveries"], 16 * 65);  // 13 chunks of 5 packets
  // agg0 tasked for its 13 summing steps, pulling 4 members each; the other 12 chunks' partial
  // sums come to it (5 packets each) and go on to the agent; of the 12 complete chunks coming
  // to it, 11 it relays and the last it delivers; it completes chunk 1 itself.
  EXPECT_EQ(d["pulls"], 13 * 4);
  EXPECT_EQ(outcome(s, "agg0", "tasked"), 13u);
  EXPECT_EQ(outcome(s, "agg0", "to_agent"), 12u * 5);
  EXPECT_EQ(outcome(s, "agg0", "relayed"), 11u * 5);
  EXPECT_EQ(outcome(s, "agg0", "delivered"), 5u);
  EXPECT_EQ(outcome(s, "agg0", "completed"), 13u * 5);
  // agg1 (beside it, over the same pod) makes no group and has no part in agg0's: no rina handler.
  EXPECT_TRUE(sw(s, "agg1")["handler_outcomes"].empty());
  // edge0, an INA switch below it, sums members 0 and 1 for it: the agent's GRAD (with the
  // partial sum it got) and worker 1's make one SUM GRAD, 65 packets; agg0 so takes edge0's sum
  // and completes with edge1's two workers', 3 GRADs a packet where there were 4.
  EXPECT_EQ(outcome(s, "edge0", "taken"), 65u);
  EXPECT_EQ(outcome(s, "edge0", "summed_on"), 65u);
  EXPECT_EQ(outcome(s, "agg0", "taken") + outcome(s, "agg0", "aggregated") + outcome(s, "agg0", "completed"), 3u * 65);
  // What agg0 multicasts to the group (the PULLs, the 65 complete-sum packets and the ACKs of its
  // sums) edge0's handler copies to its two members and edge1's multicast route to its own.
  const uint64_t down = 13 + 5 + 11 * 5 + 5 + outcome(s, "agg0", "acked");
  EXPECT_EQ(outcome(s, "edge0", "copied"), down);
  EXPECT_EQ(sw(s, "edge0")["routing"]["multicast"], 0);
  EXPECT_EQ(sw(s, "edge1")["routing"]["multicast"], down);
  EXPECT_EQ(sw(s, "edge1")["routing"]["multicast_copies"], 2 * down);
}

class RinaAboveRacksAllInc : public testing::TestWithParam<const char*> {};

TEST_P(RinaAboveRacksAllInc, EachSwitchBelowTheCoreSumsItsPartAndCopiesTheResultsDown) {
  // Every switch INA: core0 makes everyone one group; each edge sums its two members' GRADs, each
  // pod's first aggregation switch (the one on core0) its two edges' sums, and core0 the four
  // pods'; the sums come back down the same switches, each copying them to its two children.
  ScratchDir dir;
  const nlohmann::json s = run_ok("edge*=inc;agg*=inc;core*=inc", GetParam(), dir);
  EXPECT_EQ(s["allreduce"]["details"]["ring_groups"], 1);
  EXPECT_EQ(s["allreduce"]["details"]["deliveries"], 16 * 64);
  for (const char* name : {"edge0", "edge1", "edge2", "edge3", "edge4", "edge5", "edge6", "edge7", "agg0", "agg2",
                           "agg4", "agg6"}) {
    EXPECT_EQ(outcome(s, name, "taken"), 64u) << name;
    EXPECT_EQ(outcome(s, name, "summed_on"), 64u) << name;
    EXPECT_EQ(outcome(s, name, "copied"), 65u) << name;  // the PULL and the 64 sums
    EXPECT_EQ(outcome(s, name, "aggregated"), 0u) << name;
  }
  EXPECT_EQ(outcome(s, "core0", "taken"), 64u);
  EXPECT_EQ(outcome(s, "core0", "aggregated"), 64u * 2);
  EXPECT_EQ(outcome(s, "core0", "completed"), 64u);
  for (const char* name : {"agg1", "agg3", "agg5", "agg7", "core1", "core2", "core3"})
    EXPECT_TRUE(sw(s, name)["handler_outcomes"].empty()) << name;
}

INSTANTIATE_TEST_SUITE_P(Hpus, RinaAboveRacksAllInc, testing::Values("native", "iss"));

TEST(RinaAboveRacks, ASwitchWhoseCopiesDownWouldNotFormATreeIsRefused) {
  // s reaches the four hosts below x through a and through b, as the routes pick by address:
  // x would get s's multicasts on both ports and deliver them twice.
  ScratchDir dir;
  std::ofstream(dir / "t.topo") << "switch s ports=2\nswitch a ports=2 kind=plain\nswitch b ports=2 kind=plain\n"
                                   "switch x ports=6 kind=plain\nlink s:0 a:0\nlink s:1 b:0\nlink a:1 x:0\n"
                                   "link b:1 x:1\nhost h0\nhost h1\nhost h2\nhost h3\nlink x:2 h0\n"
                                   "link x:3 h1\nlink x:4 h2\nlink x:5 h3\n";
  const CliResult r = flaresim("run --network.topology file --network.file t.topo --hpu.model native "
                               "--hosts.model rina --rina.aggregators 64 --hosts.bytes 4KiB -q",
                               dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("network.kinds: the routes from s to the members below it reach x on two ports (1 and 0): its "
                       "copies to them would not form a tree, so it cannot be their group's INA switch"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace fs::test
