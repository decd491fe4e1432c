// Global packet scheduler policies (see packet_scheduler.h).
#include "pspin/packet_scheduler.h"

#include "common/errors.h"

namespace fs {

PacketScheduler::Policy PacketScheduler::parse_policy(const std::string& name) {
  if (name == "fcfs") return Policy::kFcfs;
  if (name == "hier-fcfs") return Policy::kHierFcfs;
  throw InputError("bad value '" + name + "' for 'scheduler.policy': expected one of fcfs, hier-fcfs");
}

PacketScheduler::PacketScheduler(sc_core::sc_module_name name, Policy policy, unsigned clusters,
                                 unsigned hpus_per_cluster, unsigned subset, Picos latency,
                                 std::function<void(Task)> dispatch)
    : sc_core::sc_module(name),
      policy_(policy),
      clusters_(clusters),
      subsets_per_cluster_(hpus_per_cluster / subset),
      outstanding_(clusters, 0),
      assigned_(clusters, 0),
      dispatch_(std::move(dispatch)),
      stage_("stage", latency, [this](PacketPtr p) { dispatch_(place(std::move(p))); }) {}

void PacketScheduler::accept(PacketPtr p) { stage_.push(std::move(p)); }

Task PacketScheduler::place(PacketPtr p) {
  Task t;
  if (policy_ == Policy::kFcfs) {
    unsigned best = next_;
    for (unsigned i = 0; i < clusters_; ++i) {
      const unsigned c = (next_ + i) % clusters_;
      if (outstanding_[c] < outstanding_[best]) best = c;
    }
    t.cluster = best;
    next_ = (best + 1) % clusters_;
  } else {
    const uint64_t subset = p->block_id % (uint64_t(clusters_) * subsets_per_cluster_);
    t.cluster = unsigned(subset % clusters_);
    t.subset = int(subset / clusters_);
  }
  ++outstanding_[t.cluster];
  ++assigned_[t.cluster];
  t.pkt = std::move(p);
  return t;
}

}  // namespace fs
