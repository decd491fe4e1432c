/* The C extension, instruction by instruction: inline asm under `.option rvc`, naming each c.*
 * mnemonic explicitly so the assembler must use the 16-bit encoding, for c.li, c.lui,
 * c.addi, c.addi16sp, c.addi4spn, c.slli, c.srli, c.srai, c.andi, c.mv, c.add, c.sub, c.xor,
 * c.or, c.and, c.lw, c.sw, c.lwsp, c.swsp, c.flw, c.fsw, c.flwsp, c.fswsp, c.j, c.jal, c.jr,
 * c.jalr, c.beqz, c.bnez and c.nop, with immediates at their extremes (sign-extended 6-bit
 * immediates, c.lui's 0xfffe0000 form, c.addi16sp +-512). Also a mix of 16- and 32-bit
 * instructions so 32-bit instructions sit at 2-mod-4 addresses. */
#include "testlib.h"

static volatile uint32_t mem[40] __attribute__((aligned(16)));

int main(void) {
  uint32_t r;
  __asm__ volatile(".option push\n.option rvc\n c.li %0, -32\n.option pop" : "=r"(r)); show("c.li -32", r);
  __asm__ volatile(".option push\n.option rvc\n c.li %0, 31\n.option pop" : "=r"(r)); show("c.li 31", r);
  __asm__ volatile(".option push\n.option rvc\n c.lui %0, 1\n.option pop" : "=r"(r)); show("c.lui 1", r);
  __asm__ volatile(".option push\n.option rvc\n c.lui %0, 0x1f\n.option pop" : "=r"(r)); show("c.lui 0x1f", r);
  __asm__ volatile(".option push\n.option rvc\n c.lui %0, 0xfffe0\n.option pop" : "=r"(r)); show("c.lui 0xfffe0", r);
  __asm__ volatile(".option push\n.option rvc\n c.lui %0, 0xfffff\n.option pop" : "=r"(r)); show("c.lui 0xfffff", r);
  r = 100;
  __asm__ volatile(".option push\n.option rvc\n c.addi %0, -32\n.option pop" : "+r"(r)); show("c.addi -32", r);
  __asm__ volatile(".option push\n.option rvc\n c.addi %0, 31\n.option pop" : "+r"(r)); show("c.addi 31", r);
  r = 0x80000001;
  __asm__ volatile(".option push\n.option rvc\n c.slli %0, 31\n.option pop" : "+r"(r)); show("c.slli 31", r);
  r = 0x80000000;
  __asm__ volatile(".option push\n.option rvc\n c.srli %0, 31\n.option pop" : "+r"(r)); show("c.srli 31", r);
  r = 0x80000000;
  __asm__ volatile(".option push\n.option rvc\n c.srai %0, 31\n.option pop" : "+r"(r)); show("c.srai 31", r);
  r = 0x80000000;
  __asm__ volatile(".option push\n.option rvc\n c.srai %0, 1\n.option pop" : "+r"(r)); show("c.srai 1", r);
  r = 0xffffffff;
  __asm__ volatile(".option push\n.option rvc\n c.andi %0, -32\n.option pop" : "+r"(r)); show("c.andi -32", r);
  r = 0xffffffff;
  __asm__ volatile(".option push\n.option rvc\n c.andi %0, 21\n.option pop" : "+r"(r)); show("c.andi 21", r);
  /* register-register forms; CA-format ops need x8..x15, so operands go through a0/a1/s1
   * explicitly inside each asm block (register variables do not survive calls reliably) */
#define CR(insn, x, y)                                                                              \
  ({                                                                                                \
    uint32_t r_;                                                                                    \
    __asm__ volatile("mv a0, %1\n mv a1, %2\n.option push\n.option rvc\n " insn " a0, a1\n"        \
                     ".option pop\n mv %0, a0"                                                      \
                     : "=r"(r_) : "r"(x), "r"(y) : "a0", "a1");                                     \
    r_;                                                                                             \
  })
  {
    uint32_t a = 0x12345678, b = 0x0f0f0f0f;
    uint32_t t;
    __asm__ volatile(".option push\n.option rvc\n c.mv %0, %1\n.option pop" : "=r"(t) : "r"(a)); show("c.mv", t);
    t = a; __asm__ volatile(".option push\n.option rvc\n c.add %0, %1\n.option pop" : "+r"(t) : "r"(b)); show("c.add", t);
    show("c.sub", CR("c.sub", a, b));
    show("c.xor", CR("c.xor", a, b));
    show("c.or", CR("c.or", a, b));
    show("c.and", CR("c.and", a, b));
    show("c.sub wrap", CR("c.sub", 0x80000000u, a));
  }
  /* loads and stores: c.lw/c.sw with the largest offset (124), c.flw/c.fsw */
  {
    for (int i = 0; i < 40; i++) mem[i] = 0x01010101u * (uint32_t)i;
    uint32_t v124, v0, fbits;
    __asm__ volatile(
        "mv a2, %3\n"
        ".option push\n.option rvc\n"
        "c.lw a3, 124(a2)\n"
        "mv %0, a3\n"
        "c.lw a3, 0(a2)\n"
        "mv %1, a3\n"
        "li a3, 0xcafef00d\n"
        "c.sw a3, 64(a2)\n"
        "c.flw fa4, 8(a2)\n"
        "fmv.x.w %2, fa4\n"
        "li a3, 0x3f800000\n"
        "fmv.w.x fa4, a3\n"
        "c.fsw fa4, 124(a2)\n"
        ".option pop\n"
        : "=&r"(v124), "=&r"(v0), "=&r"(fbits)
        : "r"(mem)
        : "a2", "a3", "fa4", "memory");
    show("c.lw 124", v124);
    show("c.lw 0", v0);
    show("c.sw 64", mem[16]);
    show("c.flw 8", fbits);
    show("c.fsw 124", mem[31]);
  }
  /* stack-relative: c.addi16sp, c.addi4spn, c.swsp/c.lwsp, c.fswsp/c.flwsp */
  {
    uint32_t got, got2, fbits, spdelta, spn;
    __asm__ volatile(
        ".option push\n.option rvc\n"
        "mv t0, sp\n"
        "c.addi16sp sp, -512\n"
        "sub %3, t0, sp\n"
        "c.addi4spn a4, sp, 1020\n"
        "sub %4, a4, sp\n"
        "li t1, 0x5a5a1234\n"
        "c.swsp t1, 252(sp)\n"
        "c.lwsp %0, 252(sp)\n"
        "c.swsp t1, 0(sp)\n"
        "c.lwsp %1, 0(sp)\n"
        "fmv.w.x ft0, t1\n"
        "c.fswsp ft0, 4(sp)\n"
        "c.flwsp ft1, 4(sp)\n"
        "fmv.x.w %2, ft1\n"
        "c.addi16sp sp, 496\n"
        "c.addi16sp sp, 16\n"
        "sub t0, t0, sp\n"
        "add %3, %3, t0\n"
        ".option pop\n"
        : "=r"(got), "=r"(got2), "=r"(fbits), "=&r"(spdelta), "=&r"(spn)
        :
        : "t0", "t1", "a4", "ft0", "ft1", "memory");
    show("c.lwsp 252", got);
    show("c.lwsp 0", got2);
    show("c.flwsp", fbits);
    show("c.addi16sp delta", spdelta);
    show("c.addi4spn 1020", spn);
  }
  /* control flow: c.j, c.jal, c.jr, c.jalr, c.beqz, c.bnez, c.nop */
  {
    uint32_t trace = 0;
    __asm__ volatile(
        ".option push\n.option rvc\n"
        "li a0, 0\n"
        "c.j 1f\n"
        "c.addi a0, 1\n" /* skipped */
        "1: c.addi a0, 2\n"
        "c.nop\n"
        "c.jal 2f\n"     /* ra = address of next insn */
        "c.addi a0, 4\n" /* executed after return */
        "c.j 3f\n"
        "2: c.addi a0, 8\n"
        "c.jr ra\n"
        "3: la a1, 4f\n"
        "c.jalr a1\n"
        "c.addi a0, 16\n"
        "c.j 5f\n"
        "4: c.slli a0, 1\n"
        "c.jr ra\n"
        "5: li a1, 0\n"
        "c.beqz a1, 6f\n"
        "c.addi a0, 1\n" /* skipped */
        "6: c.bnez a1, 7f\n"
        "c.addi a0, 3\n" /* executed */
        "7: li a1, 5\n"
        "8: c.addi a0, 1\n"
        "c.addi a1, -1\n"
        "c.bnez a1, 8b\n"
        "mv %0, a0\n"
        ".option pop\n"
        : "=r"(trace)
        :
        : "a0", "a1", "ra", "memory");
    show("control trace", trace);
  }
  /* 32-bit instructions at 2-mod-4 addresses: a c.nop first, then 32-bit ops and a branch */
  {
    uint32_t x = 0;
    __asm__ volatile(
        ".option push\n.option rvc\n"
        ".balign 4\n"
        "c.nop\n"
        "lui %0, 0x12345\n"
        "addi %0, %0, 0x678\n"
        "beq %0, zero, 1f\n"
        "xori %0, %0, -1\n"
        "1: c.nop\n"
        ".option pop\n"
        : "+r"(x));
    show("misaligned 32-bit", x);
  }
  return finish("compressed");
}
