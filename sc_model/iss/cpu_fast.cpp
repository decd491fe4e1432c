// The ISS's fast engine, Cpu::run_fast (see cpu.h): the plain engine's semantics with the core's
// hot state (pc, cycles, instret, the pending load, the fetch position) kept in locals and the
// current code region's decoded instructions reached by offset. It executes the integer base
// itself: the ALU, branches, jal/jalr, fence, M, F, and loads and stores to memory (stopping at
// their gates, telling others of shared stores, probing shared loads for spins). Every other
// instruction (CSRs, atomics, Xpulp, fence.i, ecall, a device access, one that faults) goes to the
// plain engine, one at a time, with the locals written back first; so both engines give the
// same stalls, cycles, counts and stops (tb/iss_diff/iss_engines_test.cpp runs the test
// programs on both, tb/e2e/iss_hpu_test.cpp whole switches).
#include <algorithm>
#include <array>
#include <cstring>

#include "iss/cpu.h"
#include "iss/semantics.h"
#include "iss/tcdm_banks.h"

namespace fs::iss {

#define FS_ISS_INLINE __attribute__((always_inline)) inline
#define FS_ISS_LAMBDA __attribute__((always_inline))

namespace {

template <unsigned kBytes>
FS_ISS_INLINE uint32_t load_le(const uint8_t* p) {
  uint32_t v = 0;
  std::memcpy(&v, p, kBytes);  // the host is little-endian, like RISC-V
  return v;
}

// The operations the fast engine executes itself, each with its own code in run_fast.
#define FS_ISS_DIV_OPS(X) X(kDiv) X(kDivu) X(kRem) X(kRemu)
#define FS_ISS_LOAD_OPS(X) X(kLb) X(kLh) X(kLw) X(kLbu) X(kLhu)
#define FS_ISS_STORE_OPS(X) X(kSb) X(kSh) X(kSw)
#define FS_ISS_FAST_OPS(X)                                                                          \
  FS_ISS_ALU_OPS(X) FS_ISS_BRANCH_OPS(X) X(kJal) X(kJalr) X(kFence) FS_ISS_MUL_OPS(X) FS_ISS_DIV_OPS(X) \
  FS_ISS_LOAD_OPS(X) FS_ISS_STORE_OPS(X) X(kFlw) X(kFsw)

#define FS_ISS_COUNT(OP) +1
constexpr size_t kFastOps = 0 FS_ISS_FAST_OPS(FS_ISS_COUNT);
constexpr size_t kAluOps = 0 FS_ISS_ALU_OPS(FS_ISS_COUNT);  // the first in FS_ISS_FAST_OPS
#undef FS_ISS_COUNT

// Each operation's place in run_fast's table of code: 1 + its place in FS_ISS_FAST_OPS; the F
// instructions other than flw and fsw share the one after those (Cpu::fp computes them); 0 for
// the rest (the plain engine's).
constexpr size_t kFpCode = kFastOps + 1;
constexpr std::array<uint8_t, size_t(Op::kCount)> kFastIndex = [] {
  std::array<uint8_t, size_t(Op::kCount)> index{};
  uint8_t next = 1;
#define FS_ISS_PLACE(OP) index[size_t(Op::OP)] = next++;
  FS_ISS_FAST_OPS(FS_ISS_PLACE)
#undef FS_ISS_PLACE
  for (size_t op = size_t(Op::kFmaddS); op <= size_t(Op::kFmvWX); ++op) index[op] = kFpCode;
  return index;
}();

FS_ISS_INLINE bool is_alu(Op op) { return size_t(kFastIndex[size_t(op)] - 1) < kAluOps; }

}  // namespace

void Cpu::count_alu_run(uint32_t addr) {
  Insn* run[255];
  unsigned n = 0, after = 0;  // after: the count of a slot counted before, where the walk stopped
  for (uint32_t at = addr; n < 255 && current_ && at - current_->region->base < current_->region->size;) {
    const Insn* in = fetch_slow(at);  // (inside the current region, so it stays current)
    if (!in || !is_alu(in->op)) break;
    if (in->alu_run) {
      after = in->alu_run;
      break;
    }
    run[n++] = const_cast<Insn*>(in);
    at += in->len;
  }
  for (unsigned i = 0; i < n; ++i) run[i]->alu_run = uint8_t(std::min(255u, n - i + after));
}

// GCC would merge the instructions' identical endings back into one dispatching jump.
__attribute__((optimize("no-crossjumping", "no-gcse")))
Stop Cpu::run_fast(uint64_t budget, uint64_t cycle_limit, const Gates& gates) {
  // With a hardware loop running, where each instruction goes next is the plain engine's to say.
  if (loops_active_) return run_plain(budget, cycle_limit, gates);
  uint32_t at = pc;
  uint64_t cyc = cycles, ret = instret;
  const uint64_t ret_end = budget > ~0ull - instret ? ~0ull : instret + budget;  // stop at this instret
  uint8_t pend = pending_load_;
  uint32_t fnext = fetch_next_;
  const Insn* ip = nullptr;    // the slot of the instruction at `at` (nullptr: not looked up yet)
  const Insn* code = nullptr;  // the current code region's decoded slots
  uint32_t code_base = 0, code_size = 0;
  auto enter_current = [&] {
    if (current_) code = current_->insns, code_base = current_->region->base, code_size = current_->region->size;
  };
  enter_current();
  auto save = [&] {
    pc = at, cycles = cyc, instret = ret, pending_load_ = pend, fetch_next_ = fnext;
  };
  auto restore = [&] {
    at = pc, cyc = cycles, ret = instret, pend = pending_load_, fnext = fetch_next_;
    ip = code = nullptr, code_size = 0;  // the plain step may have flushed them (fence.i)
    enter_current();
  };
  // The stalls before `in` (the plain engine's stalls_before): a load-use stall, then waiting
  // for its fetch when it is a jump's target, enters a line or lies in its line's last word.
  auto stalls = [&](const Insn& in) FS_ISS_LAMBDA {
    uint64_t stall = 0;
    if (pend != kNoReg) {
      if (in.src[0] == pend || in.src[1] == pend || in.src[2] == pend) {
        stall = t_.load_use_stall;
        ++counters.load_use_stalls;
      }
      pend = kNoReg;
    }
    // An instruction that ran into a gate had its fetch then (the plain engine's fetch_spent_).
    bool fetched = false;
    if (__builtin_expect(fetch_spent_, 0)) {
      fetched = at == fnext;
      fetch_spent_ = false;
    }
    if (icache_ && !fetched) {
      const uint32_t shift = icache_->line_shift();
      const bool jumped = at != fnext;
      if (jumped || (at >> shift) != icache_line_ || (at & ((1u << shift) - 1)) >= (1u << shift) - 4) {
        pc = at;
        stall += fetch_stall(in, jumped, cycle_base_ + cyc + stall);
      }
    }
    return stall;
  };
  // Retiring an instruction that took `spent` cycles: to the next in sequence (the next slot:
  // the region's last slot is never decoded, so leaving the region finds an empty one), or to
  // `target`.
  auto retire = [&](const Insn& in, uint64_t spent) FS_ISS_LAMBDA {
    cyc += spent;
    ++ret;
    fnext = at += in.len;
    ip += in.len >> 1;
  };
  auto retire_to = [&](const Insn& in, uint64_t spent, uint32_t target) FS_ISS_LAMBDA {
    cyc += spent;
    ++ret;
    fnext = at + in.len;
    at = target;
    ip = nullptr;
  };
  // Whether an access to shared region `r`, made `stall` cycles from now, must wait for its gate
  // (the plain engine's gated()): if so the stalls are spent, the instruction counts as fetched,
  // and the state is saved for run() to return kGate.
  auto gated = [&](const MemRegion& r, uint64_t stall) FS_ISS_LAMBDA {
    const bool cluster = r.sharing == kClusterShared;
    if (cyc + stall <= (cluster ? gates.cluster : gates.shared)) {
      if (cluster || !gates.isolated) return false;
      gate_ = GateKind::kLeaves;
    } else {
      gate_ = cluster ? GateKind::kCluster : GateKind::kShared;
    }
    cyc += stall;
    fnext = at;
    fetch_spent_ = true;
    save();
    return true;
  };
  // The region's extra cycles, bank conflicts and misalignment of an access (the plain engine's
  // access()), added to `cost`.
  auto access_cost = [&](const MemRegion& r, uint32_t addr, unsigned size, uint64_t stall, uint64_t& cost)
                         FS_ISS_LAMBDA {
    cost += r.extra_cycles;
    counters.region_stall_cycles += r.extra_cycles;
    ++counters.accesses[r.access_class];
    if (r.banks) {
      const uint32_t wait = r.banks->access(hart_id_, cycle_base_ + cyc + stall, r.bank_offset + (addr - r.base));
      cost += wait;
      counters.bank_conflict_cycles += wait;
    }
    if (addr & (size - 1)) {
      cost += t_.misaligned;
      ++counters.misaligned;
    }
  };

  // Threaded dispatch: each instruction's code ends by checking the limits, finding the next
  // instruction and jumping straight to its code (the host predicts each jump on its own).
  static void* const kCode[] = {&&plain,
#define ADDRESS(OP) &&do_##OP,
                                FS_ISS_FAST_OPS(ADDRESS)
#undef ADDRESS
                                &&fp};
  static_assert(sizeof kCode / sizeof kCode[0] == kFpCode + 1);
  static void* const kRunCode[] = {nullptr,
#define ADDRESS(OP) &&run_##OP,
                                   FS_ISS_ALU_OPS(ADDRESS)
#undef ADDRESS
  };
  static_assert(sizeof kRunCode / sizeof kRunCode[0] == kAluOps + 1);
  uint32_t a = 0, b = 0;
  unsigned rest = 0;  // ALU instructions still to run in a row (alu_run)
  const bool runs = !icache_;  // whether ALU runs go as one (with a cache, fetches may wait)
  // To the instruction at `at`: ip is its slot, or nullptr after a jump.
#define NEXT()                                                               \
  do {                                                                       \
    if (ret >= ret_end || cyc >= cycle_limit) goto limit;                    \
    if (!ip) {                                                               \
      const uint32_t off = at - code_base;                                   \
      if (off >= code_size) goto refetch;                                    \
      ip = &code[off >> 1];                                                  \
    }                                                                        \
    if (!ip->len) goto refetch;                                              \
    a = x[ip->rs1], b = x[ip->rs2];                                          \
    goto* kCode[kFastIndex[size_t(ip->op)]];                                 \
  } while (0)

  NEXT();

refetch:
  ip = fetch(at);
  if (!ip) {
    save();
    return fetch_fault();
  }
  enter_current();
  NEXT();

limit:
  save();
  return Stop::kBudget;

plain : {
  // The plain engine takes this one instruction.
  save();
  const Stop stop = run_plain(1, cycle_limit, gates);
  if (stop != Stop::kBudget) return stop;
  if (loops_active_) return run_plain(ret_end - instret, cycle_limit, gates);
  restore();
  NEXT();
}

// An ALU instruction, and then the ALU instructions that follow it in a row (alu_run), if any.
#define ALU(OP)                                                     \
  do_##OP : {                                                       \
    if (runs && __builtin_expect(!ip->alu_run, 0)) count_alu_run(at); \
    const Insn& in = *ip;                                           \
    const uint64_t stall = stalls(in);                              \
    const uint32_t v = sem::alu(Op::OP, a, b, in.imm, at);          \
    if (in.rd) x[in.rd] = v;                                        \
    retire(in, t_.alu + stall);                                     \
    if (runs && in.alu_run > 1) {                                   \
      rest = in.alu_run - 1u;                                       \
      goto alu_run;                                                 \
    }                                                               \
    NEXT();                                                         \
  }
  FS_ISS_ALU_OPS(ALU)
#undef ALU
alu_run : {
  // The `rest` instructions after an ALU instruction are ALU instructions too: they cannot stall
  // (no load before them, and no fetch waits without an instruction cache), so when the limits
  // let the last of them start, they run in a row with their cycles and count added at once.
  if (ret + rest > ret_end || cyc + (rest - 1u) * t_.alu >= cycle_limit) NEXT();
  cyc += rest * t_.alu;
  ret += rest;
  goto* kRunCode[kFastIndex[size_t(ip->op)]];
}
#define RUN(OP)                                                                   \
  run_##OP : {                                                                    \
    const Insn& in = *ip;                                                         \
    const uint32_t v = sem::alu(Op::OP, x[in.rs1], x[in.rs2], in.imm, at);        \
    if (in.rd) x[in.rd] = v;                                                      \
    at += in.len;                                                                 \
    ip += in.len >> 1;                                                            \
    if (--rest) goto* kRunCode[kFastIndex[size_t(ip->op)]];                       \
    fnext = at;                                                                   \
    NEXT();                                                                       \
  }
  FS_ISS_ALU_OPS(RUN)
