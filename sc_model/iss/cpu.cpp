// The RV32IMAFC execution loop (see cpu.h).
#include "iss/cpu.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "iss/fpu.h"
#include "iss/tcdm_banks.h"

namespace fs::iss {
namespace {

inline uint32_t bit_length(uint32_t v) { return v ? 32u - uint32_t(__builtin_clz(v)) : 0u; }

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
  }
  if (kind == kLoadAccess || kind == kStoreAccess || kind == kMisalignedAtomic)
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
        std::shared_ptr<DecodedCode>& s = (*shared_decode_)[r->host];
        if (!s || s->size() != r->size / 2 + 1) s = fresh();
        code = s;
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
  const uint8_t* p = current_->region->host + off;
  const uint16_t lo = uint16_t(load_le(p, 2));
  if ((lo & 3) != 3) {
    slot = decode16(lo);
  } else {
    if (off + 4 > current_->region->size) return nullptr;
    slot = decode32(load_le(p, 4));
  }
  return &slot;
}

Stop Cpu::raise(Fault::Kind kind, uint32_t insn, uint32_t addr) {
  fault_ = Fault{kind, pc, insn, addr};
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
    default: return false;
  }
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
    default: return false;  // read-only or unknown
  }
}

// Loads, stores, LR/SC, AMOs and F loads/stores (the enum keeps each group contiguous).
static inline bool accesses_memory(Op op) {
  return (op >= Op::kLb && op <= Op::kSw) || (op >= Op::kLrW && op <= Op::kFsw);
}

