// Drives a Verilated cluster scheduler one clock cycle per tick (see cluster_sched_rtl.h).
#include "rtl_bridge/cluster_sched_rtl.h"

#include <Vcluster_sched.h>
#include <verilated_vcd_c.h>

#include "common/errors.h"
#include "rtl_bridge/rtl_context.h"

namespace fs {

ClusterSchedRtl::ClusterSchedRtl(RtlContext& rtl, const std::string& name) : m_(rtl, name) {}

ClusterSchedRtl::~ClusterSchedRtl() = default;

void ClusterSchedRtl::reset(const ClusterSchedConfig& cfg) {
  const unsigned size = cfg.subset_size ? cfg.subset_size : cfg.hpus;
  if (cfg.hpus < 1 || cfg.hpus > kMaxHpus || size > cfg.hpus || cfg.hpus % size || cfg.depth < 1 ||
      cfg.depth > kMaxDepth)
    throw InputError("rtl cluster_sched: " + std::to_string(cfg.hpus) + " HPUs in subsets of " + std::to_string(size) +
                     ", queues of " + std::to_string(cfg.depth) + ": the block supports 1 to " +
                     std::to_string(kMaxHpus) + " HPUs in equal subsets and queues of 1 to " + std::to_string(kMaxDepth) +
                     " tasks");
  m_->cfg_hpus = uint8_t(cfg.hpus);
  m_->cfg_subset_size = uint8_t(size);
  m_->cfg_depth = uint16_t(cfg.depth);
  m_->push_valid = 0;
  m_->free_valid = 0;
  m_.reset_cycle();
}

ClusterSchedOut ClusterSchedRtl::tick(const ClusterSchedIn& in) {
  m_->push_valid = in.push_valid;
  m_->push_subset = uint8_t(in.push_subset > 255 ? 255 : in.push_subset);
  m_->push_tag = in.push_tag;
  m_->free_valid = in.free_valid;
  m_->free_hpu = uint8_t(in.free_hpu > 255 ? 255 : in.free_hpu);
  m_.settle();
  ClusterSchedOut out;
  out.push_ready = m_->push_ready;
  m_.clock();
  out.disp_valid = m_->disp_valid;
  out.disp_hpu = m_->disp_hpu;
  out.disp_tag = m_->disp_tag;
  out.busy = m_->busy;
  return out;
}

}  // namespace fs