#undef RUN
#define BRANCH(OP)                                                  \
  do_##OP : {                                                       \
    const Insn& in = *ip;                                           \
    const uint64_t stall = stalls(in);                              \
    ++counters.branches;                                            \
    if (sem::branch_taken(Op::OP, a, b)) {                          \
      ++counters.taken;                                             \
      retire_to(in, t_.branch_taken + stall, at + uint32_t(in.imm));   \
    } else {                                                        \
      retire(in, t_.branch_not_taken + stall);         \
    }                                                               \
    NEXT();                                                         \
  }
  FS_ISS_BRANCH_OPS(BRANCH)
#undef BRANCH
#define JUMP(OP)                                                                                          \
  do_##OP : {                                                                                             \
    const Insn& in = *ip;                                                                                 \
    const uint64_t stall = stalls(in);                                                                    \
    const uint32_t target = Op::OP == Op::kJal ? at + uint32_t(in.imm) : (a + uint32_t(in.imm)) & ~1u;   \
    if (in.rd) x[in.rd] = at + in.len;                                                                    \
    if (__builtin_expect(at == marks_.call_pc || target == marks_.return_pc, 0))                          \
      reach_mark(at, target, cyc + stall + t_.jump);                                                     \
    retire_to(in, t_.jump + stall, target);                                                                  \
    NEXT();                                                                                               \
  }
  JUMP(kJal) JUMP(kJalr)
