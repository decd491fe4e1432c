// The C++ model of the packet scheduler's decision core (see pkt_sched_core.h, rtl/pkt_sched.sv).
#include "cores/pkt_sched_core.h"

namespace fs {

void PktSchedModel::reset(const PktSchedConfig& cfg) {
  cfg_ = cfg;
  outstanding_.assign(cfg.clusters ? cfg.clusters : 1, 0);
  next_ = 0;
  out_ = PktSchedOut{};
}

unsigned PktSchedModel::fcfs_pick(const std::vector<uint32_t>& counts) const {
  const unsigned clusters = unsigned(counts.size());
  unsigned pick = next_;
  for (unsigned i = 1; i < clusters; ++i) {
    const unsigned c = (next_ + i) % clusters;
    if (counts[c] < counts[pick]) pick = c;
  }
  return pick;
}

unsigned PktSchedModel::hier_pick(uint32_t block, unsigned* subset) const {
  const unsigned clusters = cfg_.clusters ? cfg_.clusters : 1;
  const uint32_t all = block % (clusters * (cfg_.subsets ? cfg_.subsets : 1));
  *subset = all / clusters;
  return all % clusters;
}

unsigned PktSchedModel::home_pick(uint32_t block, const std::vector<uint32_t>& counts) const {
  const unsigned home = block % unsigned(counts.size());
  if (counts[home] < limit()) return home;
  unsigned least = 0;  // the least loaded cluster, the lowest index on ties
  for (unsigned c = 1; c < counts.size(); ++c)
    if (counts[c] < counts[least]) least = c;
  return least;
}

uint32_t PktSchedModel::limit() const {
  return cfg_.policy == PktSchedPolicy::kHomeCluster || cfg_.policy == PktSchedPolicy::kFlow ? cfg_.home_max : kCountMax;
}

PktSchedOut PktSchedModel::tick(const PktSchedIn& in) {
  std::vector<uint32_t> counts = outstanding_;
  if (in.done_valid && in.done_cluster < counts.size() && counts[in.done_cluster] > 0) --counts[in.done_cluster];
  unsigned pick, subset = 0;
  switch (cfg_.policy) {
    case PktSchedPolicy::kHierFcfs: pick = hier_pick(in.req_block, &subset); break;
    case PktSchedPolicy::kHomeCluster: pick = home_pick(in.req_block, counts); break;
    case PktSchedPolicy::kFlow: pick = in.req_block % unsigned(counts.size()); break;
    case PktSchedPolicy::kFcfs:
    default: pick = fcfs_pick(counts); break;
  }
  PktSchedOut out = out_;
  out.req_ready = counts[pick] < limit();
  const bool place = in.req_valid && out.req_ready;
  outstanding_ = counts;
  out_.grant_valid = place;
  if (place) {
    ++outstanding_[pick];
    out_.grant_cluster = uint16_t(pick);
    out_.grant_subset = uint16_t(subset);
    if (cfg_.policy == PktSchedPolicy::kFcfs) next_ = (pick + 1) % unsigned(counts.size());
  }
  out.grant_valid = out_.grant_valid;
  out.grant_cluster = out_.grant_cluster;
  out.grant_subset = out_.grant_subset;
  return out;
}

}  // namespace fs
