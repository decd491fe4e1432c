// Owns the RISC-V F-extension arithmetic declared in iss/fpu.h: IEEE 754 binary32 add, sub, mul,
// div, sqrt, fused multiply-add, min/max, comparisons, fclass and the int<->float conversions,
// under every RISC-V rounding mode, with the accrued flags (tininess detected after rounding) and
// the canonical NaN. Integer arithmetic only: operands are unpacked to sign, exponent and
// significand, computed exactly (or with a sticky bit), then rounded once by round_pack().
#include "iss/fpu.h"

namespace fs::iss::fpu {
namespace {

__extension__ typedef unsigned __int128 u128;

constexpr uint32_t kSign = 0x80000000u;
constexpr uint32_t kInf = 0x7f800000u;
constexpr uint32_t kMaxFinite = 0x7f7fffffu;
constexpr uint32_t kFracMask = 0x007fffffu;
constexpr uint32_t kHidden = 0x00800000u;

inline uint32_t mag(uint32_t a) { return a & 0x7fffffffu; }
inline bool is_nan(uint32_t a) { return mag(a) > kInf; }
inline bool is_snan(uint32_t a) { return is_nan(a) && !(a & 0x00400000u); }
inline bool is_inf(uint32_t a) { return mag(a) == kInf; }
inline bool is_zero(uint32_t a) { return mag(a) == 0; }
inline int exp_field(uint32_t a) { return int((a >> 23) & 0xff); }

inline int clz32(uint32_t x) { return __builtin_clz(x); }  // x != 0
inline int clz64(uint64_t x) { return __builtin_clzll(x); }  // x != 0
inline int clz128(u128 x) {
  const uint64_t hi = uint64_t(x >> 64);
  return hi ? clz64(hi) : 64 + clz64(uint64_t(x));
}

// Shifts right, ORing every bit shifted out into bit 0 (the sticky bit).
inline uint64_t shr_jam64(uint64_t x, int n) {
  if (n <= 0) return x;
  if (n >= 64) return x != 0;
  return (x >> n) | ((x << (64 - n)) != 0);
}
inline u128 shr_jam128(u128 x, int n) {
  if (n <= 0) return x;
  if (n >= 128) return x != 0;
  return (x >> n) | ((x << (128 - n)) != 0);
}

// Whether a discarded, nonzero remainder `rem` (`half` = one half unit in the last place) makes
// the kept magnitude round up (away from zero), for a value of sign `neg` and kept LSB `lsb`.
inline bool round_up(unsigned rm, bool neg, bool lsb, uint64_t rem, uint64_t half) {
  switch (rm) {
    case kRNE: return rem > half || (rem == half && lsb);
    case kRTZ: return false;
    case kRDN: return neg;
    case kRUP: return !neg;
    default: return rem >= half;  // kRMM
  }
}

inline uint32_t invalid(uint32_t& flags) {
  flags |= kNV;
  return kCanonicalNaN;
}

// NaN operand(s): NV when any is signaling; the result is always the canonical NaN.
inline uint32_t nan_result(uint32_t a, uint32_t b, uint32_t& flags) {
  if (is_snan(a) || is_snan(b)) flags |= kNV;
  return kCanonicalNaN;
}

// The exact zero of x + (-x): +0, except -0 when rounding down.
inline uint32_t exact_zero(unsigned rm) { return rm == kRDN ? kSign : 0; }

uint32_t overflow(uint32_t sign, unsigned rm, uint32_t& flags) {
  flags |= kOF | kNX;
  const bool to_inf = rm == kRNE || rm == kRMM || (rm == kRDN && sign) || (rm == kRUP && !sign);
  return sign | (to_inf ? kInf : kMaxFinite);
}

// Rounds and packs the value sig * 2^(be - 127 - 62), where `sig` is normalised (bit 62 set,
// bit 63 clear) and bit 0 is sticky. `be` is the biased exponent the result would have with an
// unbounded exponent range. The 39 bits below the 24 kept ones decide the rounding.
uint32_t round_pack(uint32_t sign, int be, uint64_t sig, unsigned rm, uint32_t& flags) {
  constexpr int kDrop = 39;
  constexpr uint64_t kRemMask = (uint64_t(1) << kDrop) - 1, kHalf = uint64_t(1) << (kDrop - 1);
  const bool neg = sign != 0;
  if (be >= 1) {
    uint32_t keep = uint32_t(sig >> kDrop);
    const uint64_t rem = sig & kRemMask;
    if (rem) {
      flags |= kNX;
      if (round_up(rm, neg, keep & 1, rem, kHalf) && ++keep == (uint32_t(1) << 24)) {
        keep >>= 1;
        ++be;
      }
    }
    if (be >= 0xff) return overflow(sign, rm, flags);
    return sign | (uint32_t(be) << 23) | (keep & kFracMask);
  }
  // Below the normal range. Tiny (IEEE, after rounding) unless rounding to 24 bits with an
  // unbounded exponent would carry up to the smallest normal, 2^-126 (only possible if be == 0).
  const uint64_t rem24 = sig & kRemMask;
  const bool tiny = be < 0 || (sig >> kDrop) != 0xffffffu || rem24 == 0 ||
                    !round_up(rm, neg, true, rem24, kHalf);
  sig = shr_jam64(sig, 1 - be);
  uint32_t keep = uint32_t(sig >> kDrop);
  const uint64_t rem = sig & kRemMask;
  if (rem) {
    flags |= tiny ? (kNX | kUF) : kNX;
    if (round_up(rm, neg, keep & 1, rem, kHalf)) ++keep;  // may carry into the exponent: fine
  }
  return sign | keep;
}

// Normalises a nonzero `sig` (bit 63 clear) so bit 62 is set, then rounds.
inline uint32_t norm_round_pack(uint32_t sign, int be, uint64_t sig, unsigned rm,
                                uint32_t& flags) {
  const int s = clz64(sig) - 1;
  return round_pack(sign, be - s, sig << s, rm, flags);
}

// A finite nonzero operand as sig * 2^(exp - 150) with sig in [2^23, 2^24).
struct Unpacked {
  int exp;
  uint32_t sig;
};
inline Unpacked unpack(uint32_t a) {
  const int e = exp_field(a);
  const uint32_t f = a & kFracMask;
  if (e) return {e, f | kHidden};
  const int s = clz32(f) - 8;
  return {1 - s, f << s};
}

uint32_t add_impl(uint32_t a, uint32_t b, unsigned rm, uint32_t& flags) {
  int ea = exp_field(a), eb = exp_field(b);
  if (ea == 0xff || eb == 0xff) {
    if (is_nan(a) || is_nan(b)) return nan_result(a, b, flags);
    if (is_inf(a) && is_inf(b) && (a ^ b) & kSign) return invalid(flags);
    return is_inf(a) ? a : b;
  }
  if (is_zero(b)) return is_zero(a) ? ((a == b) ? a : exact_zero(rm)) : a;
  if (is_zero(a)) return b;
  if (mag(a) < mag(b)) {  // make a the larger magnitude
    const uint32_t t = a;
    a = b;
    b = t;
    const int te = ea;
    ea = eb;
    eb = te;
  }
  const uint32_t sign = a & kSign;
  // Subnormals have exponent 1 and no hidden bit. Place bit 23 at bit 61: a carry fits in 62.
  const uint64_t sa = uint64_t(ea ? (a & kFracMask) | kHidden : a & kFracMask) << 38;
  uint64_t sb = uint64_t(eb ? (b & kFracMask) | kHidden : b & kFracMask) << 38;
  if (!ea) ea = 1;
  if (!eb) eb = 1;
  sb = shr_jam64(sb, ea - eb);
  uint64_t s;
  if ((a ^ b) & kSign) {
    s = sa - sb;
    if (s == 0) return exact_zero(rm);
  } else {
    s = sa + sb;
  }
  return norm_round_pack(sign, ea + 1, s, rm, flags);
}

// a*b + c with one rounding; the sign flips of the fmsub family are applied by the callers.
uint32_t fma_impl(uint32_t a, uint32_t b, uint32_t c, unsigned rm, uint32_t& flags) {
  const bool inf_times_zero = (is_inf(a) && is_zero(b)) || (is_zero(a) && is_inf(b));
  if (is_nan(a) || is_nan(b) || is_nan(c)) {
    // RISC-V: inf*0 is invalid even when the addend is a quiet NaN.
    if (is_snan(a) || is_snan(b) || is_snan(c) || inf_times_zero) flags |= kNV;
    return kCanonicalNaN;
  }
  const uint32_t sp = (a ^ b) & kSign, sc = c & kSign;
  if (inf_times_zero) return invalid(flags);
  if (is_inf(a) || is_inf(b)) {
    if (is_inf(c) && sc != sp) return invalid(flags);
    return sp | kInf;
  }
  if (is_inf(c)) return c;
  if (is_zero(a) || is_zero(b)) {
    if (is_zero(c)) return sp == sc ? sp : exact_zero(rm);
    return c;
  }
  const Unpacked ua = unpack(a), ub = unpack(b);
  // Exact product, value = rp / 2^108 * 2^ep; the product's top bit is bit 108 or 109.
  u128 rp = u128(uint64_t(ua.sig) * ub.sig) << 62;
  const int ep = ua.exp + ub.exp - 254;
  if (is_zero(c)) {
    // Rounding the product alone: take the top 64 bits (no bit of the 48-bit product is lost).
    return norm_round_pack(sp, ep + 127 + 1, uint64_t(rp >> 47), rm, flags);
  }
  const Unpacked uc = unpack(c);
  u128 rc = u128(uc.sig) << 85;  // top bit at 108, same scale as rp
  const int ec = uc.exp - 127;
  int e;
  if (ep >= ec) {
    rc = shr_jam128(rc, ep - ec);
    e = ep;
  } else {
    rp = shr_jam128(rp, ec - ep);
    e = ec;
  }
  u128 r;
  uint32_t sign;
  if (sp == sc) {
    r = rp + rc;
    sign = sp;
  } else if (rp > rc) {
    r = rp - rc;
    sign = sp;
  } else if (rc > rp) {
    r = rc - rp;
    sign = sc;
  } else {
    return exact_zero(rm);
  }
  const int top = 127 - clz128(r);
  const uint64_t s = top >= 62 ? uint64_t(shr_jam128(r, top - 62)) : uint64_t(r) << (62 - top);
  return round_pack(sign, top - 108 + e + 127, s, rm, flags);
}

// ceil(sqrt(t + 1) * 2^12) for t = 64..255: an upper bound of sqrt(x) / 2^16 for any x whose top
// byte is t, the seed of isqrt64's Newton iteration (about 7 correct bits).
struct SqrtSeeds {
  uint32_t v[192];
  constexpr SqrtSeeds() : v() {
    uint64_t r = 0;
    for (uint32_t t = 64; t < 256; ++t) {
      while (r * r < (uint64_t(t + 1) << 24)) ++r;  // compile time only
      v[t - 64] = uint32_t(r);
    }
  }
};
constexpr SqrtSeeds kSqrtSeeds;

// Integer square root of x >= 2^62 (the result is in [2^31, 2^32)); `exact` says if r*r == x.
// Newton's iteration from above never goes below floor(sqrt(x)); the final loops make it exact
// whatever the quality of the estimate.
inline uint64_t isqrt64(uint64_t x, bool& exact) {
  uint64_t r = uint64_t(kSqrtSeeds.v[(x >> 56) - 64]) << 16;
  r = (r + x / r) >> 1;
  r = (r + x / r) >> 1;
  if (r > 0xffffffffu) r = 0xffffffffu;
  while (r * r > x) --r;
  while (r < 0xffffffffu && (r + 1) * (r + 1) <= x) ++r;
  exact = r * r == x;
  return r;
}

// Orders two non-NaN values with -0 < +0.
inline bool total_less(uint32_t a, uint32_t b) {
  const bool na = a & kSign, nb = b & kSign;
  if (na != nb) return na;
  return na ? a > b : a < b;
}

// Rounds a finite value to an integer under `rm`: returns the magnitude (saturated at 2^33 for
// values too large for any 32-bit result) and reports whether it was inexact.
uint64_t round_to_int(uint32_t a, unsigned rm, bool& inexact) {
  inexact = false;
  if (is_zero(a)) return 0;
  const int e = exp_field(a);
  if (e >= 127 + 33) return uint64_t(1) << 33;
  const uint64_t sig = (a & kFracMask) | (e ? kHidden : 0);
  const int drop = 150 - (e ? e : 1);  // value = sig * 2^-drop
  if (drop <= 0) return sig << -drop;
  inexact = true;
  if (drop > 25) return round_up(rm, a & kSign, false, 1, uint64_t(1) << 40) ? 1 : 0;  // < 1/2
  const uint64_t q = sig >> drop, rem = sig & ((uint64_t(1) << drop) - 1);
  if (!rem) {
    inexact = false;
    return q;
  }
  return q + round_up(rm, a & kSign, q & 1, rem, uint64_t(1) << (drop - 1));
}

// An integer magnitude to float: `m` != 0.
inline uint32_t from_uint(uint32_t sign, uint32_t m, unsigned rm, uint32_t& flags) {
  const int top = 31 - clz32(m);
  return round_pack(sign, top + 127, uint64_t(m) << (62 - top), rm, flags);
}

}  // namespace

uint32_t add(uint32_t a, uint32_t b, unsigned rm, uint32_t& flags) {
  return add_impl(a, b, rm, flags);
}

uint32_t sub(uint32_t a, uint32_t b, unsigned rm, uint32_t& flags) {
  return add_impl(a, b ^ kSign, rm, flags);
}

uint32_t mul(uint32_t a, uint32_t b, unsigned rm, uint32_t& flags) {
  const uint32_t sign = (a ^ b) & kSign;
  if (exp_field(a) == 0xff || exp_field(b) == 0xff) {
    if (is_nan(a) || is_nan(b)) return nan_result(a, b, flags);
    if (is_zero(a) || is_zero(b)) return invalid(flags);  // inf * 0
    return sign | kInf;
  }
  if (is_zero(a) || is_zero(b)) return sign;
  const Unpacked ua = unpack(a), ub = unpack(b);
  // Product in [2^46, 2^48); value = p / 2^46 * 2^(ea + eb - 254).
  const uint64_t p = uint64_t(ua.sig) * ub.sig;
  return norm_round_pack(sign, ua.exp + ub.exp - 126, p << 15, rm, flags);
}

uint32_t div(uint32_t a, uint32_t b, unsigned rm, uint32_t& flags) {
  const uint32_t sign = (a ^ b) & kSign;
  if (exp_field(a) == 0xff || exp_field(b) == 0xff) {
    if (is_nan(a) || is_nan(b)) return nan_result(a, b, flags);
    if (is_inf(a)) return is_inf(b) ? invalid(flags) : sign | kInf;
    return sign;  // finite / inf
  }
  if (is_zero(b)) {
    if (is_zero(a)) return invalid(flags);
    flags |= kDZ;
    return sign | kInf;
  }
  if (is_zero(a)) return sign;
  const Unpacked ua = unpack(a), ub = unpack(b);
  // Quotient in (2^38, 2^40), value = q / 2^39 * 2^(ea - eb); the remainder becomes sticky.
  const uint64_t n = uint64_t(ua.sig) << 39;
  uint64_t q = n / ub.sig;
  q |= (n - q * ub.sig) != 0;
  return norm_round_pack(sign, ua.exp - ub.exp + 127, q << 23, rm, flags);
}

uint32_t sqrt(uint32_t a, unsigned rm, uint32_t& flags) {
  if (is_nan(a)) return nan_result(a, a, flags);
  if (is_zero(a)) return a;
  if (a & kSign) return invalid(flags);
  if (a == kInf) return a;
  const Unpacked ua = unpack(a);
  // value = m / 2^23 * 2^e with e even, m in [2^23, 2^25); sqrt = isqrt(m << 39) / 2^31 * 2^(e/2).
  int e = ua.exp - 127;
  uint64_t m = ua.sig;
  if (e & 1) {
    m <<= 1;
    --e;
  }
  bool exact;
  const uint64_t r = isqrt64(m << 39, exact);
  return round_pack(0, e / 2 + 127, (r << 31) | !exact, rm, flags);
}

uint32_t fmadd(uint32_t a, uint32_t b, uint32_t c, unsigned rm, uint32_t& flags) {
  return fma_impl(a, b, c, rm, flags);
}
uint32_t fmsub(uint32_t a, uint32_t b, uint32_t c, unsigned rm, uint32_t& flags) {
  return fma_impl(a, b, c ^ kSign, rm, flags);
}
uint32_t fnmsub(uint32_t a, uint32_t b, uint32_t c, unsigned rm, uint32_t& flags) {
  return fma_impl(a ^ kSign, b, c, rm, flags);
}
uint32_t fnmadd(uint32_t a, uint32_t b, uint32_t c, unsigned rm, uint32_t& flags) {
  return fma_impl(a ^ kSign, b, c ^ kSign, rm, flags);
}

uint32_t min(uint32_t a, uint32_t b, uint32_t& flags) {
  if (is_snan(a) || is_snan(b)) flags |= kNV;
  if (is_nan(a)) return is_nan(b) ? kCanonicalNaN : b;
  if (is_nan(b)) return a;
  return total_less(b, a) ? b : a;
}

uint32_t max(uint32_t a, uint32_t b, uint32_t& flags) {
  if (is_snan(a) || is_snan(b)) flags |= kNV;
  if (is_nan(a)) return is_nan(b) ? kCanonicalNaN : b;
  if (is_nan(b)) return a;
  return total_less(a, b) ? b : a;
}

uint32_t feq(uint32_t a, uint32_t b, uint32_t& flags) {
  if (is_nan(a) || is_nan(b)) {
    if (is_snan(a) || is_snan(b)) flags |= kNV;
    return 0;
  }
  return a == b || is_zero(a | b);
}

uint32_t flt(uint32_t a, uint32_t b, uint32_t& flags) {
  if (is_nan(a) || is_nan(b)) {
    flags |= kNV;
    return 0;
  }
  return !is_zero(a | b) && total_less(a, b);
}

uint32_t fle(uint32_t a, uint32_t b, uint32_t& flags) {
  if (is_nan(a) || is_nan(b)) {
    flags |= kNV;
    return 0;
  }
  return a == b || is_zero(a | b) || total_less(a, b);
}

uint32_t fclass(uint32_t a) {
  const bool neg = a & kSign;
  const int e = exp_field(a);
  const uint32_t f = a & kFracMask;
  if (e == 0xff) {
    if (!f) return neg ? 1u << 0 : 1u << 7;
    return (f & 0x00400000u) ? 1u << 9 : 1u << 8;
  }
  if (e) return neg ? 1u << 1 : 1u << 6;
  if (f) return neg ? 1u << 2 : 1u << 5;
  return neg ? 1u << 3 : 1u << 4;
}

int32_t cvt_w_s(uint32_t a, unsigned rm, uint32_t& flags) {
  if (is_nan(a)) {
    flags |= kNV;
    return INT32_MAX;
  }
  bool inexact;
  const uint64_t m = round_to_int(a, rm, inexact);  // infinities saturate to 2^33
  if (a & kSign) {
    if (m > uint64_t(1) << 31) {
      flags |= kNV;
      return INT32_MIN;
    }
    if (inexact) flags |= kNX;
    return int32_t(uint32_t(0) - uint32_t(m));
  }
  if (m > uint64_t(INT32_MAX)) {
    flags |= kNV;
    return INT32_MAX;
  }
  if (inexact) flags |= kNX;
  return int32_t(m);
}

uint32_t cvt_wu_s(uint32_t a, unsigned rm, uint32_t& flags) {
  if (is_nan(a)) {
    flags |= kNV;
    return UINT32_MAX;
  }
  bool inexact;
  const uint64_t m = round_to_int(a, rm, inexact);
  if (a & kSign) {
    if (m != 0) {  // rounds to a negative integer
      flags |= kNV;
      return 0;
    }
    if (inexact) flags |= kNX;
    return 0;
  }
  if (m > UINT32_MAX) {
    flags |= kNV;
    return UINT32_MAX;
  }
  if (inexact) flags |= kNX;
  return uint32_t(m);
}

uint32_t cvt_s_w(int32_t v, unsigned rm, uint32_t& flags) {
  if (v == 0) return 0;
  const uint32_t u = uint32_t(v);
  return v < 0 ? from_uint(kSign, 0u - u, rm, flags) : from_uint(0, u, rm, flags);
}

uint32_t cvt_s_wu(uint32_t v, unsigned rm, uint32_t& flags) {
  return v ? from_uint(0, v, rm, flags) : 0;
}

}  // namespace fs::iss::fpu
