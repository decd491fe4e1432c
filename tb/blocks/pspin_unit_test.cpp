// Tests of the whole PsPIN unit (sc_model/pspin/pspin_unit and cluster, hpu, dma, command unit)
// with the native Flare dense handler: results of a 2-host block at both hosts' egress sinks,
// hand-computed timing through an idle unit, task queueing when packets outnumber HPUs, the
// packet buffer emptying, hier-fcfs with S=1 keeping a block on one HPU, and a handler's DMA copy
// queueing behind a packet copy.
#include "protocols/flare_dense/flare_setup.h"
#include "pspin/pspin_unit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>

#include "blocks/sc_testbench.h"
#include "pspin/handler_sets.h"

namespace fs_tb {
namespace {

// The unit every test starts from. 2 clusters x 2 HPUs at 0.5 GHz: one cycle = 2000 ps.
//   scheduler 3 cycles, dispatch 2, DMA 4 + ceil(bytes/16), handler 40 + ceil(0.3 * bytes),
//   command unit 5 cycles. Hosts on ports 0 and 1 (ranks 0, 1); 4 switch ports.
// A contribution of 4 int32 elements is 42 + 16 + 16 = 74 bytes:
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
  void contribute(Picos t, uint32_t block, uint16_t rank, const std::vector<int32_t>& v) {
    fs::PacketPtr p = make_packet(flare_frame(block, rank, rank, FLARE_INT32, FLARE_OP_SUM, elems_of(v)), t, rank);
    p->handler_set = set;
    p->block_id = block;
    p->payload_offset = FLARE_PAYLOAD_OFFSET;
    script.at(t, [this, p]() { unit.in->accept(p); });
  }
  // Result frames a sink got, with their block ids.
  static uint32_t block_of(const Arrival& a) { return flare_header_of(a.pkt->data).block_id; }
};

TEST(BlocksCluster, TwoHostBlockTimingAndResult) {
  quiet_systemc();
  // Rank 0 at t=0, rank 1 at t=1 us (the unit is idle again by then). Each packet:
  //   scheduler 3 + dispatch 2 + DMA 9 + handler 63, plus one fs_dma_copy of 16 element bytes
  //   once the handler's cycles are over (DMA latency 4 + ceil(16 / 16) = 5 cycles on the idle
  //   engine): handler 68, ending 82 cycles after the packet's arrival. The first copies its
  //   contribution into the block's buffer; the second, which completes the block, folds and
  //   has the result copied into its packet, then the command unit's 5 cycles: 87 after 1 us.
  UnitBench b(base_config());
  const Picos t2 = 1000000;
  b.contribute(0, 0, 0, {1, 2, 3, 4});
  b.contribute(t2, 0, 1, {10, 20, 30, 40});
  sc_core::sc_start();

  for (unsigned port : {0u, 1u}) {
    ASSERT_EQ(b.sinks[port]->got.size(), 1u) << port;
    const Arrival& a = b.sinks[port]->got[0];
    EXPECT_EQ(a.time, t2 + 87 * kCycle) << port;  // 1174000 ps
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
  EXPECT_EQ(st.latency_ps.min(), 82 * kCycle);  // arrival to handler end, 164000 ps
  EXPECT_EQ(st.latency_ps.max(), 82 * kCycle);
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
  // (At 16 bytes a cycle a handler would ask for its copy at the very instant another HPU's next
  // packet copy is reserved, and which goes first would be the kernel's choice.)
  // fcfs alternates clusters, so cluster 0 gets every rank-0 packet (blocks 0..4 in order) and
  // cluster 1 every rank-1 packet; every run has one 8-byte copy, so both clusters run alike.
  // Per cluster, in cycles: 5 tasks arrive at 3; HPU0 and HPU1 start, 3 tasks wait (queue max 3).
  //   copies asked for at 5, reserved in dispatch order: HPU0 (block 0) 5..7 (done 11), HPU1
  //   (block 1) 7..9 (done 13)
  //   HPU0: handler 11..71, its copy 71..72, done 76: ends 76; HPU1: 13..73, copy 73..74, ends 78
  //   76: 3rd task, copy 78..80, done 84, handler ..144, copy 144..145, ends 149
  //   78: 4th task, copy 80..82, done 86, handler ..146, copy 146..147, ends 151
  //   149: 5th task, copy 151..153, done 157, handler ..217, copy 217..218, ends 222
  // Blocks 0..4 end at 76, 78, 149, 151, 222 in both clusters; results (+5 command unit) at 81,
  // 83, 154, 156, 227. Arrival-to-handler-end latencies: 2 x (76 + 78 + 149 + 151 + 222) = 1352
  // cycles over 10 runs: mean 135.2 cycles = 270400 ps.
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
  EXPECT_EQ(result_at[2], 154 * kCycle);
  EXPECT_EQ(result_at[3], 156 * kCycle);
  EXPECT_EQ(result_at[4], 227 * kCycle);
  EXPECT_EQ(result_at[0], 81 * kCycle);
  EXPECT_EQ(result_at[1], 83 * kCycle);

  const fs::HandlerSetStats& st = b.unit.handler_stats().at("flare_dense");
  EXPECT_EQ(st.runs, 10u);
  EXPECT_EQ(st.latency_ps.min(), 76 * kCycle);
  EXPECT_EQ(st.latency_ps.max(), 222 * kCycle);
  EXPECT_DOUBLE_EQ(st.latency_ps.mean(), 270400.0);
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
  // Cluster 0 runs only block 6, all on HPU 1, one after another (cycles, 74-byte packets):
  //   3 -> 5 DMA 5..10 -> 14 -> 77, then the first contribution's 16 bytes into the buffer by
  //   fs_dma_copy (4 + 1 = 5 cycles) -> 82; 82 -> 84 DMA 84..89 -> 93 -> 156 (a fold);
  //   156 -> 158 DMA ..163 -> 167 -> 230 (a fold); 230 -> 232 DMA ..237 -> 241 -> 304, plus the
  //   result's 16 bytes by fs_dma_copy -> 309; result at 314.
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
        EXPECT_EQ(a.time, 314 * kCycle);
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
  // At t=0: A = block 0 rank 0 (74 bytes) and C = block 1 rank 0 with 256 elements
  // (42 + 16 + 1024 = 1082 bytes: DMA ceil(1082 / 16) = 68 + 4 cycles); at 10 cycles B = block 0
  // rank 1 (74 bytes). Each handler ends with one fs_dma_copy: a first contribution's elements
  // into the buffer, or the result into the packet (16 bytes: 1 + 4 cycles; 1024: 64 + 4).
  // In cycles:
  //   3: A and C reach the cluster; HPU0 takes A, HPU1 takes C. Copies asked for at 5: A 5..10
  //      (done 14), C 10..78 (done 82). 13: B arrives and waits.
  //   HPU0: A's handler 14..37 (ceil(22.2) = 23), then its 16 bytes into the buffer: the engine
  //      is moving C until 78, so they move 78..79, done 83 (46 cycles of waiting instead of 5):
  //      HPU0 ends 83. 83: B goes to HPU0, copy asked for at 85, 85..90, done 94; handler
  //      94..117 completes block 0; the result's 16 bytes 117..118, done 122: HPU0 ends 122,
  //      the result leaves the command unit at 127.
  //   HPU1: C's handler 82..407 (ceil(324.6) = 325), its 1024 bytes into the buffer 407..471,
  //      done 475: HPU1 ends 475.
  fs::Config cfg = base_config();
  cfg.pspin.clusters = 1;
  cfg.hpu.native_fixed_cycles = 0;
  UnitBench b(cfg);
  b.contribute(0, 0, 0, {1, 2, 3, 4});
  b.contribute(0, 1, 0, std::vector<int32_t>(256, 7));
  b.contribute(10 * kCycle, 0, 1, {10, 20, 30, 40});
  sc_core::sc_start();

  for (unsigned port : {0u, 1u}) {
    ASSERT_EQ(b.sinks[port]->got.size(), 1u) << port;
    EXPECT_EQ(b.sinks[port]->got[0].time, 127 * kCycle);
    EXPECT_EQ(elems_from<int32_t>(b.sinks[port]->got[0].pkt->data), (std::vector<int32_t>{11, 22, 33, 44}));
  }
  fs::Cluster& cl = *b.unit.clusters()[0];
  EXPECT_EQ(cl.hpus()[0]->tasks, 2u);
  EXPECT_EQ(cl.hpus()[1]->tasks, 1u);
  EXPECT_EQ(cl.hpus()[0]->handler_cycles, (23u + 46u) + (23u + 5u));
  EXPECT_EQ(cl.hpus()[1]->handler_cycles, 325u + 68u);
  EXPECT_EQ(cl.queued.max(), 1u);
  EXPECT_EQ(cl.dma().transfers, 6u);  // three packet copies and three handler copies
  EXPECT_EQ(cl.dma().bytes_moved, 74u + 1082u + 74u + 16u + 16u + 1024u);
  EXPECT_EQ(cl.dma().handler_transfers, 3u);
  EXPECT_EQ(cl.dma().handler_bytes, 16u + 16u + 1024u);
  const fs::HandlerSetStats& st = b.unit.handler_stats().at("flare_dense");
  EXPECT_EQ(st.counters.dma_bytes, 1056u);
  EXPECT_EQ(st.counters.dma_wait_cycles, 46u + 5u + 68u);
  EXPECT_EQ(st.latency_ps.max(), 475 * kCycle);
  // Blocks in flight: block 0 from A's start (14) to B's end (122); block 1 (one contribution of
  // two) from C's start (82) on, still open when the run ends at 475: the average over 0..475 is
  // (108 + 393) / 475, at most 2 at once (82..122).
  const fs::HandlerSetStats::BlockOccupancy occ = st.block_occupancy(475 * kCycle);
  EXPECT_EQ(occ.completed, 1u);
  EXPECT_EQ(occ.open_at_end, 1u);
  EXPECT_EQ(occ.max_open, 2u);
  EXPECT_DOUBLE_EQ(occ.avg_open, (108.0 + 393.0) / 475.0);
  EXPECT_EQ(b.drops.total(), 0u);
}

}  // namespace
}  // namespace fs_tb
