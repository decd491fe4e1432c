// One RV32IMAFC hart, optionally with RI5CY's Xpulp extensions (set_xpulp): registers, CSRs
// (fflags/frm/fcsr, cycle/instret and their m-mode and high halves, mhartid, the hardware-loop
// registers), a decode cache of pre-decoded instructions per executable region, and the run
// loop that executes until an ecall, an ebreak, a fault or the instruction budget. Cycles come
// from the Timing table plus memory-region costs and load-use stalls. Plain C++, no SystemC.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "iss/icache.h"
#include "iss/insn.h"
#include "iss/memory.h"
#include "iss/reservations.h"
#include "iss/timing.h"

namespace fs::iss {

// Why run() returned. kHalt: a device (MmioDevice::Result::kHalt) asked the core to stop after
// the access; pc is past that instruction. kGate: the next instruction accesses shared memory or
// the switch later than the caller allows (see run()); nothing of it has executed.
// When an interleaved core may start accesses that others can see, in its own cycle count: run()
// stops before such an access (kGate) while the core's cycle count is past the gate.
struct Gates {
  uint64_t cluster = ~0ull;  // memory its cluster shares (MemRegion::sharing = kClusterShared)
  uint64_t shared = ~0ull;   // memory shared with other clusters (kGlobalShared)
  uint64_t device = ~0ull;   // device accesses that reach the rest of the switch
  // A core stepped apart from other clusters: it also stops before every access to memory shared
  // with other clusters and every device call that leaves the core (MmioDevice::calls_out),
  // whatever its count (GateKind::kLeaves when no count gate stopped it).
  bool isolated = false;
};
enum class GateKind : uint8_t { kCluster, kShared, kDevice, kLeaves };

// kSpin: the core is spinning on a shared word (see spin()); it stopped right after a load of it.
// kYield: a store woke another core (StoreWatch::yield); the storing instruction completed.
enum class Stop { kEcall, kEbreak, kFault, kBudget, kHalt, kGate, kSpin, kYield };

struct Fault {
  enum Kind {
    kNone,
    kIllegalInstruction,
    kFetchAccess,
    kLoadAccess,
    kStoreAccess,
    kMisalignedAtomic,
    kNoLrSc,  // lr.w or sc.w to memory without them (MemRegion::lrsc)
    kHwLoop
  } kind = kNone;
  uint32_t pc = 0;
  uint32_t insn = 0;  // the instruction word (16 or 32 bits), 0 if it could not be fetched
  uint32_t addr = 0;  // the faulting data address for access faults
  std::string detail;  // kHwLoop: which of RI5CY's hardware-loop rules the program broke
  std::string describe() const;  // "illegal instruction 0x0000ffff at pc 0x00010074"
};

// Counts by instruction class, for per-handler statistics.
struct CpuCounters {
  uint64_t loads = 0, stores = 0, branches = 0, taken = 0, atomics = 0, fp = 0;
  uint64_t load_use_stalls = 0, region_stall_cycles = 0, div_cycles = 0;
  uint64_t accesses[kAccessClasses] = {};  // data accesses (loads, stores, atomics) by region class
  uint64_t icache_misses = 0, icache_prefetches = 0, icache_stall_cycles = 0;
  uint64_t bank_conflict_cycles = 0;
  uint64_t device_wait_cycles = 0;  // device accesses that take time (DMA copies, command issues)
  uint64_t misaligned = 0;           // loads and stores not naturally aligned (timing.misaligned each)
  uint64_t spin_cycles = 0;          // turns of wait loops on a shared word (see probe_spin)
  // Of instret, the instructions of wait-loop turns skip_spin() accounted without interpreting
  // them, and those turns: instret minus it is what the interpreter executed.
  uint64_t fast_forwarded_instructions = 0, fast_forwarded_turns = 0;

