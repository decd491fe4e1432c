// The global packet scheduler: picks the cluster (and, under hier-fcfs, the subset of HPUs)
// for each matched packet, after `latency`. The decisions are its core's (pkt_sched_core.h): the
// C++ model, or the Verilated RTL with --rtl pkt_sched; the core is ticked once per event (a
// finished task, a packet to place). fcfs: the cluster with the fewest outstanding tasks, round
// robin on ties. hier-fcfs: every packet of a block goes to the same subset of S HPUs; subsets
// are numbered so that consecutive blocks land on consecutive clusters (block b -> subset
// b mod (clusters * hpus/S), cluster = subset mod clusters), so block b's home cluster is always
// b mod clusters, where handlers keep its state. home-cluster (PsPIN's policy, the block standing
// for PsPIN's message id): block b's packets go to b mod clusters while it holds fewer than
// scheduler.max_outstanding tasks, else to the least loaded cluster (lowest index on ties). flow:
// every packet of a flow (its flow hash h, from the parser: net/flow_key.h) goes to cluster
// h mod clusters, and waits there when that cluster holds max_outstanding tasks: affinity is
// never given up. A cluster counts at most PktSchedCore::kCountMax outstanding tasks
// (home-cluster, flow: max_outstanding); a packet for a full cluster is held (and every packet
// after it, whatever its cluster: one queue, in order) until a task finishes.
#pragma once
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "common/delay_line.h"
#include "config/config.h"
#include "common/stats_tree.h"
#include "pspin/channels.h"
#include "cores/pkt_sched_core.h"
#include "pspin/task.h"
#include "net/packet_sink.h"

namespace fs {

class PacketScheduler : public sc_core::sc_module, public PacketSinkIf, public TaskDoneIf {
 public:
  sc_core::sc_port<TaskSinkIf, 0> to_cluster;  // bound once per cluster, in cluster order

  using Policy = SchedPolicy;

  // Configured by the scheduler.* keys and the unit's geometry (pspin.clusters,
  // pspin.hpus_per_cluster). core: nullptr for the C++ model.
  PacketScheduler(sc_core::sc_module_name name, const SchedulerConfig& sched, const PspinConfig& pspin, Clock clock,
                  std::unique_ptr<PktSchedCore> core = nullptr);

  void accept(PacketPtr p) override;
  // A task on `cluster` finished (held packets may go now).
  void done(unsigned cluster) override;

  void report(StatsTree& out) const {
    out["policy"] = choice_name(policy_), out["assigned_per_cluster"] = assigned_, out["held"] = held;
  }
  const std::vector<uint64_t>& assigned() const { return assigned_; }
  uint64_t held = 0;  // packets that waited because their cluster was full (see above)

 private:
  // Places the packet if the core takes it (its cluster's counter is not full); false: not taken.
  bool try_place(PacketPtr& p);
  // A packet out of the latency stage: placed, or held behind the packets already held.
  void offer(PacketPtr p);

  std::unique_ptr<PktSchedCore> core_;
  Policy policy_;
  bool policy_hier_;
  std::deque<PacketPtr> held_;  // in arrival order
  std::vector<uint64_t> assigned_;
  DelayLine<PacketPtr> stage_;
};

}  // namespace fs
