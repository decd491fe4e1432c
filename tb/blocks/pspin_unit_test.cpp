// Tests of the whole PsPIN unit (sc_model/pspin/pspin_unit and cluster, hpu, dma, command unit)
// with the native Flare dense handler: results of a 2-host block at both hosts' egress sinks,
// hand-computed timing through an idle unit, task queueing when packets outnumber HPUs, the
// packet buffer emptying, hier-fcfs with S=1 keeping a block on one HPU, and a handler's DMA copy
// queueing behind a packet copy.
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
  cfg.hpu.model = "native";  // the timings below use the native cost model
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
  cfg.flare.ports = "0-1";
  cfg.flare.allreduce_id = 7;  // flare_frame's default
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
  //   scheduler 3 + dispatch 2 + DMA 9 + handler 63 = 77 cycles to its handler's end;
  //   the second one completes the block: its handler also has the result's 16 element bytes
  //   copied by fs_dma_copy (DMA latency 4 + ceil(16 / 16) = 5 cycles: handler 68, ends at 82),
  //   then the command unit's 5 cycles: 87 cycles after 1 us.
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
  EXPECT_EQ(st.cycles.min(), 63u);
  EXPECT_EQ(st.cycles.max(), 68u);
  EXPECT_EQ(st.latency_ps.min(), 77 * kCycle);  // arrival to handler end, 154000 ps
  EXPECT_EQ(st.latency_ps.max(), 82 * kCycle);
  EXPECT_EQ(st.outcomes.at("ok"), 1u);
  EXPECT_EQ(st.outcomes.at("result_sent"), 1u);
  EXPECT_EQ(b.unit.command_unit().multicasts, 1u);
  EXPECT_EQ(b.unit.command_unit().frames_out, 2u);
  // fcfs: first packet on cluster 0, the second (tie) on cluster 1.
  EXPECT_EQ(b.unit.scheduler().assigned(), (std::vector<uint64_t>{1, 1}));
  EXPECT_EQ(b.unit.clusters()[0]->dma().transfers, 1u);
  EXPECT_EQ(b.unit.clusters()[0]->dma().bytes_moved, 74u);
  EXPECT_EQ(b.unit.clusters()[0]->hpus()[0]->handler_cycles, 63u);
  EXPECT_EQ(b.unit.clusters()[0]->hpus()[0]->occupied_ps, (2 + 9 + 63) * kCycle);  // dispatch to end
  EXPECT_EQ(b.unit.packet_buffer().used(), 0u);
  EXPECT_EQ(b.unit.packet_buffer().accepted, 2u);
  EXPECT_EQ(b.unit.packet_buffer().occupancy_bytes.max(), 74u);
  EXPECT_EQ(b.drops.total(), 0u);
}

TEST(BlocksCluster, MorePacketsThanHpusQueue) {
  quiet_systemc();
  // 10 packets at t=0: blocks 0..4, rank 0 then rank 1 of each, 2 int32 elements each, so
  // 42 + 16 + 8 = 66 bytes: DMA ceil(66/16) = 5 + 4 = 9 cycles, handler 40 + ceil(19.8) = 60.
  // fcfs alternates clusters, so cluster 0 gets every rank-0 packet (blocks 0..4 in order) and
  // cluster 1 every rank-1 packet. Per cluster, in cycles: 5 tasks arrive at 3; HPU0 and HPU1
  // start, 3 tasks wait (queue max 3).
  //   both HPUs ask the DMA at 5, reserved in dispatch order: HPU0 (block 0) copies 5..10
  //   (done 14), HPU1 (block 1) 10..15 (done 19); handlers end at 14+60 = 74 and 19+60 = 79
  //   74: 3rd task, DMA 76..81, done 85, ends 145;  79: 4th task, DMA 81..86, done 90, ends 150
  //   145: 5th task, DMA 147..152, done 156, ends 216
  // The run that completes a block also has the 8 result bytes copied by fs_dma_copy (4 + 1 = 5
  // cycles: handler 65). Both clusters' runs of block b start at the same instant; the kernel
  // runs cluster 1's second, so cluster 1's runs complete the blocks and shift by 5 each:
  //   cluster 0 ends: 74, 79, 145, 150, 216 (as above)
  //   cluster 1: ends 79 (block 0) and 84 (block 1); 79: 3rd task, DMA 81..86, done 90, ends
  //   155; 84: 4th task, DMA 86..91, done 95, ends 160; 155: 5th task, DMA 157..162, done 166,
  //   ends 231.
  // Results (+5 command unit): blocks 0..4 at 84, 89, 160, 165, 236. Arrival-to-handler-end
  // latencies: (74 + 79 + 145 + 150 + 216) + (79 + 84 + 155 + 160 + 231) = 664 + 709 = 1373
  // cycles over 10 runs: mean 137.3 cycles = 274600 ps.
  UnitBench b(base_config());
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
  EXPECT_EQ(result_at[2], 160 * kCycle);
  EXPECT_EQ(result_at[3], 165 * kCycle);
  EXPECT_EQ(result_at[4], 236 * kCycle);
  EXPECT_EQ(result_at[0], 84 * kCycle);
  EXPECT_EQ(result_at[1], 89 * kCycle);

  const fs::HandlerSetStats& st = b.unit.handler_stats().at("flare_dense");
  EXPECT_EQ(st.runs, 10u);
  EXPECT_EQ(st.latency_ps.min(), 74 * kCycle);
  EXPECT_EQ(st.latency_ps.max(), 231 * kCycle);
  EXPECT_DOUBLE_EQ(st.latency_ps.mean(), 274600.0);
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
  //   3 -> 5 DMA 5..10 -> 14 -> 77; 77 -> 79 DMA 79..84 -> 88 -> 151;
  //   151 -> 153 DMA ..158 -> 162 -> 225; 225 -> 227 DMA ..232 -> 236 -> 299, plus the result's
  //   16 bytes by fs_dma_copy (4 + 1 = 5 cycles) -> 304; result at 309.
  fs::Config cfg = base_config();
  cfg.scheduler.policy = "hier-fcfs";
  cfg.scheduler.subset = 1;
  cfg.flare.ports = "0-3";
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
        EXPECT_EQ(a.time, 309 * kCycle);
      }
    }
  }
  EXPECT_EQ(b.unit.packet_buffer().used(), 0u);
  EXPECT_EQ(b.unit.handler_stats().at("flare_dense").outcomes.at("result_sent"), 3u);
  EXPECT_EQ(b.drops.total(), 0u);
}

