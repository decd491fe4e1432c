// Randomised comparison of iss/fpu.h against the host's SSE/FMA hardware (x86-64 only), which
// implements IEEE 754 binary32 independently. Every operation runs under RNE, RTZ, RDN and RUP
// (the host has no RMM; RMM is covered by the hand-worked and qemu cases).
//
// The host operations are issued with inline asm (addss, subss, mulss, divss, sqrtss,
// vfmadd231ss, cvtsi2ss, cvtss2si, comiss, ucomiss), with the rounding mode set and the flags
// read directly in MXCSR (exceptions masked, FTZ/DAZ off), so the compiler can neither fold nor
// move them. This is what fesetround()/fetestexcept() do for SSE, without relying on FENV_ACCESS.
//
// What is compared:
//  - Results bit for bit, except NaN results: x86 returns its own default NaN (0xffc00000) or
//    propagates a payload, so there we require the host result to be a NaN and ours to be the
//    canonical NaN 0x7fc00000.
//  - All five flags, every case: x86 IE/ZE/OE/UE/PE map to NV/DZ/OF/UF/NX (DE is ignored). x86
//    detects tininess after rounding, like RISC-V, and with UM masked sets UE only when the tiny
//    result is also inexact, which is the RISC-V rule; so UF is compared everywhere.
//  - Exception, on fma only: for inf*0 + qNaN, x86 returns the NaN without IE while RISC-V
//    raises NV; the flags of those cases are not compared (fpu_directed_test checks them).
//  - Conversions: cvtss2si gives 0x80000000 for every invalid case; we compare its flags and
//    its in-range results, and check our saturated values against the RISC-V table.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <utility>

#include "iss/fpu.h"
#include "iss_fpu/fpu_test_gen.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace fpu = fs::iss::fpu;
using fpu_test::F;
using fpu_test::Gen;
using fpu_test::IsNaN;
using fpu_test::U;

