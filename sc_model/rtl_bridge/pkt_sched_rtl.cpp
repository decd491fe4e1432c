// Drives the Verilated packet scheduler one clock cycle per tick (see pkt_sched_rtl.h).
#include "rtl_bridge/pkt_sched_rtl.h"

#include <Vpkt_sched.h>
#include <verilated_vcd_c.h>

#include "common/errors.h"
#include "rtl_bridge/rtl_context.h"

namespace fs {

PktSchedRtl::PktSchedRtl(RtlContext& rtl) : m_(rtl, "pkt_sched") {}

PktSchedRtl::~PktSchedRtl() = default;

void PktSchedRtl::reset(const PktSchedConfig& cfg) {
  if (cfg.clusters < 1 || cfg.clusters > kMaxClusters || cfg.subsets < 1 || cfg.subsets > 255)
    throw InputError("rtl pkt_sched: " + std::to_string(cfg.clusters) + " clusters and " + std::to_string(cfg.subsets) +
                     " subsets per cluster: the block supports 1 to " + std::to_string(kMaxClusters) +
                     " clusters and 1 to 255 subsets");
  if (cfg.home_max < 1 || cfg.home_max > kCountMax)
    throw InputError("rtl pkt_sched: at most " + std::to_string(cfg.home_max) +
                     " outstanding tasks per cluster: the block supports 1 to " + std::to_string(kCountMax));
  m_->cfg_clusters = uint8_t(cfg.clusters);
  m_->cfg_policy = uint8_t(cfg.policy);
  m_->cfg_subsets = uint8_t(cfg.subsets);
  m_->cfg_home_max = uint16_t(cfg.home_max);
  m_->done_valid = 0;
  m_->req_valid = 0;
  m_.reset_cycle();
}

PktSchedOut PktSchedRtl::tick(const PktSchedIn& in) {
  m_->done_valid = in.done_valid;
  m_->done_cluster = in.done_cluster;
  m_->req_valid = in.req_valid;
  m_->req_block = in.req_block;
  m_.settle();
  PktSchedOut out;
  out.req_ready = m_->req_ready;
  m_.clock();
  out.grant_valid = m_->grant_valid;
  out.grant_cluster = m_->grant_cluster;
  out.grant_subset = m_->grant_subset;
  return out;
}

}  // namespace fs
