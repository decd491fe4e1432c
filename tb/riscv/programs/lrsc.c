/* lr.w/sc.w: success path (sc writes 0 to rd and stores), failure paths that every conforming
 * single-hart implementation must take (sc.w with no reservation at all, a second sc.w after a
 * successful one, sc.w to an address outside the reserved block), aq/rl variants, and a
 * compare-and-swap / atomic-increment loop built from lr/sc. */
#include "testlib.h"

static volatile uint32_t words[64] __attribute__((aligned(64)));

static uint32_t sc(volatile uint32_t* p, uint32_t v) {
  uint32_t rc;
  __asm__ volatile("sc.w %0, %2, (%1)" : "=&r"(rc) : "r"(p), "r"(v) : "memory");
  return rc;
}
static uint32_t lr(volatile uint32_t* p) {
  uint32_t v;
  __asm__ volatile("lr.w %0, (%1)" : "=&r"(v) : "r"(p) : "memory");
  return v;
}

/* Returns 1 when *p was expected and is now desired. */
static int cas(volatile uint32_t* p, uint32_t expected, uint32_t desired) {
  uint32_t old, rc;
  __asm__ volatile(
      "1: lr.w.aq %0, (%2)\n"
      "   bne %0, %3, 2f\n"
      "   sc.w.rl %1, %4, (%2)\n"
      "   bnez %1, 1b\n"
      "2:\n"
      : "=&r"(old), "=&r"(rc)
      : "r"(p), "r"(expected), "r"(desired)
      : "memory");
  return old == expected;
}

static uint32_t fetch_inc(volatile uint32_t* p) {
  uint32_t old, tmp, rc;
  __asm__ volatile(
      "1: lr.w %0, (%3)\n"
      "   addi %1, %0, 1\n"
      "   sc.w %2, %1, (%3)\n"
      "   bnez %2, 1b\n"
      : "=&r"(old), "=&r"(tmp), "=&r"(rc)
      : "r"(p)
      : "memory");
  return old;
}

int main(void) {
  volatile uint32_t* a = &words[0];
  volatile uint32_t* far = &words[32]; /* 128 bytes away: another reservation block */
  *a = 0x1111;
  *far = 0x2222;

  /* 1: sc without any reservation (no lr since reset) must fail and not store */
  uint32_t rc = sc(a, 0xdead);
  show("sc no-lr rc!=0", rc != 0);
  show("sc no-lr mem", *a);

  /* 2: lr then sc to the same address succeeds */
  uint32_t v = lr(a);
  show("lr value", v);
  rc = sc(a, v + 1);
  show("sc success rc", rc);
  show("sc success mem", *a);

  /* 3: a second sc after the successful one fails (reservation consumed) */
  rc = sc(a, 0xbeef);
  show("sc again rc!=0", rc != 0);
  show("sc again mem", *a);

  /* 4: lr on one address, sc to an address outside the reservation fails */
  v = lr(a);
  rc = sc(far, 0x3333);
  show("sc other-addr rc!=0", rc != 0);
  show("sc other-addr far", *far);
  show("sc other-addr a", *a);
  /* and then the reservation is gone for a as well */
  rc = sc(a, 0x4444);
  show("sc after failed rc!=0", rc != 0);
  show("sc after failed a", *a);

  /* 5: aq/rl forms */
  v = 0;
  __asm__ volatile("lr.w.aqrl %0, (%1)" : "=&r"(v) : "r"(a) : "memory");
  __asm__ volatile("sc.w.aqrl %0, %2, (%1)" : "=&r"(rc) : "r"(a), "r"(v * 2) : "memory");
  show("aqrl rc", rc);
  show("aqrl mem", *a);

  /* 6: CAS built from lr/sc */
  words[5] = 10;
  show("cas 10->11 ok", cas(&words[5], 10, 11));
  show("cas 10->12 fails", cas(&words[5], 10, 12));
  show("cas value", words[5]);

  /* 7: atomic increment loop */
  words[7] = 0xfffffff0;
  uint32_t acc = 0;
  for (int k = 0; k < 5000; k++) acc += fetch_inc(&words[7]);
  show("inc final", words[7]);
  show("inc acc", acc);

  /* 8: sc.w with rd == x0 after lr (success, result discarded) */
  words[9] = 1;
  (void)lr(&words[9]);
  __asm__ volatile("sc.w x0, %1, (%0)" ::"r"(&words[9]), "r"(77u) : "memory");
  show("sc rd=x0 mem", words[9]);
  /* 9: lr.w with rd == rs1, then sc.w storing x0 with rd == rs1's register reused */
  words[11] = 0x5555;
  uint32_t reg = (uint32_t)(uintptr_t)&words[11];
  uint32_t addr = reg;
  __asm__ volatile("lr.w %0, (%0)" : "+r"(reg) : : "memory");
  show("lr rd=rs1 value", reg);
  __asm__ volatile("sc.w %0, x0, (%0)" : "+r"(addr) : : "memory");
  show("sc x0 rd=rs1 rc", addr);
  show("sc x0 mem", words[11]);
  return finish("lrsc");
}
