/* A extension read-modify-write: every amo*.w (swap, add, and, or, xor, min, max, minu, maxu)
 * with and without .aq/.rl, on operands at the signed/unsigned boundaries; each prints the old
 * value returned in rd and the new memory value. Also rd = x0, rd == rs2, rd == rs1 and
 * rs2 = x0 forms. */
#include "testlib.h"

static volatile uint32_t cell;
static volatile uint32_t vals[] = {0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0x12345678, 0xfffffffe, 0x80000001};
#define NV (sizeof vals / sizeof vals[0])

#define AMO(op, init, src)                                                                        \
  do {                                                                                            \
    cell = (init);                                                                                \
    uint32_t old_;                                                                                \
    __asm__ volatile(op " %0, %2, (%1)" : "=&r"(old_) : "r"(&cell), "r"(src) : "memory");        \
    printf("%-14s mem %08lx src %08lx -> old %08lx new %08lx\n", op, (unsigned long)(init),      \
           (unsigned long)(src), (unsigned long)old_, (unsigned long)cell);                      \
    mix(old_); mix(cell);                                                                         \
  } while (0)

int main(void) {
  for (unsigned i = 0; i < NV; i++)
    for (unsigned j = 0; j < NV; j++) {
      uint32_t a = vals[i], b = vals[j];
      AMO("amoswap.w", a, b);
      AMO("amoadd.w", a, b);
      AMO("amoand.w", a, b);
      AMO("amoor.w", a, b);
      AMO("amoxor.w", a, b);
      AMO("amomin.w", a, b);
      AMO("amomax.w", a, b);
      AMO("amominu.w", a, b);
      AMO("amomaxu.w", a, b);
    }
  AMO("amoadd.w.aq", 5u, 6u);
  AMO("amoadd.w.rl", 5u, 7u);
  AMO("amoadd.w.aqrl", 5u, 8u);
  AMO("amoswap.w.aqrl", 5u, 9u);
  AMO("amomaxu.w.aq", 5u, 0xf0000000u);
  /* rd = x0: memory still updated */
  cell = 40;
  __asm__ volatile("amoadd.w x0, %1, (%0)" ::"r"(&cell), "r"(2u) : "memory");
  show("amoadd rd=x0", cell);
  /* rd == rs2: the old value wins in rd, memory gets the operand */
  cell = 100;
  uint32_t r = 23;
  __asm__ volatile("amoswap.w %0, %0, (%1)" : "+r"(r) : "r"(&cell) : "memory");
  show("amoswap rd=rs2 rd", r);
  show("amoswap rd=rs2 mem", cell);
  /* rd == rs1: the address comes from the old register value, rd then gets the old memory */
  cell = 0x1000;
  uint32_t reg = (uint32_t)(uintptr_t)&cell;
  __asm__ volatile("amoadd.w %0, %1, (%0)" : "+r"(reg) : "r"(5u) : "memory");
  show("amoadd rd=rs1 rd", reg);
  show("amoadd rd=rs1 mem", cell);
  /* rs2 = x0: amoswap stores zero, amoor leaves memory alone */
  cell = 0xabcd;
  __asm__ volatile("amoswap.w %0, x0, (%1)" : "=r"(r) : "r"(&cell) : "memory");
  show("amoswap x0 old", r);
  show("amoswap x0 mem", cell);
  cell = 0x1357;
  __asm__ volatile("amoor.w %0, x0, (%1)" : "=r"(r) : "r"(&cell) : "memory");
  show("amoor x0 mem", cell);
  /* a counter incremented many times */
  cell = 0;
  for (int k = 0; k < 1000; k++) __asm__ volatile("amoadd.w x0, %1, (%0)" ::"r"(&cell), "r"((uint32_t)k) : "memory");
  show("sum 0..999", cell);
  return finish("amo");
}
