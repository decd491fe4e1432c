// Cluster scheduler and its dispatch (see cluster.h).
#include "pspin/cluster.h"

#include <algorithm>
#include <string>


namespace fs {

Cluster::Cluster(sc_core::sc_module_name name, unsigned index, const PspinConfig& pspin, const SchedulerConfig& sched,
                 const DmaConfig& dma, HpuServices services, std::unique_ptr<ClusterSchedCore> core)
    : sc_core::sc_module(name),
      to_hpu("to_hpu"),
      index_(index),
      subset_size_(sched.policy == SchedPolicy::kHierFcfs ? sched.subset : pspin.hpus_per_cluster),
      dispatch_cycles_(pspin.dispatch_cycles),
      svc_(std::move(services)),
      dma_("dma", svc_.clock, dma),
      core_(core ? std::move(core) : std::make_unique<ClusterSchedModel>()),
      backlog_(pspin.hpus_per_cluster / subset_size_) {
  svc_.cluster_id = index;
  svc_.env.dma = &dma_;  // handlers' copies queue on the cluster's engine
  for (unsigned i = 0; i < pspin.hpus_per_cluster; ++i) {
    hpus_.push_back(std::make_unique<Hpu>(("hpu" + std::to_string(i)).c_str(), i, svc_));
    to_hpu.bind(*hpus_.back());
  }
  ClusterSchedConfig c;
  c.hpus = pspin.hpus_per_cluster;
  c.subset_size = subset_size_;
  // 16-bit tags name the tasks inside the core (queued ones; a tag is free again once its task
  // starts): the FIFOs, full, must not need more.
  c.depth = unsigned(std::min<size_t>(kTaskFifoDepth, (65536 - hpus_.size()) / backlog_.size()));
  core_->reset(c);
}

void Cluster::submit(Task t) {
  ++received;
  const size_t q = t.subset < 0 ? 0 : size_t(t.subset);
  backlog_[q].push_back(std::move(t));
  ++waiting_;
  feed(unsigned(q));
  queued.set(now_ps(), waiting_);
}

void Cluster::feed(unsigned subset) {
  while (!backlog_[subset].empty()) {
    ClusterSchedIn in;
    in.push_valid = true;
    in.push_subset = uint16_t(subset);
    if (free_tags_.empty()) {  // tags are made as needed
      free_tags_.push_back(uint16_t(tasks_.size()));
      tasks_.emplace_back();
    }
    in.push_tag = free_tags_.back();
    tasks_[in.push_tag] = std::move(backlog_[subset].front());  // taken back below if refused
    const ClusterSchedOut out = core_->tick(in);
    if (!out.push_ready) {
      backlog_[subset].front() = std::move(tasks_[in.push_tag]);
      return;
    }
    free_tags_.pop_back();
    backlog_[subset].pop_front();
    act(out);
  }
}

void Cluster::act(const ClusterSchedOut& out) {
  if (!out.disp_valid) return;
  Task& t = tasks_[out.disp_tag];
  // The DMA copy is reserved here, in dispatch order, so that which HPU is served first is the
  // model's decision and not the order the kernel happens to run processes in.
  const Picos copy_done = dma_.schedule_at(now_ps() + svc_.clock.cycles_ps(dispatch_cycles_), t.pkt->data.size());
  if (svc_.interleaver) svc_.interleaver->expect(copy_done);
  to_hpu[out.disp_hpu]->start(std::move(t), copy_done);
  free_tags_.push_back(out.disp_tag);
  --waiting_;
  feed(out.disp_hpu / subset_size_);  // the FIFO has room for one more
}

void Cluster::hpu_free(unsigned hpu) {
  ClusterSchedIn in;
  in.free_valid = true;
  in.free_hpu = uint16_t(hpu);
  act(core_->tick(in));
  queued.set(now_ps(), waiting_);
}

}  // namespace fs
