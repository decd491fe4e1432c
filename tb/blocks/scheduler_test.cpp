// Tests of the global packet scheduler (sc_model/pspin/packet_scheduler): fcfs placement (least
// outstanding tasks, round robin on ties), hier-fcfs placement of blocks on subsets (hand-computed
// table), home-cluster placement with overflow and held packets, flow placement by flow hash
// (waiting, with the packets behind, when its cluster is full), policy names and
// scheduler.max_outstanding, the accept() path through the scheduler's fixed latency, and packets
// held while their cluster's counter is full.
#include "pspin/packet_scheduler.h"

#include <gtest/gtest.h>

#include <memory>

#include "blocks/sc_testbench.h"
#include "common/errors.h"

namespace fs_tb {
namespace {

using fs::PacketScheduler;
using fs::Task;

fs::PacketPtr block_packet(uint32_t block) {
  fs::PacketPtr p = make_packet(fs::Bytes(64, 0));
  p->block_id = block;
  return p;
}

struct Dispatched {
  Picos time;
  Task task;
};

// Stands for a cluster: records the tasks the scheduler places, with their time.
struct TaskRecorder : sc_core::sc_module, fs::TaskSinkIf {
  std::vector<Dispatched>& out;
  TaskRecorder(sc_core::sc_module_name name, std::vector<Dispatched>& o) : sc_core::sc_module(name), out(o) {}
  void submit(Task t) override { out.push_back(Dispatched{fs::now_ps(), std::move(t)}); }
};

fs::SchedulerConfig sched_config(PacketScheduler::Policy policy, unsigned subset, unsigned latency,
                                 unsigned max_outstanding) {
  fs::SchedulerConfig c;
  c.policy = policy;
  c.subset = subset;
  c.latency_cycles = latency;
  c.max_outstanding = max_outstanding;
  return c;
}
fs::PspinConfig geometry(unsigned clusters, unsigned hpus) {
  fs::PspinConfig c;
  c.clusters = clusters;
  c.hpus_per_cluster = hpus;
  return c;
}

struct SchedBench {
  std::vector<Dispatched> out;
  Script script{"script"};
  PacketScheduler sched;
  std::vector<std::unique_ptr<TaskRecorder>> clusters;
  // latency in cycles of the 1 GHz clock.
  SchedBench(PacketScheduler::Policy policy, unsigned n_clusters, unsigned hpus, unsigned subset, unsigned latency,
             unsigned max_outstanding = fs::SchedulerConfig{}.max_outstanding)
      : sched("sched", sched_config(policy, subset, latency, max_outstanding), geometry(n_clusters, hpus),
              fs::Clock::from_ghz(1.0)) {
    for (unsigned c = 0; c < n_clusters; ++c) {
      clusters.push_back(std::make_unique<TaskRecorder>(("cluster" + std::to_string(c)).c_str(), out));
      sched.to_cluster.bind(*clusters.back());
    }
  }
  // With latency 0 a packet is placed as it is accepted: the task it became. (The ports are
  // bound once elaboration ends: called before the simulation runs, this ends it.)
  Task place(fs::PacketPtr p) {
    if (sc_core::sc_get_status() == sc_core::SC_ELABORATION) sc_core::sc_start(sc_core::SC_ZERO_TIME);
    const size_t n = out.size();
    sched.accept(std::move(p));
    EXPECT_EQ(out.size(), n + 1) << "not placed";
    return out.empty() ? Task{} : out.back().task;
  }
};

TEST(BlocksScheduler, FcfsRoundRobinOnTies) {
  quiet_systemc();
  // 4 clusters, no task ever finishes: every choice is a tie broken round robin, so 8 packets
  // go to 0,1,2,3,0,1,2,3 and each cluster got 2.
  SchedBench b(PacketScheduler::Policy::kFcfs, 4, 8, 1, 0);
  std::vector<unsigned> got;
  for (int i = 0; i < 8; ++i) {
    const Task t = b.place(block_packet(uint32_t(i)));
    EXPECT_EQ(t.subset, -1);  // fcfs: any HPU of the cluster
    got.push_back(t.cluster);
  }
  EXPECT_EQ(got, (std::vector<unsigned>{0, 1, 2, 3, 0, 1, 2, 3}));
  EXPECT_EQ(b.sched.assigned(), (std::vector<uint64_t>{2, 2, 2, 2}));
}

TEST(BlocksScheduler, FcfsPicksLeastLoadedCluster) {
  quiet_systemc();
  SchedBench b(PacketScheduler::Policy::kFcfs, 4, 8, 1, 0);
  auto place = [&]() { return b.place(block_packet(0)).cluster; };
  for (int i = 0; i < 8; ++i) place();  // outstanding [2,2,2,2], next tie-break start: 0
  b.sched.done(2);
  b.sched.done(2);                       // [2,2,0,2]
  EXPECT_EQ(place(), 2u);                // least loaded; [2,2,1,2]
  EXPECT_EQ(place(), 2u);                // still least loaded; [2,2,2,2], tie start now 3
  EXPECT_EQ(place(), 3u);                // tie: round robin after 2; [2,2,2,3], tie start 0
  b.sched.done(1);
  b.sched.done(3);
  b.sched.done(3);                       // [2,1,2,1]
  EXPECT_EQ(place(), 1u);                // 1 and 3 tie at 1 outstanding; from 0 on, 1 comes first
  EXPECT_EQ(place(), 3u);                // [2,2,2,1]: 3 is least loaded
  EXPECT_EQ(place(), 0u);                // [2,2,2,2]: tie, round robin after 3 -> 0
  EXPECT_EQ(b.sched.assigned(), (std::vector<uint64_t>{3, 3, 4, 4}));
}

TEST(BlocksScheduler, AFullClusterHoldsPacketsInOrderUntilTasksFinish) {
  quiet_systemc();
  // One cluster counts at most 65535 outstanding tasks: packets 65535 and 65536 wait (in order)
  // until tasks finish, one per finished task; nothing is lost or reordered.
  SchedBench b(PacketScheduler::Policy::kFcfs, 1, 8, 1, 0);
  const uint32_t max = fs::PktSchedCore::kCountMax;
  for (uint32_t i = 0; i < max + 2; ++i) b.sched.accept(block_packet(i));
  EXPECT_EQ(b.out.size(), size_t(max));
  EXPECT_EQ(b.sched.held, 2u);
  b.sched.done(0);
  ASSERT_EQ(b.out.size(), size_t(max) + 1);
  EXPECT_EQ(b.out.back().task.pkt->block_id, max);
  b.sched.accept(block_packet(7));  // behind the one still held, though nothing is free yet
  EXPECT_EQ(b.out.size(), size_t(max) + 1);
  EXPECT_EQ(b.sched.held, 3u);
  b.sched.done(0);
  b.sched.done(0);
  ASSERT_EQ(b.out.size(), size_t(max) + 3);
  EXPECT_EQ(b.out[max + 1].task.pkt->block_id, max + 1);
  EXPECT_EQ(b.out[max + 2].task.pkt->block_id, 7u);
  EXPECT_EQ(b.sched.assigned()[0], uint64_t(max) + 3);
}

TEST(BlocksScheduler, HierFcfsPlacesBlocksOnSubsets) {
  quiet_systemc();
  // clusters = 4, hpus_per_cluster = 8, S = 2: 8/2 = 4 subsets per cluster, 16 in all.
  // block b -> subset s = b % 16; cluster = s % 4; subset in cluster = s / 4.
  SchedBench b(PacketScheduler::Policy::kHierFcfs, 4, 8, 2, 0);
  struct Row { uint32_t block; unsigned cluster; int subset; };
  const Row table[] = {
      {0, 0, 0},   {1, 1, 0},   {3, 3, 0},  {4, 0, 1},  {6, 2, 1},    {13, 1, 3},
      {15, 3, 3},  {16, 0, 0},  {17, 1, 0},  // 17 % 16 = 1
      {31, 3, 3},                              // 31 % 16 = 15: cluster 15 % 4 = 3, subset 15 / 4 = 3
      {100, 0, 1},                             // 100 % 16 = 4
      {0xFFFFFFFFu, 3, 3},                     // 4294967295 % 16 = 15
  };
  for (const Row& r : table) {
    const Task t = b.place(block_packet(r.block));
    EXPECT_EQ(t.cluster, r.cluster) << "block " << r.block;
    EXPECT_EQ(t.subset, r.subset) << "block " << r.block;
  }
  // Every packet of a block goes to the same place whatever the load (nothing ever finishes).
  for (int i = 0; i < 5; ++i) {
    const Task t17 = b.place(block_packet(17));
    EXPECT_EQ(t17.cluster, 1u);
    EXPECT_EQ(t17.subset, 0);
    const Task t2 = b.place(block_packet(2));  // subset 2: cluster 2, subset 0
    EXPECT_EQ(t2.cluster, 2u);
    EXPECT_EQ(t2.subset, 0);
  }
  // A block's home cluster (where handlers keep its state) is always b % clusters.
  for (uint32_t blk = 0; blk < 64; ++blk) EXPECT_EQ(b.place(block_packet(blk)).cluster, blk % 4);
}

TEST(BlocksScheduler, HierFcfsSubsetOfOneIsOneHpu) {
  quiet_systemc();
  // clusters = 2, hpus = 2, S = 1: 4 subsets (= HPUs); block b -> s = b % 4, cluster s % 2,
  // HPU s / 2: block 0 -> (0,0), 1 -> (1,0), 2 -> (0,1), 3 -> (1,1), 6 -> (0,1), 9 -> (1,0).
  SchedBench b(PacketScheduler::Policy::kHierFcfs, 2, 2, 1, 0);
  const uint32_t blocks[] = {0, 1, 2, 3, 6, 9};
  const unsigned clusters[] = {0, 1, 0, 1, 0, 1};
  const int subsets[] = {0, 0, 1, 1, 1, 0};
  for (int i = 0; i < 6; ++i) {
    const Task t = b.place(block_packet(blocks[i]));
    EXPECT_EQ(t.cluster, clusters[i]) << "block " << blocks[i];
    EXPECT_EQ(t.subset, subsets[i]) << "block " << blocks[i];
  }
}

TEST(BlocksScheduler, HomeClusterSendsBlocksHomeOverflowsAndHolds) {
  quiet_systemc();
  // 2 clusters, at most 2 outstanding tasks each; counts [c0, c1] after each step:
  //   block 0 -> home 0; block 0 -> home 0 (1 < 2)           [2,0]
  //   block 0 -> home full -> least loaded 1                   [2,1]
  //   block 1 -> home 1 (1 < 2)                                [2,2]
  //   block 1, block 0 -> every cluster full: both held, in order
  //   done(0) [1,2]: held block 1 -> home 1 full -> 0          [2,2]; block 0 still held
  //   done(1) [2,1]: held block 0 -> home 0 full -> 1          [2,2]
  SchedBench b(PacketScheduler::Policy::kHomeCluster, 2, 8, 1, 0, 2);
  if (sc_core::sc_get_status() == sc_core::SC_ELABORATION) sc_core::sc_start(sc_core::SC_ZERO_TIME);
  for (uint32_t block : {0u, 0u, 0u, 1u, 1u, 0u}) b.sched.accept(block_packet(block));
  EXPECT_EQ(b.out.size(), 4u);
  EXPECT_EQ(b.sched.held, 2u);
  b.sched.done(0);
  EXPECT_EQ(b.out.size(), 5u);
  b.sched.done(1);
  ASSERT_EQ(b.out.size(), 6u);
  const uint32_t blocks[] = {0, 0, 0, 1, 1, 0};
  const unsigned clusters[] = {0, 0, 1, 1, 0, 1};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(b.out[i].task.pkt->block_id, blocks[i]) << i;
    EXPECT_EQ(b.out[i].task.cluster, clusters[i]) << i;
    EXPECT_EQ(b.out[i].task.subset, -1) << i;  // any HPU of the cluster
  }
  EXPECT_EQ(b.sched.held, 2u);
  EXPECT_EQ(b.sched.assigned(), (std::vector<uint64_t>{3, 3}));
}

fs::PacketPtr flow_packet(uint32_t hash) {
  fs::PacketPtr p = make_packet(fs::Bytes(64, 0));
  p->flow_hash = hash;
  p->block_id = 3;  // not what flow places by
  return p;
}

TEST(BlocksScheduler, FlowKeepsAFlowOnItsClusterAndWaitsWhenItIsFull) {
  quiet_systemc();
  // 4 clusters, at most 2 outstanding tasks each; a packet's cluster is its flow hash mod 4.
  // Counts [c0, c1, c2, c3] after each step:
  //   hash 1 -> 1; hash 5 -> 1                        [0,2,0,0]
  //   hash 9 -> 1 is full: held, although 0, 2, 3 are empty
  //   hash 2 -> held behind it (one queue, in order), although 2 is empty
  //   done(1) [0,1,0,0]: hash 9 -> 1, then hash 2 -> 2  [0,2,1,0]
  //   hash 0xFFFFFFFF -> 3 (4294967295 mod 4)          [0,2,1,1]
  SchedBench b(PacketScheduler::Policy::kFlow, 4, 8, 1, 0, 2);
  if (sc_core::sc_get_status() == sc_core::SC_ELABORATION) sc_core::sc_start(sc_core::SC_ZERO_TIME);
  for (uint32_t h : {1u, 5u, 9u, 2u}) b.sched.accept(flow_packet(h));
  EXPECT_EQ(b.out.size(), 2u);
  EXPECT_EQ(b.sched.held, 2u);
  b.sched.done(1);
  EXPECT_EQ(b.out.size(), 4u);
  b.sched.accept(flow_packet(0xFFFFFFFFu));
  ASSERT_EQ(b.out.size(), 5u);
  const uint32_t hashes[] = {1, 5, 9, 2, 0xFFFFFFFFu};
  const unsigned clusters[] = {1, 1, 1, 2, 3};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(b.out[i].task.pkt->flow_hash, hashes[i]) << i;
    EXPECT_EQ(b.out[i].task.cluster, clusters[i]) << i;
    EXPECT_EQ(b.out[i].task.subset, -1) << i;
  }
  EXPECT_EQ(b.sched.held, 2u);
  EXPECT_EQ(b.sched.assigned(), (std::vector<uint64_t>{0, 3, 1, 1}));
}

