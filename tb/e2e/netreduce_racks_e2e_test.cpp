// NetReduce across racks from the command line (NetReduce 3.3: hosts.model netreduce with
// members on several leaves of a leaf-spine fabric): the leaves aggregate their racks, the first
// spine aggregates the leaves' sums and sends the result down, and each leaf sends it into the
// connections ending in its rack. Every member's result is checked against the ring's sum (the
// run's own check, from the gradient draws); the handler outcomes of each switch are counted from
// the ring's geometry; losses of a sum going up, a result coming down and a notice are recovered;
// the ISS runs the same handlers; set-ups that cannot run are refused with the reason.
#include <nlohmann/json.hpp>

#include <fstream>
#include <utility>
#include <vector>

#include "support/cli_runner.h"

namespace fs::test {
namespace {

std::string fabric(unsigned leaves, unsigned spines, unsigned hosts_per_leaf) {
  return "run --network.topology leaf_spine --network.leaves " + std::to_string(leaves) + " --network.spines " +
         std::to_string(spines) + " --network.hosts_per_leaf " + std::to_string(hosts_per_leaf) +
         " --network.kind inc --hosts.model netreduce ";
}
// Switches of one HPU: each handles its packets one at a time, in the order they arrive, so no
// result overtakes another and no worker resends (the counts below are then exact).
const char* kOneHpu = "--pspin.clusters 1 --pspin.hpus_per_cluster 1 ";

// The netreduce outcomes of switch `name` ("leaf0", "spine0", ...).
nlohmann::json outcomes(const nlohmann::json& s, const std::string& name) {
  for (const auto& sw : s["network"]["per_switch"])
    if (sw["name"] == name) return sw["handler_outcomes"].value("netreduce", nlohmann::json::object());
  ADD_FAILURE() << "no switch " << name;
  return {};
}
uint64_t count(const nlohmann::json& o, const std::string& outcome) { return o.value(outcome, uint64_t(0)); }

// Messages and packets a worker sends for `bytes` of int32 in messages of `msg_packets` packets of
// `mtu` bytes with the 8-byte INA header at each message's start; and the notices a connection
// from one rack to another takes (a message's first and last packet, one if they are the same).
struct Geometry {
  uint64_t messages = 0, packets = 0, notices = 0;
};
Geometry geometry(uint64_t bytes, uint64_t mtu, uint64_t msg_packets) {
  const uint64_t elements = bytes / 4, per_message = (mtu * msg_packets - 8) / 4;
  Geometry g;
  for (uint64_t done = 0; done < elements; done += per_message) {
    const uint64_t n = std::min(per_message, elements - done);
    const uint64_t packets = (8 + 4 * n + mtu - 1) / mtu;
    ++g.messages, g.packets += packets, g.notices += packets == 1 ? 1 : 2;
  }
  return g;
}

TEST(NetReduceRacksE2e, TheGeometryIsWorkedOutByHand) {
  // 32 KiB in messages of 4 x 1024 bytes: 1022 elements each, 8 full messages of 4 packets and a
  // 9th of 8192 - 8 x 1022 = 16 elements (72 bytes, one packet).
  const Geometry g = geometry(32768, 1024, 4);
  EXPECT_EQ(g.messages, 9u);
  EXPECT_EQ(g.packets, 33u);
  EXPECT_EQ(g.notices, 17u);
}

TEST(NetReduceRacksE2e, ExactSumsWithEachRacksSumGoingUpAndTheResultComingDown) {
  struct Case {
    unsigned leaves, spines, hosts_per_leaf;
    std::string members;  // "" = every host, in order
    unsigned crossing;    // connections from one rack into another, per leaf (the same at each here)
  };
  for (const Case& c : {Case{2, 1, 2, "", 1}, Case{3, 2, 2, "", 1}, Case{2, 1, 2, "0,2,1,3", 2}}) {
    ScratchDir dir;
    const uint64_t bytes = 32768;
    const CliResult r = flaresim(fabric(c.leaves, c.spines, c.hosts_per_leaf) + kOneHpu + "--hpu.model native --hosts.bytes " +
                                     std::to_string(bytes) +
                                     (c.members.empty() ? "" : " --hosts.members " + c.members) + " --stats s.json",
                                 dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("results OK"), std::string::npos) << r.out;
    const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
    EXPECT_EQ(s["allreduce"]["results_ok"], true);
    EXPECT_EQ(s["allreduce"]["levels"], 2);
    EXPECT_EQ(s["allreduce"]["retransmissions"], 0);
    const Geometry g = geometry(bytes, 1024, 4);
    // The root (spine0) completes every (message, packet) once; its other leaves' sums wait.
    // With one spine it passes every notice on its way from leaf to leaf.
    const nlohmann::json root = outcomes(s, "spine0");
    EXPECT_EQ(count(root, "completed"), g.packets) << root;
    EXPECT_EQ(count(root, "aggregated"), (c.leaves - 1) * g.packets) << root;
    if (c.spines == 1) {
      EXPECT_EQ(count(root, "passed"), c.leaves * c.crossing * g.notices) << root;
    }
    for (unsigned l = 0; l < c.leaves; ++l) {
      const nlohmann::json leaf = outcomes(s, "leaf" + std::to_string(l));
      const unsigned ranks = c.hosts_per_leaf;
      EXPECT_EQ(count(leaf, "sent_up"), g.packets) << l << leaf;
      EXPECT_EQ(count(leaf, "aggregated"), (ranks - 1) * g.packets) << l << leaf;
      EXPECT_EQ(count(leaf, "result_down"), g.packets) << l << leaf;
      EXPECT_EQ(count(leaf, "notice"), c.crossing * g.notices) << l << leaf;
      EXPECT_EQ(count(leaf, "malformed") + count(leaf, "late"), 0u) << l << leaf;
    }
    if (c.leaves == 2 && c.members.empty()) {
      // The state each switch holds (netreduce_switch.h): the configuration (640 bytes), 256 CLT
      // entries of 48 and 2N x MsgLen = 64 aggregators of a 48-byte head, a result area and slots
      // of 84 + 1024 bytes (and the 4 of the result's ICRC): a leaf's 2 ranks and 1 connection
      // coming in, the root's 2 leaves.
      const auto l2 = [&](const std::string& sw) {
        for (const auto& x : s["network"]["per_switch"])
          if (x["name"] == sw) return x["handler_memory"]["netreduce"]["l2_bytes"].get<uint64_t>();
        return uint64_t(0);
      };
      EXPECT_EQ(l2("leaf0"), 640u + 256 * 48 + 64 * (48 + 4 * 1108 + 4));
      EXPECT_EQ(l2("spine0"), 640u + 256 * 48 + 64 * (48 + 3 * 1108 + 4));
    }
    if (c.spines > 1) {  // the other spines only route
      EXPECT_TRUE(outcomes(s, "spine1").empty()) << outcomes(s, "spine1");
    }
  }
}

TEST(NetReduceRacksE2e, LosingANoticeASumGoingUpOrAResultComingDownIsRecovered) {
  // 2 leaves x 2 hosts, 8 KiB (messages of 4, 4 and 1 packets), one HPU per switch, each
  // aggregator's results as it completes (netreduce.in_order false): without a loss nothing is
  // resent. leaf0's first frame up is message 0's notice of connection 1 -> 2
  // (rank 1's first packet sends it before its sum goes up), its second the first sum; spine0's
  // first frame down to leaf1 is that notice passed on, its second a result. Each loss leaves
  // its own mark at the switches; every sum still completes once at the root.
  struct Case {
    std::string lose;
    std::vector<std::pair<std::string, std::string>> marks;  // (switch, outcome) seen at least once
  };
  for (const Case& c : {
           // leaf1 cannot send 1 -> 2's results (no headers): rank 1 resends, and leaf0 sends its
           // results end to end, through leaf1.
           Case{"leaf0>spine0:1", {{"leaf1", "result_partly"}, {"leaf0", "result_resent"}, {"leaf1", "passed"}}},
           // The root waits for leaf0's sum until a resend sends it up again.
           Case{"leaf0>spine0:2", {{"leaf0", "up_resent"}, {"spine0", "duplicate"}}},
           // leaf1 waits for the result until a resend sends its sum up again, and the root
           // answers with the result.
           Case{"spine0>leaf1:2", {{"leaf1", "up_resent"}, {"spine0", "result_resent"}}},
       }) {
    ScratchDir dir;
    const CliResult r = flaresim(fabric(2, 1, 2) + kOneHpu + "--hpu.model native --hosts.bytes 8KiB --stats s.json "
                                                             "--netreduce.in_order false --network.lose '" + c.lose + "'",
                                 dir);
    ASSERT_EQ(r.code, 0) << c.lose << "\n" << r.err;
    const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
    EXPECT_EQ(s["allreduce"]["results_ok"], true) << c.lose;
    EXPECT_EQ(s["network"]["lost"], 1) << c.lose;
    EXPECT_GE(s["allreduce"]["retransmissions"].get<uint64_t>(), 1u) << c.lose;
    EXPECT_EQ(count(outcomes(s, "spine0"), "completed"), 9u) << c.lose;
    for (const auto& [sw, outcome] : c.marks)
      EXPECT_GE(count(outcomes(s, sw), outcome), 1u) << c.lose << ": " << sw << " " << outcomes(s, sw);
  }
  // Without a loss, none of those marks.
  ScratchDir dir;
  ASSERT_EQ(flaresim(fabric(2, 1, 2) + kOneHpu + "--hpu.model native --hosts.bytes 8KiB --netreduce.in_order false "
                                                 "--stats s.json",
                     dir)
                .code,
            0);
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(s["allreduce"]["retransmissions"], 0);
  for (const std::string sw : {"leaf0", "leaf1", "spine0"})
    for (const std::string outcome : {"result_partly", "result_resent", "up_resent", "duplicate"})
      EXPECT_EQ(count(outcomes(s, sw), outcome), 0u) << sw << " " << outcome;
}

TEST(NetReduceRacksE2e, ExactUnderLinkLoss) {
  ScratchDir dir;
  const CliResult r = flaresim(fabric(2, 1, 3) + "--hpu.model native --hosts.bytes 32KiB --network.link_loss 0.01 "
                                                 "--hosts.timeout_ns 20000 --stats s.json",
                               dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(s["allreduce"]["results_ok"], true);
  EXPECT_GT(s["network"]["lost"].get<uint64_t>(), 0u);
}

TEST(NetReduceRacksE2e, TheIssRunsTheSameHandlersWithTheSameSums) {
  ScratchDir dir;
  const CliResult r = flaresim(fabric(2, 1, 2) + "--hpu.model iss --hosts.bytes 8KiB --stats s.json", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(s["allreduce"]["results_ok"], true);
  EXPECT_EQ(count(outcomes(s, "spine0"), "completed"), 9u);
}

TEST(NetReduceRacksE2e, InOrderResultsLeaveNoGapAtAnyReceiver) {
  // netreduce.in_order on the ISS across 2 racks of 3: the root sends its results down in the
  // ring's order and each leaf sends them into its connections in that order, so no receiver sees
  // a gap (8 KiB: 9 packets a worker): no NAK, no resend, every sum once at the root.
  ScratchDir dir;
  const CliResult r =
      flaresim(fabric(2, 1, 3) + "--hpu.model iss --hosts.bytes 8KiB --netreduce.in_order true --stats s.json", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(s["allreduce"]["results_ok"], true);
  EXPECT_EQ(s["allreduce"]["retransmissions"], 0);
  EXPECT_EQ(s["allreduce"]["details"]["naks_sent"], 0);
  EXPECT_EQ(s["allreduce"]["details"]["out_of_order"], 0);
  // The root also passes each leaf's notices of its connection leaving the rack: 2 + 2 + 1.
  EXPECT_EQ(outcomes(s, "spine0"), nlohmann::json({{"aggregated", 9}, {"completed", 9}, {"passed", 2 * 5}}));
  for (const std::string leaf : {"leaf0", "leaf1"}) {
    const nlohmann::json o = outcomes(s, leaf);
    EXPECT_EQ(count(o, "result_down"), 9u) << leaf << o;
    EXPECT_EQ(count(o, "aggregated"), 18u) << leaf << o;
    EXPECT_EQ(count(o, "sent_up"), 9u) << leaf << o;
  }
}

TEST(NetReduceRacksE2e, SetUpsItCannotRunAreRefused) {
  ScratchDir dir;
  // A line of four switches with hosts at both ends: no switch links the two racks.
  {
    std::ofstream f(dir / "line.topo");
    f << "switch s0 ports=3\nswitch s1 ports=2\nswitch s2 ports=2\nswitch s3 ports=3\n"
         "host a\nhost b\nhost c\nhost d\n"
         "link s0:0 a\nlink s0:1 b\nlink s3:0 c\nlink s3:1 d\n"
         "link s0:2 s1:0\nlink s1:1 s2:0\nlink s2:1 s3:2\n";
  }
  struct Case {
    std::string args, error;
  };
  for (const Case& c : {
           Case{"run --network.topology file --network.file line.topo --hosts.model netreduce",
                "hosts.members: the ring's hosts hang off switches s0, s3, and no switch is linked to all of them: "
                "NetReduce aggregates a ring across racks at a root switch above the racks' switches (3.3)"},
           Case{fabric(2, 1, 2) + "--network.kinds spine0=plain",
                "network.kinds: switch spine0 is plain, but the NetReduce ring needs it to aggregate (make it inc or "
                "calibrated)"},
           Case{fabric(2, 1, 40), "hosts.members: a NetReduce ring has at most 64 workers"},
       }) {
    const CliResult r = flaresim(c.args + " --stats s.json", dir);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.error), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_FALSE(exists(dir / "s.json")) << c.args;
  }
}

}  // namespace
}  // namespace fs::test
