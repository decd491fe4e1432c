/* Conditional branches at their boundaries: beq/bne/blt/bge/bltu/bgeu on every pair of a set
 * of signed/unsigned extremes (via inline asm, both taken and not-taken), branches comparing a
 * register with itself and with x0, forward and backward branch offsets, and a long branch that
 * the assembler must relax (target beyond +-4 KiB, so it becomes an inverted branch + jal). */
#include "testlib.h"

#define BR(insn, a, b)                                                                          \
  ({                                                                                            \
    uint32_t t_;                                                                                \
    __asm__ volatile("li %0, 1\n " insn " %1, %2, 1f\n li %0, 0\n1:" : "=&r"(t_) : "r"(a), "r"(b)); \
    t_;                                                                                         \
  })

static volatile uint32_t vals[] = {0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0x80000001, 0xfffffffe, 2};
#define NV (sizeof vals / sizeof vals[0])

int main(void) {
  for (unsigned i = 0; i < NV; i++) {
    printf("%08lx:", (unsigned long)vals[i]);
    for (unsigned j = 0; j < NV; j++) {
      uint32_t a = vals[i], b = vals[j];
      uint32_t bits = BR("beq", a, b) | BR("bne", a, b) << 1 | BR("blt", a, b) << 2 | BR("bge", a, b) << 3 |
                      BR("bltu", a, b) << 4 | BR("bgeu", a, b) << 5;
      printf(" %02lx", (unsigned long)bits);
      mix(bits);
    }
    printf("\n");
  }
  /* pseudo-instructions with x0 */
  uint32_t z = 0, neg = 0xfffffff0, pos = 5, t;
  __asm__ volatile("li %0, 1\n beqz %1, 1f\n li %0, 0\n1:" : "=&r"(t) : "r"(z)); show("beqz 0", t);
  __asm__ volatile("li %0, 1\n bnez %1, 1f\n li %0, 0\n1:" : "=&r"(t) : "r"(z)); show("bnez 0", t);
  __asm__ volatile("li %0, 1\n bltz %1, 1f\n li %0, 0\n1:" : "=&r"(t) : "r"(neg)); show("bltz neg", t);
  __asm__ volatile("li %0, 1\n bgez %1, 1f\n li %0, 0\n1:" : "=&r"(t) : "r"(neg)); show("bgez neg", t);
  __asm__ volatile("li %0, 1\n blez %1, 1f\n li %0, 0\n1:" : "=&r"(t) : "r"(pos)); show("blez pos", t);
  __asm__ volatile("li %0, 1\n bgtz %1, 1f\n li %0, 0\n1:" : "=&r"(t) : "r"(pos)); show("bgtz pos", t);
  __asm__ volatile("li %0, 1\n bgt %1, %2, 1f\n li %0, 0\n1:" : "=&r"(t) : "r"(pos), "r"(neg)); show("bgt", t);
  __asm__ volatile("li %0, 1\n bgtu %1, %2, 1f\n li %0, 0\n1:" : "=&r"(t) : "r"(pos), "r"(neg)); show("bgtu", t);
  __asm__ volatile("li %0, 1\n ble %1, %1, 1f\n li %0, 0\n1:" : "=&r"(t) : "r"(pos)); show("ble self", t);
  /* a backward-branch countdown loop */
  uint32_t n = 1000, acc = 0;
  __asm__ volatile("1: add %1, %1, %0\n addi %0, %0, -1\n bnez %0, 1b" : "+r"(n), "+r"(acc));
  show("countdown sum", acc);
  /* a branch over about 6 KiB of padding (c.nop): the assembler relaxes it into bne + jal */
  uint32_t far;
  __asm__ volatile(
      "li %0, 7\n"
      "beq %0, %0, 2f\n"
      "li %0, 99\n"
      "j 3f\n"
      ".rept 3000\n nop\n .endr\n"
      "2: addi %0, %0, 1\n"
      "3:\n"
      : "=&r"(far));
  show("far branch", far);
  /* data-dependent branches: a collatz walk */
  uint32_t steps = 0, peak = 0;
  for (uint32_t s = 1; s < 3000; s++) {
    uint32_t x = s;
    while (x != 1) {
      x = (x & 1) ? 3 * x + 1 : x >> 1;
      if (x > peak) peak = x;
      steps++;
    }
  }
  show("collatz steps", steps);
  show("collatz peak", peak);
  return finish("branches");
}