TEST(BlocksScheduler, PolicyNames) {
  // The policy is parsed once, by its key (config/choices.h).
  const fs::ConfigKey* key = fs::find_config_key("scheduler.policy");
  ASSERT_NE(key, nullptr);
  fs::Config cfg;
  key->set(cfg, "hier-fcfs");
  EXPECT_EQ(cfg.scheduler.policy, PacketScheduler::Policy::kHierFcfs);
  key->set(cfg, "home-cluster");
  EXPECT_EQ(cfg.scheduler.policy, PacketScheduler::Policy::kHomeCluster);
  key->set(cfg, "flow");
  EXPECT_EQ(cfg.scheduler.policy, PacketScheduler::Policy::kFlow);
  key->set(cfg, "fcfs");
  EXPECT_EQ(cfg.scheduler.policy, PacketScheduler::Policy::kFcfs);
  try {
    key->set(cfg, "lifo");
    FAIL() << "no error";
  } catch (const fs::InputError& e) {
    EXPECT_STREQ(e.what(), "bad value 'lifo' for 'scheduler.policy': expected one of fcfs, hier-fcfs, home-cluster, flow");
  }
}

TEST(BlocksScheduler, MaxOutstandingIsPspinsAndRangeChecked) {
  // PsPIN's NUM_HERS_PER_CLUSTER: 12 buffered + 8 running handler executions per cluster.
  EXPECT_EQ(fs::Config{}.scheduler.max_outstanding, 20u);
  const fs::ConfigKey* key = fs::find_config_key("scheduler.max_outstanding");
  ASSERT_NE(key, nullptr);
  fs::Config cfg;
  key->set(cfg, "65535");
  EXPECT_EQ(cfg.scheduler.max_outstanding, 65535u);
  for (const char* bad : {"0", "65536"}) {
    try {
      key->set(cfg, bad);
      FAIL() << "no error for " << bad;
    } catch (const fs::InputError& e) {
      EXPECT_EQ(std::string(e.what()), std::string("bad value '") + bad +
                                           "' for 'scheduler.max_outstanding': expected a whole number from 1 to 65535");
    }
  }
}