  // Applies f(field, other's field) to every count.
  template <typename F>
  void each(const CpuCounters& o, F f) {
    f(loads, o.loads), f(stores, o.stores), f(branches, o.branches), f(taken, o.taken), f(atomics, o.atomics);
    f(fp, o.fp), f(load_use_stalls, o.load_use_stalls), f(region_stall_cycles, o.region_stall_cycles);
    f(div_cycles, o.div_cycles);
    for (unsigned k = 0; k < kAccessClasses; ++k) f(accesses[k], o.accesses[k]);
    f(icache_misses, o.icache_misses), f(icache_prefetches, o.icache_prefetches);
    f(icache_stall_cycles, o.icache_stall_cycles);
    f(bank_conflict_cycles, o.bank_conflict_cycles), f(device_wait_cycles, o.device_wait_cycles);
    f(misaligned, o.misaligned), f(spin_cycles, o.spin_cycles);
    f(fast_forwarded_instructions, o.fast_forwarded_instructions), f(fast_forwarded_turns, o.fast_forwarded_turns);
  }
  CpuCounters& operator-=(const CpuCounters& o) {
    each(o, [](uint64_t& a, uint64_t b) { a -= b; });
    return *this;
  }
  void add_scaled(const CpuCounters& o, uint64_t k) {
    each(o, [k](uint64_t& a, uint64_t b) { a += k * b; });
  }
};

// Told of every store to a shared region (MemRegion::sharing) while `armed`: `host` is where the
// bytes live (the same for every alias of the memory), `cycle` the store's absolute cycle.
class StoreWatch {
 public:
  virtual ~StoreWatch() = default;
  virtual void stored(const uint8_t* host, uint32_t bytes, uint64_t cycle) = 0;
  bool armed = false;
  // Set by stored() when the store matters to another core: run() returns (kYield) right after
  // the storing instruction, so the caller can let that core catch up.
  bool yield = false;
};

// A spin: the core read the same value from the same shared word at the same instruction twice
// in a row with the same registers and nothing written in between, so until someone writes the
// word it repeats the same iteration: a load starting every `period` cycles.
struct Spin {
  const uint8_t* host = nullptr;  // the word's bytes
  uint32_t bytes = 0;
  uint64_t load_cycle = 0;  // when the last load started (the core's cycle count)
  uint64_t period = 0;
  Sharing sharing = kClusterShared;  // the word's region's
};

// Where a run crossed two points its caller marks by pc, in the core's cycle count: a firmware's
// call of a function (the jal/jalr at `call_pc`) and the function's return (a jump to
// `return_pc`). `entered`: the count once the call retired, when the callee's first instruction
// starts; `returned`: once the return retired. kNotReached until then; each is taken once.
struct CallMarks {
  static constexpr uint64_t kNotReached = ~0ull;
  uint32_t call_pc = 1, return_pc = 1;  // odd: no instruction is there (no marks)
  uint64_t entered = kNotReached, returned = kNotReached;
};

// Receives every retired instruction (for instruction traces). `dst` is the register written in
// the unified numbering (kNoReg if none) and `value` its new value; `cycle` is the core's cycle
// count before the instruction; `mem_addr`: the address a load, store or atomic accessed
// (kNoAccess for other instructions).
class RetireObserver {
 public:
  static constexpr uint64_t kNoAccess = ~0ull;
  virtual ~RetireObserver() = default;
  virtual void retired(uint64_t cycle, uint32_t pc, const Insn& in, uint8_t dst, uint32_t value,
                       uint64_t mem_addr) = 0;
};

// A shared word an atomic (an AMO or a successful sc.w) of the current run changed: where, the
// value before and after, and the instruction's pc. What a run leaves this way when it faults
// (a lock it took, say) is what fault reports show.
struct AtomicWrite {
  const uint8_t* host = nullptr;
  uint32_t addr = 0, before = 0, after = 0, pc = 0;
  Op op = Op::kIllegal;
};

// Decoded instructions of one code region, one slot per halfword (len == 0: not decoded yet).
using DecodedCode = std::vector<Insn>;
// Cores that run the same read-only code can share its decoded instructions (keyed by the
// region's host memory), which keeps hundreds of cores' decode caches in the host's caches.
using SharedDecode = std::map<const uint8_t*, std::shared_ptr<DecodedCode>>;

class Cpu {
 public:
  Cpu(AddressSpace& mem, const Timing& timing, uint32_t hart_id = 0);