TEST(BlocksCluster, HandlerDmaCopyQueuesBehindPacketCopies) {
  quiet_systemc();
  // One cluster of 2 HPUs. At t=0: block 0 rank 0 and rank 1 (74 bytes each), then block 1 rank 0
  // with 256 elements (42 + 16 + 1024 = 1082 bytes: DMA ceil(1082 / 16) = 68 + 4 cycles, handler
  // 40 + ceil(324.6) = 365 cycles). In cycles:
  //   3: all three reach the cluster; HPU0 takes block 0 rank 0, HPU1 block 0 rank 1, the third
  //      waits. Both copies are asked for at 5: HPU0 5..10 (done 14), HPU1 10..15 (done 19).
  //   HPU0: handler 14..77 (first contribution). 77: the waiting task goes to HPU0; its copy is
  //      asked for at 79 and moves 79..147 (done 151); handler 151..516.
  //   HPU1: handler from 19 completes block 0 after its 63 cycles, at 82, and asks the DMA to copy
  //      the 16 result bytes: the engine is busy until 147, so the copy moves 147..148 and is done
  //      at 152 (70 cycles of waiting instead of 5 on an idle engine). HPU1 ends at 152, the
  //      result leaves the command unit at 157.
  fs::Config cfg = base_config();
  cfg.pspin.clusters = 1;
  UnitBench b(cfg);
  b.contribute(0, 0, 0, {1, 2, 3, 4});
  b.contribute(0, 0, 1, {10, 20, 30, 40});
  b.contribute(0, 1, 0, std::vector<int32_t>(256, 7));
  sc_core::sc_start();

  for (unsigned port : {0u, 1u}) {
    ASSERT_EQ(b.sinks[port]->got.size(), 1u) << port;
    EXPECT_EQ(b.sinks[port]->got[0].time, 157 * kCycle);
    EXPECT_EQ(elems_from<int32_t>(b.sinks[port]->got[0].pkt->data), (std::vector<int32_t>{11, 22, 33, 44}));
  }
  fs::Cluster& cl = *b.unit.clusters()[0];
  EXPECT_EQ(cl.hpus()[0]->tasks, 2u);
  EXPECT_EQ(cl.hpus()[1]->tasks, 1u);
  EXPECT_EQ(cl.hpus()[0]->handler_cycles, 63u + 365u);
  EXPECT_EQ(cl.hpus()[1]->handler_cycles, 63u + 70u);
  EXPECT_EQ(cl.dma().transfers, 4u);  // three packet copies and the result copy
  EXPECT_EQ(cl.dma().bytes_moved, 74u + 74u + 1082u + 16u);
  EXPECT_EQ(cl.dma().handler_transfers, 1u);
  EXPECT_EQ(cl.dma().handler_bytes, 16u);
  const fs::HandlerSetStats& st = b.unit.handler_stats().at("flare_dense");
  EXPECT_EQ(st.counters.dma_bytes, 16u);
  EXPECT_EQ(st.counters.dma_wait_cycles, 70u);
  EXPECT_EQ(st.latency_ps.max(), 516 * kCycle);
  // Blocks in flight: block 0 from its first run's start (14) to its completion (152); block 1
  // (one contribution of two) from 151 on, still open when the run ends at 516: the average over
  // 0..516 is (138 + 365) / 516, at most 2 at once (151..152).
  const fs::HandlerSetStats::BlockOccupancy occ = st.block_occupancy(516 * kCycle);
  EXPECT_EQ(occ.completed, 1u);
  EXPECT_EQ(occ.open_at_end, 1u);
  EXPECT_EQ(occ.max_open, 2u);
  EXPECT_DOUBLE_EQ(occ.avg_open, (138.0 + 365.0) / 516.0);
  EXPECT_EQ(b.drops.total(), 0u);
}

}  // namespace
}  // namespace fs_tb
