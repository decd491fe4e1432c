// The packet scheduler's RTL (rtl/pkt_sched.sv, Verilated) against its C++ model in lockstep:
// random transactions under every policy and several sizes, then directed cases run on both
// (policy decisions worked out by hand, home-cluster's overflow and back-pressure, flow waiting
// for its cluster, a counter at its maximum, finished tasks on idle clusters, reset in the middle
// of a run).
#include <gtest/gtest.h>

#include <random>

#include "cores/pkt_sched_core.h"
#include "rtl_bridge/pkt_sched_rtl.h"
#include "rtl_bridge/rtl_context.h"

namespace fs {
namespace {

PktSchedConfig config(unsigned clusters, bool hier, unsigned subsets = 1) {
  PktSchedConfig c;
  c.clusters = clusters;
  c.policy = hier ? PktSchedPolicy::kHierFcfs : PktSchedPolicy::kFcfs;
  c.subsets = subsets;
  return c;
}

PktSchedConfig home_config(unsigned clusters, unsigned home_max) {
  PktSchedConfig c;
  c.clusters = clusters;
  c.policy = PktSchedPolicy::kHomeCluster;
  c.home_max = home_max;
  return c;
}

PktSchedConfig flow_config(unsigned clusters, unsigned max) {
  PktSchedConfig c = home_config(clusters, max);
  c.policy = PktSchedPolicy::kFlow;
  return c;
}

std::string show(const PktSchedOut& o) {
  return "ready " + std::to_string(o.req_ready) + " grant " + std::to_string(o.grant_valid) + " cluster " +
         std::to_string(o.grant_cluster) + " subset " + std::to_string(o.grant_subset);
}

TEST(RtlPktSched, LockstepWithTheModelOnRandomTransactions) {
  RtlContext rtl;
  PktSchedRtl hw(rtl);
  PktSchedModel model;
  std::mt19937_64 rng(12345);
  uint64_t grants = 0, transactions = 0;
  const PktSchedConfig configs[] = {config(4, false), config(64, false), config(5, false), config(1, false),
                                    config(4, true, 1), config(4, true, 8), config(64, true, 2), config(3, true, 255)};
  for (const PktSchedConfig& c : configs) {
    hw.reset(c);
    model.reset(c);
    std::vector<unsigned> outstanding(c.clusters, 0);  // to send finished tasks mostly where there are some
    for (int n = 0; n < 20000; ++n, ++transactions) {
      PktSchedIn in;
      const unsigned r = unsigned(rng() % 8);
      in.req_valid = r < 5;
      in.req_block = uint32_t(rng() % 4 == 0 ? rng() : rng() % 64);
      in.done_valid = r >= 3;
      in.done_cluster = uint16_t(rng() % 16 == 0 ? rng() % 256 : rng() % c.clusters);  // sometimes idle or absent
      const PktSchedOut want = model.tick(in);
      const PktSchedOut got = hw.tick(in);
      ASSERT_EQ(got, want) << "config clusters " << c.clusters << " policy " << int(c.policy) << " transaction " << n
                           << ": rtl " << show(got) << ", model " << show(want);
      grants += got.grant_valid;
    }
  }
  EXPECT_EQ(transactions, 160000u);
  EXPECT_GT(grants, 90000u);  // most requests were placed: the comparison covered decisions, not idling
}

TEST(RtlPktSched, HomeClusterLockstepWithTheModelOnRandomTransactions) {
  // Phases of 1000 cycles alternate between few finished tasks (the clusters fill to their
  // maximum: packets overflow their home cluster, then wait) and many (they drain). Blocks are
  // mostly small numbers, so that several share a home cluster, and sometimes any 32-bit value.
  RtlContext rtl;
  PktSchedRtl hw(rtl);
  PktSchedModel model;
  std::mt19937_64 rng(2024);
  uint64_t transactions = 0, home = 0, elsewhere = 0, refused = 0;
  const PktSchedConfig configs[] = {home_config(4, 20), home_config(4, 1),  home_config(5, 3),
                                    home_config(64, 2), home_config(1, 20), home_config(3, 65535)};
  for (const PktSchedConfig& c : configs) {
    hw.reset(c);
    model.reset(c);
    std::vector<unsigned> busy(c.clusters, 0);  // tasks granted and not finished, to finish mostly real ones
    for (int n = 0; n < 20000; ++n, ++transactions) {
      const bool draining = (n / 1000) % 2 == 1;
      PktSchedIn in;
      in.req_valid = rng() % 8 < 5;
      in.req_block = uint32_t(rng() % 4 == 0 ? rng() : rng() % 16);
      in.done_valid = rng() % 8 < (draining ? 6u : 1u);
      unsigned pick = unsigned(rng() % c.clusters);
      for (unsigned i = 0; i < c.clusters && busy[pick] == 0; ++i) pick = (pick + 1) % c.clusters;
      in.done_cluster = uint16_t(rng() % 16 == 0 ? rng() % 256 : pick);  // sometimes idle or absent
      const PktSchedOut want = model.tick(in);
      const PktSchedOut got = hw.tick(in);
      ASSERT_EQ(got, want) << "config clusters " << c.clusters << " home_max " << c.home_max << " transaction " << n
                           << ": rtl " << show(got) << ", model " << show(want);
      if (in.done_valid && in.done_cluster < c.clusters && busy[in.done_cluster] > 0) --busy[in.done_cluster];
      if (got.grant_valid) ++busy[got.grant_cluster];
      if (in.req_valid && !got.req_ready) ++refused;
      if (got.grant_valid) ++(got.grant_cluster == in.req_block % c.clusters ? home : elsewhere);
    }
  }
  EXPECT_EQ(transactions, 120000u);
  // The comparison covered every kind of decision: home, overflow to another cluster, refusal.
  EXPECT_GT(home, 30000u);
  EXPECT_GT(elsewhere, 8000u);
  EXPECT_GT(refused, 15000u);
}

TEST(RtlPktSched, FlowLockstepWithTheModelOnRandomTransactions) {
  // As for home-cluster: phases that fill the clusters (packets wait for theirs) and drain them.
  // Flow hashes are any 32-bit value, or small ones so that flows share clusters. Every grant must
  // be on the hash's cluster: flow never places a packet elsewhere.
  RtlContext rtl;
  PktSchedRtl hw(rtl);
  PktSchedModel model;
  std::mt19937_64 rng(14);
  uint64_t transactions = 0, granted = 0, refused = 0, elsewhere = 0;
  const PktSchedConfig configs[] = {flow_config(4, 20), flow_config(4, 1),  flow_config(5, 3),
                                    flow_config(64, 2), flow_config(1, 20), flow_config(3, 65535)};
  for (const PktSchedConfig& c : configs) {
    hw.reset(c);
    model.reset(c);
    std::vector<unsigned> busy(c.clusters, 0);
    for (int n = 0; n < 20000; ++n, ++transactions) {
      const bool draining = (n / 1000) % 2 == 1;
      PktSchedIn in;
      in.req_valid = rng() % 8 < 5;
      in.req_block = uint32_t(rng() % 2 == 0 ? rng() : rng() % 16);
      in.done_valid = rng() % 8 < (draining ? 6u : 1u);
      unsigned pick = unsigned(rng() % c.clusters);
      for (unsigned i = 0; i < c.clusters && busy[pick] == 0; ++i) pick = (pick + 1) % c.clusters;
      in.done_cluster = uint16_t(rng() % 16 == 0 ? rng() % 256 : pick);
      const PktSchedOut want = model.tick(in);
      const PktSchedOut got = hw.tick(in);
      ASSERT_EQ(got, want) << "config clusters " << c.clusters << " max " << c.home_max << " transaction " << n
                           << ": rtl " << show(got) << ", model " << show(want);
      if (in.done_valid && in.done_cluster < c.clusters && busy[in.done_cluster] > 0) --busy[in.done_cluster];
      if (got.grant_valid) ++busy[got.grant_cluster], ++granted;
      if (got.grant_valid && got.grant_cluster != in.req_block % c.clusters) ++elsewhere;
      if (in.req_valid && !got.req_ready) ++refused;
    }
  }
  EXPECT_EQ(transactions, 120000u);
  EXPECT_EQ(elsewhere, 0u);
  EXPECT_GT(granted, 30000u);
  EXPECT_GT(refused, 15000u);
}

// Runs steps on a freshly reset core: each step a finished task on cluster `done` (-1: none) and
// a packet of `block` (-1: none), in one cycle. Per step: the granted cluster, or -1.
struct Step {
  int64_t block;
  int done;
};
std::vector<int> run_steps(PktSchedCore& core, const PktSchedConfig& c, const std::vector<Step>& steps) {
  core.reset(c);
  std::vector<int> got;
  for (const Step& s : steps) {
    PktSchedIn in;
    in.req_valid = s.block >= 0;
    in.req_block = uint32_t(s.block);
    in.done_valid = s.done >= 0;
    in.done_cluster = uint16_t(s.done);
    const PktSchedOut o = core.tick(in);
    if (in.req_valid) {
      EXPECT_EQ(o.req_ready, o.grant_valid) << "block " << s.block;  // refused only when not ready
    }
    EXPECT_EQ(o.grant_subset, 0u);
    got.push_back(o.grant_valid ? int(o.grant_cluster) : -1);
  }
  return got;
}

TEST(RtlPktSched, HomeClusterKeepsABlockHomeWhileItHasRoom) {
  // 4 clusters, at most 3 tasks each. Block 0's three packets all go home to cluster 0 although
  // clusters 1 to 3 are empty (counts 1, 2, 3: each still below 3 before it is placed). Then
  // block 5 -> 5 mod 4 = 1, block 6 -> 2, block 0xFFFFFFFF -> 3 (4294967295 = 4 * 1073741823 + 3).
  // 3 clusters: 0xFFFFFFFE -> 2 (4294967294 = 3 * 1431655764 + 2), block 7 -> 1, block 9 -> 0.
  RtlContext rtl;
  PktSchedRtl hw(rtl);
  PktSchedModel model;
  for (PktSchedCore* core : {static_cast<PktSchedCore*>(&hw), static_cast<PktSchedCore*>(&model)}) {
    EXPECT_EQ(run_steps(*core, home_config(4, 3), {{0, -1}, {0, -1}, {0, -1}, {5, -1}, {6, -1}, {0xFFFFFFFF, -1}}),
              (std::vector<int>{0, 0, 0, 1, 2, 3}));
    EXPECT_EQ(run_steps(*core, home_config(3, 3), {{0xFFFFFFFE, -1}, {7, -1}, {9, -1}}), (std::vector<int>{2, 1, 0}));
  }
}

TEST(RtlPktSched, HomeClusterOverflowsToTheLeastLoadedLowestIndexOnTies) {
  // 4 clusters, at most 2 tasks each; counts [c0, c1, c2, c3] after each packet:
  //   block 1  -> home 1                                    [0,1,0,0]
  //   block 1  -> home 1 (1 < 2)                            [0,2,0,0]
  //   block 1  -> home full; 0, 2, 3 tie at 0: lowest, 0    [1,2,0,0]
  //   block 5  -> home 1 full; 2, 3 tie at 0: 2             [1,2,1,0]
  //   block 9  -> home 1 full; 3 alone at 0: 3              [1,2,1,1]
  //   block 13 -> home 1 full; 0, 2, 3 tie at 1: 0          [2,2,1,1]
  //   block 0  -> home 0 full now; 2, 3 tie at 1: 2         [2,2,2,1]
  //   block 2  -> home 2 full; 3                            [2,2,2,2]
  //   block 3  -> home 3 full and so is every cluster: not placed
  RtlContext rtl;
  PktSchedRtl hw(rtl);
  PktSchedModel model;
  for (PktSchedCore* core : {static_cast<PktSchedCore*>(&hw), static_cast<PktSchedCore*>(&model)}) {
    EXPECT_EQ(run_steps(*core, home_config(4, 2),
                        {{1, -1}, {1, -1}, {1, -1}, {5, -1}, {9, -1}, {13, -1}, {0, -1}, {2, -1}, {3, -1}}),
              (std::vector<int>{1, 1, 0, 2, 3, 0, 2, 3, -1}));
  }
}

TEST(RtlPktSched, HomeClusterFinishedTasksFreeTheHome) {
  // 4 clusters, at most 2 tasks each, filled to [2,2,2,2] by two packets of blocks 0 to 3 (each
  // home: 0,1,2,3,0,1,2,3). Then:
  //   done 2 (no packet)                                    [2,2,1,2]
  //   block 1 -> home 1 full; 2 is the only one below 2     [2,2,2,2]
  //   done 3 with block 3 in the same cycle: counted first, home 3 has 1 < 2: 3   [2,2,2,2]
  //   done 0 (no packet); block 2 -> home 2 full; 0         [2,2,2,2]
  //   done 1 twice (no packets)                             [2,0,2,2]
  //   block 5 -> home 1 (0 < 2), block 5 -> home 1 (1 < 2)  [2,2,2,2]
  //   block 5 -> every cluster full: not placed
  RtlContext rtl;
  PktSchedRtl hw(rtl);
  PktSchedModel model;
  for (PktSchedCore* core : {static_cast<PktSchedCore*>(&hw), static_cast<PktSchedCore*>(&model)}) {
    const std::vector<int> got = run_steps(*core, home_config(4, 2),
                                           {{0, -1}, {1, -1}, {2, -1}, {3, -1}, {0, -1}, {1, -1}, {2, -1}, {3, -1},
                                            {-1, 2}, {1, -1}, {3, 3}, {-1, 0}, {2, -1}, {-1, 1}, {-1, 1}, {5, -1},
                                            {5, -1}, {5, -1}});
    EXPECT_EQ(got, (std::vector<int>{0, 1, 2, 3, 0, 1, 2, 3, -1, 2, 3, -1, 0, -1, -1, 1, 1, -1}));
  }
}

TEST(RtlPktSched, HomeClusterAllFullHoldsThePacketUntilATaskFinishes) {
  // 2 clusters, at most 1 task each: block 0 -> 0; block 0 again -> home full -> 1; block 1 ->
  // both full: refused (req_ready low) for as long as nothing finishes, three cycles here; then
  // a task finishes on 1 in the packet's cycle: placed on its home, 1. The maximum applies to
  // home-cluster only: fcfs with home_max 1 places three packets on one cluster.
  RtlContext rtl;
  PktSchedRtl hw(rtl);
  PktSchedModel model;
  for (PktSchedCore* core : {static_cast<PktSchedCore*>(&hw), static_cast<PktSchedCore*>(&model)}) {
    EXPECT_EQ(run_steps(*core, home_config(2, 1), {{0, -1}, {0, -1}, {1, -1}, {1, -1}, {1, -1}, {1, 1}}),
              (std::vector<int>{0, 1, -1, -1, -1, 1}));
    PktSchedConfig fcfs = config(1, false);
    fcfs.home_max = 1;
    EXPECT_EQ(run_steps(*core, fcfs, {{0, -1}, {0, -1}, {0, -1}}), (std::vector<int>{0, 0, 0}));
  }
}

TEST(RtlPktSched, FlowWaitsForItsClusterWhileOthersAreEmpty) {
  // 4 clusters, at most 2 tasks each; cluster = hash mod 4, counts [c0, c1, c2, c3]:
  //   hash 1 -> 1, hash 5 -> 1                                   [0,2,0,0]
  //   hash 9 -> 1 is full: not placed (0, 2, 3 are empty)
  //   hash 2 -> 2; hash 0xFFFFFFFF -> 3 (4294967295 = 4 * 1073741823 + 3)   [0,2,1,1]
  //   done 1 with hash 9 in the same cycle: counted first: 1 has room -> 1  [0,2,1,1]
  //   hash 13 -> 1 full again: not placed; done 2 (no packet); hash 13 -> still not placed
  //   done 1 (no packet); hash 13 -> 1                             [0,2,0,1]
  // 3 clusters: 0xFFFFFFFE -> 2 (4294967294 = 3 * 1431655764 + 2), 7 -> 1, 9 -> 0.
  RtlContext rtl;
  PktSchedRtl hw(rtl);
  PktSchedModel model;
  for (PktSchedCore* core : {static_cast<PktSchedCore*>(&hw), static_cast<PktSchedCore*>(&model)}) {
    EXPECT_EQ(run_steps(*core, flow_config(4, 2),
                        {{1, -1}, {5, -1}, {9, -1}, {2, -1}, {0xFFFFFFFF, -1}, {9, 1}, {13, -1}, {-1, 2}, {13, -1},
                         {-1, 1}, {13, -1}}),
              (std::vector<int>{1, 1, -1, 2, 3, 1, -1, -1, -1, -1, 1}));
    EXPECT_EQ(run_steps(*core, flow_config(3, 2), {{0xFFFFFFFE, -1}, {7, -1}, {9, -1}}), (std::vector<int>{2, 1, 0}));
  }
}

TEST(RtlPktSched, FcfsPicksTheLeastLoadedClusterRoundRobinOnTies) {
  // 3 clusters, all empty: ties go round robin 0, 1, 2, 0. Then cluster 1 finishes a task: it is
  // the least loaded (1 against 2, 2) and gets the next packet although 2 is next in turn.
  RtlContext rtl;
  PktSchedRtl hw(rtl);
  PktSchedModel model;
  for (PktSchedCore* core : {static_cast<PktSchedCore*>(&hw), static_cast<PktSchedCore*>(&model)}) {
    core->reset(config(3, false));
    PktSchedIn req;
    req.req_valid = true;
    std::vector<unsigned> got;
    for (int i = 0; i < 4; ++i) got.push_back(core->tick(req).grant_cluster);
    EXPECT_EQ(got, (std::vector<unsigned>{0, 1, 2, 0}));
    PktSchedIn both = req;
    both.done_valid = true;
    both.done_cluster = 1;  // counted before the placement in the same cycle
    EXPECT_EQ(core->tick(both).grant_cluster, 1u);
    // Now 2, 2, 1: cluster 2 is next in turn and least loaded.
    EXPECT_EQ(core->tick(req).grant_cluster, 2u);
  }
}

TEST(RtlPktSched, HierFcfsSendsABlockToItsSubset) {
  // 4 clusters x 2 subsets: block b -> subset b mod 8 -> cluster (b mod 8) mod 4, index (b mod 8) / 4.
  RtlContext rtl;
  PktSchedRtl hw(rtl);
  hw.reset(config(4, true, 2));
  for (uint32_t b : {0u, 3u, 4u, 7u, 13u, 0xFFFFFFFFu}) {
    PktSchedIn req;
    req.req_valid = true;
    req.req_block = b;
    const PktSchedOut o = hw.tick(req);
    EXPECT_TRUE(o.grant_valid);
    EXPECT_EQ(o.grant_cluster, (b % 8) % 4) << b;
    EXPECT_EQ(o.grant_subset, (b % 8) / 4) << b;
  }
}

TEST(RtlPktSched, AFullCounterHoldsThePacketAndAFinishedTaskFreesIt) {
  // One cluster: after 65535 placements its counter is full; the next packet is not placed
  // (req_ready low, no grant) until a task finishes.
  RtlContext rtl;
  PktSchedRtl hw(rtl);
  PktSchedModel model;
  for (PktSchedCore* core : {static_cast<PktSchedCore*>(&hw), static_cast<PktSchedCore*>(&model)}) {
    core->reset(config(1, false));
    PktSchedIn req;
    req.req_valid = true;
    for (unsigned i = 0; i < PktSchedCore::kCountMax; ++i) ASSERT_TRUE(core->tick(req).grant_valid) << i;
    PktSchedOut o = core->tick(req);
    EXPECT_FALSE(o.req_ready);
    EXPECT_FALSE(o.grant_valid);
    PktSchedIn done_and_req = req;
    done_and_req.done_valid = true;
    o = core->tick(done_and_req);
    EXPECT_TRUE(o.req_ready);
    EXPECT_TRUE(o.grant_valid);
  }
}

TEST(RtlPktSched, FinishedTasksOnIdleClustersAreIgnoredAndResetClearsTheCounts) {
  RtlContext rtl;
  PktSchedRtl hw(rtl);
  hw.reset(config(2, false));
  PktSchedIn done;
  done.done_valid = true;
  done.done_cluster = 1;
  hw.tick(done);  // cluster 1 has nothing outstanding: stays at 0
  PktSchedIn req;
  req.req_valid = true;
  EXPECT_EQ(hw.tick(req).grant_cluster, 0u);  // 0 first (round robin), both empty
  EXPECT_EQ(hw.tick(req).grant_cluster, 1u);  // 1 has 0 (not -1), 0 has 1
  EXPECT_EQ(hw.tick(req).grant_cluster, 0u);
  EXPECT_EQ(hw.tick(req).grant_cluster, 1u);
  hw.reset(config(2, false));  // counts and round robin from scratch
  hw.tick(done);
  EXPECT_EQ(hw.tick(req).grant_cluster, 0u);
  PktSchedIn idle;
  EXPECT_FALSE(hw.tick(idle).grant_valid);  // a grant lasts one cycle
}

TEST(RtlPktSched, TheRtlRejectsSizesItWasNotBuiltFor) {
  RtlContext rtl;
  PktSchedRtl hw(rtl);
  try {
    hw.reset(config(65, false));
    FAIL() << "no error";
  } catch (const std::exception& e) {
    EXPECT_STREQ(e.what(),
                 "rtl pkt_sched: 65 clusters and 1 subsets per cluster: the block supports 1 to 64 clusters and 1 to "
                 "255 subsets");
  }
}

TEST(RtlPktSched, TheRtlRejectsAMaximumItsCountersCannotHold) {
  RtlContext rtl;
  PktSchedRtl hw(rtl);
  for (unsigned max : {0u, 65536u}) {
    try {
      hw.reset(home_config(4, max));
      FAIL() << "no error for " << max;
    } catch (const std::exception& e) {
      EXPECT_EQ(std::string(e.what()), "rtl pkt_sched: at most " + std::to_string(max) +
                                           " outstanding tasks per cluster: the block supports 1 to 65535");
    }
  }
}

}  // namespace
}  // namespace fs
