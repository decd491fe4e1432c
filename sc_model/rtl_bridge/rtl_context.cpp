// The Verilated context and waveform shared by the RTL twins (see rtl_context.h).
#include "rtl_bridge/rtl_context.h"

#include <verilated.h>
#include <verilated_vcd_c.h>

#include "common/errors.h"
#include "common/sc_time_util.h"

namespace fs {

RtlContext::RtlContext(std::string vcd_path) : ctx_(std::make_unique<VerilatedContext>()), vcd_path_(std::move(vcd_path)) {
  ctx_->timeunit(-12);
  ctx_->timeprecision(-12);
  if (!vcd_path_.empty()) {
    ctx_->traceEverOn(true);
    vcd_ = std::make_unique<VerilatedVcdC>();
  }
}

RtlContext::~RtlContext() { close(); }

uint64_t RtlContext::stamp(uint64_t ps) {
  const uint64_t t = ps > last_ ? ps : last_ + 1;
  last_ = t + 1;
  return t;
}

uint64_t RtlContext::stamp_now() { return stamp(now_ps()); }

void RtlContext::open() {
  if (!vcd_ || opened_) return;
  vcd_->open(vcd_path_.c_str());
  if (!vcd_->isOpen()) throw InputError("--vcd: cannot write '" + vcd_path_ + "'");
  opened_ = true;
}

void RtlContext::dump(uint64_t t) {
  if (opened_) vcd_->dump(t);
}

void RtlContext::close() {
  if (vcd_ && opened_) vcd_->close();
  opened_ = false;
}

}  // namespace fs
