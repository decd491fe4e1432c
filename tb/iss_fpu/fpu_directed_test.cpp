// Hand-worked cases for iss/fpu.h: every function, every rounding mode, the flag rules (tininess
// after rounding, exact-zero signs, saturating conversions) and the RISC-V-specific NaN rules.
// The expected values were worked out by hand (comments show the reasoning); every call made here
// was also replayed once on qemu-riscv32 (results and fflags identical). fpu_qemu_test.cpp does
// the same continuously for random operands.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "iss/fpu.h"

namespace fpu = fs::iss::fpu;

namespace {

constexpr uint32_t NX = fpu::kNX, UF = fpu::kUF, OF = fpu::kOF, DZ = fpu::kDZ, NV = fpu::kNV;
constexpr uint32_t kQNaN = 0x7fc00000, kSNaN = 0x7f800001, kNegQNaN = 0xffc00123;
constexpr uint32_t kPInf = 0x7f800000, kNInf = 0xff800000, kPZero = 0, kNZero = 0x80000000;
constexpr uint32_t kMax = 0x7f7fffff, kNMax = 0xff7fffff, kMinNorm = 0x00800000;
constexpr uint32_t kOne = 0x3f800000, kNOne = 0xbf800000, kTwo = 0x40000000, kHalf = 0x3f000000;
constexpr uint32_t kCNaN = fpu::kCanonicalNaN;
constexpr const char* kModeName[5] = {"RNE", "RTZ", "RDN", "RUP", "RMM"};

uint32_t B(float f) {  // bits of an exactly representable value
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
uint32_t L(double m, int e) { return B(float(std::ldexp(m, e))); }  // m * 2^e, exact in tests

struct Modes {  // one entry per mode: RNE, RTZ, RDN, RUP, RMM
  uint32_t v[5];
};
Modes All(uint32_t x) { return {{x, x, x, x, x}}; }

// Runs `fn(rm, flags)` under every rounding mode and checks the result and the raised flags.
template <class Fn>
void Expect(const char* what, Fn fn, Modes value, Modes flags) {
  for (unsigned rm = 0; rm < 5; ++rm) {
    uint32_t fl = 0;
    const uint32_t got = uint32_t(fn(rm, fl));
    EXPECT_EQ(got, value.v[rm]) << what << " " << kModeName[rm] << std::hex << " got 0x" << got
                                << " want 0x" << value.v[rm];
    EXPECT_EQ(fl, flags.v[rm]) << what << " " << kModeName[rm] << " flags";
  }
}

#define ADD(a, b) [&](unsigned rm, uint32_t& f) { return fpu::add(a, b, rm, f); }
#define SUB(a, b) [&](unsigned rm, uint32_t& f) { return fpu::sub(a, b, rm, f); }
#define MUL(a, b) [&](unsigned rm, uint32_t& f) { return fpu::mul(a, b, rm, f); }
#define DIV(a, b) [&](unsigned rm, uint32_t& f) { return fpu::div(a, b, rm, f); }
#define SQRT(a) [&](unsigned rm, uint32_t& f) { return fpu::sqrt(a, rm, f); }
#define FMADD(a, b, c) [&](unsigned rm, uint32_t& f) { return fpu::fmadd(a, b, c, rm, f); }
#define FMSUB(a, b, c) [&](unsigned rm, uint32_t& f) { return fpu::fmsub(a, b, c, rm, f); }
#define FNMADD(a, b, c) [&](unsigned rm, uint32_t& f) { return fpu::fnmadd(a, b, c, rm, f); }
#define FNMSUB(a, b, c) [&](unsigned rm, uint32_t& f) { return fpu::fnmsub(a, b, c, rm, f); }
#define CVTW(a) [&](unsigned rm, uint32_t& f) { return fpu::cvt_w_s(a, rm, f); }
#define CVTWU(a) [&](unsigned rm, uint32_t& f) { return fpu::cvt_wu_s(a, rm, f); }
#define CVTSW(a) [&](unsigned rm, uint32_t& f) { return fpu::cvt_s_w(a, rm, f); }
#define CVTSWU(a) [&](unsigned rm, uint32_t& f) { return fpu::cvt_s_wu(a, rm, f); }

TEST(FpuDirected, AddTiesUnderEveryMode) {
  const uint32_t ulp_half = L(1, -24);  // half an ulp of 1.0
  // 1 + 2^-24: exact tie between 1.0 (even) and 1+2^-23.
  Expect("1+2^-24", ADD(kOne, ulp_half), {{kOne, kOne, kOne, 0x3f800001, 0x3f800001}}, All(NX));
  // (1+2^-23) + 2^-24: tie between ...01 (odd) and ...02 (even).
  Expect("1+2^-23+2^-24", ADD(0x3f800001, ulp_half),
         {{0x3f800002, 0x3f800001, 0x3f800001, 0x3f800002, 0x3f800002}}, All(NX));
  // -1 - 2^-24: ties on the negative side; RMM goes away from zero, RDN towards -inf.
  Expect("-1-2^-24", ADD(kNOne, ulp_half | kNZero), {{kNOne, kNOne, 0xbf800001, kNOne, 0xbf800001}},
         All(NX));
  // 1 + 1.5*2^-24: above the tie.
  Expect("1+1.5*2^-24", ADD(kOne, L(1.5, -24)),
         {{0x3f800001, kOne, kOne, 0x3f800001, 0x3f800001}}, All(NX));
  // 1 + 0.5*2^-24: below the tie.
  Expect("1+2^-25", ADD(kOne, L(1, -25)), {{kOne, kOne, kOne, 0x3f800001, kOne}}, All(NX));
  // Subtraction across a power of two: 1 - 2^-25 is a tie between 1-2^-24 (odd) and 1.0.
  Expect("1-2^-25", SUB(kOne, L(1, -25)), {{kOne, 0x3f7fffff, 0x3f7fffff, kOne, kOne}}, All(NX));
  // Exact sums raise nothing.
  Expect("1+1", ADD(kOne, kOne), All(kTwo), All(0));
  Expect("1.5-0.25", SUB(B(1.5f), B(0.25f)), All(B(1.25f)), All(0));
  // Far-apart exponents: the small operand only contributes a sticky bit.
  Expect("1+2^-100", ADD(kOne, L(1, -100)), {{kOne, kOne, kOne, 0x3f800001, kOne}}, All(NX));
  Expect("1-2^-100", SUB(kOne, L(1, -100)), {{kOne, 0x3f7fffff, 0x3f7fffff, kOne, kOne}}, All(NX));
}

TEST(FpuDirected, ExactZeroSigns) {
  const Modes plus_except_rdn{{kPZero, kPZero, kNZero, kPZero, kPZero}};
  Expect("1-1", SUB(kOne, kOne), plus_except_rdn, All(0));
  Expect("1+(-1)", ADD(kOne, kNOne), plus_except_rdn, All(0));
  Expect("-x+x", ADD(0x80000001, 0x00000001), plus_except_rdn, All(0));
  Expect("+0+-0", ADD(kPZero, kNZero), plus_except_rdn, All(0));
  Expect("+0-+0", SUB(kPZero, kPZero), plus_except_rdn, All(0));
  Expect("-0+-0", ADD(kNZero, kNZero), All(kNZero), All(0));
  Expect("-0-+0", SUB(kNZero, kPZero), All(kNZero), All(0));
  Expect("+0++0", ADD(kPZero, kPZero), All(kPZero), All(0));
  Expect("x+0", ADD(0x80000005, kPZero), All(0x80000005), All(0));  // subnormal, exact
  Expect("-0*5", MUL(kNZero, B(5.0f)), All(kNZero), All(0));
  Expect("-0/-5", DIV(kNZero, B(-5.0f)), All(kPZero), All(0));
  Expect("1*1-1", FMADD(kOne, kOne, kNOne), plus_except_rdn, All(0));
  Expect("fmsub 1*1-1", FMSUB(kOne, kOne, kOne), plus_except_rdn, All(0));
  Expect("0*5+-0", FMADD(kPZero, B(5.0f), kNZero), plus_except_rdn, All(0));
  Expect("-0*5+-0", FMADD(kNZero, B(5.0f), kNZero), All(kNZero), All(0));
  Expect("-0*5++0", FMADD(kNZero, B(5.0f), kPZero), plus_except_rdn, All(0));
  Expect("fnmadd -(0*1)-0", FNMADD(kPZero, kOne, kPZero), All(kNZero), All(0));
  Expect("fnmsub -(0*1)+0", FNMSUB(kPZero, kOne, kPZero), plus_except_rdn, All(0));
  Expect("fmsub 0*1-0", FMSUB(kPZero, kOne, kPZero), plus_except_rdn, All(0));
  // A nonzero product that underflows to zero keeps the product's sign: -tiny + +0.
  Expect("-tiny*tiny+0", FMADD(0x80000001, 0x00000001, kPZero),
         {{kNZero, kNZero, 0x80000001, kNZero, kNZero}}, All(UF | NX));
  Expect("sqrt(-0)", SQRT(kNZero), All(kNZero), All(0));
}

TEST(FpuDirected, OverflowByMode) {
  // max * 2 overflows under every mode; RTZ and the mode towards zero give max-finite.
  Expect("max*2", MUL(kMax, kTwo), {{kPInf, kMax, kMax, kPInf, kPInf}}, All(OF | NX));
  Expect("-max*2", MUL(kNMax, kTwo), {{kNInf, kNMax, kNInf, kNMax, kNInf}}, All(OF | NX));
  // max + half an ulp (2^103): a tie. Max is odd, so RNE rounds up to 2^128: overflow. Modes that
  // round down deliver max without overflow (the rounded value never exceeded the range).
  Expect("max+2^103", ADD(kMax, L(1, 103)), {{kPInf, kMax, kMax, kPInf, kPInf}},
         {{OF | NX, NX, NX, OF | NX, OF | NX}});
  // max + a quarter ulp: only RUP overflows.
  Expect("max+2^102", ADD(kMax, L(1, 102)), {{kMax, kMax, kMax, kPInf, kMax}},
         {{NX, NX, NX, OF | NX, NX}});
  Expect("-max-2^102", SUB(kNMax, L(1, 102)), {{kNMax, kNMax, kNInf, kNMax, kNMax}},
         {{NX, NX, OF | NX, NX, NX}});
  Expect("max/0.5", DIV(kMax, kHalf), {{kPInf, kMax, kMax, kPInf, kPInf}}, All(OF | NX));
  Expect("2^127*2^127+(-max)", FMADD(L(1, 127), L(1, 127), kNMax), {{kPInf, kMax, kMax, kPInf, kPInf}},
         All(OF | NX));
  // Infinity itself is exact.
  Expect("inf+1", ADD(kPInf, kOne), All(kPInf), All(0));
  Expect("inf*-2", MUL(kPInf, B(-2.0f)), All(kNInf), All(0));
}

TEST(FpuDirected, SubnormalsAndTininessAfterRounding) {
  // 2^-149 * 0.5 = 2^-150: a tie between 0 and the smallest subnormal; tiny and inexact.
  Expect("minsub/2", MUL(0x00000001, kHalf), {{0, 0, 0, 0x00000001, 0x00000001}}, All(UF | NX));
  Expect("-minsub/2", MUL(0x80000001, kHalf), {{kNZero, kNZero, 0x80000001, kNZero, 0x80000001}},
         All(UF | NX));
  // Exact subnormal results are tiny but exact: no UF.
  Expect("2*2^-149/2", MUL(0x00000002, kHalf), All(0x00000001), All(0));
  Expect("minnorm/2", DIV(kMinNorm, kTwo), All(0x00400000), All(0));
  Expect("sub-sub", SUB(0x00000003, 0x00000001), All(0x00000002), All(0));
  // (1 - 2^-24) * 2^-126: exact with 24 bits, so tiny after rounding; the subnormal value is a
  // tie between 0x7fffff and 0x800000 (the smallest normal).
  Expect("(1-2^-24)*2^-126", MUL(0x3f7fffff, kMinNorm),
         {{kMinNorm, 0x007fffff, 0x007fffff, kMinNorm, kMinNorm}}, All(UF | NX));
  // (2^25-1) * 2^-151 = (1 - 2^-25) * 2^-126. Rounded to 24 bits with unbounded exponent it is a
  // tie at 0xffffff.8: modes that round it up reach 2^-126 and so are NOT tiny (NX only).
  const uint32_t p1 = L(18631, -70), q1 = L(1801, -81);  // 18631 * 1801 = 2^25 - 1
  Expect("(1-2^-25)*2^-126", MUL(p1, q1), {{kMinNorm, 0x007fffff, 0x007fffff, kMinNorm, kMinNorm}},
         {{NX, UF | NX, UF | NX, NX, NX}});
  Expect("-(1-2^-25)*2^-126", MUL(p1 | kNZero, q1),
         {{kMinNorm | kNZero, 0x807fffff, kMinNorm | kNZero, 0x807fffff, kMinNorm | kNZero}},
         {{NX, UF | NX, NX, UF | NX, NX}});
  // (2^25-3) * 2^-151: 24-bit rounding gives 0xfffffe or 0xffffff, both below 2^-126, so tiny in
  // every mode. In subnormal units it is 0x7fffff.4: RUP still delivers the smallest normal,
  // with UF set (tiny and inexact) even though the result is normal.
  const uint32_t p2 = L(479, -75), q2 = L(70051, -76);  // 479 * 70051 = 2^25 - 3
  Expect("(2^25-3)*2^-151", MUL(p2, q2),
         {{0x007fffff, 0x007fffff, 0x007fffff, kMinNorm, 0x007fffff}}, All(UF | NX));
  // Same boundary through fma and div.
  Expect("fma (1-2^-25)*2^-126", FMADD(p1, q1, kPZero),
         {{kMinNorm, 0x007fffff, 0x007fffff, kMinNorm, kMinNorm}}, {{NX, UF | NX, UF | NX, NX, NX}});
  // 1/3 * 2^-126 is tiny and inexact in every mode.
  Expect("2^-126/3", DIV(kMinNorm, B(3.0f)), {{0x002aaaab, 0x002aaaaa, 0x002aaaaa, 0x002aaaab, 0x002aaaab}},
         All(UF | NX));
  // Deep underflow to zero / smallest subnormal.
  Expect("2^-100*2^-100", MUL(L(1, -100), L(1, -100)), {{0, 0, 0, 1, 0}}, All(UF | NX));
  Expect("2^-149/3", DIV(1, B(3.0f)), {{0, 0, 0, 1, 0}}, All(UF | NX));
  Expect("2^-149*(2/3)", DIV(2, B(3.0f)), {{1, 0, 0, 1, 1}}, All(UF | NX));
  // Subnormal operands are normalised correctly.
  Expect("sub*2^100", MUL(0x00000003, L(1, 100)), All(L(3, -49)), All(0));
  Expect("sub/sub", DIV(0x00000006, 0x00000002), All(B(3.0f)), All(0));
}

TEST(FpuDirected, MulDivRounding) {
  const uint32_t a = 0x3f800800;  // 1 + 2^-12; a*a = 1 + 2^-11 + 2^-24 (a tie, 0x3f801000 even)
  Expect("a*a", MUL(a, a), {{0x3f801000, 0x3f801000, 0x3f801000, 0x3f801001, 0x3f801001}}, All(NX));
  Expect("-a*a", MUL(a | kNZero, a),
         {{0xbf801000, 0xbf801000, 0xbf801001, 0xbf801000, 0xbf801001}}, All(NX));
  // 1/3 = 0x3eaaaaaa.aaa...: above half.
  Expect("1/3", DIV(kOne, B(3.0f)), {{0x3eaaaaab, 0x3eaaaaaa, 0x3eaaaaaa, 0x3eaaaaab, 0x3eaaaaab}},
         All(NX));
  Expect("-2/3", DIV(kTwo, B(-3.0f)), {{0xbf2aaaab, 0xbf2aaaaa, 0xbf2aaaab, 0xbf2aaaaa, 0xbf2aaaab}},
         All(NX));
  Expect("6/3", DIV(B(6.0f), B(3.0f)), All(kTwo), All(0));
  // Division by zero, and the invalid cases.
  Expect("1/+0", DIV(kOne, kPZero), All(kPInf), All(DZ));
  Expect("-1/+0", DIV(kNOne, kPZero), All(kNInf), All(DZ));
  Expect("1/-0", DIV(kOne, kNZero), All(kNInf), All(DZ));
  Expect("0/0", DIV(kPZero, kNZero), All(kCNaN), All(NV));
  Expect("inf/inf", DIV(kPInf, kNInf), All(kCNaN), All(NV));
  Expect("inf/0", DIV(kPInf, kPZero), All(kPInf), All(0));  // no DZ: the dividend is infinite
  Expect("1/inf", DIV(kOne, kNInf), All(kNZero), All(0));
  Expect("inf*0", MUL(kPInf, kNZero), All(kCNaN), All(NV));
  Expect("0*-inf", MUL(kPZero, kNInf), All(kCNaN), All(NV));
  Expect("inf-inf", SUB(kPInf, kPInf), All(kCNaN), All(NV));
  Expect("inf+-inf", ADD(kNInf, kPInf), All(kCNaN), All(NV));
  Expect("inf+inf", ADD(kPInf, kPInf), All(kPInf), All(0));
}

TEST(FpuDirected, NaNs) {
  // Every NaN result is canonical; NV only for signaling inputs.
  Expect("qnan+1", ADD(kNegQNaN, kOne), All(kCNaN), All(0));
  Expect("1+snan", ADD(kOne, kSNaN), All(kCNaN), All(NV));
  Expect("snan*0", MUL(0xff800005, kPZero), All(kCNaN), All(NV));
  Expect("qnan/0", DIV(kQNaN, kPZero), All(kCNaN), All(0));  // no DZ either
  Expect("inf*qnan", MUL(kPInf, 0x7fffffff), All(kCNaN), All(0));
  Expect("sqrt(qnan)", SQRT(kNegQNaN), All(kCNaN), All(0));
  Expect("sqrt(snan)", SQRT(kSNaN), All(kCNaN), All(NV));
  Expect("fma qnan", FMADD(kOne, kQNaN, kOne), All(kCNaN), All(0));
  Expect("fma snan c", FMADD(kOne, kOne, 0xffbfffff), All(kCNaN), All(NV));
  // RISC-V: inf*0 is invalid even when the addend is a quiet NaN.
  Expect("inf*0+qnan", FMADD(kPInf, kPZero, kQNaN), All(kCNaN), All(NV));
  Expect("0*inf+qnan", FNMSUB(kNZero, kNInf, kNegQNaN), All(kCNaN), All(NV));
  Expect("inf*0+1", FMADD(kPInf, kPZero, kOne), All(kCNaN), All(NV));
  Expect("inf*1-inf", FMADD(kPInf, kOne, kNInf), All(kCNaN), All(NV));
  Expect("fmsub inf*1-inf", FMSUB(kPInf, kOne, kPInf), All(kCNaN), All(NV));
  Expect("inf*1+inf", FMADD(kPInf, kOne, kPInf), All(kPInf), All(0));
  Expect("fnmadd inf*1", FNMADD(kPInf, kOne, kOne), All(kNInf), All(0));
  Expect("1*1+inf", FMADD(kOne, kOne, kNInf), All(kNInf), All(0));
  Expect("max*max-inf", FMADD(kMax, kMax, kNInf), All(kNInf), All(0));  // no overflow flag
}

TEST(FpuDirected, FusedMultiplyAdd) {
  const uint32_t a = 0x3f800800;  // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24
  // Cancellation: the exact rounding error of a*a.
  Expect("a*a-rne(a*a)", FMADD(a, a, 0xbf801000), All(L(1, -24)), All(0));
  Expect("fmsub a*a-rne(a*a)", FMSUB(a, a, 0x3f801000), All(L(1, -24)), All(0));
  Expect("fnmadd", FNMADD(a, a, 0xbf801000), All(L(1, -24) | kNZero), All(0));
  Expect("fnmsub", FNMSUB(a, a, 0x3f801000), All(L(1, -24) | kNZero), All(0));
  // One rounding: a*a + 2^-48 is just above the tie, so RNE rounds up (a separate mul then add
  // would round the tie to even first and give 0x3f801000).
  Expect("a*a+2^-48", FMADD(a, a, L(1, -48)),
         {{0x3f801001, 0x3f801000, 0x3f801000, 0x3f801001, 0x3f801001}}, All(NX));
  Expect("a*a-2^-48", FMADD(a, a, L(-1, -48)),
         {{0x3f801000, 0x3f801000, 0x3f801000, 0x3f801001, 0x3f801000}}, All(NX));
  // A tie exactly: a*a + 0 under RMM goes away from zero.
  Expect("a*a+0", FMADD(a, a, kPZero), {{0x3f801000, 0x3f801000, 0x3f801000, 0x3f801001, 0x3f801001}},
         All(NX));
  // Huge addend, tiny product: product is a sticky bit.
  Expect("2^-100*2^-100+1", FMADD(L(1, -100), L(1, -100), kOne),
         {{kOne, kOne, kOne, 0x3f800001, kOne}}, All(NX));
  Expect("-(2^-100*2^-100)+1", FNMSUB(L(1, -100), L(1, -100), kOne),
         {{kOne, 0x3f7fffff, 0x3f7fffff, kOne, kOne}}, All(NX));
  // Huge product, small addend.
  Expect("2^60*2^60-1", FMADD(L(1, 60), L(1, 60), kNOne), {{L(1, 120), 0x7b7fffff, 0x7b7fffff, L(1, 120), L(1, 120)}},
         All(NX));
  // Product and addend of similar size; exact.
  Expect("3*5+7", FMADD(B(3.0f), B(5.0f), B(7.0f)), All(B(22.0f)), All(0));
  Expect("fmsub 3*5-7", FMSUB(B(3.0f), B(5.0f), B(7.0f)), All(B(8.0f)), All(0));
  Expect("fnmsub -(3*5)+7", FNMSUB(B(3.0f), B(5.0f), B(7.0f)), All(B(-8.0f)), All(0));
  Expect("fnmadd -(3*5)-7", FNMADD(B(3.0f), B(5.0f), B(7.0f)), All(B(-22.0f)), All(0));
  // Subnormal result from cancellation is exact (no UF).
  Expect("sub cancel", FMADD(kMinNorm, B(1.5f), L(-1, -126)), All(0x00400000), All(0));
  Expect("sub result", FMADD(kMinNorm, B(0.75f), L(-1, -127)), All(0x00200000), All(0));
}

TEST(FpuDirected, Sqrt) {
  // sqrt(2) = 1.41421356237...; 0x3fb504f3 = 1.41421353816..., 0x3fb504f4 = 1.41421365737...
  Expect("sqrt(2)", SQRT(kTwo), {{0x3fb504f3, 0x3fb504f3, 0x3fb504f3, 0x3fb504f4, 0x3fb504f3}},
         All(NX));
  // sqrt(3) = 1.7320508075688772; 0x3fddb3d7 = 1.73205077648..., 0x3fddb3d8 = 1.73205089569...
  Expect("sqrt(3)", SQRT(B(3.0f)), {{0x3fddb3d7, 0x3fddb3d7, 0x3fddb3d7, 0x3fddb3d8, 0x3fddb3d7}},
         All(NX));
  Expect("sqrt(4)", SQRT(B(4.0f)), All(kTwo), All(0));
  Expect("sqrt(2.25)", SQRT(B(2.25f)), All(B(1.5f)), All(0));
  Expect("sqrt(2^-148)", SQRT(0x00000002), All(L(1, -74)), All(0));     // subnormal input
  Expect("sqrt(9*2^-148)", SQRT(0x00000012), All(L(3, -74)), All(0));
  Expect("sqrt(2^-149)", SQRT(0x00000001), {{0x1a3504f3, 0x1a3504f3, 0x1a3504f3, 0x1a3504f4, 0x1a3504f3}},
         All(NX));  // sqrt(2) * 2^-75
  Expect("sqrt(+0)", SQRT(kPZero), All(kPZero), All(0));
  Expect("sqrt(-0)", SQRT(kNZero), All(kNZero), All(0));
  Expect("sqrt(inf)", SQRT(kPInf), All(kPInf), All(0));
  Expect("sqrt(-inf)", SQRT(kNInf), All(kCNaN), All(NV));
  Expect("sqrt(-1)", SQRT(kNOne), All(kCNaN), All(NV));
  Expect("sqrt(-minsub)", SQRT(0x80000001), All(kCNaN), All(NV));
  // sqrt(max) = 2^64 * sqrt(1 - 2^-24) = 2^64 * (1 - 2^-25 - 2^-51 - ...): just below the midpoint
  // between 0x5f7fffff = 2^64 * (1 - 2^-24) and 2^64.
  Expect("sqrt(max)", SQRT(kMax), {{0x5f7fffff, 0x5f7fffff, 0x5f7fffff, 0x5f800000, 0x5f7fffff}},
         All(NX));
}

TEST(FpuDirected, MinMax) {
  uint32_t f = 0;
  EXPECT_EQ(fpu::min(kNZero, kPZero, f), kNZero);
  EXPECT_EQ(fpu::min(kPZero, kNZero, f), kNZero);
  EXPECT_EQ(fpu::max(kNZero, kPZero, f), kPZero);
  EXPECT_EQ(fpu::max(kPZero, kNZero, f), kPZero);
  EXPECT_EQ(fpu::min(kOne, kTwo, f), kOne);
  EXPECT_EQ(fpu::max(kOne, kTwo, f), kTwo);
  EXPECT_EQ(fpu::min(B(-1.0f), B(-2.0f), f), B(-2.0f));
  EXPECT_EQ(fpu::max(B(-1.0f), B(-2.0f), f), B(-1.0f));
  EXPECT_EQ(fpu::min(kNInf, kNMax, f), kNInf);
  EXPECT_EQ(fpu::max(kPInf, kMax, f), kPInf);
  EXPECT_EQ(fpu::min(0x80000001, 0x00000001, f), 0x80000001u);
  EXPECT_EQ(f, 0u);
  // One NaN: the other operand; quiet NaNs raise nothing.
  EXPECT_EQ(fpu::min(kQNaN, kOne, f), kOne);
  EXPECT_EQ(fpu::max(kNOne, kNegQNaN, f), kNOne);
  EXPECT_EQ(f, 0u);
  // Both NaN: canonical.
  EXPECT_EQ(fpu::min(kNegQNaN, 0x7fc00001, f), kCNaN);
  EXPECT_EQ(fpu::max(0xffffffff, kNegQNaN, f), kCNaN);
  EXPECT_EQ(f, 0u);
  // Signaling: NV, still the other operand (or canonical).
  EXPECT_EQ(fpu::min(kSNaN, kTwo, f), kTwo);
  EXPECT_EQ(f, NV);
  f = 0;
  EXPECT_EQ(fpu::max(kTwo, 0xff800001, f), kTwo);
  EXPECT_EQ(f, NV);
  f = 0;
  EXPECT_EQ(fpu::max(kSNaN, kQNaN, f), kCNaN);
  EXPECT_EQ(f, NV);
}

TEST(FpuDirected, Comparisons) {
  uint32_t f = 0;
  EXPECT_EQ(fpu::feq(kPZero, kNZero, f), 1u);
  EXPECT_EQ(fpu::flt(kNZero, kPZero, f), 0u);
  EXPECT_EQ(fpu::fle(kNZero, kPZero, f), 1u);
  EXPECT_EQ(fpu::fle(kPZero, kNZero, f), 1u);
  EXPECT_EQ(fpu::flt(B(-1.0f), B(-0.5f), f), 1u);
  EXPECT_EQ(fpu::flt(B(-0.5f), B(-1.0f), f), 0u);
  EXPECT_EQ(fpu::fle(B(-0.5f), B(-1.0f), f), 0u);
  EXPECT_EQ(fpu::flt(kNInf, kPInf, f), 1u);
  EXPECT_EQ(fpu::fle(kTwo, kTwo, f), 1u);
  EXPECT_EQ(fpu::flt(kTwo, kTwo, f), 0u);
  EXPECT_EQ(fpu::feq(kTwo, kTwo, f), 1u);
  EXPECT_EQ(fpu::feq(kTwo, kOne, f), 0u);
  EXPECT_EQ(fpu::flt(0x80000001, kPZero, f), 1u);
  EXPECT_EQ(fpu::flt(kOne, kTwo, f), 1u);
  EXPECT_EQ(f, 0u);
  // feq: quiet NaN is silent, signaling raises NV.
  EXPECT_EQ(fpu::feq(kQNaN, kQNaN, f), 0u);
  EXPECT_EQ(fpu::feq(kOne, kNegQNaN, f), 0u);
  EXPECT_EQ(f, 0u);
  EXPECT_EQ(fpu::feq(kSNaN, kOne, f), 0u);
  EXPECT_EQ(f, NV);
  // flt/fle: any NaN raises NV.
  f = 0;
  EXPECT_EQ(fpu::flt(kQNaN, kOne, f), 0u);
  EXPECT_EQ(f, NV);
  f = 0;
  EXPECT_EQ(fpu::fle(kOne, kNegQNaN, f), 0u);
  EXPECT_EQ(f, NV);
  f = 0;
  EXPECT_EQ(fpu::fle(kQNaN, kQNaN, f), 0u);
  EXPECT_EQ(f, NV);
}

TEST(FpuDirected, Fclass) {
  EXPECT_EQ(fpu::fclass(kNInf), 1u << 0);
  EXPECT_EQ(fpu::fclass(kNOne), 1u << 1);
  EXPECT_EQ(fpu::fclass(0x807fffff), 1u << 2);
  EXPECT_EQ(fpu::fclass(kNZero), 1u << 3);
  EXPECT_EQ(fpu::fclass(kPZero), 1u << 4);
  EXPECT_EQ(fpu::fclass(0x00000001), 1u << 5);
  EXPECT_EQ(fpu::fclass(kMinNorm), 1u << 6);
  EXPECT_EQ(fpu::fclass(kMax), 1u << 6);
  EXPECT_EQ(fpu::fclass(kPInf), 1u << 7);
  EXPECT_EQ(fpu::fclass(kSNaN), 1u << 8);
  EXPECT_EQ(fpu::fclass(0xffbfffff), 1u << 8);
  EXPECT_EQ(fpu::fclass(kQNaN), 1u << 9);
  EXPECT_EQ(fpu::fclass(kNegQNaN), 1u << 9);
}

TEST(FpuDirected, FloatToInt) {
  const uint32_t kIntMax = 0x7fffffff, kIntMin = 0x80000000, kUMax = 0xffffffff;
  Expect("w(2.5)", CVTW(B(2.5f)), {{2, 2, 2, 3, 3}}, All(NX));
  Expect("w(-2.5)", CVTW(B(-2.5f)), {{uint32_t(-2), uint32_t(-2), uint32_t(-3), uint32_t(-2), uint32_t(-3)}},
         All(NX));
  Expect("w(3.5)", CVTW(B(3.5f)), {{4, 3, 3, 4, 4}}, All(NX));
  Expect("w(0.5)", CVTW(kHalf), {{0, 0, 0, 1, 1}}, All(NX));
  Expect("w(-0.5)", CVTW(B(-0.5f)), {{0, 0, uint32_t(-1), 0, uint32_t(-1)}}, All(NX));
  Expect("w(1.25)", CVTW(B(1.25f)), {{1, 1, 1, 2, 1}}, All(NX));
  Expect("w(minsub)", CVTW(0x00000001), {{0, 0, 0, 1, 0}}, All(NX));
  Expect("w(-minsub)", CVTW(0x80000001), {{0, 0, uint32_t(-1), 0, 0}}, All(NX));
  Expect("w(-0)", CVTW(kNZero), All(0), All(0));
  Expect("w(7)", CVTW(B(7.0f)), All(7), All(0));
  // Boundaries: 2^31 is out of range; -2^31 is exact; the float below -2^31 is -2^31-256.
  Expect("w(2^31)", CVTW(L(1, 31)), All(kIntMax), All(NV));
  Expect("w(2^31-128)", CVTW(0x4effffff), All(2147483520u), All(0));
  Expect("w(-2^31)", CVTW(0xcf000000), All(kIntMin), All(0));
  Expect("w(-2^31-256)", CVTW(0xcf000001), All(kIntMin), All(NV));
  Expect("w(inf)", CVTW(kPInf), All(kIntMax), All(NV));
  Expect("w(-inf)", CVTW(kNInf), All(kIntMin), All(NV));
  Expect("w(nan)", CVTW(kQNaN), All(kIntMax), All(NV));
  Expect("w(-nan)", CVTW(kNegQNaN), All(kIntMax), All(NV));
  Expect("w(snan)", CVTW(kSNaN), All(kIntMax), All(NV));
  Expect("w(max)", CVTW(kMax), All(kIntMax), All(NV));
  Expect("w(-max)", CVTW(kNMax), All(kIntMin), All(NV));
  // Unsigned.
  Expect("wu(2.5)", CVTWU(B(2.5f)), {{2, 2, 2, 3, 3}}, All(NX));
  Expect("wu(2^32-256)", CVTWU(0x4f7fffff), All(4294967040u), All(0));
  Expect("wu(2^32)", CVTWU(L(1, 32)), All(kUMax), All(NV));
  Expect("wu(2^31)", CVTWU(L(1, 31)), All(0x80000000u), All(0));
  Expect("wu(-0)", CVTWU(kNZero), All(0), All(0));
  Expect("wu(-1)", CVTWU(kNOne), All(0), All(NV));
  // A negative value that rounds to 0 is merely inexact; one that rounds to -1 is invalid.
  Expect("wu(-0.4)", CVTWU(B(-0.4f)), {{0, 0, 0, 0, 0}}, {{NX, NX, NV, NX, NX}});
  Expect("wu(-0.5)", CVTWU(B(-0.5f)), All(0), {{NX, NX, NV, NX, NV}});
  Expect("wu(-0.6)", CVTWU(B(-0.6f)), All(0), {{NV, NX, NV, NX, NV}});
  Expect("wu(-minsub)", CVTWU(0x80000001), All(0), {{NX, NX, NV, NX, NX}});
  Expect("wu(inf)", CVTWU(kPInf), All(kUMax), All(NV));
  Expect("wu(-inf)", CVTWU(kNInf), All(0), All(NV));
  Expect("wu(nan)", CVTWU(kQNaN), All(kUMax), All(NV));
  Expect("wu(-nan)", CVTWU(kNegQNaN), All(kUMax), All(NV));
  // Values like 4294967295.5 or -2^31-1 are not representable in binary32 (the spacing there is
  // 256 and 128), so the float neighbours of the boundaries above are the complete set of
  // boundary cases; fraction rounding is exercised on small magnitudes.
}

TEST(FpuDirected, IntToFloat) {
  Expect("s(0)", CVTSW(0), All(kPZero), All(0));
  Expect("s(-1)", CVTSW(-1), All(kNOne), All(0));
  Expect("s(INT_MIN)", CVTSW(INT32_MIN), All(0xcf000000), All(0));
  // 2^31-1 lies between 0x4effffff (2^31-128) and 2^31.
  Expect("s(INT_MAX)", CVTSW(INT32_MAX), {{0x4f000000, 0x4effffff, 0x4effffff, 0x4f000000, 0x4f000000}},
         All(NX));
  Expect("s(-2^31+1)", CVTSW(INT32_MIN + 1), {{0xcf000000, 0xceffffff, 0xcf000000, 0xceffffff, 0xcf000000}},
         All(NX));
  // 2^24+1: tie between 2^24 (even) and 2^24+2.
  Expect("s(2^24+1)", CVTSW(16777217), {{0x4b800000, 0x4b800000, 0x4b800000, 0x4b800001, 0x4b800001}},
         All(NX));
  Expect("s(-(2^24+1))", CVTSW(-16777217), {{0xcb800000, 0xcb800000, 0xcb800001, 0xcb800000, 0xcb800001}},
         All(NX));
  // 2^24+3: tie between 2^24+2 (odd significand) and 2^24+4.
  Expect("s(2^24+3)", CVTSW(16777219), {{0x4b800002, 0x4b800001, 0x4b800001, 0x4b800002, 0x4b800002}},
         All(NX));
  Expect("s(2^24)", CVTSW(16777216), All(0x4b800000), All(0));
  Expect("wu(0)", CVTSWU(0), All(kPZero), All(0));
  Expect("wu(2^32-1)", CVTSWU(0xffffffffu), {{0x4f800000, 0x4f7fffff, 0x4f7fffff, 0x4f800000, 0x4f800000}},
         All(NX));
  // 2^32-128 = 0xffffff80: tie between 0x4f7fffff (odd) and 2^32.
  Expect("wu(2^32-128)", CVTSWU(0xffffff80u), {{0x4f800000, 0x4f7fffff, 0x4f7fffff, 0x4f800000, 0x4f800000}},
         All(NX));
  Expect("wu(2^32-384)", CVTSWU(0xfffffe80u), {{0x4f7ffffe, 0x4f7ffffe, 0x4f7ffffe, 0x4f7fffff, 0x4f7fffff}},
         All(NX));
  Expect("wu(2^31)", CVTSWU(0x80000000u), All(0x4f000000), All(0));
}

TEST(FpuDirected, FlagsAccumulate) {
  uint32_t f = DZ;
  EXPECT_EQ(fpu::add(kOne, L(1, -24), fpu::kRNE, f), kOne);
  EXPECT_EQ(f, DZ | NX);  // ORed in, never cleared
  EXPECT_EQ(fpu::add(kOne, kOne, fpu::kRNE, f), kTwo);
  EXPECT_EQ(f, DZ | NX);
}

}  // namespace
