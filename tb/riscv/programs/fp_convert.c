/* Float <-> integer conversions at the boundaries: fcvt.w.s and fcvt.wu.s in every rounding
 * mode with saturation (NaN -> INT_MAX / UINT_MAX, +-inf, out-of-range, negative to unsigned)
 * and the flags (NV on saturation, NX when inexact); fcvt.s.w / fcvt.s.wu of integers that need
 * rounding (above 2^24) in every mode; plus C casts, which use rtz. */
#include "testlib.h"

#define CVT_TO_INT(insn, rm, a) ({ uint32_t r_; clear_fflags(); __asm__ volatile(insn " %0, %1, " rm : "=r"(r_) : "f"(a)); r_; })
#define CVT_TO_FLT(insn, rm, a) ({ float r_; clear_fflags(); __asm__ volatile(insn " %0, %1, " rm : "=f"(r_) : "r"(a)); r_; })

static const uint32_t fin[] = {
    0x00000000, 0x80000000, 0x3f000000 /* 0.5 */, 0xbf000000, 0x3fc00000 /* 1.5 */, 0xbfc00000,
    0x40200000 /* 2.5 */, 0xc0200000, 0x3f7fffff, 0xbf7fffff, 0x00000001, 0x80000001,
    0x4effffff /* 2^31 - 128 */, 0x4f000000 /* 2^31 */, 0xcf000000 /* -2^31 */, 0xcf000001,
    0x4f7fffff /* 2^32 - 256 */, 0x4f800000 /* 2^32 */, 0xbf800000, 0xbe800000 /* -0.25 */,
    0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0x4b7fffff, 0x4cbebc20 /* 1e8 */,
    0x42f6e979 /* 123.456 */, 0xc2f6e979,
};
#define NF (sizeof fin / sizeof fin[0])

static const uint32_t iin[] = {0, 1, 0xffffffff, 0x7fffffff, 0x80000000, 0x80000001, 0x01000001, 0x01000003,
                               0x00ffffff, 0xfeffffff, 0x7fffffbf, 0x7fffffc0, 0xffffff80, 0x12345678, 0x89abcdef};
#define NI (sizeof iin / sizeof iin[0])

static const char* const rmname[] = {"rne", "rtz", "rdn", "rup", "rmm"};

#define FIVE(insn, KIND, a, out, fl)                      \
  do {                                                    \
    out[0] = KIND(insn, "rne", a); fl[0] = get_fflags();  \
    out[1] = KIND(insn, "rtz", a); fl[1] = get_fflags();  \
    out[2] = KIND(insn, "rdn", a); fl[2] = get_fflags();  \
    out[3] = KIND(insn, "rup", a); fl[3] = get_fflags();  \
    out[4] = KIND(insn, "rmm", a); fl[4] = get_fflags();  \
  } while (0)

int main(void) {
  uint32_t r[5], fl[5];
  for (unsigned i = 0; i < NF; i++) {
    float a = u2f(fin[i]);
    FIVE("fcvt.w.s", CVT_TO_INT, a, r, fl);
    printf("fcvt.w.s  %08lx:", (unsigned long)fin[i]);
    for (int k = 0; k < 5; k++) {
      printf(" %s %08lx/%02lx", rmname[k], (unsigned long)r[k], (unsigned long)fl[k]);
      mix(r[k]); mix(fl[k]);
    }
    printf("\n");
    FIVE("fcvt.wu.s", CVT_TO_INT, a, r, fl);
    printf("fcvt.wu.s %08lx:", (unsigned long)fin[i]);
    for (int k = 0; k < 5; k++) {
      printf(" %s %08lx/%02lx", rmname[k], (unsigned long)r[k], (unsigned long)fl[k]);
      mix(r[k]); mix(fl[k]);
    }
    printf("\n");
  }
  for (unsigned i = 0; i < NI; i++) {
    float f[5];
    uint32_t x = iin[i];
    f[0] = CVT_TO_FLT("fcvt.s.w", "rne", x); fl[0] = get_fflags();
    f[1] = CVT_TO_FLT("fcvt.s.w", "rtz", x); fl[1] = get_fflags();
    f[2] = CVT_TO_FLT("fcvt.s.w", "rdn", x); fl[2] = get_fflags();
    f[3] = CVT_TO_FLT("fcvt.s.w", "rup", x); fl[3] = get_fflags();
    f[4] = CVT_TO_FLT("fcvt.s.w", "rmm", x); fl[4] = get_fflags();
    printf("fcvt.s.w  %08lx:", (unsigned long)x);
    for (int k = 0; k < 5; k++) {
      printf(" %s %08lx/%02lx", rmname[k], (unsigned long)f2u(f[k]), (unsigned long)fl[k]);
      mix(f2u(f[k])); mix(fl[k]);
    }
    printf("\n");
    f[0] = CVT_TO_FLT("fcvt.s.wu", "rne", x); fl[0] = get_fflags();
    f[1] = CVT_TO_FLT("fcvt.s.wu", "rtz", x); fl[1] = get_fflags();
    f[2] = CVT_TO_FLT("fcvt.s.wu", "rdn", x); fl[2] = get_fflags();
    f[3] = CVT_TO_FLT("fcvt.s.wu", "rup", x); fl[3] = get_fflags();
    f[4] = CVT_TO_FLT("fcvt.s.wu", "rmm", x); fl[4] = get_fflags();
    printf("fcvt.s.wu %08lx:", (unsigned long)x);
    for (int k = 0; k < 5; k++) {
      printf(" %s %08lx/%02lx", rmname[k], (unsigned long)f2u(f[k]), (unsigned long)fl[k]);
      mix(f2u(f[k])); mix(fl[k]);
    }
    printf("\n");
  }
  /* dynamic-mode conversion under each frm */
  for (uint32_t rm = 0; rm < 5; rm++) {
    set_frm(rm);
    uint32_t a = CVT_TO_INT("fcvt.w.s", "dyn", u2f(0xc0200000)), fa = get_fflags();
    float b = CVT_TO_FLT("fcvt.s.w", "dyn", 0x7fffffffu);
    uint32_t fb = get_fflags();
    printf("dyn %s: fcvt.w.s(-2.5) %08lx/%02lx fcvt.s.w(INT_MAX) %08lx/%02lx\n", rmname[rm], (unsigned long)a,
           (unsigned long)fa, (unsigned long)f2u(b), (unsigned long)fb);
    mix(a); mix(fa); mix(f2u(b)); mix(fb);
  }
  set_frm(RM_RNE);
  /* C casts (always rtz), in-range values only */
  volatile float vals[] = {-7.9f, -0.5f, 0.99f, 1e9f, -2147483520.0f, 4294967040.0f, 65535.5f};
  for (unsigned i = 0; i < sizeof vals / sizeof vals[0]; i++) {
    float v = vals[i];
    int32_t si = (v > -2147483648.0f && v < 2147483648.0f) ? (int32_t)v : 0;
    uint32_t ui = (v >= 0.0f && v < 4294967296.0f) ? (uint32_t)v : 0;
    printf("cast %08lx: int %ld uint %lu\n", (unsigned long)f2u(v), (long)si, (unsigned long)ui);
    mix((uint32_t)si); mix(ui);
  }
  volatile int32_t iv = -123456789;
  volatile uint32_t uv = 4000000001u;
  show("(float)int", f2u((float)iv));
  show("(float)uint", f2u((float)uv));
  return finish("fp_convert");
}
