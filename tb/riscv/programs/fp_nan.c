/* NaN and infinity semantics of the F extension: canonical NaN (0x7fc00000) from invalid
 * operations and from any NaN input to arithmetic, sNaN inputs raising NV, fmin.s/fmax.s with
 * one or two NaNs (the other operand wins; two NaNs give canonical NaN) and with +0/-0, feq.s
 * (quiet: NV only for sNaN) vs flt.s/fle.s (signalling: NV for any NaN), fclass.s of every class,
 * and that fsgnj.s, fmv.x.w, fmv.w.x, flw and fsw move NaN payloads bit-exactly. */
#include "testlib.h"

#define BIN(insn, a, b) ({ float r_; clear_fflags(); __asm__ volatile(insn " %0, %1, %2" : "=f"(r_) : "f"(a), "f"(b)); r_; })
#define CMP(insn, a, b) ({ uint32_t r_; clear_fflags(); __asm__ volatile(insn " %0, %1, %2" : "=r"(r_) : "f"(a), "f"(b)); r_; })

static const uint32_t specials[] = {
    0x7fc00000, /* canonical qNaN */
    0xffc00000, /* negative qNaN */
    0x7fc12345, /* qNaN with payload */
    0x7f800001, /* sNaN */
    0xff812345, /* negative sNaN with payload */
    0x7f800000, /* +inf */
    0xff800000, /* -inf */
    0x00000000, /* +0 */
    0x80000000, /* -0 */
    0x3f800000, /* 1 */
    0xbf800000, /* -1 */
    0x00000001, /* min subnormal */
    0x807fffff, /* max negative subnormal */
    0x7f7fffff, /* FLT_MAX */
};
#define NS (sizeof specials / sizeof specials[0])

int main(void) {
  static const char* const ops[] = {"fadd.s", "fsub.s", "fmul.s", "fdiv.s", "fmin.s", "fmax.s",
                                    "fsgnj.s", "fsgnjn.s", "fsgnjx.s"};
  for (unsigned i = 0; i < NS; i++)
    for (unsigned j = 0; j < NS; j++) {
      float a = u2f(specials[i]), b = u2f(specials[j]);
      float r[9];
      uint32_t f[9];
      r[0] = BIN("fadd.s", a, b); f[0] = get_fflags();
      r[1] = BIN("fsub.s", a, b); f[1] = get_fflags();
      r[2] = BIN("fmul.s", a, b); f[2] = get_fflags();
      r[3] = BIN("fdiv.s", a, b); f[3] = get_fflags();
      r[4] = BIN("fmin.s", a, b); f[4] = get_fflags();
      r[5] = BIN("fmax.s", a, b); f[5] = get_fflags();
      r[6] = BIN("fsgnj.s", a, b); f[6] = get_fflags();
      r[7] = BIN("fsgnjn.s", a, b); f[7] = get_fflags();
      r[8] = BIN("fsgnjx.s", a, b); f[8] = get_fflags();
      uint32_t eq = CMP("feq.s", a, b), feq = get_fflags();
      uint32_t lt = CMP("flt.s", a, b), flt = get_fflags();
      uint32_t le = CMP("fle.s", a, b), fle = get_fflags();
      printf("%08lx %08lx:", (unsigned long)specials[i], (unsigned long)specials[j]);
      for (int k = 0; k < 9; k++) {
        printf(" %s=%08lx/%02lx", ops[k] + 1, (unsigned long)f2u(r[k]), (unsigned long)f[k]);
        mix(f2u(r[k])); mix(f[k]);
      }
      printf(" eq=%lu/%02lx lt=%lu/%02lx le=%lu/%02lx\n", (unsigned long)eq, (unsigned long)feq,
             (unsigned long)lt, (unsigned long)flt, (unsigned long)le, (unsigned long)fle);
      mix(eq | lt << 1 | le << 2); mix(feq | flt << 5 | fle << 10);
    }
  /* fclass.s: one value of each of the ten classes, plus a few more */
  static const uint32_t cls[] = {0xff800000, 0xbf800000, 0x807fffff, 0x80000000, 0x00000000, 0x00000001,
                                 0x3f800000, 0x7f800000, 0x7f800001, 0x7fc00000, 0xffffffff, 0x7fbfffff,
                                 0x00800000, 0x80800000, 0xff7fffff};
  for (unsigned i = 0; i < sizeof cls / sizeof cls[0]; i++) {
    uint32_t c;
    clear_fflags();
    __asm__ volatile("fclass.s %0, %1" : "=r"(c) : "f"(u2f(cls[i])));
    printf("fclass %08lx = 0x%03lx flags %02lx\n", (unsigned long)cls[i], (unsigned long)c, (unsigned long)get_fflags());
    mix(c);
  }
  /* unary ops on NaNs: fsqrt of NaN/negative, fmv keeps payloads */
  for (unsigned i = 0; i < NS; i++) {
    float a = u2f(specials[i]), r;
    clear_fflags();
    __asm__ volatile("fsqrt.s %0, %1" : "=f"(r) : "f"(a));
    uint32_t fl = get_fflags();
    uint32_t mvx;
    float back;
    __asm__ volatile("fmv.x.w %0, %1" : "=r"(mvx) : "f"(a));
    __asm__ volatile("fmv.w.x %0, %1" : "=f"(back) : "r"(specials[i]));
    volatile float mem = a;
    float neg;
    __asm__ volatile("fneg.s %0, %1" : "=f"(neg) : "f"(a));
    float ab;
    __asm__ volatile("fabs.s %0, %1" : "=f"(ab) : "f"(a));
    printf("unary %08lx: sqrt %08lx/%02lx mv.x %08lx mv.w %08lx mem %08lx neg %08lx abs %08lx\n",
           (unsigned long)specials[i], (unsigned long)f2u(r), (unsigned long)fl, (unsigned long)mvx,
           (unsigned long)f2u(back), (unsigned long)f2u(mem), (unsigned long)f2u(neg), (unsigned long)f2u(ab));
    mix(f2u(r)); mix(fl); mix(mvx); mix(f2u(back)); mix(f2u(neg)); mix(f2u(ab));
  }
  /* inf - inf, 0 * inf, 0/0, inf/inf: all NV + canonical NaN */
  show("inf-inf", f2u(BIN("fsub.s", u2f(0x7f800000), u2f(0x7f800000))));
  show("  flags", get_fflags());
  show("0*inf", f2u(BIN("fmul.s", u2f(0), u2f(0x7f800000))));
  show("  flags", get_fflags());
  show("0/0", f2u(BIN("fdiv.s", u2f(0), u2f(0))));
  show("  flags", get_fflags());
  show("1/0", f2u(BIN("fdiv.s", u2f(0x3f800000), u2f(0))));
  show("  flags", get_fflags());
  show("-1/-0", f2u(BIN("fdiv.s", u2f(0xbf800000), u2f(0x80000000))));
  show("  flags", get_fflags());
  /* accrued flags: several ops without clearing */
  clear_fflags();
  float t;
  __asm__ volatile("fdiv.s %0, %1, %2" : "=f"(t) : "f"(1.0f), "f"(0.0f));
  __asm__ volatile("fadd.s %0, %1, %2" : "=f"(t) : "f"(u2f(0x7f7fffff)), "f"(u2f(0x7f7fffff)));
  show("accrued DZ|OF|NX", get_fflags());
  return finish("fp_nan");
}
