// The RV32IMAFC hart (see cpu.h): faults, the decode cache, CSRs and the execution loop in its
// parts (bookkeeping, memory access path, groups of instructions). Instruction fetch through the
// cluster's cache is in cpu_fetch.cpp, spin detection in cpu_spin.cpp.
#include "iss/cpu.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "iss/fpu.h"
#include "iss/semantics.h"
#include "iss/tcdm_banks.h"
#include "iss/xpulp.h"

namespace fs::iss {
namespace {

inline uint32_t load_le(const uint8_t* p, unsigned n) {
  uint32_t v = 0;
  std::memcpy(&v, p, n);  // the host is little-endian, like RISC-V
  return v;
}

}  // namespace

std::string Fault::describe() const {
  char buf[160];
  const char* what = "fault";
  switch (kind) {
    case kNone: what = "no fault"; break;
    case kIllegalInstruction: what = "illegal instruction"; break;
    case kFetchAccess: what = "instruction fetch access fault"; break;
    case kLoadAccess: what = "load access fault"; break;
    case kStoreAccess: what = "store access fault"; break;
    case kMisalignedAtomic: what = "misaligned atomic access"; break;
    case kNoLrSc: what = "lr.w/sc.w to memory without LR/SC (PsPIN's L1 has none)"; break;
    case kHwLoop:
      std::snprintf(buf, sizeof buf, "hardware loop rule broken at pc 0x%08x (instruction 0x%08x): ", pc, insn);
      return buf + detail;
  }
  if (kind == kLoadAccess || kind == kStoreAccess || kind == kMisalignedAtomic || kind == kNoLrSc)
    std::snprintf(buf, sizeof buf, "%s at address 0x%08x (pc 0x%08x, instruction 0x%08x)", what, addr, pc, insn);
  else
    std::snprintf(buf, sizeof buf, "%s 0x%08x at pc 0x%08x", what, insn, pc);
  return buf;
}

Cpu::Cpu(AddressSpace& mem, const Timing& timing, uint32_t hart_id) : mem_(mem), t_(timing), hart_id_(hart_id) {}

void Cpu::flush_decode_cache() {
  caches_.clear();
  current_ = nullptr;
}

const Insn* Cpu::insn_at(uint32_t addr) { return fetch(addr); }

void Cpu::decode_shared_code() {
  if (!shared_decode_) return;
  for (const MemRegion& r : mem_.regions())
    if (r.executable && !r.writable && r.host && !shared_decode_->count(r.host)) {
      for (uint32_t off = 0; off + 2 <= r.size; off += 2) fetch_slow(r.base + off);
      // The fast engine's counts, from the end (each goes on from the next's); others only read.
      for (uint32_t off = r.size & ~1u; off >= 2; off -= 2) count_alu_run(r.base + off - 2);
    }
}

const Insn* Cpu::fetch_slow(uint32_t addr) {
  if (!current_ || addr - current_->region->base >= current_->region->size) {
    const MemRegion* r = mem_.find(addr, 2);
    if (!r || !r->executable) return nullptr;
    current_ = nullptr;
    for (CodeCache& c : caches_)
      if (c.region == r) current_ = &c;
    if (!current_) {
      auto fresh = [r] {
        auto c = std::make_shared<DecodedCode>(r->size / 2 + 1);
        for (Insn& i : *c) i.len = 0;
        return c;
      };
      std::shared_ptr<DecodedCode> code;
      if (shared_decode_ && !r->writable) {
        // Only looked up once decode_shared_code made it: cores on other threads share the map.
        auto it = shared_decode_->find(r->host);
        if (it == shared_decode_->end() || it->second->size() != r->size / 2 + 1)
          it = shared_decode_->insert_or_assign(r->host, fresh()).first;
        code = it->second;
      } else {
        code = fresh();
      }
      caches_.push_back(CodeCache{r, code, code->data()});
      current_ = &caches_.back();  // (push_back may move the others; current_ is always refound)
    }
  }
  const uint32_t off = addr - current_->region->base;
  Insn& slot = current_->insns[off >> 1];
  if (slot.len) return &slot;
  if (off + 2 > current_->region->size) return nullptr;  // a region of odd size: half an instruction
  const uint8_t* p = current_->region->host + off;
  const uint16_t lo = uint16_t(load_le(p, 2));
  if ((lo & 3) != 3) {
    slot = decode16(lo);
  } else {
    if (off + 4 > current_->region->size) return nullptr;
    slot = decode32(load_le(p, 4), xpulp_);
  }
  return &slot;
}

Stop Cpu::raise(Fault::Kind kind, uint32_t insn, uint32_t addr) {
  fault_ = Fault{kind, pc, insn, addr, {}};
  return Stop::kFault;
}

bool Cpu::csr_read(uint32_t csr, uint32_t& v) const {
  switch (csr) {
    case 0x001: v = fflags; return true;
    case 0x002: v = frm; return true;
    case 0x003: v = (frm << 5) | fflags; return true;
    case 0xC00: case 0xC01: case 0xB00: v = uint32_t(cycles); return true;
    case 0xC80: case 0xC81: case 0xB80: v = uint32_t(cycles >> 32); return true;
    case 0xC02: case 0xB02: v = uint32_t(instret); return true;
    case 0xC82: case 0xB82: v = uint32_t(instret >> 32); return true;
    case 0xF14: v = hart_id_; return true;
    default: break;
  }
  // Xpulp: the hardware loop registers, 0x7C0 + 4 L + {0 start, 1 end, 2 count} (RI5CY manual).
  if (xpulp_ && csr >= 0x7C0 && csr <= 0x7C6 && (csr & 3) != 3) {
    const HwLoop& l = loops[(csr >> 2) & 1];
    v = (csr & 3) == 0 ? l.start : (csr & 3) == 1 ? l.end : l.count;
    return true;
  }
  return false;
}

bool Cpu::csr_write(uint32_t csr, uint32_t v) {
  switch (csr) {
    case 0x001: fflags = v & 0x1F; return true;
    case 0x002: frm = v & 0x7; return true;
    case 0x003: fflags = v & 0x1F; frm = (v >> 5) & 0x7; return true;
    case 0xB00: cycles = (cycles & ~uint64_t(0xFFFFFFFF)) | v; return true;
    case 0xB80: cycles = (cycles & 0xFFFFFFFFu) | (uint64_t(v) << 32); return true;
    case 0xB02: instret = (instret & ~uint64_t(0xFFFFFFFF)) | v; return true;
    case 0xB82: instret = (instret & 0xFFFFFFFFu) | (uint64_t(v) << 32); return true;
    default: break;
  }
  if (xpulp_ && csr >= 0x7C0 && csr <= 0x7C6 && (csr & 3) != 3) {
    HwLoop& l = loops[(csr >> 2) & 1];
    ((csr & 3) == 0 ? l.start : (csr & 3) == 1 ? l.end : l.count) = v;
    l.checked = false;
    loops_active_ = loops[0].count || loops[1].count;
    return true;
  }
  return false;  // read-only or unknown
}

// ---- run(), in three parts: bookkeeping around each instruction, the memory access path, and
// the semantics of each group of instructions; then the loop that dispatches over them. Every
// part is forced inline, so the loop compiles to one switch as if written in one piece.
#define FS_ISS_INLINE __attribute__((always_inline)) inline

// One instruction in flight: what its semantics and the memory path tell retire().
struct Cpu::Exec {
  uint32_t next;                         // pc of the next instruction
  uint64_t cost;                         // the instruction's own cycles, memory costs included
  uint64_t stall;                        // cycles before it: load-use stall, instruction-cache refill
  const uint8_t* shared_load = nullptr;  // a plain load from shared memory read these bytes
  bool halt = false;                     // a device asked the core to stop after the instruction
};

// -- Bookkeeping: stalls before an instruction, cycles, counts and observers after it.

// The cycles before `in` starts: a load-use stall if it reads the register the previous
// instruction loaded, and waiting for its instructions to be fetched (fetch_stall) when it is a
// jump's target, enters another line or lies in its line's last word.
FS_ISS_INLINE uint64_t Cpu::stalls_before(const Insn& in) {
  uint64_t stall = 0;
  if (pending_load_ != kNoReg &&
      (in.src[0] == pending_load_ || in.src[1] == pending_load_ || in.src[2] == pending_load_)) {
    stall = t_.load_use_stall;
    ++counters.load_use_stalls;
  }
  pending_load_ = kNoReg;  // loads set it again (load(), load_fp(), atomic())
  // An instruction that ran into a gate had its fetch then (gated()): fetching it again when it
  // runs would count its stalls twice, and an instruction spanning two lines of a cache that
  // other cores keep evicting would miss again on every try and never run.
  const bool fetched = fetch_spent_ && pc == fetch_next_;
  fetch_spent_ = false;
  if (icache_ && !fetched) {
    const uint32_t shift = icache_->line_shift();
    const bool jumped = pc != fetch_next_;
    if (jumped || (pc >> shift) != icache_line_ || (pc & ((1u << shift) - 1)) >= (1u << shift) - 4)
      stall += fetch_stall(in, jumped, cycle_base_ + cycles + stall);
  }
  return stall;
}

// Retires an executed instruction: tells the observer, counts its cycles and itself, moves pc on,
// and says whether run() must stop after it (a device's halt, a woken core, a spin). `a`: rs1 before it.
FS_ISS_INLINE bool Cpu::retire(const Insn& in, uint32_t a, const Exec& e, Stop& stop) {
  if (observer_) {
    const uint32_t v = in.dst == kNoReg ? 0 : in.dst >= kF ? f[in.dst - kF] : x[in.dst];
    observer_->retired(cycles, pc, in, in.dst, v, observed_access_);
  }
  const uint64_t started = cycles + e.stall;  // when the instruction's access happened
  cycles += e.cost + e.stall;
  ++instret;
  const uint32_t load_pc = pc;
  fetch_next_ = pc + last_len_;  // (not in.len: fence.i has freed `in`)
  pc = e.next;
  if (e.halt) {
    stop = Stop::kHalt;
    return true;
  }
  if (watch_ && watch_->yield) {
    watch_->yield = false;
    stop = Stop::kYield;
    return true;
  }
  if (e.shared_load) {
    const unsigned size = in.op == Op::kFlw ? 4 : sem::load_bytes(in.op);
    const uint32_t addr = a + uint32_t(in.imm);
    const uint32_t value = in.op == Op::kFlw ? f[in.rd] : uint32_t(load_le(e.shared_load, size));
    // A traced core (every turn shown) or one in a hardware loop is counted, never parked.
    if (probe_spin(load_pc, addr, value, e.shared_load, size, started, watch_ && !observer_ && !loops_active_)) {
      stop = Stop::kSpin;
      return true;
    }
  }
  return false;
}

// The fault's instruction word is what the region holds at pc, for the message: not read from a
// device (it has no bytes) or from memory other clusters share (they may be writing it on other
// threads; the message's reader may look it up later, see IssEngine's fault_message).
Stop Cpu::fetch_fault() {
  const MemRegion* r = mem_.find(pc, 2);
  const bool readable = r && r->host && r->sharing != kGlobalShared;
  return raise(Fault::kFetchAccess, readable ? uint32_t(load_le(r->host + (pc - r->base), 2)) : 0);
}

// -- The memory access path.

// Loads, stores, LR/SC, AMOs and F loads/stores (the enum keeps each group contiguous).
static inline bool accesses_memory(Op op) {
  return (op >= Op::kLb && op <= Op::kSw) || (op >= Op::kLrW && op <= Op::kFsw) || (op >= Op::kPLb && op <= Op::kPSw);
}

// The address an access instruction reaches (before it executes).
static inline uint32_t access_address(const Insn& in, const uint32_t* x) {
  if (in.op >= Op::kLrW && in.op <= Op::kAmomaxuW) return x[in.rs1];
  if (in.op >= Op::kPLb && in.op <= Op::kPSw) {
    if (in.aux != kRegReg) return x[in.rs1];
    return x[in.rs1] + x[in.op >= Op::kPSb ? in.rs3 : in.rs2];
  }
  return x[in.rs1] + uint32_t(in.imm);
}

// Whether `in`, an access made `stall` cycles from now, must wait for a gate (see run()). If so the
// stalls are spent (and not counted again when it runs later: it is fetched already, so it is
// not a jump's target then) and gate_ says which gate.
FS_ISS_INLINE bool Cpu::gated(const Insn& in, const Gates& gates, uint64_t stall) {
  const uint32_t addr = access_address(in, x);
  const MemRegion* r = mem_.find(addr, 1);
  if (!r) return false;
  const uint64_t at = cycles + stall;
  const bool store = in.op == Op::kSb || in.op == Op::kSh || in.op == Op::kSw || in.op == Op::kFsw ||
                     (in.op >= Op::kPSb && in.op <= Op::kPSw);
  const uint32_t off = addr - r->base;
  if (r->mmio && at > gates.device && r->mmio->reaches_switch(off, store))
    gate_ = GateKind::kDevice;
  else if (r->sharing == kClusterShared && at > gates.cluster)
    gate_ = GateKind::kCluster;
  else if (r->sharing == kGlobalShared && at > gates.shared)
    gate_ = GateKind::kShared;
  else if (gates.isolated && (r->sharing == kGlobalShared || (r->mmio && r->mmio->calls_out(off, store))))
    gate_ = GateKind::kLeaves;
  else
    return false;
  cycles += stall;
  fetch_next_ = pc;
  fetch_spent_ = true;
  return true;
}

// The device region holding [addr, addr + size), or nullptr.
FS_ISS_INLINE const MemRegion* Cpu::device_at(uint32_t addr, unsigned size) {
  const MemRegion* r = mem_.find(addr, size);
  return r && r->mmio ? r : nullptr;
}

// The address path that loads, stores and atomics to memory share: finds the region (nullptr if
// none, not writable for a store, or a device), points `host` at the bytes, and accounts the
// region's extra cycles, TCDM bank conflicts and misalignment. `tell`: a store that certainly
// writes (an SC tells only once it succeeds). `amo`: a read-modify-write, which holds a TCDM bank
// a cycle more.
FS_ISS_INLINE const MemRegion* Cpu::access(uint32_t addr, unsigned size, bool store, Exec& e, uint8_t*& host,
                                           bool tell, bool amo) {
  const MemRegion* r = mem_.find(addr, size);
  if (!r || (store && !r->writable) || r->mmio) return nullptr;
  host = r->host + (addr - r->base);
  if (store) {
    ++writes_;
    if (tell && r->sharing) tell_stored(host, size, cycle_base_ + cycles + e.stall);
  } else if (r->sharing) {
    e.shared_load = host;
  }
  e.cost += r->extra_cycles;
  counters.region_stall_cycles += r->extra_cycles;
  ++counters.accesses[r->access_class];
  if (r->banks) {
    const uint32_t wait =
        r->banks->access(hart_id_, cycle_base_ + cycles + e.stall, r->bank_offset + (addr - r->base), amo);
    e.cost += wait;
    counters.bank_conflict_cycles += wait;
  }
  if (addr & (size - 1)) {
    e.cost += t_.misaligned;
    ++counters.misaligned;
  }
  return r;
}

// lb, lh, lw, lbu, lhu (`width`) at addr: from memory or a device.
FS_ISS_INLINE bool Cpu::load_at(const Insn& in, uint32_t addr, Op width, Exec& e) {
  const unsigned size = sem::load_bytes(width);
  uint32_t v;
  e.cost = t_.load;
  if (const MemRegion* dev = device_at(addr, size)) {
    uint32_t busy = 0;
    const MmioDevice::Result res = dev->mmio->read(addr - dev->base, size, v, busy);
    if (res == MmioDevice::Result::kFault) return fail(Fault::kLoadAccess, in.raw, addr);
    e.cost += dev->extra_cycles + busy;
    counters.device_wait_cycles += busy;
    if (res == MmioDevice::Result::kHalt) e.halt = true;
  } else {
    uint8_t* h;
    if (!access(addr, size, false, e, h)) return fail(Fault::kLoadAccess, in.raw, addr);
    v = load_le(h, size);
  }
  set_x(in, sem::extend_load(width, v));
  pending_load_ = in.dst;
  ++counters.loads;
  return true;
}

// sb, sh, sw (`width`) of b at addr: to memory (breaking this core's reservation of the word) or
// a device.
FS_ISS_INLINE bool Cpu::store_at(const Insn& in, uint32_t addr, Op width, uint32_t b, Exec& e) {
  const unsigned size = sem::store_bytes(width);
  e.cost = t_.store;
  if (const MemRegion* dev = device_at(addr, size)) {
    const uint32_t v = size == 4 ? b : b & ((1u << (8 * size)) - 1);
    uint32_t busy = 0;
    ++writes_;
    const MmioDevice::Result res = dev->mmio->write(addr - dev->base, size, v, busy);
    if (res == MmioDevice::Result::kFault) return fail(Fault::kStoreAccess, in.raw, addr);
    e.cost += dev->extra_cycles + busy;
    counters.device_wait_cycles += busy;
    if (res == MmioDevice::Result::kHalt) e.halt = true;
    ++counters.stores;
    return true;
  }
  uint8_t* h;
  if (!access(addr, size, true, e, h)) return fail(Fault::kStoreAccess, in.raw, addr);
  std::memcpy(h, &b, size);
  if (reservation_valid_ && (reservation_ >> 2) == (addr >> 2)) reservation_valid_ = false;
  ++counters.stores;
  return true;
}

// flw, fsw: memory only.
FS_ISS_INLINE bool Cpu::load_fp(const Insn& in, uint32_t a, Exec& e) {
  const uint32_t addr = a + uint32_t(in.imm);
  uint8_t* h;
  e.cost = t_.load;
  if (!access(addr, 4, false, e, h)) return fail(Fault::kLoadAccess, in.raw, addr);
  f[in.rd] = load_le(h, 4);
  pending_load_ = in.dst;
  ++counters.loads;
  return true;
}

FS_ISS_INLINE bool Cpu::store_fp(const Insn& in, uint32_t a, Exec& e) {
  const uint32_t addr = a + uint32_t(in.imm);
  uint8_t* h;
  e.cost = t_.store;
  if (!access(addr, 4, true, e, h)) return fail(Fault::kStoreAccess, in.raw, addr);
  std::memcpy(h, &f[in.rs2], 4);
  if (reservation_valid_ && (reservation_ >> 2) == (addr >> 2)) reservation_valid_ = false;
  ++counters.stores;
  return true;
}

// Xpulp loads: the access at rs1 (post-increment forms, then rs1 += imm or rs2) or at rs1 + rs2.
// A load into rs1 itself keeps the loaded value. Never a spin load (the address moves on).
FS_ISS_INLINE bool Cpu::xload(const Insn& in, uint32_t a, uint32_t b, Exec& e) {
  static const Op widths[5] = {Op::kLb, Op::kLbu, Op::kLh, Op::kLhu, Op::kLw};
  const Op width = widths[unsigned(in.op) - unsigned(Op::kPLb)];
  if (in.aux != kRegReg && in.rs1) x[in.rs1] = a + (in.aux == kPostImm ? uint32_t(in.imm) : b);
  if (!load_at(in, in.aux == kRegReg ? a + b : a, width, e)) {
    x[in.rs1] = a;  // a fault leaves the registers as they were
    return false;
  }
  e.shared_load = nullptr;
  return true;
}

// Xpulp stores of rs2: at rs1 (then rs1 += imm or rs3) or at rs1 + rs3.
FS_ISS_INLINE bool Cpu::xstore(const Insn& in, uint32_t a, uint32_t b, Exec& e) {
  static const Op widths[3] = {Op::kSb, Op::kSh, Op::kSw};
  const Op width = widths[unsigned(in.op) - unsigned(Op::kPSb)];
  const uint32_t c = x[in.rs3];
  if (!store_at(in, in.aux == kRegReg ? a + c : a, width, b, e)) return false;
  if (in.aux != kRegReg && in.rs1) x[in.rs1] = a + (in.aux == kPostImm ? uint32_t(in.imm) : c);
  return true;
}

// lp.starti, lp.endi, lp.count(i), lp.setup(i): offsets count halfwords from the instruction; the
// end is the address of the loop's last instruction (RI5CY manual, hardware loops).
FS_ISS_INLINE void Cpu::hw_loop_setup(const Insn& in, uint32_t a) {
  HwLoop& l = loops[in.aux];
  const uint32_t off = uint32_t(in.imm) << 1;
  switch (in.op) {
    case Op::kLpStarti: l.start = pc + off; break;
    case Op::kLpEndi: l.end = pc + off; break;
    case Op::kLpCount: l.count = a; break;
    case Op::kLpCounti: l.count = uint32_t(in.imm); break;
    case Op::kLpSetup: l.start = pc + 4; l.end = pc + off; l.count = a; break;
    default: l.start = pc + 4; l.end = pc + (uint32_t(in.rs1) << 1); l.count = uint32_t(in.imm); break;  // setupi
  }
  if (in.op != Op::kLpCount && in.op != Op::kLpCounti) l.checked = false;
  loops_active_ = loops[0].count || loops[1].count;
}

// After the instruction at a loop's end: one turn fewer, and back to the start while turns are
// left (no cycles: RI5CY's loops have no overhead). Loop 0 is checked first.
FS_ISS_INLINE bool Cpu::hw_loop_end(const Insn& in, Exec& e) {
  for (unsigned l = 0; l < 2; ++l) {
    HwLoop& lp = loops[l];
    if (!lp.count || pc != lp.end) continue;
    if (!lp.checked && !check_hw_loop(l, in)) return false;
    if (e.next != pc + in.len) {
      fault_ = Fault{Fault::kHwLoop, pc, in.raw, 0, "loop " + std::to_string(l) + " ends with a jump or a taken branch"};
      return false;
    }
    if (--lp.count) e.next = lp.start;
    loops_active_ = loops[0].count || loops[1].count;
    return true;
  }
  return true;
}

// RI5CY's rules for a loop body (manual, hardware loops): start and end word-aligned, at least 3
// instructions, none compressed; an outer loop (1) ends at least 2 instructions after an inner
// one (0) it contains. Checked once per setup, the first time the loop turns.
bool Cpu::check_hw_loop(unsigned l, const Insn& in) {
  const HwLoop lp = loops[l];
  char why[160] = "";
  if ((lp.start | lp.end) & 3) {
    std::snprintf(why, sizeof why, "loop %u start 0x%08x or end 0x%08x is not word-aligned", l, lp.start, lp.end);
  } else if (lp.end < lp.start + 8) {
    std::snprintf(why, sizeof why, "loop %u body 0x%08x..0x%08x has fewer than 3 instructions", l, lp.start, lp.end);
  } else if (l == 1 && loops[0].start >= lp.start && loops[0].end <= lp.end && lp.end < loops[0].end + 8) {
    std::snprintf(why, sizeof why, "loop 1 ends at 0x%08x, less than 2 instructions after inner loop 0 (0x%08x)",
                  lp.end, loops[0].end);
  } else {
    for (uint32_t a = lp.start; a <= lp.end && !why[0]; a += 4) {
      const Insn* i = fetch(a);
      if (!i || i->len != 4)
        std::snprintf(why, sizeof why, "loop %u body has a compressed or unreadable instruction at 0x%08x", l, a);
    }
  }
  if (why[0]) {
    fault_ = Fault{Fault::kHwLoop, pc, in.raw, 0, why};
    return false;
  }
  loops[l].checked = true;
  return true;
}

// lr.w, sc.w and the AMOs: aligned words of memory, never a spin load. Each is one transaction
// that returns a word, as a load (RI5CY writes rd from WB: a load-use stall follows); LR/SC only
// where the memory has them (MemRegion::lrsc). The value an AMO writes comes from sem::amo.
FS_ISS_INLINE bool Cpu::atomic(const Insn& in, uint32_t a, uint32_t b, Exec& e) {
  if (a & 3) return fail(Fault::kMisalignedAtomic, in.raw, a);
  const bool lrsc = in.op == Op::kLrW || in.op == Op::kScW;
  if (lrsc) {
    const MemRegion* m = mem_.find(a, 4);
    if (m && !m->lrsc) return fail(Fault::kNoLrSc, in.raw, a);
  }
  uint8_t* h;
  e.cost = t_.atomic;
  ++counters.atomics;
  const bool store = in.op != Op::kLrW;
  const MemRegion* r = access(a, 4, store, e, h, in.op != Op::kScW, !lrsc);
  if (!r) return fail(store ? Fault::kStoreAccess : Fault::kLoadAccess, in.raw, a);
  const uint32_t old = load_le(h, 4);
  e.shared_load = nullptr;  // atomics never count as spin loads
  pending_load_ = in.dst;
  ++writes_;                // (an LR changes the reservation)
  if (in.op == Op::kLrW) {
    reservation_valid_ = true;
    reservation_ = a;
    if (reservations_) reservations_->reserve(this, h);
    set_x(in, old);
    return true;
  }
  if (in.op == Op::kScW) {
    const bool ok = reservation_valid_ && reservation_ == a && (!reservations_ || reservations_->holds(this, h));
    if (ok) {
      std::memcpy(h, &b, 4);
      if (r->sharing) tell_stored(h, 4, cycle_base_ + cycles + e.stall);
      if (r->sharing && old != b) note_atomic_write(*r, h, a, old, b, in);
    }
    reservation_valid_ = false;
    if (reservations_) reservations_->release(this);
    set_x(in, ok ? 0 : 1);
    return true;
  }
  const uint32_t v = sem::amo(in.op, old, b);
  std::memcpy(h, &v, 4);
  if (r->sharing && old != v) note_atomic_write(*r, h, a, old, v, in);
  if (reservation_valid_ && reservation_ == a) reservation_valid_ = false;
  set_x(in, old);
  return true;
}

// -- Groups of instructions that touch more than one integer register (the integer ALU and M
// compute in semantics.h).

FS_ISS_INLINE void Cpu::branch(bool taken, const Insn& in, Exec& e) {
  ++counters.branches;
  if (taken) {
    e.next = pc + uint32_t(in.imm);
    e.cost = t_.branch_taken;
    ++counters.taken;
  } else {
    e.cost = t_.branch_not_taken;
  }
}

// jal, jalr: rd gets the address after the jump.
FS_ISS_INLINE void Cpu::jump(uint32_t target, const Insn& in, Exec& e) {
  set_x(in, e.next);
  e.next = target;
  e.cost = t_.jump;
  // A jump's cycles are final here (t_.jump after the stalls before it), so the count once it
  // retires is known.
  if (__builtin_expect(pc == marks_.call_pc || target == marks_.return_pc, 0))
    reach_mark(pc, target, cycles + e.stall + e.cost);
}

void Cpu::reach_mark(uint32_t at, uint32_t target, uint64_t retired) {
  if (at == marks_.call_pc && marks_.entered == CallMarks::kNotReached) marks_.entered = retired;
  if (target == marks_.return_pc && marks_.returned == CallMarks::kNotReached) marks_.returned = retired;
}

// csrrw, csrrs, csrrc and their immediate forms; unknown CSRs and writes to read-only ones are
// illegal instructions.
FS_ISS_INLINE bool Cpu::csr(const Insn& in, uint32_t a) {
  const uint32_t csr = uint32_t(in.imm);
  const bool imm_form = in.op >= Op::kCsrrwi;
  const uint32_t src = imm_form ? in.rs1 : a;
  const bool writes = in.op == Op::kCsrrw || in.op == Op::kCsrrwi || in.rs1 != 0;
  uint32_t old = 0;
  if (!csr_read(csr, old)) return fail(Fault::kIllegalInstruction, in.raw);
  if (writes) {
    uint32_t v = src;
    if (in.op == Op::kCsrrs || in.op == Op::kCsrrsi) v = old | src;
    if (in.op == Op::kCsrrc || in.op == Op::kCsrrci) v = old & ~src;
    if ((csr >> 10) == 3 || !csr_write(csr, v)) return fail(Fault::kIllegalInstruction, in.raw);
  }
  set_x(in, old);
  // A loop that reads a counter (a time-bounded try-lock) can end without any store, so it
  // must never be taken for a spin and fast-forwarded: the read breaks the spin probe.
  if (csr >= 0xB00 && csr < 0xD00) ++writes_;
  return true;
}

// The rounding mode an F instruction's rm field asks for (7: frm); false if it is reserved.
FS_ISS_INLINE bool Cpu::rounding(unsigned field, unsigned& rm) const {
  rm = field == 7 ? frm : field;
  return rm <= 4;
}

// The F instructions other than flw/fsw: operands in f registers (and rs1 for conversions from
// integers), results in f or x, exception flags accrued into fflags.
bool Cpu::fp(const Insn& in, uint32_t a, uint64_t& cost) {
  const uint32_t fa = f[in.rs1], fb = f[in.rs2], fc = f[in.rs3];
  unsigned rm = 0;
  uint32_t fl = 0;
  bool to_f = true;
  uint32_t r = 0;
  ++counters.fp;
  cost = t_.fpu;
  switch (in.op) {
#define ROUNDED(OP, EXPR, COST)                                                \
  case Op::OP:                                                                 \
    if (!rounding(in.rm, rm)) return fail(Fault::kIllegalInstruction, in.raw); \
    r = EXPR;                                                                  \
    cost = COST;                                                             \
    break;
    ROUNDED(kFaddS, fpu::add(fa, fb, rm, fl), t_.fpu)
    ROUNDED(kFsubS, fpu::sub(fa, fb, rm, fl), t_.fpu)
    ROUNDED(kFmulS, fpu::mul(fa, fb, rm, fl), t_.fpu)
    ROUNDED(kFdivS, fpu::div(fa, fb, rm, fl), t_.fdiv)
    ROUNDED(kFsqrtS, fpu::sqrt(fa, rm, fl), t_.fsqrt)
    ROUNDED(kFmaddS, fpu::fmadd(fa, fb, fc, rm, fl), t_.fpu)
    ROUNDED(kFmsubS, fpu::fmsub(fa, fb, fc, rm, fl), t_.fpu)
    ROUNDED(kFnmsubS, fpu::fnmsub(fa, fb, fc, rm, fl), t_.fpu)
    ROUNDED(kFnmaddS, fpu::fnmadd(fa, fb, fc, rm, fl), t_.fpu)
    ROUNDED(kFcvtSW, fpu::cvt_s_w(int32_t(a), rm, fl), t_.fcvt)
    ROUNDED(kFcvtSWu, fpu::cvt_s_wu(a, rm, fl), t_.fcvt)
#undef ROUNDED
    case Op::kFcvtWS:
      if (!rounding(in.rm, rm)) return fail(Fault::kIllegalInstruction, in.raw);
      r = uint32_t(fpu::cvt_w_s(fa, rm, fl)); to_f = false; cost = t_.fcvt;
      break;
    case Op::kFcvtWuS:
      if (!rounding(in.rm, rm)) return fail(Fault::kIllegalInstruction, in.raw);
      r = fpu::cvt_wu_s(fa, rm, fl); to_f = false; cost = t_.fcvt;
      break;
    case Op::kFsgnjS: r = (fa & 0x7FFFFFFFu) | (fb & 0x80000000u); break;
    case Op::kFsgnjnS: r = (fa & 0x7FFFFFFFu) | (~fb & 0x80000000u); break;
    case Op::kFsgnjxS: r = fa ^ (fb & 0x80000000u); break;
    case Op::kFminS: r = fpu::min(fa, fb, fl); break;
    case Op::kFmaxS: r = fpu::max(fa, fb, fl); break;
    case Op::kFmvXW: r = fa; to_f = false; break;
    case Op::kFmvWX: r = a; break;
    case Op::kFeqS: r = fpu::feq(fa, fb, fl); to_f = false; break;
    case Op::kFltS: r = fpu::flt(fa, fb, fl); to_f = false; break;
    case Op::kFleS: r = fpu::fle(fa, fb, fl); to_f = false; break;
    case Op::kFclassS: r = fpu::fclass(fa); to_f = false; cost = t_.fcvt; break;
    default: return fail(Fault::kIllegalInstruction, in.raw);
  }
  fflags |= fl;
  if (to_f)
    f[in.rd] = r;
  else
    set_x(in, r);
  return true;
}

// -- The loop: fetch a pre-decoded instruction, spend the stalls before it, stop at a gate, run
// its group, retire it.
Stop Cpu::run_plain(uint64_t budget, uint64_t cycle_limit, const Gates& gates) {
  const uint64_t any_gate = std::min(std::min(gates.cluster, gates.shared), gates.device);
  for (uint64_t n = 0; n < budget && cycles < cycle_limit; ++n) {
    const Insn* ip = fetch(pc);
    if (!ip) return fetch_fault();
    const Insn& in = *ip;
    last_len_ = in.len;
    Exec e{pc + in.len, t_.alu, stalls_before(in)};  // t_.alu: cases below replace it
    // The access happens after the stalls, so the gates compare that cycle. Checked before the
    // instruction itself does anything, so that it can run again later.
    if ((cycles + e.stall > any_gate || gates.isolated) && accesses_memory(in.op) && gated(in, gates, e.stall))
      return Stop::kGate;
    if (__builtin_expect(observer_ != nullptr, 0))
      observed_access_ = accesses_memory(in.op) ? access_address(in, x) : RetireObserver::kNoAccess;
    const uint32_t a = x[in.rs1], b = x[in.rs2];
    switch (in.op) {
#define ALU(OP) \
  case Op::OP: set_x(in, sem::alu(Op::OP, a, b, in.imm, pc)); break;
      FS_ISS_ALU_OPS(ALU)
#undef ALU
#define BRANCH(OP) \
  case Op::OP: branch(sem::branch_taken(Op::OP, a, b), in, e); break;
      FS_ISS_BRANCH_OPS(BRANCH)
#undef BRANCH
      case Op::kJal: jump(pc + uint32_t(in.imm), in, e); break;
      case Op::kJalr: jump((a + uint32_t(in.imm)) & ~1u, in, e); break;
#define MUL(OP)                                 \
  case Op::OP:                                  \
    set_x(in, sem::mul(Op::OP, a, b));          \
    e.cost = sem::mul_cycles(Op::OP, t_);       \
    break;
      FS_ISS_MUL_OPS(MUL)
#undef MUL
      case Op::kDiv: case Op::kDivu: case Op::kRem: case Op::kRemu:
        e.cost = sem::div_cycles(in.op, b, t_);
        counters.div_cycles += e.cost;
        set_x(in, sem::divide(in.op, a, b));
        break;
      case Op::kLb: case Op::kLh: case Op::kLw: case Op::kLbu: case Op::kLhu:
        if (!load(in, a, e)) return Stop::kFault;
        break;
      case Op::kSb: case Op::kSh: case Op::kSw:
        if (!store(in, a, b, e)) return Stop::kFault;
        break;
      case Op::kFlw:
        if (!load_fp(in, a, e)) return Stop::kFault;
        break;
      case Op::kFsw:
        if (!store_fp(in, a, e)) return Stop::kFault;
        break;
      case Op::kLrW: case Op::kScW: case Op::kAmoswapW: case Op::kAmoaddW: case Op::kAmoxorW: case Op::kAmoandW:
      case Op::kAmoorW: case Op::kAmominW: case Op::kAmomaxW: case Op::kAmominuW: case Op::kAmomaxuW:
        if (!atomic(in, a, b, e)) return Stop::kFault;
        break;
      case Op::kCsrrw: case Op::kCsrrs: case Op::kCsrrc: case Op::kCsrrwi: case Op::kCsrrsi: case Op::kCsrrci:
        if (!csr(in, a)) return Stop::kFault;
        break;
      case Op::kFence: break;
      case Op::kFenceI: flush_decode_cache(); break;
      case Op::kPLb: case Op::kPLbu: case Op::kPLh: case Op::kPLhu: case Op::kPLw:
        if (!xload(in, a, b, e)) return Stop::kFault;
        break;
      case Op::kPSb: case Op::kPSh: case Op::kPSw:
        if (!xstore(in, a, b, e)) return Stop::kFault;
        break;
      case Op::kLpStarti: case Op::kLpEndi: case Op::kLpCount: case Op::kLpCounti: case Op::kLpSetup:
      case Op::kLpSetupi:
        hw_loop_setup(in, a);
        break;
      case Op::kPBeqimm: branch(a == uint32_t(int32_t(int8_t(in.aux))), in, e); break;
      case Op::kPBneimm: branch(a != uint32_t(int32_t(int8_t(in.aux))), in, e); break;
      case Op::kEcall: return Stop::kEcall;
      case Op::kEbreak: return Stop::kEbreak;
      case Op::kIllegal: return raise(Fault::kIllegalInstruction, in.raw);
      default:
        if (in.op >= Op::kPAbs && in.op <= Op::kPvSdotsp) {  // Xpulp ALU, multiplier, SIMD
          set_x(in, in.op >= Op::kPvAdd ? xp::simd(in, a, b, x[in.rd]) : xp::scalar(in, a, b, x[in.rd]));
          if (xp::on_multiplier(in.op)) e.cost = t_.mul;
          break;
        }
        if (!fp(in, a, e.cost)) return Stop::kFault;  // the remaining F instructions
        break;
    }
    if (loops_active_ && !hw_loop_end(in, e)) return Stop::kFault;
    Stop stop;
    if (retire(in, a, e, stop)) return stop;
  }
  return Stop::kBudget;
}

#undef FS_ISS_INLINE

}  // namespace fs::iss
