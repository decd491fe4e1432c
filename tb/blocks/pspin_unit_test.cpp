// Tests of the whole PsPIN unit (sc_model/pspin/pspin_unit and packet buffer, cluster, hpu, dma,
// retire, command unit) with the native Flare dense handler: results of a 2-host block at both
// hosts' egress sinks, hand-computed timing through an idle unit, task queueing when packets
// outnumber HPUs, the packet buffer emptying, hier-fcfs with S=1 keeping a block on one HPU, and
// a handler's DMA copy queueing behind a packet copy; and, with PsPIN's defaults, the NIC's write
// of a known packet into L2, its DMA copy, its handler and the feedback, on a timeline by hand.
#include "protocols/flare_dense/flare_setup.h"
#include "pspin/pspin_unit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>

#include "blocks/sc_testbench.h"
#include "fs_packet.h"
#include "net/frame.h"
#include "pspin/handler_sets.h"

namespace fs_tb {
namespace {

// The unit the Flare tests start from. 2 clusters x 2 HPUs at 0.5 GHz: one cycle = 2000 ps.
//   NIC write ceil(bytes/64) + 3 cycles (nic.*, per ingress port), scheduler 3 cycles, dispatch 2,
//   DMA 4 + ceil(bytes/16), handler 40 + ceil(0.3 * bytes), command unit 5 cycles, feedback 2.
//   Hosts on ports 0 and 1 (ranks 0, 1); 4 switch ports.
// A contribution of 4 int32 elements is 42 + 16 + 16 = 74 bytes:
//   NIC     ceil(74 / 64) = 2 + 3          =  5 cycles
//   DMA     ceil(74 / 16) = 5 + 4          =  9 cycles
//   handler 40 + ceil(0.3 * 74 = 22.2) = 63 cycles
constexpr Picos kCycle = 2000;

fs::Config base_config() {
  fs::Config cfg;
  cfg.hpu.model = fs::HpuModel::kNative;  // the timings below use the native cost model
  cfg.ports.count = 4;
  cfg.pspin.clusters = 2;
  cfg.pspin.hpus_per_cluster = 2;
  cfg.pspin.clock_ghz = 0.5;
  cfg.scheduler.latency_cycles = 3;
  cfg.pspin.dispatch_cycles = 2;
  cfg.dma.latency_cycles = 4;
  cfg.dma.bytes_per_cycle = 16;
  cfg.hpu.native_fixed_cycles = 40;
  cfg.hpu.native_cycles_per_byte = 0.3;
  cfg.command.latency_cycles = 5;
  cfg.nic.write_bytes_per_cycle = 64;
  cfg.nic.write_latency_cycles = 3;
  cfg.nic.feedback_cycles = 2;
  fs::flare_config(cfg).ports = "0-1";
  fs::flare_config(cfg).allreduce_id = 7;  // flare_frame's default
  return cfg;
}

struct UnitBench {
  fs::DropLedger drops;
  const int set = fs::find_handler_set("flare_dense");
  Script script{"script"};
  std::vector<std::unique_ptr<RecordingSink>> sinks;
  fs::PspinUnit unit;
  explicit UnitBench(const fs::Config& cfg) : unit("pspin", cfg, {fs::find_handler_set("flare_dense")}, drops) {
    for (unsigned p = 0; p < cfg.ports.count; ++p) {
      sinks.push_back(std::make_unique<RecordingSink>(("sink" + std::to_string(p)).c_str()));
      unit.command_unit().egress.bind(*sinks.back());
    }
  }
  // A contribution of int32 elements from rank `rank` on port `rank`, tagged as the parser would.
  fs::PacketPtr contribute(Picos t, uint32_t block, uint16_t rank, const std::vector<int32_t>& v) {
    fs::PacketPtr p = make_packet(flare_frame(block, rank, rank, FLARE_INT32, FLARE_OP_SUM, elems_of(v)), t, rank);
    p->handler_set = set;
    p->block_id = block;
    p->payload_offset = FLARE_PAYLOAD_OFFSET;
    script.at(t, [this, p]() { unit.in->accept(p); });
    return p;
  }
  // Result frames a sink got, with their block ids.
  static uint32_t block_of(const Arrival& a) { return flare_header_of(a.pkt->data).block_id; }
};

TEST(BlocksCluster, TwoHostBlockTimingAndResult) {
  quiet_systemc();
  // Rank 0 at t=0, rank 1 at t=1 us (the unit is idle again by then). Each packet:
  //   NIC 5 (written at 5) + scheduler 3 + dispatch 2 + DMA 9 + handler 63, plus one fs_dma_copy
  //   of 16 element bytes once the handler's cycles are over (DMA latency 4 + ceil(16 / 16) = 5
  //   cycles on the idle engine): handler 68, ending 87 cycles after the packet's arrival. The
  //   first copies its contribution into the block's buffer; the second, which completes the
  //   block, folds and has the result copied into its packet, then the command unit's 5 cycles
  //   (a native run's commands are issued when it ends): 92 after 1 us. The feedback: the first
  //   at 87 + 2 = 89, the second after its command, 92 + 2 = 94 after its arrival.
  UnitBench b(base_config());
  const Picos t2 = 1000000;
  fs::PacketPtr p1 = b.contribute(0, 0, 0, {1, 2, 3, 4});
  fs::PacketPtr p2 = b.contribute(t2, 0, 1, {10, 20, 30, 40});
  sc_core::sc_start();

  EXPECT_EQ(p1->unit_in, 0u);
  EXPECT_EQ(p1->written, 5 * kCycle);
  EXPECT_EQ(p1->fed_back, 89 * kCycle);
  EXPECT_EQ(p2->unit_in, t2);
  EXPECT_EQ(p2->written, t2 + 5 * kCycle);
  EXPECT_EQ(p2->fed_back, t2 + 94 * kCycle);
  for (unsigned port : {0u, 1u}) {
    ASSERT_EQ(b.sinks[port]->got.size(), 1u) << port;
    const Arrival& a = b.sinks[port]->got[0];
    EXPECT_EQ(a.time, t2 + 92 * kCycle) << port;  // 1184000 ps
    EXPECT_EQ(a.pkt->data.size(), 74u);
    EXPECT_EQ(flare_header_of(a.pkt->data).kind, FLARE_KIND_RESULT);
    EXPECT_EQ(flare_header_of(a.pkt->data).sender_rank, FLARE_RANK_SWITCH);
    EXPECT_EQ(elems_from<int32_t>(a.pkt->data), (std::vector<int32_t>{11, 22, 33, 44}));
    EXPECT_EQ(a.pkt->arrival, t2);  // result frames inherit the arrival of the packet that made them
    EXPECT_EQ(a.pkt->ingress_port, 1u);
  }
  EXPECT_TRUE(b.sinks[2]->got.empty());
  EXPECT_TRUE(b.sinks[3]->got.empty());

  const fs::HandlerSetStats& st = b.unit.handler_stats().at("flare_dense");
  EXPECT_EQ(st.runs, 2u);
  EXPECT_EQ(st.cycles.min(), 68u);
  EXPECT_EQ(st.cycles.max(), 68u);
  EXPECT_EQ(st.latency_ps.min(), 87 * kCycle);  // arrival to handler end, 174000 ps
  EXPECT_EQ(st.latency_ps.max(), 87 * kCycle);
  EXPECT_EQ(st.pspin_latency_ps.min(), 89 * kCycle);  // arrival at the unit to feedback
  EXPECT_EQ(st.pspin_latency_ps.max(), 94 * kCycle);
  EXPECT_EQ(st.outcomes.at("ok"), 1u);
  EXPECT_EQ(st.outcomes.at("result_sent"), 1u);
  EXPECT_EQ(b.unit.command_unit().multicasts, 1u);
  EXPECT_EQ(b.unit.command_unit().frames_out, 2u);
  // fcfs: first packet on cluster 0, the second (tie) on cluster 1.
  EXPECT_EQ(b.unit.scheduler().assigned(), (std::vector<uint64_t>{1, 1}));
  EXPECT_EQ(b.unit.clusters()[0]->dma().transfers, 2u);  // the packet, and its elements into the buffer
  EXPECT_EQ(b.unit.clusters()[0]->dma().bytes_moved, 74u + 16u);
  EXPECT_EQ(b.unit.clusters()[0]->hpus()[0]->handler_cycles, 68u);
  EXPECT_EQ(b.unit.clusters()[0]->hpus()[0]->occupied_ps, (2 + 9 + 68) * kCycle);  // dispatch to end
  EXPECT_EQ(b.unit.packet_buffer().used(), 0u);
  EXPECT_EQ(b.unit.packet_buffer().accepted, 2u);
  EXPECT_EQ(b.unit.packet_buffer().occupancy_bytes.max(), 74u);
  EXPECT_EQ(b.drops.total(), 0u);
}

TEST(BlocksCluster, MorePacketsThanHpusQueue) {
  quiet_systemc();
  // 10 packets at t=0: blocks 0..4, rank 0 then rank 1 of each, 2 int32 elements each, so
  // 42 + 16 + 8 = 66 bytes. This test's DMA moves 64 bytes a cycle: a packet copy takes
  // ceil(66/64) = 2 + 4 = 6 cycles, a handler's 8-byte copy (the first contribution into the
  // buffer, or the result into the packet) 4 + 1 = 5 after the handler's 40 + ceil(19.8) = 60.
  // The NIC writes each port's packets one after another, 2 cycles each, handing them on 3 after:
  // the rank-0 packets (port 0) of blocks 0..4 at 5, 7, 9, 11, 13, the rank-1 ones (port 1) too.
  // fcfs alternates clusters, so cluster 0 gets every rank-0 packet (blocks 0..4 in order) and
  // cluster 1 every rank-1 packet; every run has one 8-byte copy, so both clusters run alike.
  // Per cluster, in cycles: tasks arrive at 8, 10, 12, 14, 16 (scheduler 3); HPU0 and HPU1 take
  //   the first two, 3 tasks wait (queue max 3).
  //   8: HPU0 (block 0) copy asked for at 10: 10..12, done 16; handler 16..76, its copy 76..77,
  //      done 81: ends 81
  //   10: HPU1 (block 1) copy at 12: 12..14, done 18; handler ..78, copy 78..79: ends 83
  //   81: 3rd task, copy 83..85, done 89, handler ..149, copy 149..150, ends 154
  //   83: 4th task, copy 85..87, done 91, handler ..151, copy 151..152, ends 156
  //   154: 5th task, copy 156..158, done 162, handler ..222, copy 222..223, ends 227
  // Blocks 0..4 end at 81, 83, 154, 156, 227 in both clusters; results (+5 command unit) at 86,
  // 88, 159, 161, 232. Arrival-to-handler-end latencies: 2 x (81 + 83 + 154 + 156 + 227) = 1402
  // cycles over 10 runs: mean 140.2 cycles = 280400 ps.
  fs::Config cfg = base_config();
  cfg.dma.bytes_per_cycle = 64;
  UnitBench b(cfg);
  for (uint32_t blk = 0; blk < 5; ++blk) {
    b.contribute(0, blk, 0, {int32_t(blk), int32_t(2 * blk)});
    b.contribute(0, blk, 1, {100, 200});
  }
  sc_core::sc_start();

  std::map<uint32_t, Picos> result_at;
  for (unsigned port : {0u, 1u}) {
    ASSERT_EQ(b.sinks[port]->got.size(), 5u) << port;
    for (const Arrival& a : b.sinks[port]->got) {
      const uint32_t blk = UnitBench::block_of(a);
      const std::vector<int32_t> expect = {int32_t(blk) + 100, int32_t(2 * blk) + 200};
      EXPECT_EQ(elems_from<int32_t>(a.pkt->data), expect) << "block " << blk;
      if (port == 0) {
        result_at[blk] = a.time;
      } else {
        EXPECT_EQ(result_at[blk], a.time);  // both hosts get a result at the same time
      }
    }
  }
  ASSERT_EQ(result_at.size(), 5u);
  EXPECT_EQ(result_at[2], 159 * kCycle);
  EXPECT_EQ(result_at[3], 161 * kCycle);
  EXPECT_EQ(result_at[4], 232 * kCycle);
  EXPECT_EQ(result_at[0], 86 * kCycle);
  EXPECT_EQ(result_at[1], 88 * kCycle);

  const fs::HandlerSetStats& st = b.unit.handler_stats().at("flare_dense");
  EXPECT_EQ(st.runs, 10u);
  EXPECT_EQ(st.latency_ps.min(), 81 * kCycle);
  EXPECT_EQ(st.latency_ps.max(), 227 * kCycle);
  EXPECT_DOUBLE_EQ(st.latency_ps.mean(), 280400.0);
  for (int c = 0; c < 2; ++c) {
    const fs::Cluster& cl = *b.unit.clusters()[size_t(c)];
    EXPECT_EQ(cl.received, 5u);
    EXPECT_EQ(cl.queued.max(), 3u);
    EXPECT_EQ(cl.queued.level(), 0u);
    EXPECT_EQ(cl.hpus()[0]->tasks + cl.hpus()[1]->tasks, 5u);
    EXPECT_EQ(std::max(cl.hpus()[0]->tasks, cl.hpus()[1]->tasks), 3u);  // the first one free takes 3
  }
  EXPECT_EQ(b.unit.clusters()[0]->hpus()[0]->tasks + b.unit.clusters()[1]->hpus()[0]->tasks +
                b.unit.clusters()[0]->hpus()[1]->tasks + b.unit.clusters()[1]->hpus()[1]->tasks,
            10u);
  // All 10 packets (66 bytes each) were in the buffer at once, and all left.
  EXPECT_EQ(b.unit.packet_buffer().occupancy_packets.max(), 10u);
  EXPECT_EQ(b.unit.packet_buffer().occupancy_bytes.max(), 660u);
  EXPECT_EQ(b.unit.packet_buffer().used(), 0u);
  EXPECT_EQ(b.unit.packet_buffer().occupancy_packets.level(), 0u);
  EXPECT_EQ(b.drops.total(), 0u);
}

TEST(BlocksCluster, HierFcfsSubsetOfOneKeepsBlockOnOneHpu) {
  quiet_systemc();
  // hier-fcfs, S = 1: 2 clusters x 2 HPUs = 4 subsets; block b -> s = b % 4 -> cluster s % 2,
  // HPU s / 2. Block 6 -> s 2 -> cluster 0 HPU 1; block 3 -> cluster 1 HPU 1; block 5 -> s 1 ->
  // cluster 1 HPU 0. Four hosts (ports 0-3), each block gets 4 contributions at t=0.
  // Each host's NIC engine writes its 3 packets (blocks 6, 3, 5) one after another, 2 cycles
  //   each, handing them on 3 after: at 5, 7, 9; they reach the clusters at 8, 10, 12.
  // Cluster 0 runs only block 6, all on HPU 1, one after another (cycles, 74-byte packets):
  //   8 -> 10 DMA 10..15 -> 19 -> 82, then the first contribution's 16 bytes into the buffer by
  //   fs_dma_copy (4 + 1 = 5 cycles) -> 87; 87 -> 89 DMA 89..94 -> 98 -> 161 (a fold);
  //   161 -> 163 DMA ..168 -> 172 -> 235 (a fold); 235 -> 237 DMA ..242 -> 246 -> 309, plus the
  //   result's 16 bytes by fs_dma_copy -> 314; result at 319.
  fs::Config cfg = base_config();
  cfg.scheduler.policy = fs::SchedPolicy::kHierFcfs;
  cfg.scheduler.subset = 1;
  fs::flare_config(cfg).ports = "0-3";
  UnitBench b(cfg);
  for (uint16_t r = 0; r < 4; ++r)
    for (uint32_t blk : {6u, 3u, 5u}) b.contribute(0, blk, r, {int32_t(blk * 10 + r), 1, 2, 3});
  sc_core::sc_start();

  const auto& cl = b.unit.clusters();
  EXPECT_EQ(cl[0]->hpus()[0]->tasks, 0u);
  EXPECT_EQ(cl[0]->hpus()[1]->tasks, 4u);
  EXPECT_EQ(cl[1]->hpus()[0]->tasks, 4u);
  EXPECT_EQ(cl[1]->hpus()[1]->tasks, 4u);
  EXPECT_EQ(cl[0]->queued.max(), 3u);  // 4 tasks for one HPU
  EXPECT_EQ(cl[1]->queued.max(), 6u);  // 8 tasks, 2 running, 6 waiting in the two subset queues
  for (unsigned port = 0; port < 4; ++port) {
    ASSERT_EQ(b.sinks[port]->got.size(), 3u) << port;
    for (const Arrival& a : b.sinks[port]->got) {
      const uint32_t blk = UnitBench::block_of(a);
      // sum over ranks 0..3 of (10 * blk + r) = 40 * blk + 6; the other elements sum to 4, 8, 12
      EXPECT_EQ(elems_from<int32_t>(a.pkt->data), (std::vector<int32_t>{int32_t(40 * blk + 6), 4, 8, 12}));
      if (blk == 6) {
        EXPECT_EQ(a.time, 319 * kCycle);
      }
    }
  }
  EXPECT_EQ(b.unit.packet_buffer().used(), 0u);
  EXPECT_EQ(b.unit.handler_stats().at("flare_dense").outcomes.at("result_sent"), 3u);
  EXPECT_EQ(b.drops.total(), 0u);
}

TEST(BlocksCluster, HandlerDmaCopyQueuesBehindPacketCopies) {
  quiet_systemc();
  // One cluster of 2 HPUs; handlers cost only ceil(0.3 * bytes) cycles here (no fixed part).
  // At t=0: A = block 0 rank 0 (74 bytes, port 0) and C = block 1 rank 1 with 256 elements
  // (42 + 16 + 1024 = 1082 bytes, port 1: DMA ceil(1082 / 16) = 68 + 4 cycles); at 10 cycles
  // B = block 0 rank 1 (74 bytes, port 1). Each handler ends with one fs_dma_copy: a first
  // contribution's elements into the buffer, or the result into the packet (16 bytes: 1 + 4
  // cycles; 1024: 64 + 4).
  // In cycles:
  //   NIC: A written 0..2, handed on at 5; C 0..17 (ceil(1082 / 64)), at 20; B waits for C on
  //      port 1's engine: 17..19, at 22. They reach the cluster 3 later: A 8, C 23, B 25.
  //   8: HPU0 takes A; its copy asked for at 10: 10..15, done 19. 23: HPU1 takes C; copy asked
  //      for at 25: 25..93, done 97. 25: B arrives and waits.
  //   HPU0: A's handler 19..42 (ceil(22.2) = 23), then its 16 bytes into the buffer: the engine
  //      is moving C until 93, so they move 93..94, done 98 (56 cycles of waiting instead of 5):
  //      HPU0 ends 98. 98: B goes to HPU0, copy asked for at 100, 100..105, done 109; handler
  //      109..132 completes block 0; the result's 16 bytes 132..133, done 137: HPU0 ends 137,
  //      the result leaves the command unit at 142.
  //   HPU1: C's handler 97..422 (ceil(324.6) = 325), its 1024 bytes into the buffer 422..486,
  //      done 490: HPU1 ends 490.
  fs::Config cfg = base_config();
  cfg.pspin.clusters = 1;
  cfg.hpu.native_fixed_cycles = 0;
  UnitBench b(cfg);
  b.contribute(0, 0, 0, {1, 2, 3, 4});
  b.contribute(0, 1, 1, std::vector<int32_t>(256, 7));
  b.contribute(10 * kCycle, 0, 1, {10, 20, 30, 40});
  sc_core::sc_start();

  for (unsigned port : {0u, 1u}) {
    ASSERT_EQ(b.sinks[port]->got.size(), 1u) << port;
    EXPECT_EQ(b.sinks[port]->got[0].time, 142 * kCycle);
    EXPECT_EQ(elems_from<int32_t>(b.sinks[port]->got[0].pkt->data), (std::vector<int32_t>{11, 22, 33, 44}));
  }
  fs::Cluster& cl = *b.unit.clusters()[0];
  EXPECT_EQ(cl.hpus()[0]->tasks, 2u);
  EXPECT_EQ(cl.hpus()[1]->tasks, 1u);
  EXPECT_EQ(cl.hpus()[0]->handler_cycles, (23u + 56u) + (23u + 5u));
  EXPECT_EQ(cl.hpus()[1]->handler_cycles, 325u + 68u);
  EXPECT_EQ(cl.queued.max(), 1u);
  EXPECT_EQ(cl.dma().transfers, 6u);  // three packet copies and three handler copies
  EXPECT_EQ(cl.dma().bytes_moved, 74u + 1082u + 74u + 16u + 16u + 1024u);
  EXPECT_EQ(cl.dma().handler_transfers, 3u);
  EXPECT_EQ(cl.dma().handler_bytes, 16u + 16u + 1024u);
  const fs::HandlerSetStats& st = b.unit.handler_stats().at("flare_dense");
  EXPECT_EQ(st.counters.dma_bytes, 1056u);
  EXPECT_EQ(st.counters.dma_wait_cycles, 56u + 5u + 68u);
  EXPECT_EQ(st.latency_ps.max(), 490 * kCycle);
  // Blocks in flight: block 0 from A's start (19) to B's end (137); block 1 (one contribution of
  // two) from C's start (97) on, still open when C's run ends at 490: the average over 0..490 is
  // (118 + 393) / 490, at most 2 at once (97..137).
  const fs::HandlerSetStats::BlockOccupancy occ = st.block_occupancy(490 * kCycle);
  EXPECT_EQ(occ.completed, 1u);
  EXPECT_EQ(occ.open_at_end, 1u);
  EXPECT_EQ(occ.max_open, 2u);
  EXPECT_DOUBLE_EQ(occ.avg_open, (118.0 + 393.0) / 490.0);
  EXPECT_EQ(b.drops.total(), 0u);
}

// DMA and NIC timing of a known packet worked out by hand, with PsPIN's defaults (docs/
// ARCHITECTURE.md, "The NIC path") at 1 GHz, a cycle a nanosecond: one 1000-byte UDP frame on
// port 3 reaches the unit at t = 0 and the native pspin_pingpong handler sends it back.
//   NIC write: ceil(1000 / 64) = 16 beats, 0..16; its request goes on 3 later:      written   19
//   packet scheduler (1): the cluster has it at 20; the cluster scheduler asks for its copy
//     2 later (22); 16 beats and the DMA's 13: the copy is done and the handler starts at    51
//   handler: 40 + 1.0 x 1000 = 1040 cycles: it ends at                                    1091
//   its send (a native run's command is issued when it ends) is done 4 later: the frame
//     enters the egress queue at                                                          1095
//   the feedback waits for the command, then 2 cycles: it reaches the NIC, the packet's
//     L2 slot is free again and its latency as PsPIN measures it is                       1097
struct RunRecorder : fs::HandlerRunObserver {
  std::vector<fs::HandlerEvent> runs;
  void handler_ran(const fs::HandlerEvent& e) override { runs.push_back(e); }
};

TEST(BlocksCluster, DmaAndNicTimingOfAKnownPacketWorkedOutByHand) {
  quiet_systemc();
  fs::Config cfg;  // PsPIN's defaults
  cfg.hpu.model = fs::HpuModel::kNative;
  ASSERT_EQ(cfg.nic.write_bytes_per_cycle, 64u);
  ASSERT_EQ(cfg.nic.write_latency_cycles, 3u);
  ASSERT_EQ(cfg.nic.feedback_cycles, 2u);
  ASSERT_EQ(cfg.scheduler.latency_cycles, 1u);
  ASSERT_EQ(cfg.pspin.dispatch_cycles, 2u);
  ASSERT_EQ(cfg.dma.bytes_per_cycle, 64u);
  ASSERT_EQ(cfg.dma.latency_cycles, 13u);
  ASSERT_EQ(cfg.command.latency_cycles, 4u);
  constexpr Picos kNs = 1000;
  fs::DropLedger drops;
  const int set = fs::find_handler_set("pspin_pingpong");
  ASSERT_GE(set, 0);
  fs::PspinUnit unit("pspin", cfg, {set}, drops);
  std::vector<std::unique_ptr<RecordingSink>> sinks;
  for (unsigned p = 0; p < cfg.ports.count; ++p) {
    sinks.push_back(std::make_unique<RecordingSink>(("sink" + std::to_string(p)).c_str()));
    unit.command_unit().egress.bind(*sinks.back());
  }
  RunRecorder runs;
  unit.observe_handler_runs(&runs);
  uint8_t host[6], sw[6];
  fs_host_mac(3, host);
  fs_switch_mac(sw);
  const fs::Bytes payload(1000 - 42, 0x5A);
  fs::PacketPtr p = make_packet(
      fs::build_udp_frame(host, sw, fs_host_ipv4(3), FS_SWITCH_IPV4, 7000, 7001, payload.data(), payload.size()), 0, 3);
  ASSERT_EQ(p->data.size(), 1000u);
  p->handler_set = set;
  Script script("script");
  script.at(0, [&unit, p]() { unit.in->accept(p); });
  sc_core::sc_start();

  EXPECT_EQ(p->unit_in, 0u);
  EXPECT_EQ(p->written, 19 * kNs);
  ASSERT_EQ(runs.runs.size(), 1u);
  EXPECT_EQ(runs.runs[0].started, 51 * kNs);
  EXPECT_EQ(runs.runs[0].ended, 1091 * kNs);
  EXPECT_EQ(runs.runs[0].cycles, 1040u);
  ASSERT_EQ(sinks[3]->got.size(), 1u);
  EXPECT_EQ(sinks[3]->got[0].time, 1095 * kNs);
  EXPECT_EQ(p->fed_back, 1097 * kNs);
  const fs::HandlerSetStats& st = unit.handler_stats().at("pspin_pingpong");
  EXPECT_EQ(st.latency_ps.max(), 1091 * kNs);        // arrival to handler end
  EXPECT_EQ(st.pspin_latency_ps.max(), 1097 * kNs);  // arrival at the unit to feedback
  const fs::Dma& dma = unit.clusters()[0]->dma();
  EXPECT_EQ(dma.transfers, 1u);
  EXPECT_EQ(dma.busy_cycles, 16u);
  EXPECT_EQ(unit.packet_buffer().used(), 0u);
  EXPECT_EQ(unit.packet_buffer().occupancy_bytes.max(), 1000u);
  EXPECT_EQ(drops.total(), 0u);
}

}  // namespace
}  // namespace fs_tb
