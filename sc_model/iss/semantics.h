// What the ISS's integer instructions compute, as pure functions of their operands: the RV32I
// ALU (with lui and auipc), branch conditions, M's products, quotients and remainders (and the
// cycles a division takes), A's read-modify-writes, and the sizes of loads and stores. No core
// state: Cpu::run (cpu.cpp) calls them with a constant Op, so each call folds to the one
// operation it names. Plain C++, no SystemC.
#pragma once
#include <cstdint>

#include "iss/insn.h"
#include "iss/timing.h"

namespace fs::iss {

// The operations of each group, for Cpu::run's switch (one case per operation).
#define FS_ISS_ALU_OPS(X)                                                                                        \
  X(kLui) X(kAuipc) X(kAddi) X(kSlti) X(kSltiu) X(kXori) X(kOri) X(kAndi) X(kSlli) X(kSrli) X(kSrai) X(kAdd) \
  X(kSub) X(kSll) X(kSlt) X(kSltu) X(kXor) X(kSrl) X(kSra) X(kOr) X(kAnd)
#define FS_ISS_BRANCH_OPS(X) X(kBeq) X(kBne) X(kBlt) X(kBge) X(kBltu) X(kBgeu)
#define FS_ISS_MUL_OPS(X) X(kMul) X(kMulh) X(kMulhsu) X(kMulhu)

namespace sem {

[[gnu::always_inline]] inline uint32_t bit_length(uint32_t v) { return v ? 32u - uint32_t(__builtin_clz(v)) : 0u; }

// Integer ALU, lui and auipc: `a` is rs1's value, `b` rs2's, `pc` the instruction's address.
[[gnu::always_inline]] inline uint32_t alu(Op op, uint32_t a, uint32_t b, int32_t imm, uint32_t pc) {
  switch (op) {
    case Op::kLui: return uint32_t(imm);
    case Op::kAuipc: return pc + uint32_t(imm);
    case Op::kAddi: return a + uint32_t(imm);
    case Op::kSlti: return int32_t(a) < imm;
    case Op::kSltiu: return a < uint32_t(imm);
    case Op::kXori: return a ^ uint32_t(imm);
    case Op::kOri: return a | uint32_t(imm);
    case Op::kAndi: return a & uint32_t(imm);
    case Op::kSlli: return a << imm;
    case Op::kSrli: return a >> imm;
    case Op::kSrai: return uint32_t(int32_t(a) >> imm);
    case Op::kAdd: return a + b;
    case Op::kSub: return a - b;
    case Op::kSll: return a << (b & 31);
    case Op::kSlt: return int32_t(a) < int32_t(b);
    case Op::kSltu: return a < b;
    case Op::kXor: return a ^ b;
    case Op::kSrl: return a >> (b & 31);
    case Op::kSra: return uint32_t(int32_t(a) >> (b & 31));
    case Op::kOr: return a | b;
    default: return a & b;  // kAnd
  }
}

// Whether a conditional branch is taken.
[[gnu::always_inline]] inline bool branch_taken(Op op, uint32_t a, uint32_t b) {
  switch (op) {
    case Op::kBeq: return a == b;
    case Op::kBne: return a != b;
    case Op::kBlt: return int32_t(a) < int32_t(b);
    case Op::kBge: return int32_t(a) >= int32_t(b);
    case Op::kBltu: return a < b;
    default: return a >= b;  // kBgeu
  }
}

// mul and the high halves of the 64-bit products.
[[gnu::always_inline]] inline uint32_t mul(Op op, uint32_t a, uint32_t b) {
  switch (op) {
    case Op::kMul: return a * b;
    case Op::kMulh: return uint32_t((int64_t(int32_t(a)) * int64_t(int32_t(b))) >> 32);
    case Op::kMulhsu: return uint32_t((int64_t(int32_t(a)) * int64_t(uint64_t(b))) >> 32);
    default: return uint32_t((uint64_t(a) * uint64_t(b)) >> 32);  // kMulhu
  }
}
[[gnu::always_inline]] inline uint32_t mul_cycles(Op op, const Timing& t) { return op == Op::kMul ? t.mul : t.mulh; }

// div, divu, rem, remu, with the results the M extension gives for division by zero and overflow.
[[gnu::always_inline]] inline uint32_t divide(Op op, uint32_t a, uint32_t b) {
  if (op == Op::kDiv) return b == 0 ? ~0u : (a == 0x80000000u && b == ~0u) ? a : uint32_t(int32_t(a) / int32_t(b));
  if (op == Op::kDivu) return b == 0 ? ~0u : a / b;
  if (op == Op::kRem) return b == 0 ? a : (a == 0x80000000u && b == ~0u) ? 0 : uint32_t(int32_t(a) % int32_t(b));
  return b == 0 ? a : a % b;  // kRemu
}
// A division's cycles as RI5CY's serial divider takes them (docs/ISS.md, "Timing"): div_min
// (its first cycle, one more step and the result) plus the steps it counts from the divisor `b`
// alone: b's leading zeros (32 for 0, 0 from 2^31 up); for div/rem by a negative b, one less than
// the leading zeros of -b, and 63 for -2^31 (the 6-bit count wraps). The dividend does not matter.
[[gnu::always_inline]] inline uint32_t div_steps(Op op, uint32_t b) {
  const bool negative = (op == Op::kDiv || op == Op::kRem) && int32_t(b) < 0;
  if (!negative) return 32u - bit_length(b);
  const uint32_t zeros = 32u - bit_length(0u - b);
  return zeros ? zeros - 1 : 63u;
}
[[gnu::always_inline]] inline uint32_t div_cycles(Op op, uint32_t b, const Timing& t) {
  return t.div_min + div_steps(op, b);
}

// The value an AMO writes back, from the word it read (`old`) and rs2 (`b`).
[[gnu::always_inline]] inline uint32_t amo(Op op, uint32_t old, uint32_t b) {
  switch (op) {
    case Op::kAmoswapW: return b;
    case Op::kAmoaddW: return old + b;
    case Op::kAmoxorW: return old ^ b;
    case Op::kAmoandW: return old & b;
    case Op::kAmoorW: return old | b;
    case Op::kAmominW: return int32_t(old) < int32_t(b) ? old : b;
    case Op::kAmomaxW: return int32_t(old) > int32_t(b) ? old : b;
    case Op::kAmominuW: return old < b ? old : b;
    default: return old > b ? old : b;  // kAmomaxuW
  }
}

// Bytes moved by a load or store.
[[gnu::always_inline]] constexpr unsigned load_bytes(Op op) {
  return op == Op::kLw ? 4 : (op == Op::kLh || op == Op::kLhu) ? 2 : 1;
}
[[gnu::always_inline]] constexpr unsigned store_bytes(Op op) { return op == Op::kSw ? 4 : op == Op::kSh ? 2 : 1; }

// A loaded value extended to 32 bits as the load says (lb, lh sign-extend).
[[gnu::always_inline]] inline uint32_t extend_load(Op op, uint32_t v) {
  if (op == Op::kLb) return uint32_t(int32_t(int8_t(v)));
  if (op == Op::kLh) return uint32_t(int32_t(int16_t(v)));
  return v;
}

}  // namespace sem
}  // namespace fs::iss