Stop Cpu::run(uint64_t budget, uint64_t cycle_limit, const Gates& gates) {
  uint32_t* const X = x;
  const uint64_t any_gate = std::min(std::min(gates.cluster, gates.shared), gates.device);
  for (uint64_t n = 0; n < budget && cycles < cycle_limit; ++n) {
    const Insn* ip = fetch(pc);
    if (!ip) {
      const MemRegion* r = mem_.find(pc, 2);
      return raise(Fault::kFetchAccess, r ? uint32_t(load_le(r->host + (pc - r->base), 2)) : 0);
    }
    const Insn& in = *ip;
    last_len_ = in.len;
    uint64_t cost = t_.alu;  // the instruction's own cycles; cases below replace it
    uint64_t stall = 0;      // before the instruction: load-use stall, instruction-cache refill
    if (pending_load_ != kNoReg &&
        (in.src[0] == pending_load_ || in.src[1] == pending_load_ || in.src[2] == pending_load_)) {
      stall = t_.load_use_stall;
      ++counters.load_use_stalls;
    }
    pending_load_ = kNoReg;
    if (icache_ && (pc >> icache_->line_shift()) != icache_line_) {
      icache_line_ = pc >> icache_->line_shift();
      const uint32_t refill = icache_->access(icache_program_, pc);
      if (refill) {
        stall += refill;
        ++counters.icache_misses;
        counters.icache_stall_cycles += refill;
      }
    }
    // The access happens after the stalls, so the gates compare that cycle. Checked before the
    // instruction itself does anything, so that it can run again later; the stalls are spent
    // (and not counted again when it does).
    if (cycles + stall > any_gate && accesses_memory(in.op)) {
      const bool atomic = in.op >= Op::kLrW && in.op <= Op::kAmomaxuW;
      const uint32_t addr = X[in.rs1] + (atomic ? 0u : uint32_t(in.imm));
      if (const MemRegion* r = mem_.find(addr, 1)) {
        const bool store = in.op == Op::kSb || in.op == Op::kSh || in.op == Op::kSw || in.op == Op::kFsw;
        if (r->mmio && cycles + stall > gates.device && r->mmio->reaches_switch(addr - r->base, store)) {
          gate_ = GateKind::kDevice;
          cycles += stall;
          return Stop::kGate;
        }
        if (r->sharing == kClusterShared && cycles + stall > gates.cluster) {
          gate_ = GateKind::kCluster;
          cycles += stall;
          return Stop::kGate;
        }
        if (r->sharing == kGlobalShared && cycles + stall > gates.shared) {
          gate_ = GateKind::kShared;
          cycles += stall;
          return Stop::kGate;
        }
      }
    }
    uint32_t next = pc + in.len;
    const uint32_t a = X[in.rs1], b = X[in.rs2];
    uint32_t rd_value = 0;
    bool write_x = true;
    bool halt = false;
    const uint8_t* shared_load = nullptr;  // set by a plain load from a shared region
    auto mmio_at = [&](uint32_t addr, unsigned size) -> const MemRegion* {
      const MemRegion* r = mem_.find(addr, size);
      return r && r->mmio ? r : nullptr;
    };

    // Loads and stores share the address path: translate, check, account region cost.
    // Others are told of a store to shared memory (their reservations, parked spinners).
    auto tell_stored = [&](const MemRegion* r, const uint8_t* host, unsigned size) {
      if (!r->sharing) return;
      if (reservations_ && !reservations_->empty()) reservations_->stored(this, host, size);
      if (watch_ && watch_->armed) watch_->stored(host, size, cycle_base_ + cycles + stall);  // after the stalls
    };
    const MemRegion* accessed = nullptr;  // the region of the last mem_at
    // `tell`: a store that certainly writes (an SC tells only once it succeeds).
    auto mem_at = [&](uint32_t addr, unsigned size, bool store, uint8_t*& host,
                      bool tell = true) __attribute__((always_inline)) -> bool {
      const MemRegion* r = mem_.find(addr, size);
      if (!r || (store && !r->writable) || r->mmio) return false;
      host = r->host + (addr - r->base);
      accessed = r;
      if (store) {
        ++writes_;
        if (tell && r->sharing) tell_stored(r, host, size);
      } else if (r->sharing) {
        shared_load = host;
      }
      cost += r->extra_cycles;
      counters.region_stall_cycles += r->extra_cycles;
      ++counters.accesses[r->access_class];
      if (r->banks) {
        const uint32_t wait = r->banks->access(hart_id_, cycle_base_ + cycles + stall, r->bank_offset + (addr - r->base));
        cost += wait;
        counters.bank_conflict_cycles += wait;
      }
      if (addr & (size - 1)) cost += t_.misaligned;
      return true;
    };
    auto rm_of = [&](unsigned field, unsigned& rm) -> bool {
      rm = field == 7 ? frm : field;
      return rm <= 4;
    };

    switch (in.op) {
      case Op::kIllegal: return raise(Fault::kIllegalInstruction, in.raw);
      case Op::kLui: rd_value = uint32_t(in.imm); break;
      case Op::kAuipc: rd_value = pc + uint32_t(in.imm); break;
      case Op::kJal: rd_value = next; next = pc + uint32_t(in.imm); cost = t_.jump; break;
      case Op::kJalr: rd_value = next; next = (a + uint32_t(in.imm)) & ~1u; cost = t_.jump; break;
#define BRANCH(OP, COND)                                              \
  case Op::OP:                                                        \
    write_x = false;                                                  \
    ++counters.branches;                                              \
    if (COND) {                                                       \
      next = pc + uint32_t(in.imm);                                   \
      cost = t_.branch_taken;                                         \
      ++counters.taken;                                               \
    } else {                                                          \
      cost = t_.branch_not_taken;                                     \
    }                                                                 \
    break;
      BRANCH(kBeq, a == b)
      BRANCH(kBne, a != b)
      BRANCH(kBlt, int32_t(a) < int32_t(b))
      BRANCH(kBge, int32_t(a) >= int32_t(b))
      BRANCH(kBltu, a < b)
      BRANCH(kBgeu, a >= b)
#undef BRANCH
      case Op::kLb: case Op::kLh: case Op::kLw: case Op::kLbu: case Op::kLhu: {
        const unsigned size = in.op == Op::kLw ? 4 : (in.op == Op::kLh || in.op == Op::kLhu) ? 2 : 1;
        const uint32_t addr = a + uint32_t(in.imm);
        uint8_t* h;
        uint32_t v;
        cost = t_.load;
        if (const MemRegion* dev = mmio_at(addr, size)) {
          const MmioDevice::Result res = dev->mmio->read(addr - dev->base, size, v);
          if (res == MmioDevice::Result::kFault) return raise(Fault::kLoadAccess, in.raw, addr);
          cost += dev->extra_cycles;
          if (res == MmioDevice::Result::kHalt) halt = true;
        } else {
          if (!mem_at(addr, size, false, h)) return raise(Fault::kLoadAccess, in.raw, addr);
          v = load_le(h, size);
        }
        if (in.op == Op::kLb) rd_value = uint32_t(int32_t(int8_t(v)));
        else if (in.op == Op::kLh) rd_value = uint32_t(int32_t(int16_t(v)));
        else rd_value = v;
        pending_load_ = in.dst;
        ++counters.loads;
        break;
      }
      case Op::kSb: case Op::kSh: case Op::kSw: {
        const unsigned size = in.op == Op::kSw ? 4 : in.op == Op::kSh ? 2 : 1;
        const uint32_t addr = a + uint32_t(in.imm);
        uint8_t* h;
        cost = t_.store;
        if (const MemRegion* dev = mmio_at(addr, size)) {
          const uint32_t v = size == 4 ? b : b & ((1u << (8 * size)) - 1);
          uint32_t busy = 0;
          ++writes_;
          const MmioDevice::Result res = dev->mmio->write(addr - dev->base, size, v, busy);
          if (res == MmioDevice::Result::kFault) return raise(Fault::kStoreAccess, in.raw, addr);
          cost += dev->extra_cycles + busy;
          counters.device_wait_cycles += busy;
          if (res == MmioDevice::Result::kHalt) halt = true;
          write_x = false;
          ++counters.stores;
          break;
        }
        if (!mem_at(addr, size, true, h)) return raise(Fault::kStoreAccess, in.raw, addr);
        std::memcpy(h, &b, size);
        if (reservation_valid_ && (reservation_ >> 2) == (addr >> 2)) reservation_valid_ = false;
        write_x = false;
        ++counters.stores;
        break;
      }
      case Op::kAddi: rd_value = a + uint32_t(in.imm); break;
      case Op::kSlti: rd_value = int32_t(a) < in.imm; break;
      case Op::kSltiu: rd_value = a < uint32_t(in.imm); break;
      case Op::kXori: rd_value = a ^ uint32_t(in.imm); break;
      case Op::kOri: rd_value = a | uint32_t(in.imm); break;
      case Op::kAndi: rd_value = a & uint32_t(in.imm); break;
      case Op::kSlli: rd_value = a << in.imm; break;
      case Op::kSrli: rd_value = a >> in.imm; break;
      case Op::kSrai: rd_value = uint32_t(int32_t(a) >> in.imm); break;
      case Op::kAdd: rd_value = a + b; break;
      case Op::kSub: rd_value = a - b; break;
      case Op::kSll: rd_value = a << (b & 31); break;
      case Op::kSlt: rd_value = int32_t(a) < int32_t(b); break;
      case Op::kSltu: rd_value = a < b; break;
      case Op::kXor: rd_value = a ^ b; break;
      case Op::kSrl: rd_value = a >> (b & 31); break;
      case Op::kSra: rd_value = uint32_t(int32_t(a) >> (b & 31)); break;
      case Op::kOr: rd_value = a | b; break;
      case Op::kAnd: rd_value = a & b; break;
      case Op::kFence: write_x = false; break;
      case Op::kFenceI: write_x = false; flush_decode_cache(); break;
      case Op::kEcall: return Stop::kEcall;
      case Op::kEbreak: return Stop::kEbreak;
      case Op::kCsrrw: case Op::kCsrrs: case Op::kCsrrc: case Op::kCsrrwi: case Op::kCsrrsi: case Op::kCsrrci: {
        const uint32_t csr = uint32_t(in.imm);
        const bool imm_form = in.op >= Op::kCsrrwi;
        const uint32_t src = imm_form ? in.rs1 : a;
        const bool writes = in.op == Op::kCsrrw || in.op == Op::kCsrrwi || in.rs1 != 0;
        uint32_t old = 0;
        if (!csr_read(csr, old)) return raise(Fault::kIllegalInstruction, in.raw);
        if (writes) {
          uint32_t v = src;
          if (in.op == Op::kCsrrs || in.op == Op::kCsrrsi) v = old | src;
          if (in.op == Op::kCsrrc || in.op == Op::kCsrrci) v = old & ~src;
          if ((csr >> 10) == 3 || !csr_write(csr, v)) return raise(Fault::kIllegalInstruction, in.raw);
        }
        rd_value = old;
        // A loop that reads a counter (a time-bounded try-lock) can end without any store, so it
        // must never be taken for a spin and fast-forwarded: the read breaks the spin probe.
        if (csr >= 0xB00 && csr < 0xD00) ++writes_;
        break;
      }
      case Op::kMul: rd_value = a * b; cost = t_.mul; break;
      case Op::kMulh: rd_value = uint32_t((int64_t(int32_t(a)) * int64_t(int32_t(b))) >> 32); cost = t_.mulh; break;
      case Op::kMulhsu: rd_value = uint32_t((int64_t(int32_t(a)) * int64_t(uint64_t(b))) >> 32); cost = t_.mulh; break;
      case Op::kMulhu: rd_value = uint32_t((uint64_t(a) * uint64_t(b)) >> 32); cost = t_.mulh; break;
      case Op::kDiv: case Op::kDivu: case Op::kRem: case Op::kRemu: {
        const bool sign = in.op == Op::kDiv || in.op == Op::kRem;
        const uint32_t ua = sign && int32_t(a) < 0 ? 0u - a : a, ub = sign && int32_t(b) < 0 ? 0u - b : b;
        const int32_t span = int32_t(bit_length(ua)) - int32_t(bit_length(ub));
        uint32_t c = t_.div_min + uint32_t(span > 0 ? span : 0);
        cost = c > t_.div_max ? t_.div_max : c;
        counters.div_cycles += cost;
        if (in.op == Op::kDiv) rd_value = b == 0 ? ~0u : (a == 0x80000000u && b == ~0u) ? a : uint32_t(int32_t(a) / int32_t(b));
        else if (in.op == Op::kDivu) rd_value = b == 0 ? ~0u : a / b;
        else if (in.op == Op::kRem) rd_value = b == 0 ? a : (a == 0x80000000u && b == ~0u) ? 0 : uint32_t(int32_t(a) % int32_t(b));
        else rd_value = b == 0 ? a : a % b;
        break;
      }
      case Op::kLrW: case Op::kScW: case Op::kAmoswapW: case Op::kAmoaddW: case Op::kAmoxorW: case Op::kAmoandW:
      case Op::kAmoorW: case Op::kAmominW: case Op::kAmomaxW: case Op::kAmominuW: case Op::kAmomaxuW: {
        if (a & 3) return raise(Fault::kMisalignedAtomic, in.raw, a);
        uint8_t* h;
        cost = t_.atomic;
        ++counters.atomics;
        const bool store = in.op != Op::kLrW;
        if (!mem_at(a, 4, store, h, in.op != Op::kScW))
          return raise(store ? Fault::kStoreAccess : Fault::kLoadAccess, in.raw, a);
        const uint32_t old = load_le(h, 4);
        shared_load = nullptr;  // atomics never count as spin loads
        ++writes_;              // (an LR changes the reservation)
        if (in.op == Op::kLrW) {
          reservation_valid_ = true;
          reservation_ = a;
          if (reservations_) reservations_->reserve(this, h);
          rd_value = old;
          break;
        }
        if (in.op == Op::kScW) {
          const bool ok = reservation_valid_ && reservation_ == a && (!reservations_ || reservations_->holds(this, h));
          if (ok) {
            std::memcpy(h, &b, 4);
            tell_stored(accessed, h, 4);
          }
          reservation_valid_ = false;
          if (reservations_) reservations_->release(this);
          rd_value = ok ? 0 : 1;
          break;
        }
        uint32_t v = 0;
        switch (in.op) {
          case Op::kAmoswapW: v = b; break;
          case Op::kAmoaddW: v = old + b; break;
          case Op::kAmoxorW: v = old ^ b; break;
          case Op::kAmoandW: v = old & b; break;
          case Op::kAmoorW: v = old | b; break;
          case Op::kAmominW: v = int32_t(old) < int32_t(b) ? old : b; break;
          case Op::kAmomaxW: v = int32_t(old) > int32_t(b) ? old : b; break;
          case Op::kAmominuW: v = old < b ? old : b; break;
          default: v = old > b ? old : b; break;
        }
        std::memcpy(h, &v, 4);
        if (reservation_valid_ && reservation_ == a) reservation_valid_ = false;
        rd_value = old;
        break;
      }
      // ---- F ----
      case Op::kFlw: {
        const uint32_t addr = a + uint32_t(in.imm);
        uint8_t* h;
        cost = t_.load;
        if (!mem_at(addr, 4, false, h)) return raise(Fault::kLoadAccess, in.raw, addr);
        f[in.rd] = load_le(h, 4);
        pending_load_ = in.dst;
        write_x = false;
        ++counters.loads;
        break;
      }
      case Op::kFsw: {
        const uint32_t addr = a + uint32_t(in.imm);
        uint8_t* h;
        cost = t_.store;
        if (!mem_at(addr, 4, true, h)) return raise(Fault::kStoreAccess, in.raw, addr);
        std::memcpy(h, &f[in.rs2], 4);
        if (reservation_valid_ && (reservation_ >> 2) == (addr >> 2)) reservation_valid_ = false;
        write_x = false;
        ++counters.stores;
        break;
      }
      default: {
        // The remaining F instructions: operands in f registers, results in f or x.
        const uint32_t fa = f[in.rs1], fb = f[in.rs2], fc = f[in.rs3];
        unsigned rm = 0;
        uint32_t fl = 0;
        bool to_f = true;
        uint32_t r = 0;
        ++counters.fp;
        cost = t_.fpu;
        switch (in.op) {
#define ROUNDED(OP, EXPR, COST)                                                   \
  case Op::OP:                                                                    \
    if (!rm_of(in.rm, rm)) return raise(Fault::kIllegalInstruction, in.raw);      \
    r = EXPR;                                                                     \
    cost = COST;                                                                  \
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
            if (!rm_of(in.rm, rm)) return raise(Fault::kIllegalInstruction, in.raw);
            r = uint32_t(fpu::cvt_w_s(fa, rm, fl)); to_f = false; cost = t_.fcvt;
            break;
          case Op::kFcvtWuS:
            if (!rm_of(in.rm, rm)) return raise(Fault::kIllegalInstruction, in.raw);
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
          default: return raise(Fault::kIllegalInstruction, in.raw);
        }
        fflags |= fl;
        if (to_f) {
          f[in.rd] = r;
          write_x = false;
        } else {
          rd_value = r;
        }
        break;
      }
    }
    if (write_x && in.rd) X[in.rd] = rd_value;
    if (observer_) {
      const uint32_t v = in.dst == kNoReg ? 0 : in.dst >= kF ? f[in.dst - kF] : X[in.dst];
      observer_->retired(cycles, pc, in, in.dst, v);
    }
    const uint64_t started = cycles + stall;  // when the instruction's access happened
    cycles += cost + stall;
    ++instret;
    const uint32_t load_pc = pc;
    pc = next;
    if (halt) return Stop::kHalt;
    if (watch_ && watch_->yield) {
      watch_->yield = false;
      return Stop::kYield;
    }
    if (shared_load && watch_ && !observer_) {
      const unsigned size = in.op == Op::kLw || in.op == Op::kFlw ? 4 : (in.op == Op::kLh || in.op == Op::kLhu) ? 2 : 1;
      const uint32_t addr = a + uint32_t(in.imm);
      const uint32_t value = in.op == Op::kFlw ? f[in.rd] : uint32_t(load_le(shared_load, size));
      if (probe_spin(load_pc, addr, value, shared_load, size, started)) return Stop::kSpin;
    }
  }
  return Stop::kBudget;
}

