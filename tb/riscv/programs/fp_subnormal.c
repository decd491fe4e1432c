/* Subnormal numbers and the edges of the exponent range: arithmetic producing and consuming
 * subnormals (no flush-to-zero), underflow detected after rounding (RISC-V tininess rule) with
 * UF only when also inexact, the overflow threshold in every rounding mode (to inf or FLT_MAX),
 * and scaling loops that walk a value down through the subnormals to zero and back up. */
#include "testlib.h"

#define OP2(insn, rm, a, b) ({ float r_; clear_fflags(); __asm__ volatile(insn " %0, %1, %2, " rm : "=f"(r_) : "f"(a), "f"(b)); r_; })

static const char* const rmname[] = {"rne", "rtz", "rdn", "rup", "rmm"};

static void five(const char* what, const char* insn, uint32_t ua, uint32_t ub) {
  float a = u2f(ua), b = u2f(ub), r[5];
  uint32_t f[5];
  if (insn[1] == 'm') {
    r[0] = OP2("fmul.s", "rne", a, b); f[0] = get_fflags();
    r[1] = OP2("fmul.s", "rtz", a, b); f[1] = get_fflags();
    r[2] = OP2("fmul.s", "rdn", a, b); f[2] = get_fflags();
    r[3] = OP2("fmul.s", "rup", a, b); f[3] = get_fflags();
    r[4] = OP2("fmul.s", "rmm", a, b); f[4] = get_fflags();
  } else if (insn[1] == 'd') {
    r[0] = OP2("fdiv.s", "rne", a, b); f[0] = get_fflags();
    r[1] = OP2("fdiv.s", "rtz", a, b); f[1] = get_fflags();
    r[2] = OP2("fdiv.s", "rdn", a, b); f[2] = get_fflags();
    r[3] = OP2("fdiv.s", "rup", a, b); f[3] = get_fflags();
    r[4] = OP2("fdiv.s", "rmm", a, b); f[4] = get_fflags();
  } else {
    r[0] = OP2("fadd.s", "rne", a, b); f[0] = get_fflags();
    r[1] = OP2("fadd.s", "rtz", a, b); f[1] = get_fflags();
    r[2] = OP2("fadd.s", "rdn", a, b); f[2] = get_fflags();
    r[3] = OP2("fadd.s", "rup", a, b); f[3] = get_fflags();
    r[4] = OP2("fadd.s", "rmm", a, b); f[4] = get_fflags();
  }
  printf("%-22s %s %08lx %08lx:", what, insn, (unsigned long)ua, (unsigned long)ub);
  for (int k = 0; k < 5; k++) {
    printf(" %s %08lx/%02lx", rmname[k], (unsigned long)f2u(r[k]), (unsigned long)f[k]);
    mix(f2u(r[k])); mix(f[k]);
  }
  printf("\n");
}

int main(void) {
  five("min_normal/2", "fmul", 0x00800000, 0x3f000000);
  five("min_normal*0.75", "fmul", 0x00800000, 0x3f400000);
  five("(min_normal+u)*0.5", "fmul", 0x00800001, 0x3f000000);
  five("min_sub*0.5", "fmul", 0x00000001, 0x3f000000);
  five("min_sub*0.75", "fmul", 0x00000001, 0x3f400000);
  five("min_sub*-0.25", "fmul", 0x00000001, 0xbe800000);
  five("max_sub*2", "fmul", 0x007fffff, 0x40000000);
  five("max_sub+min_sub", "fadd", 0x007fffff, 0x00000001);
  five("sub+sub", "fadd", 0x00400000, 0x00400001);
  five("sub-sub", "fadd", 0x00400000, 0x80400001);
  five("tiny-before-round", "fmul", 0x3f7fffff, 0x00800000); /* rounds up to min normal in rne */
  five("tiny-before-round-2", "fmul", 0x3f7ffffe, 0x00800001);
  five("1/FLT_MAX", "fdiv", 0x3f800000, 0x7f7fffff);
  five("min_sub/3", "fdiv", 0x00000003, 0x40400000);
  five("max*2", "fmul", 0x7f7fffff, 0x40000000);
  five("-max*2", "fmul", 0xff7fffff, 0x40000000);
  five("max*(1+u)", "fmul", 0x7f7fffff, 0x3f800001);
  five("max+halfulp", "fadd", 0x7f7fffff, 0x73000000);
  five("big/tiny", "fdiv", 0x7f000000, 0x00800000);
  five("-big/tiny", "fdiv", 0xff000000, 0x00000001);

  /* walk down by halving until zero, counting steps, then back up */
  float v = 3.0f;
  int steps = 0;
  uint32_t trail = 0;
  while (v != 0.0f && steps < 400) {
    v = v * 0.5f;
    trail = trail * 33 + f2u(v);
    steps++;
  }
  show("halvings to zero", (uint32_t)steps);
  show("halving trail", trail);
  float w = u2f(0x00000001);
  steps = 0;
  while (w < 1e30f) {
    w = w * 3.0f;
    steps++;
  }
  show("triplings to 1e30", (uint32_t)steps);
  show("tripled value", f2u(w));
  /* sums of subnormals */
  float acc = 0.0f;
  for (uint32_t k = 1; k < 2000; k++) acc += u2f(k * 977u);
  show("subnormal sum", f2u(acc));
  /* comparison and classification of subnormals */
  uint32_t lt, c;
  __asm__ volatile("flt.s %0, %1, %2" : "=r"(lt) : "f"(u2f(0x00000001)), "f"(u2f(0x00000002)));
  __asm__ volatile("fclass.s %0, %1" : "=r"(c) : "f"(u2f(0x00400000)));
  show("flt sub", lt);
  show("fclass sub", c);
  return finish("fp_subnormal");
}
