// The ISS HPU engine: runs a handler set's RISC-V program (handler_program.h: built from the
// same C source as the native handler, with firmware/) on the RV32IMAFC instruction-set
// simulator, in the memory map of firmware/fs_memory_map.h. This file owns the cores and their
// stepping: each (cluster, HPU, handler set) gets its own core, address space and runtime
// registers (runtime_registers.h, which carry the handler's API calls to a HandlerApi); a run
// (the Run class) advances its core, enforces the watchdog and turns faults into messages. The
// data regions are the HPU's view of the unit's memories (pspin/memory/hpu_address_map.h), the
// same memory native handlers get, so both share state layouts. Cycles come from the core's timing table plus region costs
// (remote L1, L2, L1 banks, instruction cache, the runtime registers' command.register_cycles);
// fs_dma_copy queues on the cluster's DMA engine; commands go to the command unit as they are
// issued.
// A run's cycles are split at the firmware's call of the handler and the handler's return
// (crt0.S's marks) into the runtime's entry, the handler's own cycles and the runtime's exit.
// Runs are stepped by the interleaver (start()) or run to completion when they start (execute(),
// hpu.interleave = off; DMA copies then do not queue).
#pragma once
#include <functional>
#include <map>
#include <ostream>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "config/config.h"
#include "iss/cpu.h"
#include "iss/icache.h"
#include "pspin/handler_program.h"
#include "pspin/hpu_engine.h"
#include "pspin/insn_trace.h"

namespace fs {

class IssEngine : public HpuEngine {
 public:
  // Configured by the hpu.* (with timing.*), icache.*, dma.* and command.* keys.
  IssEngine(const HpuConfig& hpu, const iss::IcacheParams& icache, const DmaConfig& dma,
            const CommandConfig& command);
  ~IssEngine() override;
  HandlerRun execute(const HandlerJob& job, const HpuEnvironment& env) override;
  std::unique_ptr<SteppedRun> start(const HandlerJob& job, const HpuEnvironment& env) override;

  // Reads and checks a handler set's ELF before the simulation starts; throws InputError if it is
  // missing or unusable. execute() runs only preloaded handler sets.
  void preload(const HandlerSet& set) { programs_.preload(set); }
  // Writes the runs and instructions `trace` takes (pspin/insn_trace.h; nullptr: no trace).
  void set_insn_trace(InsnTrace* trace) { trace_ = trace; }
  // Stores to shared memory by a cluster's cores are reported to watch(cluster) (the
  // interleaver, which parks spinning runs).
  void set_store_watch(std::function<iss::StoreWatch*(unsigned cluster)> watch) { watch_ = std::move(watch); }

 private:
  struct Context;
  class Run;
  Context& context(const HandlerJob& job);
  std::unique_ptr<SteppedRun> make_run(const HandlerJob& job, const HpuEnvironment& env, bool queue_dma);

  HpuConfig hpu_;
  iss::IcacheParams icache_;
  DmaConfig dma_;
  uint32_t register_cycles_;  // extra cycles of an access to the runtime registers
  InsnTrace* trace_ = nullptr;
  std::function<iss::StoreWatch*(unsigned cluster)> watch_;
  HandlerPrograms programs_;
  iss::SharedDecode shared_decode_;  // decoded program memory, shared by all cores
  // Per handler set, the regions all its HPUs see alike (shared_address_map), built once.
  std::map<std::string, std::shared_ptr<const iss::AddressSpace>> shared_maps_;
  iss::Reservations reservations_;   // the cores' LR/SC reservations
  std::map<std::tuple<uint32_t, uint32_t, std::string>, std::unique_ptr<Context>> contexts_;
  std::map<uint32_t, std::unique_ptr<iss::InstructionCache>> icaches_;  // by cluster
};

}  // namespace fs
