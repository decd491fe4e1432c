// NetReduce from the command line (hosts.model netreduce: a ring of RDMA workers on one leaf of
// in-network-compute switches, the leaf's netreduce handlers aggregating): every member's result
// checked against the ring's sum (the run's own check, computed from the gradient draws, not
// from the switch), the handler outcomes counted from the ring's geometry, the results exact under
// link loss and on the ISS, the RDMA ring baseline, and the set-ups refused with the reason.
#include <nlohmann/json.hpp>

#include <set>
#include <sstream>

#include "support/cli_runner.h"

namespace fs::test {
namespace {

std::string rack(unsigned hosts) {
  return "run --network.topology leaf_spine --network.leaves 1 --network.spines 1 --network.hosts_per_leaf " +
         std::to_string(hosts) + " --network.kinds leaf0=inc ";
}

nlohmann::json outcomes(const nlohmann::json& s) { return s["network"]["per_switch"][0]["handler_outcomes"]["netreduce"]; }

// Packets a worker sends for `bytes` of int32 in messages of `msg_packets` packets of `mtu` bytes
// with the 8-byte INA header at each message's start.
uint64_t packets_per_worker(uint64_t bytes, uint64_t mtu, uint64_t msg_packets) {
  const uint64_t elements = bytes / 4, per_message = (mtu * msg_packets - 8) / 4;
  uint64_t packets = 0;
  for (uint64_t done = 0; done < elements; done += per_message) {
    const uint64_t n = std::min(per_message, elements - done);
    packets += (8 + 4 * n + mtu - 1) / mtu;
  }
  return packets;
}

TEST(NetReduceE2e, ExactSumsForSeveralRingsAndMessageLengths) {
  struct Case {
    unsigned ranks, msg_packets, mtu;
    uint64_t bytes;
  };
  for (const Case c : {Case{2, 1, 1024, 8192}, Case{3, 3, 512, 20000}, Case{5, 4, 1024, 65536}}) {
    ScratchDir dir;
    const CliResult r =
        flaresim(rack(c.ranks) + "--hpu.model native --hosts.model netreduce --hosts.bytes " + std::to_string(c.bytes) +
                     " --netreduce.msg_packets " + std::to_string(c.msg_packets) + " --netreduce.mtu " +
                     std::to_string(c.mtu) + " --stats s.json",
                 dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("allreduce        netreduce over 1 tree: " + std::to_string(c.ranks) + " hosts, " +
                         std::to_string(c.bytes) + " bytes each, done in "),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("results OK"), std::string::npos) << r.out;
    const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
    EXPECT_EQ(s["allreduce"]["results_ok"], true);
    EXPECT_EQ(s["allreduce"]["unfinished_ranks"], 0);
    // Every (message, packet) completes once; every other rank's first copy of it waits in its slot.
    const uint64_t packets = packets_per_worker(c.bytes, c.mtu, c.msg_packets);
    EXPECT_EQ(outcomes(s)["completed"], packets) << c.ranks;
    EXPECT_EQ(outcomes(s)["aggregated"], (c.ranks - 1) * packets) << c.ranks;
    EXPECT_FALSE(outcomes(s).contains("malformed")) << outcomes(s);
  }
}

TEST(NetReduceE2e, PacketsPerWorkerIsWorkedOutByHand) {
  // 65536 bytes in messages of 4 x 1024 bytes: 1022 elements each, so 16 messages of 4 packets
  // and a 17th of 16384 - 16 x 1022 = 32 elements (136 bytes, one packet).
  EXPECT_EQ(packets_per_worker(65536, 1024, 4), 65u);
  EXPECT_EQ(packets_per_worker(8192, 1024, 1), 9u);  // 254 elements a message: 8 full, 1 of 2
}

TEST(NetReduceE2e, ExactUnderLinkLoss) {
  ScratchDir dir;
  const CliResult r = flaresim(rack(4) + "--hpu.model native --hosts.model netreduce --hosts.bytes 32KiB "
                                         "--network.link_loss 0.02 --hosts.timeout_ns 20000 --stats s.json",
                               dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(s["allreduce"]["results_ok"], true);
  EXPECT_GT(s["network"]["lost"].get<uint64_t>(), 0u);
  EXPECT_GT(s["allreduce"]["retransmissions"].get<uint64_t>(), 0u);
  EXPECT_EQ(outcomes(s)["completed"], packets_per_worker(32768, 1024, 4));
}

TEST(NetReduceE2e, LosingAFirstAMiddleALastOrAResultPacketOrANakIsRecovered) {
  // 3 workers x 8 KiB: each sends PSNs 0-8 back to back (messages of 4, 4 and 1 packets), so
  // frame n on host0>leaf0 is PSN n - 1; on leaf0>host1 the first frames are the results of
  // connection 0 -> 1 in PSN order; host1's 10th frame up is the NAK of the gap a lost result
  // leaves (after its 9 data packets). Every aggregator still completes once and every sum is
  // right; what recovered it shows in the switch's outcomes and the NICs' counts.
  struct Case {
    std::string lose;
    uint64_t lost;
    std::string outcome;  // one the loss must cause at the switch ("" = none in particular)
    std::string nic;      // a NIC count it must cause
  };
  for (const Case& c : {
           Case{"host0>leaf0:1", 1, "passed", "naks_sent"},    // the very first packet: no connection yet
           Case{"host0>leaf0:5", 1, "first_lost", "timeouts"},  // message 1's first: its others dropped
           Case{"host0>leaf0:2", 1, "result_resent", "naks_sent"},  // a middle packet
           Case{"host0>leaf0:4", 1, "result_resent", "naks_sent"},  // message 0's last
           Case{"leaf0>host1:1", 1, "result_resent", "naks_sent"},  // a result
           Case{"leaf0>host1:2; host1>leaf0:10", 2, "result_resent", "timeouts"},  // a result and its NAK
       }) {
    ScratchDir dir;
    const CliResult r = flaresim(rack(3) + "--hpu.model native --hosts.model netreduce --hosts.bytes 8KiB "
                                           "--hosts.timeout_ns 20000 --stats s.json --network.lose '" + c.lose + "'",
                                 dir);
    ASSERT_EQ(r.code, 0) << c.lose << "\n" << r.err;
    const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
    EXPECT_EQ(s["allreduce"]["results_ok"], true) << c.lose;
    EXPECT_EQ(s["network"]["lost"], c.lost) << c.lose;
    EXPECT_EQ(outcomes(s)["completed"], 9) << c.lose;
    EXPECT_EQ(outcomes(s)["aggregated"], 18) << c.lose;
    EXPECT_GE(outcomes(s).value(c.outcome, 0), 1) << c.lose << ": " << outcomes(s);
    EXPECT_GE(s["allreduce"]["details"][c.nic].get<uint64_t>(), 1u) << c.lose << ": " << s["allreduce"]["details"];
  }
}

TEST(NetReduceE2e, TheIssRunsTheHandlerWithTheSameSums) {
  ScratchDir dir;
  const CliResult r = flaresim(rack(3) + "--hosts.model netreduce --hosts.bytes 8KiB --stats s.json", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(s["allreduce"]["results_ok"], true);
  EXPECT_EQ(outcomes(s)["completed"], packets_per_worker(8192, 1024, 4));
  EXPECT_EQ(outcomes(s)["aggregated"], 2 * packets_per_worker(8192, 1024, 4));
}

TEST(NetReduceE2e, InOrderResultsLeaveNoGapAtAnyReceiver) {
  // netreduce.in_order on the ISS: 3 workers x 8 KiB, 9 packets each (2 messages of 4 and one of
  // 1). Every result leaves in its connection's PSN order, so no receiver sees a gap: no NAK, no
  // resend, and each aggregator's results go out once (a handler that read a header before the
  // DMA had written it would send to no route, or resend).
  ScratchDir dir;
  const CliResult r =
      flaresim(rack(3) + "--hosts.model netreduce --hosts.bytes 8KiB --netreduce.in_order true --stats s.json", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(s["allreduce"]["results_ok"], true);
  EXPECT_EQ(outcomes(s), nlohmann::json({{"aggregated", 18}, {"completed", 9}}));
  EXPECT_EQ(s["allreduce"]["retransmissions"], 0);
  EXPECT_EQ(s["allreduce"]["details"]["naks_sent"], 0);
  EXPECT_EQ(s["allreduce"]["details"]["out_of_order"], 0);
  EXPECT_EQ(s["allreduce"]["packets_sent"], 27);
  // The switch's handler statistics, as a single switch's: a run per packet, on the ISS.
  const auto& h = s["network"]["per_switch"][0]["handlers"]["netreduce"];
  EXPECT_EQ(h["cycles"]["count"], 27);
  EXPECT_EQ(h["cycles_by_outcome"]["completed"]["count"], 9);
  EXPECT_GT(h["iss"]["instructions"].get<uint64_t>(), 27u);
}

TEST(NetReduceE2e, EveryFrameTheHostsGetHasTheIcrcScapyComputesAndTsharkReadsItsBth) {
  // 3 workers x 8 KiB in order (no gap, no resend): each host gets its predecessor's connection's
  // 9 results (PSNs 0-8: messages of 4, 4 and 1 packets) on queue pair 2 and an ACK of each of
  // its own 3 messages on queue pair 1. The results' ICRCs are the command unit's (the handler
  // changed the payload); scapy recomputes every one.
  ScratchDir dir;
  const CliResult r = flaresim(rack(3) + "--hosts.model netreduce --hosts.bytes 8KiB --netreduce.in_order true "
                                         "--egress e.pcapng",
                               dir);
  ASSERT_EQ(r.code, 0) << r.err;
  std::multiset<std::string> want_scapy, want_tshark;
  const int opcode[9] = {6, 7, 7, 9, 6, 7, 7, 9, 11};  // FIRST MIDDLE MIDDLE LAST_IMM ... ONLY_IMM
  for (unsigned host = 0; host < 3; ++host) {
    for (unsigned psn = 0; psn < 9; ++psn) {
      const int ack = psn == 3 || psn == 7 || psn == 8;
      want_scapy.insert(std::to_string(opcode[psn]) + " 2 " + std::to_string(ack) + " 0 " + std::to_string(psn) +
                        " icrc ok");
      want_tshark.insert(std::to_string(host) + " " + std::to_string(opcode[psn]) + " 0x000002 " +
                         std::to_string(psn) + " " + std::to_string(ack));
    }
    for (unsigned psn : {3u, 7u, 8u}) {
      want_scapy.insert("17 1 0 0 " + std::to_string(psn) + " icrc ok");
      want_tshark.insert(std::to_string(host) + " 17 0x000001 " + std::to_string(psn) + " 0");
    }
  }
  auto lines = [](const std::string& text) {
    std::multiset<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) out.insert(l);
    return out;
  };
  EXPECT_EQ(lines(test::command_output("/usr/bin/python3 " FLARESIM_SOURCE_DIR "/tb/net/roce_check.py '" +
                                       (dir / "e.pcapng") + "'")),
            want_scapy);
  EXPECT_EQ(lines(test::command_output("tshark -r '" + (dir / "e.pcapng") +
                                       "' -T fields -E separator=' ' -e frame.interface_id -e infiniband.bth.opcode "
                                       "-e infiniband.bth.destqp -e infiniband.bth.psn -e infiniband.bth.a 2>/dev/null")),
            want_tshark);
}

TEST(NetReduceE2e, TheVerilatedCrcEngineChecksAndStampsAsItsTwinDoes) {
  // --rtl crc32: the switch's parser checks, and its command unit stamps, every ICRC on the
  // Verilated icrc_engine; the run's stats are the SystemC twin's to the last count. (That the
  // network's switches do build the RTL blocks shows in the block's own refusal, named by switch.)
  ScratchDir dir;
  const std::string run = rack(3) + "--hosts.model netreduce --hosts.bytes 8KiB ";
  ASSERT_EQ(flaresim(run + "--stats twin.json", dir).code, 0);
  const CliResult r = flaresim(run + "--stats rtl.json --rtl crc32", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  auto twin = nlohmann::json::parse(slurp(dir / "twin.json")), rtl = nlohmann::json::parse(slurp(dir / "rtl.json"));
  twin.erase("wall_seconds"), rtl.erase("wall_seconds");
  EXPECT_EQ(rtl, twin);
  EXPECT_EQ(rtl["allreduce"]["results_ok"], true);
  const CliResult bad = flaresim(run + "--rtl cluster_sched --pspin.hpus_per_cluster 32", dir);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("switch leaf0: rtl cluster_sched: 32 HPUs in subsets of 32"), std::string::npos) << bad.err;
}

TEST(NetReduceE2e, TheRdmaRingBaselineSumsTheSameVectors) {
  ScratchDir dir;
  const CliResult r = flaresim(rack(4) + "--hosts.model roce_ring --hosts.bytes 20000 --stats s.json", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("allreduce        roce_ring: 4 hosts, 20000 bytes each, done in "), std::string::npos) << r.out;
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(s["allreduce"]["results_ok"], true);
  EXPECT_TRUE(s["network"]["per_switch"][0]["handler_outcomes"].empty()) << s["network"]["per_switch"][0];
}

TEST(NetReduceE2e, SetUpsItCannotRunAreRefused) {
  struct Case {
    std::string args, error;
  };
  for (const Case& c : {
           Case{rack(4) + "--hosts.model netreduce --netreduce.window 6",
                "netreduce.window: 6 is not a power of two (the switch finds message MsgID's aggregators at MsgID mod "
                "2N, and MsgID counts mod 256)"},
           Case{rack(4) + "--hosts.model netreduce --netreduce.window 64", "netreduce.window"},
           Case{rack(4) + "--hosts.model netreduce --netreduce.mtu 1022", "netreduce.mtu: 1022 is not a multiple of 4"},
           Case{rack(4) + "--hosts.model netreduce --hosts.groups 2",
                "hosts.groups: hosts.model netreduce runs one ring (hosts.groups 1), not 2"},
           Case{"run --hosts.model netreduce", "hosts.model = netreduce runs on a network"},
           Case{rack(4) + "--hosts.model netreduce --netreduce.window 32 --pspin.l2_handler_bytes 1MiB",
                "netreduce: the ring's state takes "},
       }) {
    ScratchDir dir;
    const CliResult r = flaresim(c.args + " --stats s.json", dir);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.error), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_FALSE(exists(dir / "s.json")) << c.args;
  }
}

}  // namespace
}  // namespace fs::test
