// Single-precision IEEE 754 arithmetic exactly as the RISC-V F extension defines it: every
// rounding mode (RNE, RTZ, RDN, RUP, RMM), the accrued exception flags (NV, DZ, OF, UF, NX;
// tininess detected after rounding), the canonical NaN 0x7fc00000 for every NaN result, and the
// saturating float-to-integer conversions. Values are raw IEEE bit patterns (uint32_t).
// Plain C++ with no host floating-point environment, so results do not depend on the host.
#pragma once
#include <cstdint>

namespace fs::iss::fpu {

// fflags bits, as in the fcsr.
enum : uint32_t { kNX = 1, kUF = 2, kOF = 4, kDZ = 8, kNV = 16 };
// Static rounding modes (the instruction's rm field, or frm when rm = 7 = dynamic).
enum : unsigned { kRNE = 0, kRTZ = 1, kRDN = 2, kRUP = 3, kRMM = 4 };

constexpr uint32_t kCanonicalNaN = 0x7fc00000u;

// Each function ORs the exceptions it raises into `flags`. `rm` must be 0..4.
uint32_t add(uint32_t a, uint32_t b, unsigned rm, uint32_t& flags);
uint32_t sub(uint32_t a, uint32_t b, unsigned rm, uint32_t& flags);
uint32_t mul(uint32_t a, uint32_t b, unsigned rm, uint32_t& flags);
uint32_t div(uint32_t a, uint32_t b, unsigned rm, uint32_t& flags);
uint32_t sqrt(uint32_t a, unsigned rm, uint32_t& flags);
// Fused multiply-add family, one rounding: fmadd = a*b+c, fmsub = a*b-c, fnmsub = -(a*b)+c,
// fnmadd = -(a*b)-c.
uint32_t fmadd(uint32_t a, uint32_t b, uint32_t c, unsigned rm, uint32_t& flags);
uint32_t fmsub(uint32_t a, uint32_t b, uint32_t c, unsigned rm, uint32_t& flags);
uint32_t fnmsub(uint32_t a, uint32_t b, uint32_t c, unsigned rm, uint32_t& flags);
uint32_t fnmadd(uint32_t a, uint32_t b, uint32_t c, unsigned rm, uint32_t& flags);
// fmin/fmax as RISC-V defines them (IEEE 754-2019 minimumNumber/maximumNumber; -0 < +0; NV on
// a signaling NaN input; canonical NaN when both are NaN).
uint32_t min(uint32_t a, uint32_t b, uint32_t& flags);
uint32_t max(uint32_t a, uint32_t b, uint32_t& flags);
// Comparisons: feq raises NV only for signaling NaNs, flt/fle for any NaN. Return 0 or 1.
uint32_t feq(uint32_t a, uint32_t b, uint32_t& flags);
uint32_t flt(uint32_t a, uint32_t b, uint32_t& flags);
uint32_t fle(uint32_t a, uint32_t b, uint32_t& flags);
// fclass.s: the 10-bit class mask.
uint32_t fclass(uint32_t a);
// Conversions. Out-of-range and NaN inputs saturate as the RISC-V spec's table says and raise NV.
int32_t cvt_w_s(uint32_t a, unsigned rm, uint32_t& flags);
uint32_t cvt_wu_s(uint32_t a, unsigned rm, uint32_t& flags);
uint32_t cvt_s_w(int32_t v, unsigned rm, uint32_t& flags);
uint32_t cvt_s_wu(uint32_t v, unsigned rm, uint32_t& flags);

}  // namespace fs::iss::fpu
