// A cluster's DMA engine: copies packets from L2 packet memory into an HPU's L1 slot, and does
// handlers' fs_dma_copy copies. One
// transfer moves at a time at `bytes_per_cycle`; each completes `latency` cycles after its last
// byte is moved, so back-to-back transfers pipeline their latency but not their bandwidth.
#pragma once
#include "common/sc_time_util.h"
#include "common/stats_tree.h"
#include "config/config.h"
#include "pspin/hpu_engine.h"

namespace fs {

class Dma : public sc_core::sc_module, public HandlerDmaIf {
 public:
  // Configured by the dma.* keys.
  Dma(sc_core::sc_module_name name, Clock clock, const DmaConfig& dma)
      : sc_core::sc_module(name), clock_(clock), latency_(dma.latency_cycles), bw_(dma.bytes_per_cycle) {}

  // Reserves the engine for a copy of `bytes` requested at `request` (now or later); returns
  // when the copy completes. Copies are served in the order they are reserved. `handler`: a
  // handler's fs_dma_copy (counted apart from packet copies too).
  Picos schedule_at(Picos request, uint64_t bytes, bool handler = false) {
    if (handler) {
      ++handler_transfers;
      handler_bytes += bytes;
    }
    const Picos start = request > free_at_ ? request : free_at_;
    const uint64_t xfer_cycles = (bytes + bw_ - 1) / bw_;
    free_at_ = start + clock_.cycles_ps(xfer_cycles);
    ++transfers;
    bytes_moved += bytes;
    busy_cycles += xfer_cycles;
    return free_at_ + clock_.cycles_ps(latency_);
  }
  Picos schedule(uint64_t bytes) { return schedule_at(now_ps(), bytes); }
  Picos handler_copy(Picos request, uint64_t bytes) override { return schedule_at(request, bytes, true); }
  // For SC_THREAD callers: waits until the copy is done.
  void copy(uint64_t bytes) {
    const Picos done = schedule(bytes);
    sc_core::wait(ps_time(done - now_ps()));
  }

  // Its counters, into its cluster's entry of the stats.
  void report(StatsTree& cluster) const {
    cluster["dma_transfers"] = transfers, cluster["dma_bytes"] = bytes_moved, cluster["dma_busy_cycles"] = busy_cycles;
    cluster["dma_handler_transfers"] = handler_transfers, cluster["dma_handler_bytes"] = handler_bytes;
  }
  uint64_t transfers = 0, bytes_moved = 0, busy_cycles = 0;  // all copies
  uint64_t handler_transfers = 0, handler_bytes = 0;           // of which handlers' copies

 private:
  Clock clock_;
  unsigned latency_, bw_;
  Picos free_at_ = 0;
};

}  // namespace fs
