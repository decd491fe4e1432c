// Cluster scheduler and L1 (see cluster.h).
#include "pspin/cluster.h"

#include <string>

#include "common/errors.h"
#include "pspin/packet_buffer.h"

namespace fs {

uint64_t Cluster::l1_state_bytes(const Config& cfg) {
  const uint64_t slots = uint64_t(cfg.pspin.hpus_per_cluster) * kL1PacketSlotBytes;
  if (cfg.pspin.l1_bytes <= slots)
    throw InputError("'pspin.l1_bytes' = " + std::to_string(cfg.pspin.l1_bytes) + " leaves no L1 state area after " +
                     std::to_string(cfg.pspin.hpus_per_cluster) + " HPU packet slots of " +
                     std::to_string(kL1PacketSlotBytes) + " bytes");
  return cfg.pspin.l1_bytes - slots;
}

Cluster::Cluster(sc_core::sc_module_name name, unsigned index, const Config& cfg, HpuServices services)
    : sc_core::sc_module(name),
      index_(index),
      subset_size_(cfg.scheduler.policy == "hier-fcfs" ? cfg.scheduler.subset : cfg.pspin.hpus_per_cluster),
      dispatch_cycles_(cfg.pspin.dispatch_cycles),
      svc_(std::move(services)),
      l1_(l1_state_bytes(cfg)),
      dma_("dma", svc_.clock, cfg.dma.latency_cycles, cfg.dma.bytes_per_cycle),
      queues_(cfg.pspin.hpus_per_cluster / subset_size_) {
  upstream_finished_ = svc_.finished;
  svc_.cluster_id = index;
  svc_.l1 = l1_.data();
  svc_.l1_size = uint32_t(l1_.size());
  svc_.finished = [this](Hpu& h, Task& t, HandlerRun& r, Picos s) { on_finished(h, t, r, s); };
  for (unsigned i = 0; i < cfg.pspin.hpus_per_cluster; ++i)
    hpus_.push_back(std::make_unique<Hpu>(("hpu" + std::to_string(i)).c_str(), i, svc_));
}

void Cluster::submit(Task t) {
  ++received;
  const size_t q = t.subset < 0 ? 0 : size_t(t.subset);
  queues_[q].push_back(std::move(t));
  ++waiting_;
  dispatch();
  queued.set(now_ps(), waiting_);
}

void Cluster::dispatch() {
  for (size_t q = 0; q < queues_.size(); ++q) {
    const size_t first = q * subset_size_;
    for (size_t h = first; h < first + subset_size_ && !queues_[q].empty(); ++h) {
      if (hpus_[h]->busy()) continue;
      // The DMA copy is reserved here, in dispatch order, so that which HPU is served first
      // is the model's decision and not the order the kernel happens to run processes in.
      Task& t = queues_[q].front();
      const Picos copy_done = dma_.schedule_at(now_ps() + svc_.clock.cycles_ps(dispatch_cycles_), t.pkt->data.size());
      if (svc_.interleaver) svc_.interleaver->expect(copy_done);
      hpus_[h]->start(std::move(t), copy_done);
      queues_[q].pop_front();
      --waiting_;
    }
  }
}

void Cluster::on_finished(Hpu& hpu, Task& task, HandlerRun& run, Picos started) {
  upstream_finished_(hpu, task, run, started);
  dispatch();
  queued.set(now_ps(), waiting_);
}

}  // namespace fs