namespace {

#if defined(__x86_64__)

enum class Op { kAdd, kSub, kMul, kDiv, kSqrt, kFma, kFmsub, kFnmadd, kFnmsub };
constexpr const char* kOpName[] = {"add", "sub", "mul", "div", "sqrt", "fmadd", "fmsub", "fnmadd", "fnmsub"};
constexpr const char* kModeName[] = {"RNE", "RTZ", "RDN", "RUP"};

// MXCSR rounding-control values for RNE, RTZ, RDN, RUP (RC field: 00 near, 01 down, 10 up, 11 zero).
constexpr unsigned kRc[4] = {0u << 13, 3u << 13, 1u << 13, 2u << 13};
constexpr unsigned kMasked = 0x1f80;  // all exceptions masked, flags clear, no FTZ/DAZ

uint32_t HostFlags(unsigned csr) {
  uint32_t f = 0;
  if (csr & 0x01) f |= fpu::kNV;
  if (csr & 0x04) f |= fpu::kDZ;
  if (csr & 0x08) f |= fpu::kOF;
  if (csr & 0x10) f |= fpu::kUF;
  if (csr & 0x20) f |= fpu::kNX;
  return f;
}

struct Result {
  uint32_t bits;
  uint32_t flags;
};

__attribute__((target("fma"))) float HostFma(float x, float y, float z) {
  asm volatile("vfmadd231ss %2, %1, %0" : "+x"(z) : "x"(x), "x"(y));
  return z;
}

Result Host(Op op, uint32_t a, uint32_t b, uint32_t c, unsigned rm) {
  float x = F(a), y = F(b), z = F(c);
  _mm_setcsr(kMasked | kRc[rm]);
  switch (op) {
    case Op::kAdd: asm volatile("addss %1, %0" : "+x"(x) : "x"(y)); break;
    case Op::kSub: asm volatile("subss %1, %0" : "+x"(x) : "x"(y)); break;
    case Op::kMul: asm volatile("mulss %1, %0" : "+x"(x) : "x"(y)); break;
    case Op::kDiv: asm volatile("divss %1, %0" : "+x"(x) : "x"(y)); break;
    case Op::kSqrt: asm volatile("sqrtss %0, %0" : "+x"(x)); break;
    case Op::kFma: x = HostFma(x, y, z); break;
    case Op::kFmsub: x = HostFma(x, y, F(c ^ 0x80000000u)); break;
    case Op::kFnmadd: x = HostFma(F(a ^ 0x80000000u), y, F(c ^ 0x80000000u)); break;
    case Op::kFnmsub: x = HostFma(F(a ^ 0x80000000u), y, z); break;
  }
  const unsigned csr = _mm_getcsr();
  _mm_setcsr(kMasked);
  return {U(x), HostFlags(csr)};
}

Result Ours(Op op, uint32_t a, uint32_t b, uint32_t c, unsigned rm) {
  uint32_t f = 0, r = 0;
  switch (op) {
    case Op::kAdd: r = fpu::add(a, b, rm, f); break;
    case Op::kSub: r = fpu::sub(a, b, rm, f); break;
    case Op::kMul: r = fpu::mul(a, b, rm, f); break;
    case Op::kDiv: r = fpu::div(a, b, rm, f); break;
    case Op::kSqrt: r = fpu::sqrt(a, rm, f); break;
    case Op::kFma: r = fpu::fmadd(a, b, c, rm, f); break;
    case Op::kFmsub: r = fpu::fmsub(a, b, c, rm, f); break;
    case Op::kFnmadd: r = fpu::fnmadd(a, b, c, rm, f); break;
    case Op::kFnmsub: r = fpu::fnmsub(a, b, c, rm, f); break;
  }
  return {r, f};
}


bool HostHasFma() { return __builtin_cpu_supports("fma"); }

struct Tally {
  uint64_t cases = 0, nan_results = 0, flags_skipped = 0, failures = 0;
  uint64_t flag_count[5] = {};  // host NX, UF, OF, DZ, NV
  uint64_t min_normal_nx = 0;   // rounded up to 2^-126 (the tininess-after-rounding boundary)
};

void Count(Tally& t, uint32_t host_flags) {
  for (int i = 0; i < 5; ++i) t.flag_count[i] += host_flags >> i & 1;
}

void Compare(Op op, uint32_t a, uint32_t b, uint32_t c, unsigned rm, Tally& t) {
  const Result h = Host(op, a, b, c, rm);
  const Result o = Ours(op, a, b, c, rm);
  ++t.cases;
  Count(t, h.flags);
  if ((h.bits & 0x7fffffff) == 0x00800000 && (h.flags & fpu::kNX)) ++t.min_normal_nx;
  bool ok;
  if (IsNaN(h.bits)) {
    ++t.nan_results;
    ok = o.bits == fpu::kCanonicalNaN;
  } else {
    ok = o.bits == h.bits;
  }
  bool flags_ok = o.flags == h.flags;
  const bool fma = op == Op::kFma || op == Op::kFmsub || op == Op::kFnmadd || op == Op::kFnmsub;
  if (fma && IsNaN(c) && !flags_ok) {
    // inf*0 + qNaN: RISC-V raises NV, x86 does not. Anything else must still agree.
    const bool inf_zero = ((a & 0x7fffffff) == 0x7f800000 && (b & 0x7fffffff) == 0) ||
                          ((a & 0x7fffffff) == 0 && (b & 0x7fffffff) == 0x7f800000);
    if (inf_zero && o.flags == (h.flags | fpu::kNV)) {
      ++t.flags_skipped;
      flags_ok = true;
    }
  }
  if (ok && flags_ok) return;
  if (++t.failures <= 20) {
    ADD_FAILURE() << kOpName[int(op)] << " " << kModeName[rm] << std::hex << " a=0x" << a << " b=0x" << b
                  << " c=0x" << c << ": host 0x" << h.bits << " flags 0x" << h.flags << ", ours 0x" << o.bits
                  << " flags 0x" << o.flags;
  }
}

unsigned long long ull(uint64_t v) { return v; }

class FpuHostRandom : public ::testing::Test {
 protected:
  void SetUp() override { saved_ = _mm_getcsr(); }
  void TearDown() override { _mm_setcsr(saved_); }
  void Report(const char* what, const Tally& t) {
    std::printf("[ %s ] %llu cases: %llu NaN results, host flags NX %llu UF %llu OF %llu DZ %llu NV %llu, "
                "%llu inexact 2^-126 results, %llu fma inf*0+qNaN flag exemptions\n",
                what, ull(t.cases), ull(t.nan_results), ull(t.flag_count[0]), ull(t.flag_count[1]),
                ull(t.flag_count[2]), ull(t.flag_count[3]), ull(t.flag_count[4]), ull(t.min_normal_nx),
                ull(t.flags_skipped));
    EXPECT_EQ(t.failures, 0u);
  }
  unsigned saved_ = 0;
};

// Per operation and rounding mode, per operand generator.
const int kPerMode = 100000 * fpu_test::Scale();

TEST_F(FpuHostRandom, AddSub) {
  Gen g(1);
  Tally t;
  for (unsigned rm = 0; rm < 4; ++rm) {
    for (int i = 0; i < kPerMode; ++i) {
      const uint32_t a = g.Any(), b = g.Any();
      Compare(Op::kAdd, a, b, 0, rm, t);
      Compare(Op::kSub, a, b, 0, rm, t);
      Compare(Op::kSub, a, g.Near(a), 0, rm, t);
      Compare(Op::kAdd, g.SmallInt(), g.SmallInt(), 0, rm, t);
    }
  }
  Report("add/sub", t);
}

TEST_F(FpuHostRandom, MulDiv) {
  Gen g(2);
  Tally t;
  for (unsigned rm = 0; rm < 4; ++rm) {
    for (int i = 0; i < kPerMode; ++i) {
      const uint32_t a = g.Any(), b = g.Any();
      Compare(Op::kMul, a, b, 0, rm, t);
      Compare(Op::kDiv, a, b, 0, rm, t);
      const uint32_t s = g.SmallInt(), u = g.SmallInt();
      Compare(Op::kMul, s, u, 0, rm, t);
      Compare(Op::kDiv, s, u, 0, rm, t);
      // Exponents chosen so the result lands near the subnormal/normal boundary or overflow.
      const uint64_t r = g.Bits();
      const uint32_t x = uint32_t(r) & 0x807fffff, y = uint32_t(r >> 32) & 0x807fffff;
      const int ea = 1 + int(r % 200), eb_under = 127 - 126 - ea + 127 + int(r >> 24 & 3) - 1;
      const int eb_over = 254 + 127 - ea - int(r >> 26 & 1);
      if (eb_under >= 1 && eb_under <= 254)
        Compare(Op::kMul, x | uint32_t(ea) << 23, y | uint32_t(eb_under) << 23, 0, rm, t);
      if (eb_over >= 1 && eb_over <= 254)
        Compare(Op::kMul, x | uint32_t(ea) << 23, y | uint32_t(eb_over) << 23, 0, rm, t);
      const int ed_under = ea + 126 - int(r >> 28 & 1);  // quotient exponent ea-ed+127 ~ 1
      if (ed_under <= 254) Compare(Op::kDiv, x | uint32_t(ea) << 23, y | uint32_t(ed_under) << 23, 0, rm, t);
      const auto m = g.NearMinNormal(false), d = g.NearMinNormal(true);
      Compare(Op::kMul, m.first, m.second, 0, rm, t);
      Compare(Op::kDiv, d.first, d.second, 0, rm, t);
    }
  }
  Report("mul/div", t);
}

TEST_F(FpuHostRandom, Sqrt) {
  Gen g(3);
  Tally t;
  for (unsigned rm = 0; rm < 4; ++rm) {
    for (int i = 0; i < 2 * kPerMode; ++i) {
      Compare(Op::kSqrt, g.Any(), 0, 0, rm, t);
      Compare(Op::kSqrt, g.Any() & 0x7fffffff, 0, 0, rm, t);
      const uint32_t s = g.SmallInt() & 0x7fffffff;  // squares of small ints are exact
      uint32_t f = 0;
      Compare(Op::kSqrt, fpu::mul(s, s, fpu::kRNE, f), 0, 0, rm, t);
    }
  }
  Report("sqrt", t);
}

TEST_F(FpuHostRandom, FusedMultiplyAdd) {
  ASSERT_TRUE(HostHasFma()) << "the host CPU has no FMA instructions to compare against";
  Gen g(4);
  Tally t;
  const Op ops[4] = {Op::kFma, Op::kFmsub, Op::kFnmadd, Op::kFnmsub};
  for (unsigned rm = 0; rm < 4; ++rm) {
    for (int i = 0; i < kPerMode; ++i) {
      const Op op = ops[i & 3];
      const uint32_t a = g.Any(), b = g.Any();
      Compare(op, a, b, g.Any(), rm, t);
      // c close to -a*b (massive cancellation) or to +-a*b (exact ties and sticky effects).
      uint32_t f = 0;
      const uint32_t p = fpu::mul(a, b, fpu::kRNE, f);
      Compare(Op::kFma, a, b, g.Near(p), rm, t);
      Compare(Op::kFma, a, b, p ^ 0x80000000u, rm, t);
      const uint32_t s = g.SmallInt(), u = g.SmallInt();
      Compare(op, s, u, g.SmallInt(), rm, t);
      Compare(op, s, u, g.Any(), rm, t);
      // Product near the underflow boundary, addend tiny.
      const uint64_t r = g.Bits();
      const int ea = 1 + int(r % 200), eb = 128 - ea + int(r >> 24 & 3) - 1;
      if (eb >= 1 && eb <= 254)
        Compare(op, (uint32_t(r) & 0x807fffff) | uint32_t(ea) << 23,
                (uint32_t(r >> 32) & 0x807fffff) | uint32_t(eb) << 23, uint32_t(r >> 8) & 0x800000ff, rm, t);
      const auto m = g.NearMinNormal(false);
      Compare(op, m.first, m.second, (r & 0x30) ? uint32_t(r >> 40) & 0x80000003 : 0, rm, t);
    }
  }
  Report("fma", t);
}

TEST_F(FpuHostRandom, Conversions) {
  Gen g(5);
  Tally t;
  for (unsigned rm = 0; rm < 4; ++rm) {
    for (int i = 0; i < 2 * kPerMode; ++i) {
      // int -> float: cvtsi2ss with a 32-bit and a 64-bit (for unsigned) source.
      const uint64_t r = g.Bits();
      const uint32_t v = (r & 1) ? uint32_t(r >> 32) : uint32_t(r >> 32) >> (r >> 8 & 31);
      float hw, hu;
      _mm_setcsr(kMasked | kRc[rm]);
      asm volatile("cvtsi2ssl %1, %0" : "=x"(hw) : "r"(int32_t(v)));
      const unsigned csr_w = _mm_getcsr();
      _mm_setcsr(kMasked | kRc[rm]);
      asm volatile("cvtsi2ssq %1, %0" : "=x"(hu) : "r"(uint64_t(v)));
      const unsigned csr_u = _mm_getcsr();
      _mm_setcsr(kMasked);
      uint32_t fw = 0, fu = 0;
      const uint32_t ow = fpu::cvt_s_w(int32_t(v), rm, fw), ou = fpu::cvt_s_wu(v, rm, fu);
      t.cases += 2;
      Count(t, HostFlags(csr_w) | HostFlags(csr_u));
      if (ow != U(hw) || fw != HostFlags(csr_w) || ou != U(hu) || fu != HostFlags(csr_u)) {
        if (++t.failures <= 20)
          ADD_FAILURE() << "cvt.s.w(u) " << kModeName[rm] << std::hex << " v=0x" << v << " host 0x" << U(hw)
                        << "/0x" << U(hu) << " ours 0x" << ow << "/0x" << ou;
      }
      // float -> int: cvtss2si to 64 bits (exact range check for both signed and unsigned).
      uint32_t a = g.Any();
      if (r & 2) a = (a & 0x807fffff) | uint32_t(127 + (r >> 40) % 34) << 23;  // |a| in [1, 2^34)
      if ((r & 12) == 12) a = (a & 0x807fffff) | uint32_t(100 + (r >> 40) % 27) << 23;  // < 1
      int64_t h64;
      _mm_setcsr(kMasked | kRc[rm]);
      asm volatile("cvtss2si %1, %0" : "=r"(h64) : "x"(F(a)));
      const unsigned csr = _mm_getcsr();
      _mm_setcsr(kMasked);
      const bool host_invalid = csr & 1;  // NaN, inf or |a| >= 2^63
      const uint32_t host_nx = (csr & 0x20) ? uint32_t(fpu::kNX) : 0u;
      const bool nan = IsNaN(a), neg = a >> 31;
      // RISC-V fcvt.w.s: NaN and positive overflow -> 2^31-1, negative overflow -> -2^31, NV.
      int32_t want_w;
      uint32_t want_wf;
      if (nan || (host_invalid && !neg) || (!host_invalid && h64 > INT32_MAX)) {
        want_w = INT32_MAX;
        want_wf = fpu::kNV;
      } else if ((host_invalid && neg) || h64 < INT32_MIN) {
        want_w = INT32_MIN;
        want_wf = fpu::kNV;
      } else {
        want_w = int32_t(h64);
        want_wf = host_nx;
      }
      uint32_t want_u, want_uf;
      if (nan || (host_invalid && !neg) || (!host_invalid && h64 > int64_t(UINT32_MAX))) {
        want_u = UINT32_MAX;
        want_uf = fpu::kNV;
      } else if ((host_invalid && neg) || h64 < 0) {
        want_u = 0;
        want_uf = fpu::kNV;
      } else {
        want_u = uint32_t(h64);
        want_uf = host_nx;
      }
      Count(t, want_wf | want_uf);
      fw = fu = 0;
      const int32_t gw = fpu::cvt_w_s(a, rm, fw);
      const uint32_t gu = fpu::cvt_wu_s(a, rm, fu);
      t.cases += 2;
      if (gw != want_w || fw != want_wf || gu != want_u || fu != want_uf) {
        if (++t.failures <= 20)
          ADD_FAILURE() << "cvt.w(u).s " << kModeName[rm] << std::hex << " a=0x" << a << " want 0x" << want_w
                        << " f" << want_wf << " / 0x" << want_u << " f" << want_uf << ", ours 0x" << gw << " f"
                        << fw << " / 0x" << gu << " f" << fu;
      }
    }
  }
  Report("cvt", t);
}

// feq/flt/fle against ucomiss/comiss (quiet and signaling compares), and fmin/fmax against a
// reference built on the host's comparisons.
TEST_F(FpuHostRandom, CompareMinMax) {
  Gen g(6);
  Tally t;
  for (int i = 0; i < 4 * kPerMode; ++i) {
    const uint32_t a = g.Any(), b = (i & 1) ? g.Any() : g.Near(a);
    uint8_t eq, lt, le;
    _mm_setcsr(kMasked);
    asm volatile("ucomiss %2, %1\n\tsete %%al\n\tsetnp %%cl\n\tandb %%cl, %%al\n\tmovb %%al, %0"
                 : "=m"(eq) : "x"(F(a)), "x"(F(b)) : "al", "cl", "cc");
    const uint32_t feq_flags = HostFlags(_mm_getcsr());
    _mm_setcsr(kMasked);
    asm volatile("comiss %1, %2\n\tseta %0" : "=q"(lt) : "x"(F(a)), "x"(F(b)) : "cc");  // b > a
    const uint32_t flt_flags = HostFlags(_mm_getcsr());
    _mm_setcsr(kMasked);
    asm volatile("comiss %1, %2\n\tsetae %0" : "=q"(le) : "x"(F(a)), "x"(F(b)) : "cc");  // b >= a
    const uint32_t fle_flags = HostFlags(_mm_getcsr());
    _mm_setcsr(kMasked);
    uint32_t f1 = 0, f2 = 0, f3 = 0;
    const uint32_t oeq = fpu::feq(a, b, f1), olt = fpu::flt(a, b, f2), ole = fpu::fle(a, b, f3);
    t.cases += 3;
    Count(t, feq_flags | flt_flags | fle_flags);
    if (oeq != eq || olt != lt || ole != le || f1 != feq_flags || f2 != flt_flags || f3 != fle_flags) {
      if (++t.failures <= 20)
        ADD_FAILURE() << std::hex << "cmp a=0x" << a << " b=0x" << b << " host " << int(eq) << int(lt) << int(le)
                      << " ours " << oeq << olt << ole;
    }
    // min/max: the non-NaN operand if exactly one is NaN, canonical NaN if both, -0 < +0.
    const bool an = IsNaN(a), bn = IsNaN(b);
    const bool snan = (an && !(a & 0x400000)) || (bn && !(b & 0x400000));
    uint32_t want_min, want_max;
    if (an && bn) {
      want_min = want_max = fpu::kCanonicalNaN;
    } else if (an || bn) {
      want_min = want_max = an ? b : a;
    } else if (F(a) == F(b)) {  // equal values: only +0/-0 differ in bits
      want_min = a | b;
      want_max = a & b;
    } else {
      want_min = F(a) < F(b) ? a : b;
      want_max = F(a) < F(b) ? b : a;
    }
    uint32_t f4 = 0, f5 = 0;
    const uint32_t omin = fpu::min(a, b, f4), omax = fpu::max(a, b, f5);
    t.cases += 2;
    const uint32_t want_f = snan ? uint32_t(fpu::kNV) : 0u;
    if (omin != want_min || omax != want_max || f4 != want_f || f5 != want_f) {
      if (++t.failures <= 20)
        ADD_FAILURE() << std::hex << "min/max a=0x" << a << " b=0x" << b << " ours 0x" << omin << "/0x" << omax;
    }
  }
  Report("cmp/minmax", t);
}

#endif  // on other hosts the directed and qemu comparisons remain

}  // namespace
