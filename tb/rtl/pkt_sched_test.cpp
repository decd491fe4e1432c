// The packet scheduler's RTL (rtl/pkt_sched.sv, Verilated) against its C++ model in lockstep:
// random transactions under both policies and several sizes, then directed cases (policy
// decisions worked out by hand, a counter at its maximum, finished tasks on idle clusters,
// reset in the middle of a run).
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
  c.hier = hier;
  c.subsets = subsets;
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
      ASSERT_EQ(got, want) << "config clusters " << c.clusters << " hier " << c.hier << " transaction " << n
                           << ": rtl " << show(got) << ", model " << show(want);
      grants += got.grant_valid;
    }
  }
  EXPECT_EQ(transactions, 160000u);
  EXPECT_GT(grants, 90000u);  // most requests were placed: the comparison covered decisions, not idling
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

}  // namespace
}  // namespace fs
