// The C++ model of the cluster scheduler's decision core (see cluster_sched_core.h,
// rtl/cluster_sched.sv).
#include "cores/cluster_sched_core.h"

namespace fs {

void ClusterSchedModel::reset(const ClusterSchedConfig& cfg) {
  cfg_ = cfg;
  if (!cfg_.subset_size) cfg_.subset_size = cfg_.hpus;
  subsets_ = cfg_.subset_size ? cfg_.hpus / cfg_.subset_size : 0;
  fifos_.assign(subsets_, {});
  busy_.assign(cfg_.hpus, false);
  out_ = ClusterSchedOut{};
}

ClusterSchedOut ClusterSchedModel::tick(const ClusterSchedIn& in) {
  ClusterSchedOut out = out_;
  out.push_ready = in.push_subset < subsets_ && fifos_[in.push_subset].size() < cfg_.depth;
  const bool push = in.push_valid && out.push_ready;
  if (in.free_valid && in.free_hpu < busy_.size()) busy_[in.free_hpu] = false;
  if (push) fifos_[in.push_subset].push_back(in.push_tag);
  out_.disp_valid = false;
  for (unsigned q = 0; q < subsets_ && !out_.disp_valid; ++q) {
    if (fifos_[q].empty()) continue;
    for (unsigned j = 0; j < cfg_.subset_size; ++j) {
      const unsigned h = q * cfg_.subset_size + j;
      if (busy_[h]) continue;
      busy_[h] = true;
      out_.disp_valid = true;
      out_.disp_hpu = uint16_t(h);
      out_.disp_tag = fifos_[q].front();
      fifos_[q].pop_front();
      break;
    }
  }
  out_.busy = 0;
  for (unsigned h = 0; h < busy_.size() && h < 32; ++h)
    if (busy_[h]) out_.busy |= 1u << h;
  out.disp_valid = out_.disp_valid;
  out.disp_hpu = out_.disp_hpu;
  out.disp_tag = out_.disp_tag;
  out.busy = out_.busy;
  return out;
}

}  // namespace fs
