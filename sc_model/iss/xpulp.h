// What RI5CY's Xpulp ALU, multiplier and packed-SIMD instructions compute, as pure functions of
// their operands (like semantics.h for RV32IM): `a` is rs1's value, `b` rs2's (or, for the .sci
// SIMD forms, the immediate), `d` rD's old value for the instructions that read it (p.mac,
// p.insert, pv.sdot*, pv.insert, pv.shuffle2, pv.packhi/lo, the ...Nr forms). Semantics follow the
// CV32E40P v1 user manual's tables (instruction_set_extensions.rst) and its ALU RTL where the
// tables are ambiguous (p.bclr/p.bset act on Is3 + 1 bits; p.clb; p.bitrev); docs/ISS.md "Xpulp".
// Plain C++, no SystemC.
#pragma once
#include <cstdint>

#include "iss/insn.h"

namespace fs::iss::xp {

inline int32_t s(uint32_t v) { return int32_t(v); }
// A mask of n + 1 ones at bit p, n and p 0..31 (the RTL's bmask).
inline uint32_t field_mask(uint32_t n, uint32_t p) { return (~(0xFFFFFFFEu << (n & 31))) << (p & 31); }
inline uint32_t ror(uint32_t a, uint32_t n) { return n & 31 ? (a >> (n & 31)) | (a << (32 - (n & 31))) : a; }

// p.clip/p.clipu: bounds -2^(n-1) .. 2^(n-1) - 1 (clipu: 0 ..); n = 0 gives -1 .. 0 (manual).
inline uint32_t clip(int32_t v, int64_t lo, int64_t hi) {
  if (v <= lo) return uint32_t(int32_t(lo));
  if (v >= hi) return uint32_t(int32_t(hi));
  return uint32_t(v);
}

// p.bitrev: rs1 << Is2, then its bits reversed in groups of 1, 2 or 3 (radix 2, 4, 8).
inline uint32_t bitrev(uint32_t a, uint32_t shift, uint32_t radix_sel) {
  const uint32_t v = a << (shift & 31);
  uint32_t r = 0;
  if (radix_sel == 1) {
    for (unsigned j = 0; j < 16; ++j) r |= ((v >> (30 - 2 * j)) & 3u) << (2 * j);
  } else if (radix_sel == 2) {
    for (unsigned j = 0; j < 10; ++j) r |= ((v >> (29 - 3 * j)) & 7u) << (3 * j);
  } else {
    for (unsigned j = 0; j < 32; ++j) r |= ((v >> (31 - j)) & 1u) << j;
  }
  return r;
}

// (x + round) >> n, arithmetic (signed) or logical, on 32 bits as the RTL's adder does.
inline uint32_t shift_norm(uint32_t x, uint32_t n, bool round, bool arith) {
  n &= 31;
  if (round && n) x += 1u << (n - 1);
  return arith ? uint32_t(s(x) >> n) : x >> n;
}

// 16 x 16-bit multiplies: low halves (lo) or high halves, signed or not, then + rD, round, shift.
inline uint32_t mul16(uint32_t a, uint32_t b, uint32_t d, bool high, bool sign, bool acc, bool round, uint32_t n) {
  const uint32_t ha = high ? a >> 16 : a & 0xFFFF, hb = high ? b >> 16 : b & 0xFFFF;
  uint32_t p = sign ? uint32_t(int32_t(int16_t(ha)) * int32_t(int16_t(hb))) : ha * hb;
  if (acc) p += d;
  return shift_norm(p, n, round, sign);
}

// The add/sub-and-shift forms and the 16-bit multiplies are numbered in Op so that each bit of
// their position says one thing (checked here).
static_assert(int(Op::kPAdduN) - int(Op::kPAddN) == 1 && int(Op::kPAddRN) - int(Op::kPAddN) == 2 &&
                  int(Op::kPSubN) - int(Op::kPAddN) == 4 && int(Op::kPAddNr) - int(Op::kPAddN) == 8 &&
                  int(Op::kPSubuRNr) - int(Op::kPAddN) == 15,
              "p.addN..p.subuRNr: bit 0 unsigned, 1 rounding, 2 sub, 3 register shift");
static_assert(int(Op::kPMulhhuN) - int(Op::kPMuluN) == 1 && int(Op::kPMulsN) - int(Op::kPMuluN) == 2 &&
                  int(Op::kPMuluRN) - int(Op::kPMuluN) == 4 && int(Op::kPMacuN) - int(Op::kPMuluN) == 8 &&
                  int(Op::kPMachhsRN) - int(Op::kPMuluN) == 15,
              "p.muluN..p.machhsRN: bit 0 high halves, 1 signed, 2 rounding, 3 accumulate");

// Scalar Xpulp ALU and multiplier instructions.
inline uint32_t scalar(const Insn& in, uint32_t a, uint32_t b, uint32_t d) {
  const uint32_t is3 = in.aux, is2 = uint32_t(in.imm);
  const uint32_t rlen = (b >> 5) & 31, rpos = b & 31;  // the register forms' field
  switch (in.op) {
    case Op::kPAbs: return s(a) < 0 ? 0u - a : a;
    case Op::kPSlet: return s(a) <= s(b);
    case Op::kPSletu: return a <= b;
    case Op::kPMin: return s(a) < s(b) ? a : b;
    case Op::kPMinu: return a < b ? a : b;
    case Op::kPMax: return s(a) < s(b) ? b : a;
    case Op::kPMaxu: return a < b ? b : a;
    case Op::kPExths: return uint32_t(int32_t(int16_t(a)));
    case Op::kPExthz: return a & 0xFFFF;
    case Op::kPExtbs: return uint32_t(int32_t(int8_t(a)));
    case Op::kPExtbz: return a & 0xFF;
    case Op::kPClip: return is2 ? clip(s(a), -(int64_t(1) << (is2 - 1)), (int64_t(1) << (is2 - 1)) - 1) : clip(s(a), -1, 0);
    case Op::kPClipu: return clip(s(a), 0, is2 ? (int64_t(1) << (is2 - 1)) - 1 : 0);
    case Op::kPClipr: return clip(s(a), -int64_t(s(b)) - 1, s(b));
    case Op::kPClipur: return clip(s(a), 0, s(b));
    case Op::kPFf1: return a ? uint32_t(__builtin_ctz(a)) : 32u;
    case Op::kPFl1: return a ? 31u - uint32_t(__builtin_clz(a)) : 32u;
    case Op::kPClb: {
      const uint32_t v = s(a) < 0 ? ~a : a;
      if (!v) return s(a) < 0 ? 31u : 0u;
      return uint32_t(__builtin_clz(v)) - 1;
    }
    case Op::kPCnt: return uint32_t(__builtin_popcount(a));
    case Op::kPRor: return ror(a, b);
    case Op::kPExtract: case Op::kPExtractr: {
      const uint32_t n = in.op == Op::kPExtract ? is3 : rlen, p = in.op == Op::kPExtract ? is2 : rpos;
      const uint32_t v = uint32_t(s(a) >> p), m = field_mask(n, 0);
      return (v & m) | (((v >> n) & 1u) ? ~m : 0u);
    }
    case Op::kPExtractu: case Op::kPExtractur: {
      const uint32_t n = in.op == Op::kPExtractu ? is3 : rlen, p = in.op == Op::kPExtractu ? is2 : rpos;
      return (a >> p) & field_mask(n, 0);
    }
    case Op::kPInsert: case Op::kPInsertr: {
      const uint32_t n = in.op == Op::kPInsert ? is3 : rlen, p = in.op == Op::kPInsert ? is2 : rpos;
      const uint32_t m = field_mask(n, p);
      return ((a << p) & m) | (d & ~m);
    }
    case Op::kPBclr: return a & ~field_mask(is3, is2);
    case Op::kPBset: return a | field_mask(is3, is2);
    case Op::kPBclrr: return a & ~field_mask(rlen, rpos);
    case Op::kPBsetr: return a | field_mask(rlen, rpos);
    case Op::kPBitrev: return bitrev(a, is2, is3);
    case Op::kPMac: return d + a * b;
    case Op::kPMsu: return d - a * b;
    default: break;
  }
  if (in.op >= Op::kPAddN && in.op <= Op::kPSubuRNr) {  // flags from the position in Op
    const unsigned k = unsigned(in.op) - unsigned(Op::kPAddN);
    const bool uns = k & 1, round = k & 2, sub = k & 4, reg = k & 8;
    const uint32_t x = reg ? d : a, y = reg ? a : b;
    return shift_norm(sub ? x - y : x + y, reg ? b : is3, round, !uns);
  }
  const unsigned k = unsigned(in.op) - unsigned(Op::kPMuluN);  // the 16-bit multiplies
  return mul16(a, b, d, k & 1, k & 2, k & 8, k & 4, is3);
}

// ---- Packed SIMD: `w` is the element width in bits (8 or 16), `n` the element count.

// Element i of v, zero-extended (u) or sign-extended (sg).
inline uint32_t u(uint32_t v, unsigned i, unsigned w) { return (v >> (i * w)) & ((1u << w) - 1); }
inline int32_t sg(uint32_t v, unsigned i, unsigned w) { return int32_t(u(v, i, w) << (32 - w)) >> (32 - w); }

// The second operand as a vector: rs2, rs2's lowest element replicated (.sc), or the immediate
// replicated (.sci).
inline uint32_t operand2(const Insn& in, uint32_t b, unsigned w) {
  if (!(in.aux & (kSimdSc | kSimdSci))) return b;
  const uint32_t e = (in.aux & kSimdSci ? uint32_t(in.imm) : b) & ((1u << w) - 1);
  return w == 8 ? e * 0x01010101u : e * 0x00010001u;
}

// Element-wise operation f(x, y) on elements of width w, x and y sign- or zero-extended.
template <typename F>
inline uint32_t lanes(uint32_t a, uint32_t b, unsigned w, bool sign, F f) {
  uint32_t r = 0;
  const unsigned n = 32 / w;
  for (unsigned i = 0; i < n; ++i) {
    const int64_t x = sign ? sg(a, i, w) : int64_t(u(a, i, w));
    const int64_t y = sign ? sg(b, i, w) : int64_t(u(b, i, w));
    r |= (uint32_t(f(x, y)) & ((1u << w) - 1)) << (i * w);
  }
  return r;
}

// Sum of the element-wise products: a's elements signed if sa, b's if sb.
inline uint32_t dot(uint32_t a, uint32_t b, unsigned w, bool sa, bool sb) {
  uint32_t r = 0;
  for (unsigned i = 0; i < 32 / w; ++i) {
    const int64_t x = sa ? sg(a, i, w) : int64_t(u(a, i, w));
    const int64_t y = sb ? sg(b, i, w) : int64_t(u(b, i, w));
    r += uint32_t(x * y);
  }
  return r;
}

// Element idx (mod the element count) of v.
inline uint32_t pick(uint32_t v, uint32_t idx, unsigned w) { return u(v, idx & (32 / w - 1), w); }

inline uint32_t simd(const Insn& in, uint32_t a, uint32_t b_reg, uint32_t d) {
  const unsigned w = in.aux & kSimdB ? 8 : 16, n = 32 / w;
  const uint32_t b = operand2(in, b_reg, w);
  const uint32_t ones = (1u << w) - 1;
  auto cmp = [&](bool sign, auto pred) { return lanes(a, b, w, sign, [&](int64_t x, int64_t y) { return pred(x, y) ? ones : 0u; }); };
  switch (in.op) {
    case Op::kPvAdd: return lanes(a, b, w, false, [](int64_t x, int64_t y) { return x + y; });
    case Op::kPvSub: return lanes(a, b, w, false, [](int64_t x, int64_t y) { return x - y; });
    case Op::kPvAvg:  // the sum truncated to the element, then shifted arithmetically
      return lanes(a, b, w, false, [w](int64_t x, int64_t y) { return sg(uint32_t(x + y), 0, w) >> 1; });
    case Op::kPvAvgu: return lanes(a, b, w, false, [w](int64_t x, int64_t y) { return u(uint32_t(x + y), 0, w) >> 1; });
    case Op::kPvMin: return lanes(a, b, w, true, [](int64_t x, int64_t y) { return x < y ? x : y; });
    case Op::kPvMinu: return lanes(a, b, w, false, [](int64_t x, int64_t y) { return x < y ? x : y; });
    case Op::kPvMax: return lanes(a, b, w, true, [](int64_t x, int64_t y) { return x > y ? x : y; });
    case Op::kPvMaxu: return lanes(a, b, w, false, [](int64_t x, int64_t y) { return x > y ? x : y; });
    case Op::kPvSrl: return lanes(a, b, w, false, [w](int64_t x, int64_t y) { return x >> (y & (w - 1)); });
    case Op::kPvSra:
      return lanes(a, b, w, false, [w](int64_t x, int64_t y) { return sg(uint32_t(x), 0, w) >> (y & (w - 1)); });
    case Op::kPvSll: return lanes(a, b, w, false, [w](int64_t x, int64_t y) { return x << (y & (w - 1)); });
    case Op::kPvOr: return a | b;
    case Op::kPvXor: return a ^ b;
    case Op::kPvAnd: return a & b;
    case Op::kPvAbs: return lanes(a, 0, w, true, [](int64_t x, int64_t) { return x < 0 ? -x : x; });
    case Op::kPvExtract: return uint32_t(sg(a, uint32_t(in.imm) & (n - 1), w));
    case Op::kPvExtractu: return u(a, uint32_t(in.imm) & (n - 1), w);
    case Op::kPvInsert: {
      const unsigned i = uint32_t(in.imm) & (n - 1);
      return (d & ~(ones << (i * w))) | ((a & ones) << (i * w));
    }
    case Op::kPvShuffle: {  // element i of rD is a's element selected by b's element i (.sci.h: imm bit i)
      uint32_t r = 0;
      const bool sci = in.aux & kSimdSci;
      for (unsigned i = 0; i < n; ++i) r |= pick(a, sci ? uint32_t(in.imm) >> i : u(b, i, w), w) << (i * w);
      return r;
    }
    case Op::kPvShuffleI0: case Op::kPvShuffleI1: case Op::kPvShuffleI2: case Op::kPvShuffleI3: {
      const unsigned top = unsigned(in.op) - unsigned(Op::kPvShuffleI0);
      const uint32_t sel = uint32_t(in.imm);
      uint32_t r = u(a, top, 8) << 24;
      for (unsigned i = 0; i < 3; ++i) r |= pick(a, (sel >> (2 * i)) & 3u, 8) << (8 * i);
      return r;
    }
    case Op::kPvShuffle2: {  // the element's select bit (just above its index) picks a or rD
      uint32_t r = 0;
      for (unsigned i = 0; i < n; ++i) {
        const uint32_t sel = u(b_reg, i, w);
        r |= pick(sel & (n) ? a : d, sel, w) << (i * w);
      }
      return r;
    }
    case Op::kPvPack: return (a << 16) | (b_reg & 0xFFFF);
    case Op::kPvPackH: return (a & 0xFFFF0000u) | (b_reg >> 16);
    case Op::kPvPackhi: return (d & 0x0000FFFFu) | ((a & 0xFF) << 24) | ((b_reg & 0xFF) << 16);
    case Op::kPvPacklo: return (d & 0xFFFF0000u) | ((a & 0xFF) << 8) | (b_reg & 0xFF);
    case Op::kPvCmpeq: return cmp(true, [](int64_t x, int64_t y) { return x == y; });
    case Op::kPvCmpne: return cmp(true, [](int64_t x, int64_t y) { return x != y; });
    case Op::kPvCmpgt: return cmp(true, [](int64_t x, int64_t y) { return x > y; });
    case Op::kPvCmpge: return cmp(true, [](int64_t x, int64_t y) { return x >= y; });
    case Op::kPvCmplt: return cmp(true, [](int64_t x, int64_t y) { return x < y; });
    case Op::kPvCmple: return cmp(true, [](int64_t x, int64_t y) { return x <= y; });
    case Op::kPvCmpgtu: return cmp(false, [](int64_t x, int64_t y) { return x > y; });
    case Op::kPvCmpgeu: return cmp(false, [](int64_t x, int64_t y) { return x >= y; });
    case Op::kPvCmpltu: return cmp(false, [](int64_t x, int64_t y) { return x < y; });
    case Op::kPvCmpleu: return cmp(false, [](int64_t x, int64_t y) { return x <= y; });
    case Op::kPvDotup: return dot(a, b, w, false, false);
    case Op::kPvDotusp: return dot(a, b, w, false, true);
    case Op::kPvDotsp: return dot(a, b, w, true, true);
    case Op::kPvSdotup: return d + dot(a, b, w, false, false);
    case Op::kPvSdotusp: return d + dot(a, b, w, false, true);
    default: return d + dot(a, b, w, true, true);  // kPvSdotsp
  }
}

// Whether an Xpulp instruction uses the multiplier (and its timing) rather than the ALU.
inline bool on_multiplier(Op op) {
  return (op >= Op::kPMac && op <= Op::kPMachhsRN) || (op >= Op::kPvDotup && op <= Op::kPvSdotsp);
}

}  // namespace fs::iss::xp