TEST(BlocksScheduler, AcceptAddsLatencyFcfs) {
  quiet_systemc();
  // Latency 3 cycles at 1 GHz = 3000 ps; 2 clusters. Packets at 1000, 1000 and 2500 ps are
  // placed at 4000, 4000 and 5500 ps on clusters 0, 1 (tie, round robin) and 0 (tie again).
  SchedBench b(PacketScheduler::Policy::kFcfs, 2, 4, 1, 3);
  fs::PacketPtr p[3] = {block_packet(10), block_packet(11), block_packet(12)};
  b.script.at(1000, [&]() { b.sched.accept(p[0]); });
  b.script.at(1000, [&]() { b.sched.accept(p[1]); });
  b.script.at(2500, [&]() { b.sched.accept(p[2]); });
  sc_core::sc_start();
  ASSERT_EQ(b.out.size(), 3u);
  const Picos times[] = {4000, 4000, 5500};
  const unsigned clusters[] = {0, 1, 0};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(b.out[i].time, times[i]);
    EXPECT_EQ(b.out[i].task.cluster, clusters[i]);
    EXPECT_EQ(b.out[i].task.pkt, p[i]);
  }
}

TEST(BlocksScheduler, AcceptAddsLatencyHierFcfs) {
  quiet_systemc();
  // Latency 1000 ps; clusters 4, hpus 8, S 2 (table above): block 17 -> (1,0), 31 -> (3,3).
  SchedBench b(PacketScheduler::Policy::kHierFcfs, 4, 8, 2, 1);
  b.script.at(500, [&]() { b.sched.accept(block_packet(17)); });
  b.script.at(700, [&]() { b.sched.accept(block_packet(31)); });
  b.script.at(700, [&]() { b.sched.accept(block_packet(17)); });
  sc_core::sc_start();
  ASSERT_EQ(b.out.size(), 3u);
  EXPECT_EQ(b.out[0].time, 1500u);
  EXPECT_EQ(b.out[0].task.cluster, 1u);
  EXPECT_EQ(b.out[0].task.subset, 0);
  EXPECT_EQ(b.out[1].time, 1700u);
  EXPECT_EQ(b.out[1].task.cluster, 3u);
  EXPECT_EQ(b.out[1].task.subset, 3);
  EXPECT_EQ(b.out[2].time, 1700u);
  EXPECT_EQ(b.out[2].task.cluster, 1u);
  EXPECT_EQ(b.out[2].task.subset, 0);
  EXPECT_EQ(b.sched.assigned(), (std::vector<uint64_t>{0, 2, 0, 1}));
}

}  // namespace
}  // namespace fs_tb
