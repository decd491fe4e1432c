// One RV32IMAFC hart: registers, CSRs (fflags/frm/fcsr, cycle/instret and their m-mode and high
// halves, mhartid), a decode cache of pre-decoded instructions per executable region, and the run
// loop that executes until an ecall, an ebreak, a fault or the instruction budget. Cycles come
// from the Timing table plus memory-region costs and load-use stalls. Plain C++, no SystemC.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "iss/icache.h"
#include "iss/insn.h"
#include "iss/memory.h"
#include "iss/timing.h"

namespace fs::iss {

// Why run() returned. kHalt: a device (MmioDevice::Result::kHalt) asked the core to stop after
// the access; pc is past that instruction.
enum class Stop { kEcall, kEbreak, kFault, kBudget, kHalt };

struct Fault {
  enum Kind { kNone, kIllegalInstruction, kFetchAccess, kLoadAccess, kStoreAccess, kMisalignedAtomic } kind = kNone;
  uint32_t pc = 0;
  uint32_t insn = 0;  // the instruction word (16 or 32 bits), 0 if it could not be fetched
  uint32_t addr = 0;  // the faulting data address for access faults
  std::string describe() const;  // "illegal instruction 0x0000ffff at pc 0x00010074"
};

// Counts by instruction class, for per-handler statistics.
struct CpuCounters {
  uint64_t loads = 0, stores = 0, branches = 0, taken = 0, atomics = 0, fp = 0;
  uint64_t load_use_stalls = 0, region_stall_cycles = 0, div_cycles = 0;
  uint64_t accesses[kAccessClasses] = {};  // data accesses (loads, stores, atomics) by region class
  uint64_t icache_misses = 0, icache_stall_cycles = 0;
  uint64_t bank_conflict_cycles = 0;
  uint64_t device_wait_cycles = 0;  // stores to devices that take time (DMA copies)
};

// Receives every retired instruction (for instruction traces). `dst` is the register written in
// the unified numbering (kNoReg if none) and `value` its new value; `cycle` is the core's cycle
// count before the instruction.
class RetireObserver {
 public:
  virtual ~RetireObserver() = default;
  virtual void retired(uint64_t cycle, uint32_t pc, const Insn& in, uint8_t dst, uint32_t value) = 0;
};

class Cpu {
 public:
  Cpu(AddressSpace& mem, const Timing& timing, uint32_t hart_id = 0);

  uint32_t x[32] = {};
  uint32_t f[32] = {};
  uint32_t pc = 0;
  uint32_t fflags = 0, frm = 0;
  uint64_t cycles = 0, instret = 0;
  CpuCounters counters;

  // Executes at most `budget` instructions, stopping early (kBudget) once `cycles` reaches
  // `cycle_limit`. On kEcall and kEbreak pc still points at the instruction; call skip() to
  // continue after it. On kFault see fault().
  Stop run(uint64_t budget, uint64_t cycle_limit = ~0ull);
  void skip() { pc += last_len_; }
  const Fault& fault() const { return fault_; }
  void set_observer(RetireObserver* o) { observer_ = o; }
  // The absolute cycle at which `cycles` counts from (for TCDM bank arbitration).
  void set_cycle_base(uint64_t base) { cycle_base_ = base; }
  // Fetches go through `cache` (nullptr: fetch is free); `program` tells programs apart in it.
  void set_icache(InstructionCache* cache, uint32_t program) {
    icache_ = cache;
    icache_program_ = program;
    icache_line_ = ~0u;
  }
  // Forgets every pre-decoded instruction (after code is written; fence.i does it too).
  void flush_decode_cache();
  // The instruction at pc, decoded (for traces); nullptr if it cannot be fetched.
  const Insn* insn_at(uint32_t addr);

 private:
  struct CodeCache {
    const MemRegion* region;
    std::vector<Insn> insns;  // one slot per halfword; len == 0: not decoded yet
  };
  // Decoded instruction at addr: the fast path (current code region, already decoded) inline.
  const Insn* fetch(uint32_t addr) {
    if (current_) {
      const uint32_t off = addr - current_->region->base;
      if (off < current_->region->size) {
        const Insn& slot = current_->insns[off >> 1];
        if (slot.len) return &slot;
      }
    }
    return fetch_slow(addr);
  }
  const Insn* fetch_slow(uint32_t addr);
  bool csr_read(uint32_t csr, uint32_t& value) const;
  bool csr_write(uint32_t csr, uint32_t value);
  Stop raise(Fault::Kind kind, uint32_t insn, uint32_t addr = 0);

  AddressSpace& mem_;
  Timing t_;
  uint32_t hart_id_;
  std::vector<CodeCache> caches_;
  CodeCache* current_ = nullptr;
  uint8_t pending_load_ = kNoReg;  // destination of the previous instruction if it was a load
  uint8_t last_len_ = 4;
  bool reservation_valid_ = false;
  uint32_t reservation_ = 0;
  Fault fault_;
  RetireObserver* observer_ = nullptr;
  uint64_t cycle_base_ = 0;
  InstructionCache* icache_ = nullptr;
  uint32_t icache_program_ = 0;
  uint32_t icache_line_ = ~0u;  // the line the core is executing from: no lookup within it
};

}  // namespace fs::iss
