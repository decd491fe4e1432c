// The Verilated cluster scheduler (rtl/cluster_sched.sv) behind the ClusterSchedCore interface,
// so that the SystemC Cluster can use it in place of the C++ model (--rtl cluster_sched).
#pragma once
#include <memory>
#include <string>

#include "cores/cluster_sched_core.h"
#include "rtl_bridge/rtl_context.h"

class Vcluster_sched;

namespace fs {

class ClusterSchedRtl : public ClusterSchedCore {
 public:
  // name: the block's scope in the waveform (one per cluster).
  ClusterSchedRtl(RtlContext& rtl, const std::string& name);
  ~ClusterSchedRtl() override;
  void reset(const ClusterSchedConfig& cfg) override;
  ClusterSchedOut tick(const ClusterSchedIn& in) override;

 private:
  VerilatedBlock<Vcluster_sched> m_;
};

}  // namespace fs