  uint32_t x[32] = {};
  uint32_t f[32] = {};
  uint32_t pc = 0;
  uint32_t fflags = 0, frm = 0;
  uint64_t cycles = 0, instret = 0;
  CpuCounters counters;
  // Xpulp hardware loop registers (loop 0 is the inner one); `checked`: the body was found to
  // follow RI5CY's rules since the loop was last set up.
  struct HwLoop {
    uint32_t start = 0, end = 0, count = 0;
    bool checked = false;
  };
  HwLoop loops[2];

  // Decode RI5CY's Xpulpv2 instructions (hpu.isa = rv32imafc_xpulp); otherwise they are illegal.
  void set_xpulp(bool on) {
    if (on != xpulp_) flush_decode_cache();
    xpulp_ = on;
  }
  bool xpulp() const { return xpulp_; }
  // Clears the hardware loops (a new handler run starts with none).
  void reset_hw_loops() {
    loops[0] = loops[1] = HwLoop{};
    loops_active_ = false;
  }

  // Executes at most `budget` instructions, stopping early (kBudget) once `cycles` reaches
  // `cycle_limit`. On kEcall and kEbreak pc still points at the instruction; call skip() to
  // continue after it. On kFault see fault().
  // With `gates` (cores interleaved with others), run() stops with kGate before an access to
  // shared memory or a device access that reaches the rest of the switch
  // (MmioDevice::reaches_switch) whose gate the core's cycle count has passed; gate() says which.
  // Runs on the engine set_engine() chose; a core with an observer always runs the plain one.
  Stop run(uint64_t budget, uint64_t cycle_limit = ~0ull, const Gates& gates = Gates{}) {
    return engine_ == Engine::kFast && !observer_ ? run_fast(budget, cycle_limit, gates)
                                                  : run_plain(budget, cycle_limit, gates);
  }
  // Two engines run the same instructions with the same cycles, counts and stops. kPlain
  // (cpu.cpp) executes one instruction at a time through every check, and is the reference;
  // kFast (cpu_fast.cpp) keeps the core's state in locals and executes the integer base and F
  // (ALU, branches, jumps, M, F, loads and stores to memory) itself, handing every other
  // instruction to the plain engine one at a time.
  enum class Engine : uint8_t { kFast, kPlain };
  void set_engine(Engine e) { engine_ = e; }
  Engine engine() const { return engine_; }
  GateKind gate() const { return gate_; }
  void skip() {
    pc += last_len_;
    fetch_next_ = pc;
    fetch_spent_ = false;
  }
  const Fault& fault() const { return fault_; }
  void set_observer(RetireObserver* o) { observer_ = o; }
  // The absolute cycle at which `cycles` counts from (for TCDM bank arbitration).
  void set_cycle_base(uint64_t base) { cycle_base_ = base; }
  // Fetches go through `cache` (nullptr: fetch is free); `program` tells programs apart in it.
  // The core starts with nothing fetched.
  void set_icache(InstructionCache* cache, uint32_t program) {
    icache_ = cache;
    icache_program_ = program;
    icache_line_ = ~0u;
    fetch_next_ = ~0u;
    looked_ahead_ = false;
    fetch_spent_ = false;
    look_ahead_until_ = 0;
  }
  // Forgets every pre-decoded instruction (after code is written; fence.i does it too).
  void flush_decode_cache();
  // Stores to shared regions are reported to `watch`, and (without an observer) run() stops
  // with kSpin when the core spins on a shared word; skip_spin() then fast-forwards it.
  void set_store_watch(StoreWatch* watch) { watch_ = watch; }
  const Spin& spin() const { return spin_; }
  // Accounts `iterations` more turns of the spin loop (cycles, instructions, counters) at once.
  void skip_spin(uint64_t iterations);
  // The shared word the core is waiting on: the word of its last load if that load repeated a
  // wait-loop turn (see probe_spin) and nothing was written since; nullptr otherwise.
  const uint8_t* waiting_on() const { return probe_.looping && probe_.writes == writes_ ? probe_.host : nullptr; }
  // The shared words atomics changed since clear_atomic_writes() (the last write to each word,
  // at most kMaxAtomicWrites words: later words are not recorded).
  static constexpr size_t kMaxAtomicWrites = 32;
  const std::vector<AtomicWrite>& atomic_writes() const { return atomic_writes_; }
  void clear_atomic_writes() { atomic_writes_.clear(); }
  // LR/SC reservations shared with other cores (nullptr: only this core's own stores break its
  // reservation).
  void set_reservations(Reservations* r) { reservations_ = r; }
  // Read-only code regions take their decoded instructions from (and add them to) `shared`.
  void share_decode(SharedDecode* shared) { shared_decode_ = shared; }
  // Decodes every halfword of the read-only code regions it shares that no core has decoded yet,
  // so that cores then only read the shared instructions (they may run on other threads).
  void decode_shared_code();
  // The instruction at pc, decoded (for traces); nullptr if it cannot be fetched.
  const Insn* insn_at(uint32_t addr);
  // Marks a call and its return (see CallMarks), forgetting what was reached before. Only jumps
  // are compared with them, so they cost nothing on other instructions.
  void set_call_marks(uint32_t call_pc, uint32_t return_pc) { marks_ = CallMarks{call_pc, return_pc}; }
  const CallMarks& call_marks() const { return marks_; }

