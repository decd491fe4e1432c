// The Verilated packet scheduler (rtl/pkt_sched.sv) behind the PktSchedCore interface, so that
// the SystemC PacketScheduler can use it in place of the C++ model (--rtl pkt_sched).
#pragma once
#include <memory>

#include "cores/pkt_sched_core.h"
#include "rtl_bridge/rtl_context.h"

class Vpkt_sched;

namespace fs {

class PktSchedRtl : public PktSchedCore {
 public:
  explicit PktSchedRtl(RtlContext& rtl);
  ~PktSchedRtl() override;
  void reset(const PktSchedConfig& cfg) override;
  PktSchedOut tick(const PktSchedIn& in) override;

 private:
  VerilatedBlock<Vpkt_sched> m_;
};

}  // namespace fs
