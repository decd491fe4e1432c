// End to end: a Rina training job (hosts.model rina) through `flaresim run` on leaf-spine networks
// whose leaves are INA (inc) or plain switches: every member's every packet of every chunk's sum
// is exactly the sum of all members' gradients (each member checks it; a wrong or missing one
// fails the run) and reaches it exactly once, for racks that run as one group and autonomous
// workers mixed, on native and ISS HPUs and over iterations; the groups, the 2G - 1 steps
// against the ring's 2(N - 1), and each group's steps worked out by hand from the ring (group g
// does chunk (g - s + 1) mod G at step s), each chunk's steps beginning one after the other
// around the ring; the INA switches' counts worked out by hand; senders paced at full speed and
// their windows halved on ECN; a failed worker excluded by its agent, a failed agent's rack
// falling back to the ring; set-ups the job cannot run refused naming the key.
#include <gtest/gtest.h>

#include <map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/cli_runner.h"

namespace fs::test {
namespace {

// Three leaves of three hosts under one spine; which leaves are INA switches is the test's.
const std::string kNetwork =
    "run --network.topology leaf_spine --network.leaves 3 --network.spines 1 --network.hosts_per_leaf 3"
    " --network.kind plain --hosts.model rina --stats s.json -q ";

nlohmann::json run_ok(const std::string& args, const ScratchDir& dir) {
  const CliResult r = flaresim(kNetwork + "--rina.aggregators 64 " + args, dir);
  EXPECT_EQ(r.code, 0) << r.err;
  return nlohmann::json::parse(slurp(dir / "s.json"));
}

uint64_t outcome(const nlohmann::json& s, unsigned sw, const char* name) {
  const nlohmann::json& o = s["network"]["per_switch"][sw]["handler_outcomes"];
  return o.contains("rina") && o["rina"].contains(name) ? o["rina"][name].get<uint64_t>() : 0;
}

// Leaves 0 and 2 INA, leaf 1 plain: groups {0,1,2}, 3, 4, 5, {6,7,8}; G = 5. 16 KiB is 4096
// values, chunks of 819 or 820, 4 packets of at most 256 each: 20 packets a member.
class RinaMixed : public testing::TestWithParam<const char*> {};

TEST_P(RinaMixed, RacksAndAutonomousWorkersGetExactSumsEachPacketOnce) {
  ScratchDir dir;
  const nlohmann::json s =
      run_ok(std::string("--hpu.model ") + GetParam() + " --network.kinds 'leaf0=inc;leaf2=inc' --hosts.bytes 16KiB", dir);
  const nlohmann::json& a = s["allreduce"];
  EXPECT_EQ(a["model"], "rina");
  EXPECT_EQ(a["results_ok"], true);
  EXPECT_EQ(a["unfinished_ranks"], 0);
  EXPECT_EQ(a["hosts"], 9);
  EXPECT_EQ(a["stray_packets"], 0);
  const nlohmann::json& d = a["details"];
  EXPECT_EQ(d["ring_groups"], 5);
  EXPECT_EQ(d["ina_groups"], 2);
  EXPECT_EQ(d["autonomous_workers"], 3);
  EXPECT_EQ(d["steps"], 9);        // 2G - 1
  EXPECT_EQ(d["ring_steps"], 16);  // 2(N - 1)
  EXPECT_EQ(d["deliveries"], 9 * 20);
  EXPECT_EQ(d["duplicate_deliveries"], 0);
  // Each INA group sums each chunk once (5 TASKs, each pulled by its 3 members): its switch makes
  // 20 sums, each of 3 GRADs: the first takes a slot, the second is summed in, the third
  // completes it.
  EXPECT_EQ(d["tasks"], 2 * 5);
  EXPECT_EQ(d["pulls"], 2 * 5 * 3);
  EXPECT_EQ(d["grads"], 6 * 20);
  for (unsigned leaf : {0u, 2u}) {
    EXPECT_EQ(outcome(s, leaf, "tasked"), 5u);
    EXPECT_EQ(outcome(s, leaf, "taken"), 20u);
    EXPECT_EQ(outcome(s, leaf, "aggregated"), 20u);
    EXPECT_EQ(outcome(s, leaf, "completed"), 20u);
    // Of the 4 chunks the group does not complete, 3 are relayed on (12 packets) and the one whose
    // last step (9) is the group's only delivered.
    EXPECT_EQ(outcome(s, leaf, "relayed"), 12u);
    EXPECT_EQ(outcome(s, leaf, "delivered"), 4u);
    EXPECT_EQ(outcome(s, leaf, "malformed") + outcome(s, leaf, "slot_busy") + outcome(s, leaf, "no_route"), 0u);
  }
  EXPECT_EQ(s["network"]["per_switch"][1]["handler_outcomes"].size(), 0u);  // the plain leaf runs no handler
  // The autonomous workers send their own chunk and each of the other 8 steps but their last.
  EXPECT_EQ(d["data"], 3 * (2 * 5 - 2) * 4);
}

INSTANTIATE_TEST_SUITE_P(Hpus, RinaMixed, testing::Values("native", "iss"));

TEST(Rina, EachGroupsStepsAreTheRingsWorkedByHand) {
  ScratchDir dir;
  const nlohmann::json s = run_ok("--hpu.model native --network.kinds 'leaf0=inc;leaf2=inc' --hosts.bytes 16KiB", dir);
  // Per group, by step: (chunk, when the step began). Group g does step s on chunk (g - s + 1)
  // mod 5, steps 1 to 9.
  std::map<unsigned, std::vector<std::pair<unsigned, double>>> steps;
  std::map<std::pair<unsigned, unsigned>, double> began;  // (chunk, step)
  for (const nlohmann::json& r : s["allreduce"]["series"]) {
    steps[r["group"].get<unsigned>()].push_back({r["chunk"].get<unsigned>(), r["t_us"].get<double>()});
    began[{r["chunk"].get<unsigned>(), r["step"].get<unsigned>()}] = r["t_us"].get<double>();
  }
  const std::vector<std::vector<unsigned>> by_hand = {
      {0, 4, 3, 2, 1, 0, 4, 3, 2}, {1, 0, 4, 3, 2, 1, 0, 4, 3}, {2, 1, 0, 4, 3, 2, 1, 0, 4},
      {3, 2, 1, 0, 4, 3, 2, 1, 0}, {4, 3, 2, 1, 0, 4, 3, 2, 1}};
  ASSERT_EQ(steps.size(), 5u);
  for (unsigned g = 0; g < 5; ++g) {
    std::vector<unsigned> chunks;
    for (const auto& [c, t] : steps[g]) chunks.push_back(c);
    EXPECT_EQ(chunks, by_hand[g]) << "group " << g;
  }
  // A summing step s + 1 needs step s's first packet (the partial sum to the next group's entry):
  // each chunk's summing steps begin in order around the ring. (An INA switch relays a delivery
  // on as it multicasts it to its rack, so its agent may see it after the next group does.)
  for (unsigned c = 0; c < 5; ++c)
    for (unsigned step = 1; step < 5; ++step) {
      const double now = began[std::make_pair(c, step)], next = began[std::make_pair(c, step + 1)];
      EXPECT_LT(now, next) << c << " " << step;
    }
}

TEST(Rina, AllInaRacksAndAllAutonomousWorkersBothReduce) {
  ScratchDir dir;
  // Every leaf INA: 3 groups of 3, 5 steps. Every leaf plain: the ring of 9, 17 steps.
  nlohmann::json s = run_ok("--hpu.model native --network.kinds 'leaf*=inc' --hosts.bytes 64KiB --rina.iterations 2 "
                            "--rina.compute_us 3",
                            dir);
  EXPECT_EQ(s["allreduce"]["results_ok"], true);
  EXPECT_EQ(s["allreduce"]["details"]["ring_groups"], 3);
  EXPECT_EQ(s["allreduce"]["details"]["steps"], 5);
  EXPECT_EQ(s["allreduce"]["details"]["data"], 0);
  // 64 KiB is 16384 values: chunks of 5461 or 5462, 22 packets; 66 a member an iteration.
  EXPECT_EQ(s["allreduce"]["details"]["deliveries"], 2 * 9 * 66);
  EXPECT_EQ(s["allreduce"]["jobs"][0]["iterations"], 2);
  EXPECT_GT(s["allreduce"]["jobs"][0]["iteration_us"].get<double>(), 3.0);
  s = run_ok("--hpu.model native --hosts.bytes 64KiB", dir);
  EXPECT_EQ(s["allreduce"]["results_ok"], true);
  EXPECT_EQ(s["allreduce"]["details"]["ring_groups"], 9);
  EXPECT_EQ(s["allreduce"]["details"]["steps"], 17);
  EXPECT_EQ(s["allreduce"]["details"]["tasks"], 0);
}

// Full speed (Rina 4.3.1): at rina.rate_gbps 20 a member paces its 1 MiB of GRADs, 1024 frames of
// 42 + 24 + 1024 bytes, at 20 Gbit/s, so the job takes at least 1024 x 1090 x 8 / 20 Gbit/s =
// 446.6 us, where at the links' 100 Gbit/s it is quicker than that. ECN marks on every queued
// frame halve the windows (on ECE ACKs), none without marking.
TEST(Rina, SendersPaceAtFullSpeedAndHalveTheirWindowsOnEcn) {
  ScratchDir dir;
  const std::string job = "--hpu.model native --network.kinds 'leaf*=inc' --hosts.bytes 1MiB ";
  nlohmann::json s = run_ok(job + "--rina.rate_gbps 20", dir);
  EXPECT_EQ(s["allreduce"]["results_ok"], true);
  EXPECT_GE(s["allreduce"]["done_us"].get<double>(), 1024 * 1090 * 8 / 20e3);
  s = run_ok(job, dir);
  EXPECT_EQ(s["allreduce"]["results_ok"], true);
  EXPECT_LT(s["allreduce"]["done_us"].get<double>(), 1024 * 1090 * 8 / 20e3);
  EXPECT_EQ(s["allreduce"]["details"]["window_cuts"], 0);
  s = run_ok(job + "--ports.ecn_bytes 1", dir);
  EXPECT_EQ(s["allreduce"]["results_ok"], true);
  EXPECT_GT(s["network"]["ecn_marked"].get<uint64_t>(), 0u);
  EXPECT_GT(s["allreduce"]["details"]["window_cuts"].get<uint64_t>(), 0u);
}

// Failures (Rina 4.3.2) on the mixed network. A worker of rack 0 (host 1) down from the start:
// its agent runs the rack without it, G stays 5, and rack 0's sums are of 2 GRADs (the first
// takes the slot, the second completes it). Rack 0's agent (host 0) down: its rack falls back
// to the plain ring, hosts 1 and 2 autonomous, G = 6 (4096 values: chunks of 682 or 683, 3
// packets; 18 a member). The agent down from the second iteration: the first has G = 5 and 9
// members, the second G = 6 and 8. Every sum is of the members up, exactly.
TEST(Rina, AFailedWorkerIsExcludedAndAFailedAgentsRackFallsBackToTheRing) {
  ScratchDir dir;
  const std::string job = "--hpu.model native --network.kinds 'leaf0=inc;leaf2=inc' --hosts.bytes 16KiB ";
  nlohmann::json s = run_ok(job + "--rina.failed 1@0", dir);
  const nlohmann::json* d = &s["allreduce"]["details"];
  EXPECT_EQ(s["allreduce"]["results_ok"], true);
  EXPECT_EQ(s["allreduce"]["unfinished_ranks"], 0);
  EXPECT_EQ((*d)["failed"], 1);
  EXPECT_EQ((*d)["ring_groups"], 5);
  EXPECT_EQ((*d)["ina_groups"], 2);
  EXPECT_EQ((*d)["deliveries"], 8 * 20);
  EXPECT_EQ(outcome(s, 0, "tasked"), 5u);
  EXPECT_EQ(outcome(s, 0, "taken"), 20u);
  EXPECT_EQ(outcome(s, 0, "aggregated"), 0u);
  EXPECT_EQ(outcome(s, 0, "completed"), 20u);
  EXPECT_EQ(outcome(s, 2, "aggregated"), 20u);  // rack 2 keeps its three
  s = run_ok(job + "--rina.failed 0@0", dir);
  d = &s["allreduce"]["details"];
  EXPECT_EQ(s["allreduce"]["results_ok"], true);
  EXPECT_EQ((*d)["ring_groups"], 6);
  EXPECT_EQ((*d)["ina_groups"], 1);
  EXPECT_EQ((*d)["autonomous_workers"], 5);
  EXPECT_EQ((*d)["deliveries"], 8 * 18);
  EXPECT_EQ(outcome(s, 0, "tasked"), 0u);
  EXPECT_GT(outcome(s, 0, "forwarded"), 0u);
  s = run_ok(job + "--rina.failed 0@1 --rina.iterations 2", dir);
  d = &s["allreduce"]["details"];
  EXPECT_EQ(s["allreduce"]["results_ok"], true);
  EXPECT_EQ((*d)["ring_groups"], 5);
  EXPECT_EQ((*d)["last_ring_groups"], 6);
  EXPECT_EQ((*d)["deliveries"], 9 * 20 + 8 * 18);
  EXPECT_EQ(s["allreduce"]["jobs"][0]["iterations"], 2);
}

TEST(Rina, SetUpsTheJobCannotRunAreRefusedNamingTheKey) {
  ScratchDir dir;
  const auto refused = [&](const std::string& args) {
    const CliResult r = flaresim(kNetwork + args, dir);
    EXPECT_EQ(r.code, 2) << r.err;
    return r.err;
  };
  EXPECT_NE(refused("--network.kinds 'leaf*=inc'")
                .find("rina.aggregators: the INA switches of hosts.model rina need aggregator slots"),
            std::string::npos);
  EXPECT_NE(refused("--hosts.groups 3").find("hosts.groups: hosts.model rina runs one training job"),
            std::string::npos);
  EXPECT_NE(refused("--rina.packet_bytes 1022").find("rina.packet_bytes: 1022 is not a multiple of 4"),
            std::string::npos);
  EXPECT_NE(refused("--hosts.dtype float32").find("hosts.dtype: Rina's workers reduce int32 gradients"),
            std::string::npos);
  EXPECT_NE(refused("--rina.failed 'x@0'").find("rina.failed: 'x@0': the host 'x' is not a number"),
            std::string::npos);
  EXPECT_NE(refused("--rina.failed 3").find("rina.failed: '3' is not HOST@ITERATION"), std::string::npos);
  EXPECT_NE(refused("--hosts.members 0-5 --rina.failed 7@0").find("rina.failed: host 7 is not a member"),
            std::string::npos);
  EXPECT_NE(refused("--rina.failed 1@1").find("rina.failed: '1@1': iteration 1 of 1 (rina.iterations"),
            std::string::npos);
  EXPECT_NE(refused("--rina.iterations 3 --rina.failed '1@0,1@2'").find("rina.failed: host 1 fails twice"),
            std::string::npos);
  EXPECT_NE(refused("--hosts.members 0-1 --rina.failed '0@0,1@0'").find("rina.failed: every member is down by iteration 0"),
            std::string::npos);
  const CliResult single = flaresim("run --hosts.model rina -q", dir);
  EXPECT_NE(single.err.find("hosts.model = rina runs on a network"), std::string::npos) << single.err;
}

}  // namespace
}  // namespace fs::test
