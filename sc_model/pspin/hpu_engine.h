// How an HPU executes a handler. The engine runs the handler on the packet and reports the
// cycles it took, its outcome code and the commands it issued; the HPU module turns that into
// simulated time. NativeEngine runs the C handler compiled into the simulator with a cost model
// (fixed + per byte); IssEngine (iss_engine.h) runs the handler set's RISC-V ELF on the ISS.
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/units.h"
#include "config/config.h"
#include "iss/cpu.h"
#include "fs_handler.h"
#include "pspin/handler_counters.h"
#include "pspin/handler_sets.h"
#include "pspin/memory/pspin_memory.h"
#include "pspin/task.h"

namespace fs {

class HandlerLog;
class CalibrationTable;

struct HandlerRun {
  uint64_t cycles = 0;  // the HPU's cycles for the run: the runtime's entry and exit included
  // The runtime's part of `cycles` (ISS: the firmware's entry up to the handler's first
  // instruction, and from its return to the end; native handlers have no runtime: 0).
  uint64_t entry_cycles = 0, exit_cycles = 0;
  // The handler's own cycles, from its first instruction to its return.
  uint64_t handler_cycles() const { return cycles - entry_cycles - exit_cycles; }
  int outcome = FS_OK;
  // What the handler asked for that the HPU did not issue while it ran (timer commands; every
  // command of a native run): the retire block hands them on when the run ends.
  std::vector<HandlerCommand> commands;
  std::string fault;  // non-empty: the handler faulted (message with handler, PC, instruction)
  // A faulted ISS run's shared words that its atomics changed and that still hold what it wrote
  // (a lock it took): nobody will release them. `host`: the word's bytes; `what`: for messages.
  struct HeldWord {
    const uint8_t* host;
    std::string what;
  };
  // The value of such a word now (the simulated memories are little-endian, as the host is).
  static uint32_t word_at(const uint8_t* host) {
    uint32_t v;
    std::memcpy(&v, host, 4);
    return v;
  }
  std::vector<HeldWord> held;
  const uint8_t* waiting_on = nullptr;  // a run stopped by the watchdog in a wait loop: its word
  HandlerCounters counters;
  // Native runs: the fs_dma_copy calls (bytes each) still to be queued on the cluster DMA after
  // `cycles` (their data has moved already); the HPU adds the time they take.
  std::vector<uint32_t> dma_copies;
  uint64_t log_lines = 0;  // fs_log / fs_log_write calls
};

// The DMA engine of the HPU's cluster, as handlers' fs_dma_copy calls use it.
class HandlerDmaIf {
 public:
  virtual ~HandlerDmaIf() = default;
  // Reserves the engine for a handler's copy of `bytes` requested at `request`; returns when the
  // copy completes.
  virtual Picos handler_copy(Picos request, uint64_t bytes) = 0;
};

struct CommandIf;

// The switch's routes as handlers ask them (fs_next_hop): the port a packet to `dst` would take
// now, or -1.
struct NextHopIf {
  virtual ~NextHopIf() = default;
  virtual int next_hop_ipv4(uint32_t dst) const = 0;
};

// What the engine may reach outside the HPU's memory: its cluster's DMA engine, the command unit
// and the switch's port count.
struct HpuEnvironment {
  // Unset: handler copies take the DMA latency and bandwidth only, without queueing.
  HandlerDmaIf* dma = nullptr;
  // Set: ISS runs issue their commands (send, multicast, host write) at the cycle of their issue
  // (pspin/channels.h); unset: they are left in HandlerRun::commands.
  CommandIf* commands = nullptr;
  Picos period_ps = 1000;  // the PsPIN clock
  const NextHopIf* routes = nullptr;  // the switch's routing table (unset: fs_next_hop gives -1)
  unsigned num_ports = 0;
};

// One handler run to make: the set, the handler's arguments (host pointers into `memory`), the
// memory the HPU sees (pspin/memory/pspin_memory.h) and the packet it runs on (the frames its
// commands make inherit its arrival; may be null outside a PsPIN unit).
struct HandlerJob {
  const HandlerSet& set;
  fs_handler_args_t args;
  const HpuMemoryView& memory;
  PacketPtr origin = nullptr;
};

// A handler run that advances a few cycles at a time (the ISS), so that the PsPIN unit can
// interleave its HPUs in simulated-time order (pspin/interleaver.h).
class SteppedRun {
 public:
  enum class Step {
    kRunning,       // reached the cycle target
    kEnded,         // the handler ended (finish() has the result)
    kWaitsShared,   // stopped before an access to shared memory (gates.cluster or gates.shared)
    kWaitsSwitch,   // stopped before an access to the rest of the switch (gates.device)
    kSpins,         // spins on a shared word until someone writes it (see spin())
    kLeaves,        // isolated (Gates::isolated): stopped before an access that leaves the cluster
  };
  // A run that spins loads `bytes` at `host` every `period` cycles (the last load started at
  // cycle `load_cycle`) and changes nothing else; past cycle `deadline` its watchdog fires.
  struct SpinWait {
    const uint8_t* host = nullptr;
    uint32_t bytes = 0;
    uint64_t load_cycle = 0, period = 0, deadline = 0;
    bool beyond_cluster = false;  // the word is shared with other clusters (L2, another's L1)
  };
  virtual ~SteppedRun() = default;
  // Runs until the handler has used at least `cycles` cycles in all, ends, or would pass a gate
  // (see iss::Gates; they count cycles like `cycles`).
  virtual Step advance(uint64_t cycles, const iss::Gates& gates = iss::Gates{}) = 0;
  virtual uint64_t cycles() const = 0;
  // After kSpins: the spin, and a fast-forward over `iterations` turns of it.
  virtual SpinWait spin() const { return {}; }
  virtual void skip_spin(uint64_t /*iterations*/) {}
  // The result, once advance() returned kEnded.
  virtual HandlerRun finish() = 0;
};

class HpuEngine {
 public:
  virtual ~HpuEngine() = default;
  // Runs the handler to completion.
  virtual HandlerRun execute(const HandlerJob& job, const HpuEnvironment& env) = 0;
  // Starts a run that the caller advances; nullptr if the engine cannot step (native code).
  virtual std::unique_ptr<SteppedRun> start(const HandlerJob&, const HpuEnvironment&) {
    return nullptr;
  }
  // Where handlers' log lines go (pspin/handler_api.h); nullptr: they are dropped.
  void set_handler_log(HandlerLog* log) { log_ = log; }

