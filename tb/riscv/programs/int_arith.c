/* Integer arithmetic, comparisons and shifts: wrap-around add/sub, slt/sltu with immediates,
 * register shift amounts >= 32 (only the low 5 bits count), sra of negative values, lui/auipc-
 * sized constants. Uses inline asm where C would be undefined (over-wide shifts). */
#include "testlib.h"

#define RR(op, a, b) ({ uint32_t r_; __asm__ volatile(op " %0, %1, %2" : "=r"(r_) : "r"(a), "r"(b)); r_; })
#define RI(op, a, imm) ({ uint32_t r_; __asm__ volatile(op " %0, %1, %2" : "=r"(r_) : "r"(a), "i"(imm)); r_; })

static volatile uint32_t vals[] = {0, 1, 2, 0x7fffffff, 0x80000000, 0xffffffff, 0x12345678, 0x87654321,
                                   0xfffff800, 0x7ff, 0x800, 0xaaaaaaaa};
#define NV (sizeof vals / sizeof vals[0])
static volatile uint32_t shamts[] = {0, 1, 5, 31, 32, 33, 63, 64, 0xffffffe1, 0x80000004, 100};
#define NS (sizeof shamts / sizeof shamts[0])

int main(void) {
  char name[48];
  for (unsigned i = 0; i < NV; i++) {
    uint32_t a = vals[i];
    for (unsigned j = 0; j < NS; j++) {
      uint32_t s = shamts[j];
      uint32_t l = RR("sll", a, s), r = RR("srl", a, s), q = RR("sra", a, s);
      printf("shift %08lx by %lu: sll %08lx srl %08lx sra %08lx\n", (unsigned long)a, (unsigned long)s,
             (unsigned long)l, (unsigned long)r, (unsigned long)q);
      mix(l); mix(r); mix(q);
    }
    sprintf(name, "slli31(%08lx)", (unsigned long)a); show(name, RI("slli", a, 31));
    sprintf(name, "srli31(%08lx)", (unsigned long)a); show(name, RI("srli", a, 31));
    sprintf(name, "srai31(%08lx)", (unsigned long)a); show(name, RI("srai", a, 31));
    sprintf(name, "srai7(%08lx)", (unsigned long)a); show(name, RI("srai", a, 7));
  }
  for (unsigned i = 0; i < NV; i++)
    for (unsigned j = 0; j < NV; j++) {
      uint32_t a = vals[i], b = vals[j];
      uint32_t add = RR("add", a, b), sub = RR("sub", a, b), x = RR("xor", a, b), o = RR("or", a, b),
               n = RR("and", a, b), lt = RR("slt", a, b), ltu = RR("sltu", a, b);
      printf("%08lx %08lx: add %08lx sub %08lx xor %08lx or %08lx and %08lx slt %lu sltu %lu\n",
             (unsigned long)a, (unsigned long)b, (unsigned long)add, (unsigned long)sub, (unsigned long)x,
             (unsigned long)o, (unsigned long)n, (unsigned long)lt, (unsigned long)ltu);
      mix(add); mix(sub); mix(x); mix(o); mix(n); mix(lt * 2 + ltu);
    }
  for (unsigned i = 0; i < NV; i++) {
    uint32_t a = vals[i];
    uint32_t r1 = RI("slti", a, -1), r2 = RI("sltiu", a, -1), r3 = RI("slti", a, 2047), r4 = RI("sltiu", a, -2048),
             r5 = RI("xori", a, -1), r6 = RI("andi", a, -2048), r7 = RI("ori", a, 0x555), r8 = RI("addi", a, -2048),
             r9 = RI("sltiu", a, 1);
    printf("imm %08lx: %lu %lu %lu %lu %08lx %08lx %08lx %08lx seqz %lu\n", (unsigned long)a, (unsigned long)r1,
           (unsigned long)r2, (unsigned long)r3, (unsigned long)r4, (unsigned long)r5, (unsigned long)r6,
           (unsigned long)r7, (unsigned long)r8, (unsigned long)r9);
    mix(r1 + r2 * 2 + r3 * 4 + r4 * 8 + r9 * 16); mix(r5); mix(r6); mix(r7); mix(r8);
  }
  uint32_t lui1, lui2, pc1, pc2;
  __asm__ volatile("lui %0, 0xfffff" : "=r"(lui1));
  __asm__ volatile("lui %0, 0x80000" : "=r"(lui2));
  __asm__ volatile("1: auipc %0, 0\n auipc %1, 0x1\n" : "=r"(pc1), "=r"(pc2));
  show("lui 0xfffff", lui1);
  show("lui 0x80000", lui2);
  show("auipc delta", pc2 - pc1);
  /* writes to x0 are discarded */
  uint32_t z;
  __asm__ volatile("addi x0, x0, 5\n mv %0, x0" : "=r"(z));
  show("x0", z);
  /* an arithmetic series with wrap-around */
  uint32_t acc = 0;
  for (uint32_t k = 0; k < 100000; k++) acc = acc * 31u + (k ^ (acc >> 7));
  show("series", acc);
  return finish("int_arith");
}
