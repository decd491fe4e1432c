/* CSR access: rdcycle/rdcycleh and rdinstret/rdinstreth (time is not read). Their values
 * differ between simulators, so only relations are printed: nonzero, monotonic, instret
 * advancing by at least the number of instructions retired in a known loop, the 64-bit
 * {h, lo, h} read loop agreeing, and the non-writing csrrs/csrrc/csrrsi/csrrci forms being legal
 * on these read-only counters. The floating-point CSRs are deterministic and are printed in
 * full: csrrw/csrrs/csrrc/csrrwi/csrrsi/csrrci on fflags (0x001), frm (0x002) and fcsr (0x003),
 * including writes of bits outside the field (ignored), rd = x0 forms and a csrrw swap with
 * rd == rs1. */
#include "testlib.h"

static uint64_t read64(int which) {
  uint32_t hi, lo, hi2;
  do {
    if (which == 0) {
      __asm__ volatile("rdcycleh %0" : "=r"(hi));
      __asm__ volatile("rdcycle %0" : "=r"(lo));
      __asm__ volatile("rdcycleh %0" : "=r"(hi2));
    } else {
      __asm__ volatile("rdinstreth %0" : "=r"(hi));
      __asm__ volatile("rdinstret %0" : "=r"(lo));
      __asm__ volatile("rdinstreth %0" : "=r"(hi2));
    }
  } while (hi != hi2);
  return ((uint64_t)hi << 32) | lo;
}

int main(void) {
  uint32_t c0, c1, i0, i1;
  __asm__ volatile("rdcycle %0" : "=r"(c0));
  __asm__ volatile("rdinstret %0" : "=r"(i0));
  volatile uint32_t sink = 0;
  for (int k = 0; k < 10000; k++) sink += (uint32_t)k;
  __asm__ volatile("rdcycle %0" : "=r"(c1));
  __asm__ volatile("rdinstret %0" : "=r"(i1));
  show("cycle nonzero", c1 != 0 || c0 != 0);
  show("cycle advanced", c1 - c0 > 0 && c1 - c0 < 0x80000000u);
  show("instret nonzero", i1 != 0);
  /* the loop is at least 3 instructions per iteration (load, add, store, index, branch) */
  show("instret >= 30000 over loop", i1 - i0 >= 30000 && i1 - i0 < 0x80000000u);
  uint64_t a = read64(0), b = read64(0);
  show("cycle64 monotonic", b >= a);
  uint64_t x = read64(1), y = read64(1);
  show("instret64 monotonic", y > x);
  /* csrr by number, the same counters through the generic form */
  uint32_t n0, n1;
  __asm__ volatile("csrr %0, 0xc02" : "=r"(n0));
  __asm__ volatile("csrr %0, 0xc02" : "=r"(n1));
  show("csrr instret advances", n1 > n0);

  /* read-only counters through the set/clear forms that do not write (rs1 = x0 / uimm = 0) */
  uint32_t ro1, ro2, ro3, ro4;
  __asm__ volatile("csrrs %0, cycle, x0" : "=r"(ro1));
  __asm__ volatile("csrrc %0, instret, x0" : "=r"(ro2));
  __asm__ volatile("csrrsi %0, cycleh, 0" : "=r"(ro3));
  __asm__ volatile("csrrci %0, instreth, 0" : "=r"(ro4));
  (void)ro3;
  (void)ro4;
  show("read-only forms ok", ro1 != 0 && ro2 != 0);

  /* floating-point CSRs */
  uint32_t old;
  __asm__ volatile("csrrw %0, fcsr, %1" : "=r"(old) : "r"(0xffffffffu));
  show("fcsr initial", old);
  show("fcsr after write ones", get_fcsr()); /* only bits 7:0 are kept */
  __asm__ volatile("csrrc %0, fflags, %1" : "=r"(old) : "r"(0x05u));
  show("fflags before csrrc", old);
  show("fflags after clearing NX|OF", get_fflags());
  show("frm unchanged", get_frm());
  __asm__ volatile("csrrwi %0, frm, 2" : "=r"(old));
  show("frm before csrrwi", old);
  show("fcsr now", get_fcsr());
  __asm__ volatile("csrrsi %0, frm, 4" : "=r"(old));
  show("frm before csrrsi", old);
  __asm__ volatile("csrrci %0, fflags, 0x1f" : "=r"(old));
  show("fflags before csrrci", old);
  show("fcsr now 2", get_fcsr());
  __asm__ volatile("csrrs %0, fcsr, %1" : "=r"(old) : "r"(0x11u));
  show("fcsr before csrrs", old);
  show("fcsr after csrrs", get_fcsr());
  __asm__ volatile("csrw fflags, %0" ::"r"(0xffu)); /* upper bits ignored */
  show("fflags after csrw 0xff", get_fflags());
  show("fcsr full", get_fcsr());
  __asm__ volatile("csrwi fcsr, 0");
  show("fcsr zeroed", get_fcsr());
  /* csrrs with rs1 = x0 only reads */
  __asm__ volatile("csrrs %0, fcsr, x0" : "=r"(old));
  show("csrrs x0 read", old);
  /* flags set by an instruction are visible through every view */
  float r;
  __asm__ volatile("fdiv.s %0, %1, %2" : "=f"(r) : "f"(1.0f), "f"(0.0f));
  __asm__ volatile("csrr %0, 0x001" : "=r"(old));
  show("fflags via 0x001", old);
  __asm__ volatile("csrr %0, 0x003" : "=r"(old));
  show("fcsr via 0x003", old);
  set_fcsr(0);
  /* csrrw with rd == rs1: a swap */
  uint32_t swapv = 0x41; /* frm 2, NX */
  __asm__ volatile("csrrw %0, fcsr, %0" : "+r"(swapv));
  show("swap old", swapv);
  swapv = 0;
  __asm__ volatile("csrrw %0, fcsr, %0" : "+r"(swapv));
  show("swap back", swapv);
  (void)sink;
  return finish("csr");
}
