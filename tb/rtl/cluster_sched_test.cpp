// The cluster scheduler's RTL (rtl/cluster_sched.sv, Verilated) against its C++ model in
// lockstep: random transactions under several shapes (fcfs, hier-fcfs subsets, tiny FIFOs that
// fill up), then directed cases worked out by hand (every HPU busy, a full FIFO's back-pressure,
// a task pushed and started in one cycle, a freed HPU taking the waiting task, reset).
#include <gtest/gtest.h>

#include <random>

#include "cores/cluster_sched_core.h"
#include "rtl_bridge/cluster_sched_rtl.h"
#include "rtl_bridge/rtl_context.h"

namespace fs {
namespace {

ClusterSchedConfig config(unsigned hpus, unsigned subset_size, unsigned depth) {
  ClusterSchedConfig c;
  c.hpus = hpus;
  c.subset_size = subset_size;
  c.depth = depth;
  return c;
}

std::string show(const ClusterSchedOut& o) {
  return "ready " + std::to_string(o.push_ready) + " disp " + std::to_string(o.disp_valid) + " hpu " +
         std::to_string(o.disp_hpu) + " tag " + std::to_string(o.disp_tag) + " busy " + std::to_string(o.busy);
}

ClusterSchedIn push(unsigned subset, unsigned tag) {
  ClusterSchedIn in;
  in.push_valid = true;
  in.push_subset = uint16_t(subset);
  in.push_tag = uint16_t(tag);
  return in;
}

ClusterSchedIn free_hpu(unsigned hpu) {
  ClusterSchedIn in;
  in.free_valid = true;
  in.free_hpu = uint16_t(hpu);
  return in;
}

TEST(RtlClusterSched, LockstepWithTheModelOnRandomTransactions) {
  RtlContext rtl;
  ClusterSchedRtl hw(rtl, "cluster_sched");
  ClusterSchedModel model;
  std::mt19937_64 rng(777);
  uint64_t dispatches = 0, refused = 0, transactions = 0;
  const ClusterSchedConfig configs[] = {config(8, 8, 1024), config(8, 1, 4),  config(8, 2, 3),  config(16, 4, 2),
                                        config(16, 16, 1), config(1, 1, 5),   config(6, 3, 1024), config(8, 8, 2)};
  for (const ClusterSchedConfig& c : configs) {
    hw.reset(c);
    model.reset(c);
    const unsigned subsets = c.hpus / c.subset_size;
    for (int n = 0; n < 15000; ++n, ++transactions) {
      ClusterSchedIn in;
      const unsigned r = unsigned(rng() % 10);
      in.push_valid = r < 5;
      in.push_subset = uint16_t(rng() % 32 == 0 ? rng() % 20 : rng() % subsets);  // sometimes no such subset
      in.push_tag = uint16_t(rng());
      in.free_valid = r >= 4;
      in.free_hpu = uint16_t(rng() % 32 == 0 ? rng() % 20 : rng() % c.hpus);
      const ClusterSchedOut want = model.tick(in);
      const ClusterSchedOut got = hw.tick(in);
      ASSERT_EQ(got, want) << "config " << c.hpus << "/" << c.subset_size << "/" << c.depth << " transaction " << n
                           << ": rtl " << show(got) << ", model " << show(want);
      dispatches += got.disp_valid;
      refused += in.push_valid && !got.push_ready;
    }
  }
  EXPECT_EQ(transactions, 120000u);
  EXPECT_GT(dispatches, 40000u);  // decisions were compared, not just idle cycles
  EXPECT_GT(refused, 1000u);      // and full FIFOs
}

TEST(RtlClusterSched, AllBusyThenFullThenFreedInOrder) {
  // 2 HPUs, one FIFO of 2: tasks 10 and 11 start on HPUs 0 and 1 in the cycle they arrive; 12 and
  // 13 wait; 14 is refused (FIFO full). HPU 1 finishes: 12 starts on it; HPU 0 finishes: 13 on it.
  RtlContext rtl;
  ClusterSchedRtl hw(rtl, "cluster_sched");
  ClusterSchedModel model;
  for (ClusterSchedCore* core : {static_cast<ClusterSchedCore*>(&hw), static_cast<ClusterSchedCore*>(&model)}) {
    core->reset(config(2, 2, 2));
    ClusterSchedOut o = core->tick(push(0, 10));
    EXPECT_TRUE(o.disp_valid && o.disp_hpu == 0 && o.disp_tag == 10) << show(o);
    o = core->tick(push(0, 11));
    EXPECT_TRUE(o.disp_valid && o.disp_hpu == 1 && o.disp_tag == 11) << show(o);
    EXPECT_EQ(o.busy, 3u);
    o = core->tick(push(0, 12));
    EXPECT_TRUE(o.push_ready && !o.disp_valid) << show(o);
    o = core->tick(push(0, 13));
    EXPECT_TRUE(o.push_ready && !o.disp_valid) << show(o);
    o = core->tick(push(0, 14));
    EXPECT_FALSE(o.push_ready) << show(o);
    o = core->tick(free_hpu(1));
    EXPECT_TRUE(o.disp_valid && o.disp_hpu == 1 && o.disp_tag == 12) << show(o);
    // Freeing HPU 0 while pushing 14 (now there is room): 13 starts, 14 waits.
    ClusterSchedIn both = push(0, 14);
    both.free_valid = true;
    both.free_hpu = 0;
    o = core->tick(both);
    EXPECT_TRUE(o.push_ready && o.disp_valid && o.disp_hpu == 0 && o.disp_tag == 13) << show(o);
    o = core->tick(ClusterSchedIn{});
    EXPECT_FALSE(o.disp_valid) << show(o);  // a decision lasts one cycle; both HPUs busy
    EXPECT_EQ(o.busy, 3u);
    o = core->tick(free_hpu(0));
    EXPECT_TRUE(o.disp_valid && o.disp_hpu == 0 && o.disp_tag == 14) << show(o);
    o = core->tick(free_hpu(0));  // nothing waits
    EXPECT_FALSE(o.disp_valid);
    EXPECT_EQ(o.busy, 2u);
    o = core->tick(free_hpu(0));  // freeing a free HPU changes nothing
    EXPECT_EQ(o.busy, 2u);
  }
}

TEST(RtlClusterSched, SubsetsOnlyUseTheirOwnHpus) {
  // 8 HPUs in subsets of 2: a task for subset 3 goes to HPU 6, then 7, then waits even though
  // HPUs 0-5 are free; subset 4 does not exist and its task is refused.
  RtlContext rtl;
  ClusterSchedRtl hw(rtl, "cluster_sched");
  hw.reset(config(8, 2, 8));
  EXPECT_EQ(hw.tick(push(3, 1)).disp_hpu, 6u);
  EXPECT_EQ(hw.tick(push(3, 2)).disp_hpu, 7u);
  ClusterSchedOut o = hw.tick(push(3, 3));
  EXPECT_FALSE(o.disp_valid);
  EXPECT_EQ(o.busy, 0xC0u);
  EXPECT_FALSE(hw.tick(push(4, 4)).push_ready);
  o = hw.tick(push(0, 5));
  EXPECT_TRUE(o.disp_valid && o.disp_hpu == 0 && o.disp_tag == 5) << show(o);
  o = hw.tick(free_hpu(7));
  EXPECT_TRUE(o.disp_valid && o.disp_hpu == 7 && o.disp_tag == 3) << show(o);
  hw.reset(config(8, 2, 8));  // everything idle again
  o = hw.tick(push(3, 9));
  EXPECT_TRUE(o.disp_valid && o.disp_hpu == 6 && o.disp_tag == 9) << show(o);
  EXPECT_EQ(o.busy, 0x40u);
}

TEST(RtlClusterSched, TheRtlRejectsShapesItWasNotBuiltFor) {
  RtlContext rtl;
  ClusterSchedRtl hw(rtl, "cluster_sched");
  for (const ClusterSchedConfig& c : {config(32, 32, 8), config(8, 3, 8), config(8, 8, 2048)}) {
    try {
      hw.reset(c);
      ADD_FAILURE() << "no error for " << c.hpus << "/" << c.subset_size << "/" << c.depth;
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("the block supports 1 to 16 HPUs in equal subsets and queues of 1 to 1024"),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace fs
