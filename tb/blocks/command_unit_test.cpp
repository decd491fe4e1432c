// Tests of the PsPIN command unit (sc_model/pspin/command_unit): send, multicast and host-write
// commands carried out after the unit's latency, new frame ids, metadata inherited from the
// packet whose handler issued the command, and the counters.
#include "pspin/command_unit.h"

#include <gtest/gtest.h>

#include <memory>

#include "blocks/sc_testbench.h"

namespace fs_tb {
namespace {

using fs::HandlerCommand;

TEST(BlocksCommandUnit, SendMulticastHostWriteAfterLatency) {
  quiet_systemc();
  // Latency 4 cycles at 1 GHz: 4000 ps. At 1000 ps: a send to port 2 and a multicast to ports 0 and 3; at 1500 ps a
  // host write for the host on port 1. Frames reach the egress sinks at 5000 ps, the host write
  // is logged at 5500 ps. Frame ids count up from 2^48 in the order frames are made.
  Script script("script");
  std::vector<std::unique_ptr<RecordingSink>> sinks;
  fs::CommandConfig cfg;
  cfg.latency_cycles = 4;
  fs::CommandUnit cu("command_unit", cfg, fs::Clock::from_ghz(1.0));
  for (int p = 0; p < 4; ++p) {
    sinks.push_back(std::make_unique<RecordingSink>(("sink" + std::to_string(p)).c_str()));
    cu.egress.bind(*sinks.back());
  }
  fs::PacketPtr origin = make_packet(fs::Bytes(80, 1), 500, 1);
  origin->received = 700;
  const fs::Bytes d1(70, 0x11), d2(64, 0x22), d3 = {1, 2, 3};
  script.at(1000, [&]() {
    cu.issue(HandlerCommand{HandlerCommand::kSend, {2}, 0, d1}, origin);
    cu.issue(HandlerCommand{HandlerCommand::kMulticast, {0, 3}, 0, d2}, origin);
  });
  script.at(1500, [&]() { cu.issue(HandlerCommand{HandlerCommand::kHostWrite, {1}, 0x40, d3}, origin); });
  sc_core::sc_start();

  EXPECT_TRUE(sinks[1]->got.empty());
  ASSERT_EQ(sinks[2]->got.size(), 1u);
  const Arrival& s = sinks[2]->got[0];
  EXPECT_EQ(s.time, 5000u);
  EXPECT_EQ(s.pkt->data, d1);
  EXPECT_EQ(s.pkt->id, 1ull << 48);
  EXPECT_EQ(s.pkt->arrival, 500u);
  EXPECT_EQ(s.pkt->received, 700u);
  EXPECT_EQ(s.pkt->ingress_port, 1u);
  EXPECT_EQ(s.pkt->handler_set, -1);  // a new frame, not the handler's packet
  ASSERT_EQ(sinks[0]->got.size(), 1u);
  ASSERT_EQ(sinks[3]->got.size(), 1u);
  EXPECT_EQ(sinks[0]->got[0].time, 5000u);
  EXPECT_EQ(sinks[3]->got[0].time, 5000u);
  EXPECT_EQ(sinks[0]->got[0].pkt->data, d2);
  EXPECT_EQ(sinks[3]->got[0].pkt->data, d2);
  EXPECT_EQ(sinks[0]->got[0].pkt->id, (1ull << 48) + 1);
  EXPECT_EQ(sinks[3]->got[0].pkt->id, (1ull << 48) + 2);
  EXPECT_NE(sinks[0]->got[0].pkt, sinks[3]->got[0].pkt);  // each port gets its own copy

  ASSERT_EQ(cu.host_memory_writes.size(), 1u);
  ASSERT_EQ(cu.host_memory_writes.at(1).size(), 1u);
  const fs::HostWrite& w = cu.host_memory_writes.at(1)[0];
  EXPECT_EQ(w.time, 5500u);
  EXPECT_EQ(w.addr, 0x40u);
  EXPECT_EQ(w.data, d3);
  EXPECT_EQ(cu.sends, 1u);
  EXPECT_EQ(cu.multicasts, 1u);
  EXPECT_EQ(cu.frames_out, 3u);
  EXPECT_EQ(cu.host_writes, 1u);
}

}  // namespace
}  // namespace fs_tb
