// A PsPIN cluster: its DMA engine, its HPUs, and the cluster scheduler that hands queued tasks to
// free HPUs (lowest-numbered free HPU first; under hier-fcfs only the HPUs of the task's subset)
// and reserves each task's L2->L1 copy on the DMA engine in that order (`pspin.dispatch_cycles`
// ahead of the copy's start). Handler DMA copies (fs_dma_copy) queue on the same engine. The
// scheduler's decisions are its core's (cluster_sched_core.h): the C++ model, or the Verilated RTL
// with --rtl cluster_sched, ticked once per event (a task arrives, an HPU finishes). The core's
// FIFOs hold kTaskFifoDepth tasks per subset; more wait here, in order, so the depth never shows.
#pragma once
#include <deque>
#include <memory>
#include <vector>

#include "config/config.h"
#include "common/stats.h"
#include "cores/cluster_sched_core.h"
#include "pspin/hpu.h"

namespace fs {

class Cluster : public sc_core::sc_module, public TaskSinkIf, public HpuFreeIf {
 public:
  sc_core::sc_port<HpuStartIf, 0> to_hpu;  // the cluster scheduler to its HPUs, in HPU order

  SC_HAS_PROCESS(Cluster);
  static constexpr unsigned kTaskFifoDepth = ClusterSchedCore::kMaxDepth;  // the RTL's DEPTH
  // Configured by the unit's geometry and dispatch delay (pspin.*), the scheduling policy
  // (scheduler.*) and its DMA engine (dma.*). core: the scheduler's decision core (nullptr: the
  // C++ model).
  Cluster(sc_core::sc_module_name name, unsigned index, const PspinConfig& pspin, const SchedulerConfig& sched,
          const DmaConfig& dma, HpuServices services, std::unique_ptr<ClusterSchedCore> core = nullptr);

  // A task the global scheduler placed here.
  void submit(Task t) override;
  // An HPU of this cluster finished its run (the retire block is done with it).
  void hpu_free(unsigned hpu) override;

  unsigned index() const { return index_; }
  const std::vector<std::unique_ptr<Hpu>>& hpus() const { return hpus_; }
  Hpu& hpu(unsigned h) { return *hpus_.at(h); }
  Dma& dma() { return dma_; }

  // Its entry of the stats' clusters (with its DMA engine's counters).
  void report(StatsTree& out, Picos end) const {
    out["cluster"] = index_, out["tasks"] = received, out["queue_max"] = queued.max();
    out["queue_avg"] = queued.average(end);
    dma_.report(out);
  }

  TimeWeighted queued;  // tasks waiting for an HPU
  uint64_t received = 0;

 private:
  // Moves tasks waiting here into the core's FIFO of `subset` while it takes them.
  void feed(unsigned subset);
  // Acts on a core decision: starts the task on its HPU and refills that subset's FIFO.
  void act(const ClusterSchedOut& out);

  unsigned index_;
  unsigned subset_size_;
  unsigned dispatch_cycles_;  // from handing a task to an HPU to its DMA request
  HpuServices svc_;
  Dma dma_;
  std::vector<std::unique_ptr<Hpu>> hpus_;
  std::unique_ptr<ClusterSchedCore> core_;
  std::vector<std::deque<Task>> backlog_;  // per subset: tasks the core's FIFO had no room for
  std::vector<Task> tasks_;                // in the core, by tag
  std::vector<uint16_t> free_tags_;
  uint64_t waiting_ = 0;
};

}  // namespace fs
