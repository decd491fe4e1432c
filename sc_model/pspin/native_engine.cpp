// Native handler execution: runs the C handler as a guarded native call (pspin/native_call.h)
// with a HandlerApi serving its calls (so they are carried out as on the ISS), and charges cycles
// by the native cost model or a calibration table (a run that faults too). Every call happens at the time the handler
// starts. Its DMA copies are left to the HPU, which queues them on the cluster's DMA engine once
// the handler's cycles have passed (without a DMA engine they cost its latency and bandwidth).
#include <cmath>

#include "common/errors.h"
#include "common/sc_time_util.h"
#include "pspin/calibration.h"
#include "pspin/handler_api.h"
#include "pspin/native_call.h"

namespace fs {
namespace {

class NativeHooks : public HandlerApi::Hooks {
 public:
  NativeHooks(HandlerRun& run, const HpuEnvironment& env, uint32_t dma_latency, uint32_t dma_bw)
      : run_(run), env_(env), dma_latency_(dma_latency), dma_bw_(dma_bw), start_(now_ps()) {}
  Picos now() const override { return start_; }
  uint64_t dma(uint32_t bytes) override {
    if (env_.dma)
      run_.dma_copies.push_back(bytes);  // the HPU queues it on the cluster DMA after the compute
    else
      dma_cycles += dma_latency_ + (bytes + dma_bw_ - 1) / dma_bw_;
    return 0;
  }
  uint64_t dma_cycles = 0;

 private:
  HandlerRun& run_;
  const HpuEnvironment& env_;
  uint32_t dma_latency_, dma_bw_;
  Picos start_;
};

}  // namespace

uint64_t NativeEngine::compute_cycles(const HandlerJob& job, const HandlerRun& run) const {
  if (!calibration_) return fixed_ + uint64_t(std::ceil(per_byte_ * double(job.args.pkt_len)));
  const std::string outcome = run.fault.empty() ? outcome_name(job.set, run.outcome) : "fault";
  const CalibrationEntry* e = calibration_->find(job.set.name, outcome);
  if (!e)
    throw SimError("handler set " + job.set.name + " ran, but the calibration table " + calibration_->path() +
                   " has no entry for it (calibrate it with a run that uses it: flaresim run --hpu.model iss "
                   "--calibration-out FILE)");
  return e->cycles(job.args.pkt_len);
}

HandlerRun NativeEngine::execute(const HandlerJob& job, const HpuEnvironment& env) {
  HandlerRun run;
  NativeHooks hooks(run, env, dma_latency_, dma_bw_);
  HandlerApi api(env, job, run, hooks, log_);
  run_native_handler(job, api, run, watchdog_ms_);
  const uint64_t compute = compute_cycles(job, run);
  run.cycles = compute + hooks.dma_cycles;
  run.counters.dma_wait_cycles = hooks.dma_cycles;
  return run;
}

}  // namespace fs
