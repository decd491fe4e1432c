// Global packet scheduler policies (see packet_scheduler.h).
#include "pspin/packet_scheduler.h"

#include "common/errors.h"

namespace fs {

namespace {

// scheduler.max_outstanding's range (config/sections/scheduler.def) ends at what a counter holds.
static_assert(PktSchedCore::kCountMax == 65535, "scheduler.max_outstanding's range must end at kCountMax");

PktSchedPolicy core_policy(SchedPolicy p) {
  switch (p) {
    case SchedPolicy::kHierFcfs: return PktSchedPolicy::kHierFcfs;
    case SchedPolicy::kHomeCluster: return PktSchedPolicy::kHomeCluster;
    case SchedPolicy::kFlow: return PktSchedPolicy::kFlow;
    case SchedPolicy::kFcfs: break;
  }
  return PktSchedPolicy::kFcfs;
}

}  // namespace

PacketScheduler::PacketScheduler(sc_core::sc_module_name name, const SchedulerConfig& sched, const PspinConfig& pspin,
                                 Clock clock, std::unique_ptr<PktSchedCore> core)
    : sc_core::sc_module(name),
      to_cluster("to_cluster"),
      core_(core ? std::move(core) : std::make_unique<PktSchedModel>()),
      policy_(sched.policy),
      policy_hier_(sched.policy == Policy::kHierFcfs),
      assigned_(pspin.clusters, 0),
      stage_("stage", clock.cycles_ps(sched.latency_cycles), [this](PacketPtr p) { offer(std::move(p)); }) {
  PktSchedConfig c;
  c.clusters = pspin.clusters;
  c.policy = core_policy(sched.policy);
  c.subsets = policy_hier_ ? pspin.hpus_per_cluster / sched.subset : 1;
  c.home_max = sched.max_outstanding;
  core_->reset(c);
}

void PacketScheduler::accept(PacketPtr p) { stage_.push(std::move(p)); }

void PacketScheduler::done(unsigned cluster) {
  PktSchedIn in;
  in.done_valid = true;
  in.done_cluster = uint16_t(cluster);
  core_->tick(in);
  while (!held_.empty() && try_place(held_.front())) held_.pop_front();
}

void PacketScheduler::offer(PacketPtr p) {
  if (held_.empty() && try_place(p)) return;
  ++held;
  held_.push_back(std::move(p));
}

bool PacketScheduler::try_place(PacketPtr& p) {
  PktSchedIn in;
  in.req_valid = true;
  in.req_block = policy_ == Policy::kFlow ? p->flow_hash : p->block_id;
  const PktSchedOut out = core_->tick(in);
  if (!out.grant_valid) return false;
  Task t;
  t.cluster = out.grant_cluster;
  t.subset = policy_hier_ ? int(out.grant_subset) : -1;
  ++assigned_[t.cluster];
  t.pkt = std::move(p);
  to_cluster[t.cluster]->submit(std::move(t));
  return true;
}

}  // namespace fs