 private:
  struct CodeCache {
    const MemRegion* region;
    std::shared_ptr<DecodedCode> code;
    Insn* insns;  // code->data()
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
  Stop run_plain(uint64_t budget, uint64_t cycle_limit, const Gates& gates);
  Stop run_fast(uint64_t budget, uint64_t cycle_limit, const Gates& gates);
  // Counts the ALU instructions in a row from the one at addr (in the current code region; at
  // most 255), up to one counted before, and writes each its count from there on into its slot's
  // alu_run (cpu_fast.cpp). Leaves everything as it is if the instruction at addr is not one.
  void count_alu_run(uint32_t addr);
  bool csr_read(uint32_t csr, uint32_t& value) const;
  bool csr_write(uint32_t csr, uint32_t value);
  Stop raise(Fault::Kind kind, uint32_t insn, uint32_t addr = 0);
  bool fail(Fault::Kind kind, uint32_t insn, uint32_t addr = 0) {  // raise() for the helpers below
    raise(kind, insn, addr);
    return false;
  }

  // run()'s parts (cpu.cpp), all inlined into its loop. An instruction in flight is an Exec.
  // Helpers that return bool return false after a fault (fault() says which).
  struct Exec;
  // Bookkeeping around each instruction: stalls before it, then retiring it.
  uint64_t stalls_before(const Insn& in);
  uint64_t fetch_stall(const Insn& in, bool jumped, uint64_t now);
  uint64_t demand_fetch(uint32_t addr, uint64_t at);
  bool retire(const Insn& in, uint32_t a, const Exec& e, Stop& stop);  // true: run() returns `stop`
  Stop fetch_fault();
  // The memory access path: gates, region lookup, costs, and telling others of shared stores.
  bool gated(const Insn& in, const Gates& gates, uint64_t stall);
  const MemRegion* device_at(uint32_t addr, unsigned size);
  const MemRegion* access(uint32_t addr, unsigned size, bool store, Exec& e, uint8_t*& host, bool tell = true,
                          bool amo = false);
  // Others are told of a store to shared memory (their reservations, parked spinners) made at
  // absolute cycle `at` (after the storing instruction's stalls).
  void tell_stored(const uint8_t* host, unsigned size, uint64_t at) {
    if (reservations_ && !reservations_->empty()) reservations_->stored(this, host, size);
    if (watch_ && watch_->armed) watch_->stored(host, size, at);
  }
  bool load(const Insn& in, uint32_t a, Exec& e) { return load_at(in, a + uint32_t(in.imm), in.op, e); }
  bool store(const Insn& in, uint32_t a, uint32_t b, Exec& e) { return store_at(in, a + uint32_t(in.imm), in.op, b, e); }
  bool load_at(const Insn& in, uint32_t addr, Op width, Exec& e);
  bool store_at(const Insn& in, uint32_t addr, Op width, uint32_t v, Exec& e);
  // Xpulp: post-increment and register-offset loads and stores; hardware loops.
  bool xload(const Insn& in, uint32_t a, uint32_t b, Exec& e);
  bool xstore(const Insn& in, uint32_t a, uint32_t b, Exec& e);
  void hw_loop_setup(const Insn& in, uint32_t a);
  bool hw_loop_end(const Insn& in, Exec& e);
  bool check_hw_loop(unsigned l, const Insn& in);
  bool load_fp(const Insn& in, uint32_t a, Exec& e);
  bool store_fp(const Insn& in, uint32_t a, Exec& e);
  bool atomic(const Insn& in, uint32_t a, uint32_t b, Exec& e);
  // Groups that touch more than one integer register (integer ALU, M: semantics.h).
  void set_x(const Insn& in, uint32_t v) {
    if (in.rd) x[in.rd] = v;
  }
  void branch(bool taken, const Insn& in, Exec& e);
  void jump(uint32_t target, const Insn& in, Exec& e);
  // The jump at `at` to `target`, retiring at cycle count `retired`, reached a mark (CallMarks).
  void reach_mark(uint32_t at, uint32_t target, uint64_t retired);
  bool csr(const Insn& in, uint32_t a);
  // `cost`: the instruction's cycles. Not inlined: both engines call it.
  bool fp(const Insn& in, uint32_t a, uint64_t& cost);
  bool rounding(unsigned field, unsigned& rm) const;