 protected:
  HandlerLog* log_ = nullptr;
};

class NativeEngine : public HpuEngine {
 public:
  // Cost model: fixed + per byte of packet; fs_dma_copy calls are queued on the cluster DMA after
  // that (HandlerRun::dma_copies), or without one cost the DMA latency and bytes over bandwidth.
  // The handler runs as a guarded native call (pspin/native_call.h): a memory fault or a run
  // longer than hpu.native_watchdog_ms is a fault of the run. Configured by hpu.native_* and the
  // dma.* keys.
  // With a calibration table (calibrated switches: pspin/calibration.h), a run costs the
  // table's cycles for its handler set, outcome and packet length instead.
  NativeEngine(const HpuConfig& hpu, const DmaConfig& dma, std::shared_ptr<const CalibrationTable> calibration = nullptr)
      : fixed_(hpu.native_fixed_cycles),
        per_byte_(hpu.native_cycles_per_byte),
        watchdog_ms_(hpu.native_watchdog_ms),
        dma_latency_(dma.latency_cycles),
        dma_bw_(dma.bytes_per_cycle),
        calibration_(std::move(calibration)) {}
  HandlerRun execute(const HandlerJob& job, const HpuEnvironment& env) override;

 private:
  uint64_t compute_cycles(const HandlerJob& job, const HandlerRun& run) const;

  uint64_t fixed_;
  double per_byte_;
  uint32_t watchdog_ms_;
  uint32_t dma_latency_, dma_bw_;
  std::shared_ptr<const CalibrationTable> calibration_;
};

}  // namespace fs