#undef JUMP
  do_kFence : {  // (orders nothing: a core's accesses happen in program order)
    const Insn& in = *ip;
    const uint64_t stall = stalls(in);
    retire(in, t_.alu + stall);
    NEXT();
  }
#define MUL(OP)                                                     \
  do_##OP : {                                                       \
    const Insn& in = *ip;                                           \
    const uint64_t stall = stalls(in);                              \
    const uint32_t v = sem::mul(Op::OP, a, b);                      \
    if (in.rd) x[in.rd] = v;                                        \
    retire(in, sem::mul_cycles(Op::OP, t_) + stall);   \
    NEXT();                                                         \
  }
  FS_ISS_MUL_OPS(MUL)
#undef MUL
#define DIV(OP)                                                     \
  do_##OP : {                                                       \
    const Insn& in = *ip;                                           \
    const uint64_t stall = stalls(in);                              \
    const uint64_t cost = sem::div_cycles(Op::OP, b, t_);           \
    counters.div_cycles += cost;                                    \
    const uint32_t v = sem::divide(Op::OP, a, b);                   \
    if (in.rd) x[in.rd] = v;                                        \
    retire(in, cost + stall);                          \
    NEXT();                                                         \
  }
  FS_ISS_DIV_OPS(DIV)
#undef DIV
// A load of `size` bytes into WRITE (v: the bytes read).
#define LOAD_INTO(OP, size, WRITE)                                                          \
  do_##OP : {                                                                               \
    const Insn& in = *ip;                                                                   \
    const uint32_t addr = a + uint32_t(in.imm);                                             \
    const MemRegion* r = mem_.find(addr, size);                                             \
    if (!r || r->mmio) goto plain; /* a device or a fault */                                \
    const uint64_t stall = stalls(in);                                                      \
    if (r->sharing && gated(*r, stall)) return Stop::kGate;                                 \
    uint64_t cost = t_.load;                                                                \
    access_cost(*r, addr, size, stall, cost);                                               \
    const uint8_t* host = r->host + (addr - r->base);                                       \
    const uint32_t v = load_le<size>(host);                                                 \
    WRITE;                                                                                  \
    pend = in.dst;                                                                          \
    ++counters.loads;                                                                       \
    const uint32_t load_pc = at;                                                            \
    const uint64_t started = cyc + stall;                                                   \
    retire(in, cost + stall);                                                  \
    if (r->sharing) {  /* perhaps a turn of a wait loop: probe_spin looks at the core */    \
      save();                                                                               \
      if (probe_spin(load_pc, addr, v, host, size, started, watch_ != nullptr)) return Stop::kSpin; \
    }                                                                                       \
    NEXT();                                                                                 \
  }
