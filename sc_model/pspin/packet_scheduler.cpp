// Global packet scheduler policies (see packet_scheduler.h).
#include "pspin/packet_scheduler.h"

#include "common/errors.h"

namespace fs {

PacketScheduler::Policy PacketScheduler::parse_policy(const std::string& name) {
  Policy p;
  if (parse_choice(name, &p)) return p;
  throw InputError("bad value '" + name + "' for 'scheduler.policy': expected one of fcfs, hier-fcfs");
}

PacketScheduler::PacketScheduler(sc_core::sc_module_name name, Policy policy, unsigned clusters,
                                 unsigned hpus_per_cluster, unsigned subset, Picos latency,
                                 std::unique_ptr<PktSchedCore> core)
    : sc_core::sc_module(name),
      to_cluster("to_cluster"),
      core_(core ? std::move(core) : std::make_unique<PktSchedModel>()),
      policy_(policy),
      policy_hier_(policy == Policy::kHierFcfs),
      assigned_(clusters, 0),
      stage_("stage", latency, [this](PacketPtr p) { offer(std::move(p)); }) {
  PktSchedConfig c;
  c.clusters = clusters;
  c.hier = policy == Policy::kHierFcfs;
  c.subsets = c.hier ? hpus_per_cluster / subset : 1;
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
  in.req_block = p->block_id;
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
