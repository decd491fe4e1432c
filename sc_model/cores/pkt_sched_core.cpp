// The C++ model of the packet scheduler's decision core (see pkt_sched_core.h, rtl/pkt_sched.sv).
#include "cores/pkt_sched_core.h"

namespace fs {

void PktSchedModel::reset(const PktSchedConfig& cfg) {
  cfg_ = cfg;
  outstanding_.assign(cfg.clusters ? cfg.clusters : 1, 0);
  next_ = 0;
  out_ = PktSchedOut{};
}

PktSchedOut PktSchedModel::tick(const PktSchedIn& in) {
  const unsigned clusters = cfg_.clusters ? cfg_.clusters : 1;
  std::vector<uint32_t> counts = outstanding_;
  if (in.done_valid && in.done_cluster < counts.size() && counts[in.done_cluster] > 0) --counts[in.done_cluster];
  unsigned pick, subset = 0;
  if (!cfg_.hier) {
    pick = next_;
    for (unsigned i = 1; i < clusters; ++i) {
      const unsigned c = (next_ + i) % clusters;
      if (counts[c] < counts[pick]) pick = c;
    }
  } else {
    const uint32_t all = in.req_block % (clusters * (cfg_.subsets ? cfg_.subsets : 1));
    pick = all % clusters;
    subset = all / clusters;
  }
  PktSchedOut out = out_;
  out.req_ready = counts[pick] != kCountMax;
  const bool place = in.req_valid && out.req_ready;
  outstanding_ = counts;
  out_.grant_valid = place;
  if (place) {
    ++outstanding_[pick];
    out_.grant_cluster = uint16_t(pick);
    out_.grant_subset = uint16_t(cfg_.hier ? subset : 0);
    if (!cfg_.hier) next_ = (pick + 1) % clusters;
  }
  out.grant_valid = out_.grant_valid;
  out.grant_cluster = out_.grant_cluster;
  out.grant_subset = out_.grant_subset;
  return out;
}

}  // namespace fs