  AddressSpace& mem_;
  Timing t_;
  uint32_t hart_id_;
  bool xpulp_ = false;
  Engine engine_ = Engine::kFast;
  bool loops_active_ = false;  // a hardware loop's count is not 0
  std::vector<CodeCache> caches_;
  SharedDecode* shared_decode_ = nullptr;
  CodeCache* current_ = nullptr;
  uint8_t pending_load_ = kNoReg;  // destination of the previous instruction if it was a load
  uint8_t last_len_ = 4;
  bool reservation_valid_ = false;
  uint32_t reservation_ = 0;
  Fault fault_;
  RetireObserver* observer_ = nullptr;
  uint64_t cycle_base_ = 0;
  CallMarks marks_;
  // Instruction fetch through the cache (stalls_before, fetch_stall).
  InstructionCache* icache_ = nullptr;
  uint32_t icache_program_ = 0;
  uint32_t icache_line_ = ~0u;     // the line the core is executing from: no lookup within it
  uint32_t fetch_next_ = ~0u;      // the address after the last instruction retired: another pc is a jump's target
  bool looked_ahead_ = false;      // the next line was fetched ahead during this visit to the line
  bool fetch_spent_ = false;       // the instruction at pc stopped at a gate after its fetch: not fetched again
  uint64_t look_ahead_until_ = 0;  // absolute cycle: a jump's target cannot start earlier (the look-ahead outstanding)
  GateKind gate_ = GateKind::kShared;
  // Spin detection: the last plain load from a shared region, and what the core looked like
  // after the one before it matched (stage 2), to compare with.
  struct SpinProbe {
    int stage = 0;  // 0: nothing, 1: one load seen, 2: two matching loads, registers snapshotted
    uint32_t pc = 0, addr = 0, value = 0;
    const uint8_t* host = nullptr;  // the word's bytes
    bool looping = false;           // the load has repeated at least once (a wait-loop turn)
    uint64_t writes = 0;
    uint64_t load_cycle = 0;  // when the last of the matching loads started
    uint64_t cycles = 0, instret = 0;
    uint32_t x[32], f[32], fflags, frm;
    CpuCounters counters;
  };
  // Counts a turn of a wait loop (the same load reading the same value from the same shared
  // word, nothing written since the last one) into counters.spin_cycles, and with `can_park`
  // says whether the core spins for good (it could be parked: spin()).
  bool probe_spin(uint32_t load_pc, uint32_t addr, uint32_t value, const uint8_t* host, unsigned size,
                  uint64_t load_cycle, bool can_park);
  StoreWatch* watch_ = nullptr;
  Reservations* reservations_ = nullptr;
  uint64_t writes_ = 0;  // stores, atomics, device writes and counter reads so far (spin detection)
  SpinProbe probe_;
  Spin spin_;
  std::vector<AtomicWrite> atomic_writes_;
  void note_atomic_write(const MemRegion& r, const uint8_t* host, uint32_t addr, uint32_t before, uint32_t after,
                         const Insn& in);
  uint64_t observed_access_ = RetireObserver::kNoAccess;  // the address the observed instruction accesses
  uint64_t spin_instret_ = 0;  // per iteration
  CpuCounters spin_counters_;  // per iteration
};

}  // namespace fs::iss