bool Cpu::probe_spin(uint32_t load_pc, uint32_t addr, uint32_t value, const uint8_t* host, unsigned size,
                     uint64_t load_cycle) {
  SpinProbe& p = probe_;
  const bool same = p.stage > 0 && p.pc == load_pc && p.addr == addr && p.value == value && p.writes == writes_;
  // A loop that takes no cycles (every timing.* at 0) cannot be fast-forwarded by its period.
  if (same && p.stage == 2 && cycles > p.cycles && std::memcmp(p.x, x, sizeof x) == 0 &&
      std::memcmp(p.f, f, sizeof f) == 0 && p.fflags == fflags && p.frm == frm) {
    spin_ = Spin{host, size, load_cycle, cycles - p.cycles};
    spin_instret_ = instret - p.instret;
    spin_counters_ = counters;
    spin_counters_ -= p.counters;
    p.stage = 0;
    return true;
  }
  if (same) {
    // Two loads in a row alike: remember the whole core to compare with the next one.
    std::memcpy(p.x, x, sizeof x);
    std::memcpy(p.f, f, sizeof f);
    p.fflags = fflags;
    p.frm = frm;
    p.cycles = cycles;
    p.instret = instret;
    p.counters = counters;
    p.stage = 2;
    return false;
  }
  p.stage = 1;
  p.pc = load_pc;
  p.addr = addr;
  p.value = value;
  p.writes = writes_;
  return false;
}

void Cpu::skip_spin(uint64_t iterations) {
  cycles += iterations * spin_.period;
  instret += iterations * spin_instret_;
  counters.add_scaled(spin_counters_, iterations);
}

}  // namespace fs::iss
