// Tests of the PsPIN command path (sc_model/pspin/command_unit): send, multicast and host-write
// commands carried out after the unit's latency, new frame ids, metadata inherited from the
// packet whose handler issued the command, the counters, and each HPU's command slots: an HPU
// with every slot held waits at the issue for its oldest command, other HPUs do not, and a
// command issued ahead of the kernel's time (an HPU running ahead) is carried out at its time;
// RoCEv2 frames stamped with their ICRC on the unit's CRC engine, a frame at a time, and sent
// when it is done, other frames not held; with command.icrc off, sent as they are.
#include "pspin/command_unit.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "blocks/sc_testbench.h"
#include "net/icrc.h"
#include "protocols/netreduce/roce_frame.h"

namespace fs_tb {
namespace {

using fs::HandlerCommand;

// A recording sink on each of the unit's first `ports` egress ports, in port order.
std::vector<std::unique_ptr<RecordingSink>> bind_sinks(fs::CommandUnit& cu, int ports) {
  std::vector<std::unique_ptr<RecordingSink>> sinks;
  for (int p = 0; p < ports; ++p) {
    sinks.push_back(std::make_unique<RecordingSink>(("sink" + std::to_string(p)).c_str()));
    cu.egress.bind(*sinks.back());
  }
  return sinks;
}

TEST(BlocksCommandUnit, SendMulticastHostWriteAfterLatency) {
  quiet_systemc();
  // Latency 4 cycles at 1 GHz: 4000 ps. At 1000 ps: a send to port 2 and a multicast to ports 0 and 3; at 1500 ps a
  // host write for the host on port 1. Frames reach the egress sinks at 5000 ps, the host write
  // is logged at 5500 ps. Frame ids count up from 2^48 in the order frames are made.
  Script script("script");
  fs::CommandConfig cfg;
  cfg.latency_cycles = 4;
  // A CRC engine that RoCEv2 frames would go through: these are not RoCEv2, so they do not.
  fs::CommandUnit cu("command_unit", cfg, fs::Clock::from_ghz(1.0), std::make_unique<fs::IcrcEngineModel>(8));
  const auto sinks = bind_sinks(cu, 4);
  fs::PacketPtr origin = make_packet(fs::Bytes(80, 1), 500, 1);
  origin->received = 700;
  const fs::Bytes d1(70, 0x11), d2(64, 0x22), d3 = {1, 2, 3};
  std::vector<Picos> went;  // when each command went (the HPU has 4 slots: none waits)
  script.at(1000, [&]() {
    went.push_back(cu.issue(0, 0, 1000, HandlerCommand{HandlerCommand::kSend, {2}, 0, d1}, origin));
    went.push_back(cu.issue(0, 0, 1000, HandlerCommand{HandlerCommand::kMulticast, {0, 3}, 0, d2}, origin));
  });
  script.at(1500, [&]() {
    went.push_back(cu.issue(0, 0, 1500, HandlerCommand{HandlerCommand::kHostWrite, {1}, 0x40, d3}, origin));
  });
  sc_core::sc_start();

  EXPECT_EQ(went, (std::vector<Picos>{1000, 1000, 1500}));
  EXPECT_EQ(cu.done_at(0, 0), 5500u);  // the host write, the last
  EXPECT_EQ(cu.done_at(0, 1), 0u);     // an HPU that issued nothing
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

TEST(BlocksCommandUnit, AnHpuWithEverySlotHeldWaitsForItsOldestCommand) {
  quiet_systemc();
  // command.per_hpu 2, latency 4 cycles at 1 GHz (4000 ps); every command a send to port 0 with
  // its own byte, so the sink's order shows when each was done.
  //   HPU (0,0) issues A at 1000 (done 5000) and B at 2000 (done 6000): its two slots are held.
  //   C at 3000 waits for A: goes at 5000, done 9000. D at 4000 waits for B (C holds the other
  //   slot): goes at 6000, done 10000.
  //   HPU (0,1) issues E at 3000: its own slots are free, it goes at once, done 7000.
  //   HPU (1,0), running ahead of the kernel, issues F for 8000 at kernel time 1000: done 12000.
  // The sink gets A B E C D F at 5, 6, 7, 9, 10, 12 ns.
  Script script("script");
  RecordingSink sink("sink");
  fs::CommandConfig cfg;
  cfg.latency_cycles = 4;
  cfg.per_hpu = 2;
  fs::CommandUnit cu("command_unit", cfg, fs::Clock::from_ghz(1.0), nullptr);
  cu.egress.bind(sink);
  fs::PacketPtr origin = make_packet(fs::Bytes(64, 1), 0, 0);
  std::map<char, Picos> went;
  auto issue = [&](unsigned cluster, unsigned hpu, Picos at, char name) {
    went[name] = cu.issue(cluster, hpu, at, HandlerCommand{HandlerCommand::kSend, {0}, 0, {uint8_t(name)}}, origin);
  };
  script.at(1000, [&]() {
    issue(0, 0, 1000, 'A');
    issue(1, 0, 8000, 'F');
  });
  script.at(2000, [&]() { issue(0, 0, 2000, 'B'); });
  script.at(3000, [&]() {
    issue(0, 0, 3000, 'C');
    issue(0, 1, 3000, 'E');
  });
  script.at(4000, [&]() { issue(0, 0, 4000, 'D'); });
  sc_core::sc_start();

  EXPECT_EQ(went, (std::map<char, Picos>{{'A', 1000}, {'B', 2000}, {'C', 5000}, {'D', 6000}, {'E', 3000}, {'F', 8000}}));
  std::vector<std::pair<char, Picos>> order;
  for (const Arrival& a : sink.got) order.emplace_back(char(a.pkt->data.at(0)), a.time);
  EXPECT_EQ(order, (std::vector<std::pair<char, Picos>>{
                       {'A', 5000}, {'B', 6000}, {'E', 7000}, {'C', 9000}, {'D', 10000}, {'F', 12000}}));
  EXPECT_EQ(cu.done_at(0, 0), 10000u);
  EXPECT_EQ(cu.done_at(0, 1), 7000u);
  EXPECT_EQ(cu.done_at(1, 0), 12000u);
}

// A RoCEv2 write of `payload` bytes whose ICRC bytes are zero (as a handler leaves a frame whose
// payload it changed).
fs::Bytes roce_frame_without_icrc(size_t payload) {
  fs::RocePacket p;
  p.bth.opcode = ROCE_RC_WRITE_MIDDLE;
  p.bth.dest_qp = 5;
  p.payload.assign(payload, 0x5A);
  fs::Bytes f = fs::build_roce_frame(p, 0, fs_host_ipv4(1), 0xC000);
  std::fill(f.end() - 4, f.end(), 0);
  return f;
}

TEST(BlocksCommandUnit, RoceFramesAreStampedOnTheirPortsCrcEngineAFrameAtATime) {
  quiet_systemc();
  // Latency 4 cycles at 1 GHz. At 1000 ps: a send of a 1014-byte RoCEv2 frame to port 0 (the
  // engine takes 8 prefix bytes and the 996 from the IPv4 header to the ICRC: 1004 bytes, 126
  // beats of 8), a multicast of a 62-byte one to ports 1 and 2 (8 + 44 = 52 bytes, 7 beats), a
  // send of a plain frame to port 2 and one of another 62-byte RoCEv2 frame to port 0. All are
  // done at 5000. Port 0's engine stamps the first from 5000 to 131000 and the last, which waits
  // for it, to 138000; port 1's engine (the multicast's first port) stamps the multicast from
  // 5000 to 12000 (one copy per port, both then); the plain frame goes at 5000.
  Script script("script");
  fs::CommandConfig cfg;
  cfg.latency_cycles = 4;
  fs::CommandUnit cu("command_unit", cfg, fs::Clock::from_ghz(1.0), std::make_unique<fs::IcrcEngineModel>(8));
  const auto sinks = bind_sinks(cu, 3);
  fs::PacketPtr origin = make_packet(fs::Bytes(64, 1), 0, 0);
  const fs::Bytes big = roce_frame_without_icrc(956), small = roce_frame_without_icrc(4), plain(80, 0x33);
  ASSERT_EQ(big.size(), 1014u);
  ASSERT_EQ(small.size(), 62u);
  script.at(1000, [&]() {
    cu.issue(0, 0, 1000, HandlerCommand{HandlerCommand::kSend, {0}, 0, big}, origin);
    cu.issue(0, 1, 1000, HandlerCommand{HandlerCommand::kMulticast, {1, 2}, 0, small}, origin);
    cu.issue(0, 2, 1000, HandlerCommand{HandlerCommand::kSend, {2}, 0, plain}, origin);
    cu.issue(0, 3, 1000, HandlerCommand{HandlerCommand::kSend, {0}, 0, small}, origin);
  });
  sc_core::sc_start();
  ASSERT_EQ(sinks[0]->got.size(), 2u);
  ASSERT_EQ(sinks[1]->got.size(), 1u);
  ASSERT_EQ(sinks[2]->got.size(), 2u);
  EXPECT_EQ(sinks[0]->got[0].time, 131000u);
  EXPECT_EQ(sinks[0]->got[1].time, 138000u);
  EXPECT_EQ(sinks[1]->got[0].time, 12000u);
  EXPECT_EQ(sinks[2]->got[0].time, 5000u);
  EXPECT_EQ(sinks[2]->got[0].pkt->data, plain);
  EXPECT_EQ(sinks[2]->got[1].time, 12000u);
  for (const auto& [got, sent] : {std::pair{&sinks[0]->got[0], &big}, std::pair{&sinks[0]->got[1], &small},
                                  std::pair{&sinks[1]->got[0], &small}, std::pair{&sinks[2]->got[1], &small}}) {
    const fs::Bytes& f = got->pkt->data;
    EXPECT_EQ(fs::carried_icrc(f.data(), f.size()), fs::roce_icrc(f.data(), f.size()));  // the software reference's
    EXPECT_TRUE(std::equal(f.begin(), f.end() - 4, sent->begin()));  // nothing else changed
  }
  EXPECT_EQ(cu.icrc_stamped, 3u);
  EXPECT_EQ(cu.icrc_engine_cycles, 140u);
  EXPECT_EQ(cu.icrc_wait_ps, 126000u + 7000u + 133000u);  // from 5000: 126 ns, 7 ns, and 133 for the last
}

TEST(BlocksCommandUnit, WithoutTheEngineRoceFramesGoAsTheyAre) {
  quiet_systemc();
  RecordingSink sink("sink");
  fs::CommandConfig cfg;
  cfg.latency_cycles = 4;
  fs::CommandUnit cu("command_unit", cfg, fs::Clock::from_ghz(1.0), nullptr);
  cu.egress.bind(sink);
  Script script("script");
  const fs::Bytes f = roce_frame_without_icrc(100);
  script.at(0, [&]() { cu.issue(0, 0, 0, HandlerCommand{HandlerCommand::kSend, {0}, 0, f}, make_packet(f, 0, 0)); });
  sc_core::sc_start();
  ASSERT_EQ(sink.got.size(), 1u);
  EXPECT_EQ(sink.got[0].time, 4000u);
  EXPECT_EQ(sink.got[0].pkt->data, f);
  EXPECT_EQ(cu.icrc_stamped, 0u);
}

}  // namespace
}  // namespace fs_tb