#define LOAD(OP) LOAD_INTO(OP, sem::load_bytes(Op::OP), if (in.rd) x[in.rd] = sem::extend_load(Op::OP, v))
  FS_ISS_LOAD_OPS(LOAD)
  LOAD_INTO(kFlw, 4, f[in.rd] = v)
#undef LOAD
#undef LOAD_INTO
// A store of `size` bytes of VALUE.
#define STORE_OF(OP, size, VALUE)                                                           \
  do_##OP : {                                                                               \
    const Insn& in = *ip;                                                                   \
    const uint32_t addr = a + uint32_t(in.imm);                                             \
    const MemRegion* r = mem_.find(addr, size);                                             \
    if (!r || !r->writable || r->mmio) goto plain;                                          \
    const uint64_t stall = stalls(in);                                                      \
    if (r->sharing && gated(*r, stall)) return Stop::kGate;                                 \
    uint8_t* host = r->host + (addr - r->base);                                             \
    ++writes_;                                                                              \
    if (r->sharing) tell_stored(host, size, cycle_base_ + cyc + stall);                     \
    uint64_t cost = t_.store;                                                               \
    access_cost(*r, addr, size, stall, cost);                                               \
    std::memcpy(host, &(VALUE), size);                                                      \
    if (reservation_valid_ && (reservation_ >> 2) == (addr >> 2)) reservation_valid_ = false; \
    ++counters.stores;                                                                      \
    retire(in, cost + stall);                                                  \
    if (watch_ && watch_->yield) { /* the store woke a core: let it catch up */             \
      watch_->yield = false;                                                                \
      save();                                                                               \
      return Stop::kYield;                                                                  \
    }                                                                                       \
    NEXT();                                                                                 \
  }
#define STORE(OP) STORE_OF(OP, sem::store_bytes(Op::OP), b)
  FS_ISS_STORE_OPS(STORE)
  STORE_OF(kFsw, 4, f[in.rs2])
#undef STORE
#undef STORE_OF
fp : {  // the F instructions other than flw and fsw
  const Insn& in = *ip;
  const uint64_t stall = stalls(in);
  uint64_t cost;
  save();  // (a fault names pc)
  if (!fp(in, a, cost)) return Stop::kFault;
  retire(in, cost + stall);
  NEXT();
}
#undef NEXT
}

#undef FS_ISS_INLINE
#undef FS_ISS_LAMBDA

}  // namespace fs::iss
