/* F extension rounding: fadd.s/fsub.s/fmul.s/fdiv.s/fsqrt.s with every static rounding mode in
 * the instruction (rne, rtz, rdn, rup, rmm) and with rm = dyn under each frm value set by fsrm,
 * on operands chosen to land on ties and near-ties, with signs both ways; prints result bits and
 * the fflags each operation raised. Also checks that fsrm returns the previous frm. */
#include "testlib.h"

#define OP2(insn, rm, a, b)                                                                   \
  ({                                                                                          \
    float r_;                                                                                 \
    clear_fflags();                                                                           \
    __asm__ volatile(insn " %0, %1, %2, " rm : "=f"(r_) : "f"(a), "f"(b));                    \
    r_;                                                                                       \
  })
#define OP1(insn, rm, a)                                                                      \
  ({                                                                                          \
    float r_;                                                                                 \
    clear_fflags();                                                                           \
    __asm__ volatile(insn " %0, %1, " rm : "=f"(r_) : "f"(a));                                \
    r_;                                                                                       \
  })

static const uint32_t pairs[][2] = {
    {0x3f800000, 0x33800000}, /* 1 + 2^-24: exact tie */
    {0x3f800000, 0x33c00000}, /* 1 + 1.5*2^-24: above tie */
    {0x3f800001, 0x33800000}, /* odd + half ulp: tie to even goes up */
    {0xbf800000, 0xb3800000}, /* negative tie */
    {0xbf800001, 0xb3800000},
    {0x3f800000, 0xb3000000}, /* 1 - 2^-25 */
    {0x40490fdb, 0x402df854}, /* pi, e */
    {0xc0490fdb, 0x402df854},
    {0x7f7fffff, 0x73800000}, /* FLT_MAX + half ulp: overflow or not by mode */
    {0x7f7fffff, 0x7f7fffff}, /* overflow */
    {0xff7fffff, 0xff7fffff},
    {0x00800000, 0x80000001}, /* min normal - min subnormal */
    {0x3eaaaaab, 0x3e2aaaab},
    {0x4b800001, 0x3f800000}, /* 2^24+2 + 1 */
    {0x3f800000, 0xbf800000}, /* exact zero: sign depends on rdn */
    {0x12345678, 0x9abcdef0},
    {0x3fffffff, 0x3fffffff},
    {0x00000003, 0x3e800000}, /* subnormal * 0.25 */
};
#define NP (sizeof pairs / sizeof pairs[0])

static const char* const rmname[] = {"rne", "rtz", "rdn", "rup", "rmm"};

#define ALL_STATIC(insn, a, b)                                                                         \
  do {                                                                                                 \
    float r0 = OP2(insn, "rne", a, b); uint32_t f0 = get_fflags();                                     \
    float r1 = OP2(insn, "rtz", a, b); uint32_t f1 = get_fflags();                                     \
    float r2 = OP2(insn, "rdn", a, b); uint32_t f2 = get_fflags();                                     \
    float r3 = OP2(insn, "rup", a, b); uint32_t f3 = get_fflags();                                     \
    float r4 = OP2(insn, "rmm", a, b); uint32_t f4 = get_fflags();                                     \
    printf("%-6s %08lx %08lx: rne %08lx/%02lx rtz %08lx/%02lx rdn %08lx/%02lx rup %08lx/%02lx rmm %08lx/%02lx\n", \
           insn, (unsigned long)f2u(a), (unsigned long)f2u(b), (unsigned long)f2u(r0), (unsigned long)f0,       \
           (unsigned long)f2u(r1), (unsigned long)f1, (unsigned long)f2u(r2), (unsigned long)f2,               \
           (unsigned long)f2u(r3), (unsigned long)f3, (unsigned long)f2u(r4), (unsigned long)f4);              \
    mix(f2u(r0)); mix(f2u(r1)); mix(f2u(r2)); mix(f2u(r3)); mix(f2u(r4));                              \
    mix(f0 | f1 << 5 | f2 << 10 | f3 << 15 | f4 << 20);                                                \
  } while (0)

int main(void) {
  for (unsigned i = 0; i < NP; i++) {
    float a = u2f(pairs[i][0]), b = u2f(pairs[i][1]);
    ALL_STATIC("fadd.s", a, b);
    ALL_STATIC("fsub.s", a, b);
    ALL_STATIC("fmul.s", a, b);
    ALL_STATIC("fdiv.s", a, b);
  }
  /* sqrt in every mode */
  static const uint32_t sq[] = {0x40000000, 0x40400000, 0x3f800001, 0x7f7fffff, 0x00000001, 0x3f7fffff, 0x4b000001};
  for (unsigned i = 0; i < sizeof sq / sizeof sq[0]; i++) {
    float a = u2f(sq[i]);
    float r[5];
    uint32_t f[5];
    r[0] = OP1("fsqrt.s", "rne", a); f[0] = get_fflags();
    r[1] = OP1("fsqrt.s", "rtz", a); f[1] = get_fflags();
    r[2] = OP1("fsqrt.s", "rdn", a); f[2] = get_fflags();
    r[3] = OP1("fsqrt.s", "rup", a); f[3] = get_fflags();
    r[4] = OP1("fsqrt.s", "rmm", a); f[4] = get_fflags();
    printf("fsqrt.s %08lx:", (unsigned long)f2u(a));
    for (int k = 0; k < 5; k++) {
      printf(" %s %08lx/%02lx", rmname[k], (unsigned long)f2u(r[k]), (unsigned long)f[k]);
      mix(f2u(r[k])); mix(f[k]);
    }
    printf("\n");
  }
  /* dynamic rounding: rm = dyn under every frm */
  for (uint32_t rm = 0; rm < 5; rm++) {
    uint32_t prev;
    __asm__ volatile("fsrm %0, %1" : "=r"(prev) : "r"(rm));
    show("fsrm previous", prev);
    show("frrm", get_frm());
    for (unsigned i = 0; i < NP; i++) {
      float a = u2f(pairs[i][0]), b = u2f(pairs[i][1]);
      float s = OP2("fadd.s", "dyn", a, b); uint32_t fs = get_fflags();
      float m = OP2("fmul.s", "dyn", a, b); uint32_t fm = get_fflags();
      float d = OP2("fdiv.s", "dyn", a, b); uint32_t fd = get_fflags();
      printf("dyn %s %08lx %08lx: add %08lx/%02lx mul %08lx/%02lx div %08lx/%02lx\n", rmname[rm],
             (unsigned long)f2u(a), (unsigned long)f2u(b), (unsigned long)f2u(s), (unsigned long)fs,
             (unsigned long)f2u(m), (unsigned long)fm, (unsigned long)f2u(d), (unsigned long)fd);
      mix(f2u(s)); mix(f2u(m)); mix(f2u(d)); mix(fs | fm << 5 | fd << 10);
    }
    /* C code compiled for dyn rounding follows frm too */
    volatile float x = 1.0f, y = 3.0f;
    show("C 1/3 under frm", f2u(x / y));
  }
  set_frm(RM_RNE);
  /* fsrmi form, and fcsr packing of frm|fflags */
  uint32_t prev;
  __asm__ volatile("fsrmi %0, 3" : "=r"(prev));
  show("fsrmi previous", prev);
  clear_fflags();
  volatile float one = 1.0f, three = 3.0f;
  volatile float q = one / three;
  (void)q;
  show("fcsr after inexact div in rup", get_fcsr());
  set_fcsr(0);
  show("fcsr cleared", get_fcsr());
  return finish("fp_round");
}
