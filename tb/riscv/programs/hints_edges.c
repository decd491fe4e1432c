/* Encoding corner cases that must behave as the spec says: HINT encodings (writes to x0 in the
 * base ISA and in RVC: c.nop with an immediate, c.addi with imm 0, c.li/c.lui/c.mv/c.add/c.slli
 * with rd = x0, c.slli by 0) executing as no-ops; loads into x0 still being harmless; jalr
 * clearing bit 0 of the target, jalr and c.jalr with rd == rs1 (target uses the old value),
 * fence variants (fence.tso, pause, fence with pred/succ sets) and fence.i as no-ops, and a
 * 32-bit instruction whose halves lie on two 4 KiB pages. Raw
 * .hword/.word encodings are used where the assembler would refuse a HINT. */
#include "testlib.h"

int main(void) {
  uint32_t a = 0x1234, b = 0x5678, z;
  /* base-ISA HINTs: rd = x0 */
  __asm__ volatile(
      "addi x0, %1, 5\n"
      "add x0, %1, %2\n"
      "slli x0, %1, 3\n"
      "lui x0, 0x12345\n"
      "auipc x0, 0x1\n"
      "slti x0, %1, 7\n"
      "mv %0, x0\n"
      : "=r"(z)
      : "r"(a), "r"(b));
  show("x0 after base hints", z);
  /* loads into x0 */
  volatile uint32_t word = 0xdeadbeef;
  __asm__ volatile("lw x0, 0(%1)\n lbu x0, 1(%1)\n mv %0, x0" : "=r"(z) : "r"(&word) : "memory");
  show("x0 after loads", z);
  /* RVC HINTs, as raw halfwords:
   *   0x0005 c.nop 1 (imm != 0)      0x0381 c.addi x7, 0       0x4015 c.li x0, 5
   *   0x6005 c.lui x0, 1             0x801e c.mv x0, x7        0x901e c.add x0, x7
   *   0x000e c.slli x0, 3            0x0382 c.slli x7, 0 (shamt 0 on RV32C is a HINT) */
  uint32_t t7;
  __asm__ volatile(
      "li t2, 0x777\n"
      ".balign 4\n"
      ".hword 0x0005\n"
      ".hword 0x0381\n"
      ".hword 0x4015\n"
      ".hword 0x6005\n"
      ".hword 0x801e\n"
      ".hword 0x901e\n"
      ".hword 0x000e\n"
      ".hword 0x0382\n"
      "mv %0, t2\n"
      "mv %1, x0\n"
      : "=r"(t7), "=r"(z)
      :
      : "t2");
  show("t2 after rvc hints", t7);
  show("x0 after rvc hints", z);
  /* jalr clears bit 0 of the computed target */
  uint32_t hit = 0;
  __asm__ volatile(
      "la t0, 1f\n"
      "addi t0, t0, 1\n" /* odd address */
      "jalr t1, 0(t0)\n"
      "li %0, 99\n"
      "j 2f\n"
      ".balign 4\n"
      "1: li %0, 1\n"
      "2:\n"
      : "=r"(hit)
      :
      : "t0", "t1");
  show("jalr odd target", hit);
  /* jalr with an odd immediate */
  __asm__ volatile(
      "la t0, 1f\n"
      "jalr t1, 1(t0)\n"
      "li %0, 98\n"
      "j 2f\n"
      ".balign 4\n"
      "1: li %0, 2\n"
      "2:\n"
      : "=r"(hit)
      :
      : "t0", "t1");
  show("jalr odd imm", hit);
  /* jalr rd == rs1: jump to the old value, then rd holds the link */
  uint32_t link_ok = 0;
  __asm__ volatile(
      ".option push\n.option norvc\n"
      "la t0, 1f\n"
      "jalr t0, 0(t0)\n"
      "3: li %0, 97\n"
      "j 2f\n"
      "1: la t1, 3b\n"
      "sub t1, t1, t0\n"
      "seqz %0, t1\n"
      "2:\n"
      ".option pop\n"
      : "=r"(link_ok)
      :
      : "t0", "t1");
  show("jalr rd==rs1 link", link_ok);
  /* c.jalr ra: the target is the old ra, the link is pc + 2 */
  __asm__ volatile(
      ".option push\n.option rvc\n"
      "mv t2, ra\n"
      "la ra, 1f\n"
      "c.jalr ra\n"
      "3: li %0, 96\n"
      "j 2f\n"
      "1: la t1, 3b\n"
      "sub t1, t1, ra\n"
      "seqz %0, t1\n"
      "2: mv ra, t2\n"
      ".option pop\n"
      : "=r"(link_ok)
      :
      : "t1", "t2", "ra");
  show("c.jalr ra link", link_ok);
  /* jal x0 (j) and jal with rd != ra */
  uint32_t l1 = 0, l2 = 0;
  __asm__ volatile(
      ".option push\n.option norvc\n"
      "jal t0, 1f\n"
      "1: auipc t1, 0\n"
      "sub %0, t1, t0\n"
      "jal x0, 2f\n"
      "li %1, 5\n"
      "2:\n"
      ".option pop\n"
      : "=r"(l1), "+r"(l2)
      :
      : "t0", "t1");
  show("jal t0 link delta", l1);
  show("j skipped", l2);
  /* fences */
  __asm__ volatile(
      "fence\n"
      "fence rw, rw\n"
      "fence r, w\n"
      "fence iorw, iorw\n"
      ".word 0x8330000f\n" /* fence.tso */
      ".word 0x0100000f\n" /* pause (fence w, 0) */
      ".word 0x0000100f\n" /* fence.i */
      ::: "memory");
  show("after fences", 1);
  /* a computed loop that keeps re-executing the same code after fence.i */
  uint32_t acc = 0;
  for (uint32_t k = 0; k < 100; k++) {
    __asm__ volatile(".word 0x0000100f" ::: "memory");
    acc = acc * 7 + k;
  }
  show("loop with fence.i", acc);
  /* a 32-bit instruction straddling a 4 KiB boundary: 2047 c.nop after a page-aligned start */
  uint32_t straddle = 0;
  __asm__ volatile(
      ".option push\n.option rvc\n"
      "j 1f\n"
      ".balign 4096\n"
      "1:\n"
      ".rept 2047\n c.nop\n .endr\n"
      ".option norvc\n"
      "lui %0, 0x54321\n"
      "addi %0, %0, 0x123\n"
      ".option pop\n"
      : "=r"(straddle));
  show("straddling instruction", straddle);
  return finish("hints_edges");
}
