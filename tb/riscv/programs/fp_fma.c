/* Fused multiply-add: fmadd.s, fmsub.s, fnmadd.s, fnmsub.s with a single rounding (checked on
 * products whose exact value separates fused from unfused results), in every static rounding
 * mode; inf*0 + x (NV, even when x is a quiet NaN per RISC-V), NaN propagation, signs of exact
 * zero results, overflow and underflow; rm = dyn under every frm; and a dot product C loop
 * that GCC contracts to fmadd. */
#include "testlib.h"

#define FMA(insn, rm, a, b, c)                                                                   \
  ({                                                                                             \
    float r_;                                                                                    \
    clear_fflags();                                                                              \
    __asm__ volatile(insn " %0, %1, %2, %3, " rm : "=f"(r_) : "f"(a), "f"(b), "f"(c));           \
    r_;                                                                                          \
  })

static const uint32_t triples[][3] = {
    {0x3f800001, 0x3f800001, 0xbf800002}, /* (1+u)^2 - (1+2u) = u^2: only fused sees it */
    {0x3f800001, 0x3f7fffff, 0xbf800000},
    {0x40490fdb, 0x40490fdb, 0xc11de9e7}, /* pi*pi - 9.8696 */
    {0x3f800000, 0x3f800000, 0xbf800000}, /* exact zero */
    {0xbf800000, 0x3f800000, 0x3f800000},
    {0x00000000, 0x3f800000, 0x80000000}, /* +0 + -0 */
    {0x80000000, 0x3f800000, 0x80000000}, /* -0 + -0 */
    {0x7f800000, 0x00000000, 0x3f800000}, /* inf * 0 + 1: NV */
    {0x7f800000, 0x00000000, 0x7fc00000}, /* inf * 0 + qNaN: NV too */
    {0x7fc00000, 0x3f800000, 0x3f800000}, /* NaN input */
    {0x3f800000, 0x3f800000, 0x7f800001}, /* sNaN addend */
    {0x7f800000, 0x3f800000, 0xff800000}, /* inf - inf */
    {0x7f7fffff, 0x40000000, 0x00000000}, /* overflow */
    {0x7f7fffff, 0x40000000, 0xff7fffff}, /* no overflow when fused */
    {0x00800000, 0x3f000000, 0x00000000}, /* subnormal result, exact */
    {0x00800001, 0x3f000000, 0x00000000}, /* subnormal result, inexact: UF */
    {0x1e3ce508, 0x1e3ce508, 0x00000001}, /* tiny product + min subnormal */
    {0x4b7fffff, 0x3f800001, 0xcb800000},
    {0x3eaaaaab, 0x40400000, 0xbf800000}, /* 3*(1/3) - 1 */
    {0xc0a00000, 0x3e4ccccd, 0x3f800000}, /* -5*0.2 + 1 */
};
#define NT (sizeof triples / sizeof triples[0])

static const char* const ops[] = {"fmadd.s", "fmsub.s", "fnmadd.s", "fnmsub.s"};

#define MODES(insn, a, b, c)                                                          \
  do {                                                                                \
    float r_[5]; uint32_t f_[5];                                                      \
    r_[0] = FMA(insn, "rne", a, b, c); f_[0] = get_fflags();                          \
    r_[1] = FMA(insn, "rtz", a, b, c); f_[1] = get_fflags();                          \
    r_[2] = FMA(insn, "rdn", a, b, c); f_[2] = get_fflags();                          \
    r_[3] = FMA(insn, "rup", a, b, c); f_[3] = get_fflags();                          \
    r_[4] = FMA(insn, "rmm", a, b, c); f_[4] = get_fflags();                          \
    printf("%-8s", insn);                                                             \
    for (int k_ = 0; k_ < 5; k_++) {                                                  \
      printf(" %08lx/%02lx", (unsigned long)f2u(r_[k_]), (unsigned long)f_[k_]);      \
      mix(f2u(r_[k_])); mix(f_[k_]);                                                  \
    }                                                                                 \
    printf("\n");                                                                     \
  } while (0)

int main(void) {
  (void)ops;
  for (unsigned i = 0; i < NT; i++) {
    float a = u2f(triples[i][0]), b = u2f(triples[i][1]), c = u2f(triples[i][2]);
    printf("(%08lx * %08lx) + %08lx   [rne rtz rdn rup rmm]\n", (unsigned long)triples[i][0],
           (unsigned long)triples[i][1], (unsigned long)triples[i][2]);
    MODES("fmadd.s", a, b, c);
    MODES("fmsub.s", a, b, c);
    MODES("fnmadd.s", a, b, c);
    MODES("fnmsub.s", a, b, c);
    /* the unfused result, for contrast */
    float p, s;
    clear_fflags();
    __asm__ volatile("fmul.s %0, %2, %3\n fadd.s %1, %0, %4" : "=&f"(p), "=f"(s) : "f"(a), "f"(b), "f"(c));
    printf("unfused  %08lx/%02lx\n", (unsigned long)f2u(s), (unsigned long)get_fflags());
    mix(f2u(s));
  }
  /* rm = dyn under every frm */
  for (uint32_t rm = 0; rm < 5; rm++) {
    set_frm(rm);
    for (unsigned i = 0; i < NT; i += 3) {
      float a = u2f(triples[i][0]), b = u2f(triples[i][1]), c = u2f(triples[i][2]);
      float r1 = FMA("fmadd.s", "dyn", a, b, c); uint32_t f1 = get_fflags();
      float r2 = FMA("fnmsub.s", "dyn", a, b, c); uint32_t f2 = get_fflags();
      printf("dyn frm=%lu #%u: fmadd %08lx/%02lx fnmsub %08lx/%02lx\n", (unsigned long)rm, i,
             (unsigned long)f2u(r1), (unsigned long)f1, (unsigned long)f2u(r2), (unsigned long)f2);
      mix(f2u(r1)); mix(f1); mix(f2u(r2)); mix(f2);
    }
  }
  set_frm(RM_RNE);
  /* a contracted dot product and a Horner polynomial */
  float x[64], y[64];
  for (int i = 0; i < 64; i++) {
    x[i] = (float)(int32_t)(rnd() % 2001 - 1000) / 64.0f;
    y[i] = (float)(int32_t)(rnd() % 2001 - 1000) / 1024.0f + 0.1f;
  }
  float dot = 0.0f;
  for (int i = 0; i < 64; i++) dot += x[i] * y[i];
  show("dot", f2u(dot));
  volatile float t = 0.7f;
  float poly = 0.0f;
  for (int i = 0; i < 64; i++) poly = poly * t + y[i];
  show("horner", f2u(poly));
  show("flags", get_fflags());
  return finish("fp_fma");
}
