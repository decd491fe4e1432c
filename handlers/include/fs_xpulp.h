/* RI5CY's Xpulpv2 instructions for handlers, as intrinsics: Debian's GCC does not emit them, so
 * each is an inline-assembly `.insn` with PULP's encoding (docs/ISS.md "Xpulp"). Only for the
 * HPUs' RISC-V build with FS_XPULP defined (fs_handler_set builds every handler set a second time
 * that way, for hpu.isa = rv32imafc_xpulp); everywhere else FS_XPULP is undefined and a handler
 * uses its plain C. Two kinds of help:
 *   - single instructions as C functions (fs_xp_add_b, fs_xp_lw_inc, ...), which the compiler
 *     schedules like any other code;
 *   - the text of instructions for an asm block (FS_XP_LW_PI("%[v]", "%[p]", 4), ...), for
 *     hardware loops: a hardware loop's body must be in one asm block, because RI5CY's rules
 *     forbid compressed instructions, branches at its end and fewer than three instructions,
 *     which only an asm block can promise. FS_XP_LOOP_BEGIN/LAST/END mark such a body.
 * Register operands of the text macros are strings naming asm operands ("%[acc]") or registers. */
#ifndef FS_XPULP_H
#define FS_XPULP_H

#include <stdint.h>

#if defined(FS_XPULP) && defined(__riscv)

/* ---- Text of single instructions, for asm blocks. ---- */
/* p.lw/p.lh/p.lhu/p.lb/p.lbu rd, imm(rs1!): load from rs1, then rs1 += imm. */
#define FS_XP_LW_PI(rd, rs1, imm) ".insn i 0x0B, 2, " rd ", " #imm "(" rs1 ")\n\t"
#define FS_XP_LH_PI(rd, rs1, imm) ".insn i 0x0B, 1, " rd ", " #imm "(" rs1 ")\n\t"
#define FS_XP_LHU_PI(rd, rs1, imm) ".insn i 0x0B, 5, " rd ", " #imm "(" rs1 ")\n\t"
#define FS_XP_LB_PI(rd, rs1, imm) ".insn i 0x0B, 0, " rd ", " #imm "(" rs1 ")\n\t"
#define FS_XP_LBU_PI(rd, rs1, imm) ".insn i 0x0B, 4, " rd ", " #imm "(" rs1 ")\n\t"
/* p.sw/p.sh/p.sb rs2, imm(rs1!): store to rs1, then rs1 += imm. */
#define FS_XP_SW_PI(rs2, rs1, imm) ".insn s 0x2B, 2, " rs2 ", " #imm "(" rs1 ")\n\t"
#define FS_XP_SH_PI(rs2, rs1, imm) ".insn s 0x2B, 1, " rs2 ", " #imm "(" rs1 ")\n\t"
#define FS_XP_SB_PI(rs2, rs1, imm) ".insn s 0x2B, 0, " rs2 ", " #imm "(" rs1 ")\n\t"
/* Packed SIMD rd, rs1, rs2: funct7 = funct5 << 2 | F << 1; funct3 0 .h, 1 .b. */
#define FS_XP_SIMD(f5, f, f3, rd, rs1, rs2) ".insn r 0x57, " #f3 ", " #f5 " << 2 | " #f " << 1, " rd ", " rs1 ", " rs2 "\n\t"
#define FS_XP_ADD_H(rd, rs1, rs2) FS_XP_SIMD(0, 0, 0, rd, rs1, rs2)
#define FS_XP_ADD_B(rd, rs1, rs2) FS_XP_SIMD(0, 0, 1, rd, rs1, rs2)
#define FS_XP_MIN_H(rd, rs1, rs2) FS_XP_SIMD(4, 0, 0, rd, rs1, rs2)
#define FS_XP_MIN_B(rd, rs1, rs2) FS_XP_SIMD(4, 0, 1, rd, rs1, rs2)
#define FS_XP_MAX_H(rd, rs1, rs2) FS_XP_SIMD(6, 0, 0, rd, rs1, rs2)
#define FS_XP_MAX_B(rd, rs1, rs2) FS_XP_SIMD(6, 0, 1, rd, rs1, rs2)
/* pv.shuffleI0.sci.b rd, rs1, 27: rd's bytes 0, 1, 2 are rs1's bytes 3, 2, 1 (selectors 3, 2, 1
 * in Imm6 = 0b011011; Imm6[0] is bit 25, Imm6[5:1] the rs2 field) and its byte 3 is rs1's byte 0
 * (the I0 form): a 32-bit byte swap in one instruction, for big-endian header fields. */
#define FS_XP_BSWAP(rd, rs1) ".insn r 0x57, 7, (24 << 2) | 1, " rd ", " rs1 ", x13\n\t"
/* Scalar p.min/p.max (signed): OP, funct7 2, funct3 4 / 6; and plain add, in the same form for
 * code that picks its combining instruction by macro. */
#define FS_XP_ADD(rd, rs1, rs2) "add " rd ", " rs1 ", " rs2 "\n\t"
#define FS_XP_MIN(rd, rs1, rs2) ".insn r 0x33, 4, 2, " rd ", " rs1 ", " rs2 "\n\t"
#define FS_XP_MAX(rd, rs1, rs2) ".insn r 0x33, 6, 2, " rd ", " rs1 ", " rs2 "\n\t"

/* A hardware loop of `count` (a register operand) turns over the instructions from right after
 * FS_XP_LOOP_BEGIN to the one right after FS_XP_LOOP_LAST(L). Set up with the long forms,
 * lp.starti and lp.endi (words whose offsets the assembler computes from local labels 9L01..9L04)
 * then lp.count: 3 cycles. The set-up is word-aligned (the alignment is emitted before linker
 * relaxation is turned off, so the linker keeps it when it shrinks the code before), and the rest
 * is assembled without compressed instructions or relaxation. L is 0 (the inner loop) or 1;
 * nested loops use both in one asm block. */
#define FS_XP_LOOP_BEGIN(L, count)                                                            \
  ".option push\n\t.balign 4\n\t.option norvc\n\t.option norelax\n"                          \
  "9" #L "01: .word ((((9" #L "03f - 9" #L "01b) >> 1) << 20) | (" #L " << 7) | 0x7B)\n"        \
  "9" #L "02: .word ((((9" #L "04f - 9" #L "02b) >> 1) << 20) | (1 << 12) | (" #L " << 7) | 0x7B)\n\t" \
  ".insn i 0x7B, 2, x" #L ", " count ", 0\n"                                                  \
  "9" #L "03:\n\t"
#define FS_XP_LOOP_LAST(L) "9" #L "04:\n\t" /* put right before the body's last instruction */
#define FS_XP_LOOP_END ".option pop\n\t"

/* ---- Single instructions as C functions. ---- */
static inline uint32_t fs_xp_lw_inc(const uint8_t** p) {
  uint32_t v;
  __asm__ volatile(FS_XP_LW_PI("%0", "%1", 4) : "=r"(v), "+r"(*p) : : "memory");
  return v;
}
static inline void fs_xp_sw_inc(uint8_t** p, uint32_t v) {
  __asm__ volatile(FS_XP_SW_PI("%1", "%0", 4) : "+r"(*p) : "r"(v) : "memory");
}
#define FS_XP_BINARY(name, text)                                   \
  static inline uint32_t name(uint32_t a, uint32_t b) {            \
    uint32_t r;                                                    \
    __asm__(text("%0", "%1", "%2") : "=r"(r) : "r"(a), "r"(b));    \
    return r;                                                      \
  }
FS_XP_BINARY(fs_xp_add_h, FS_XP_ADD_H)
FS_XP_BINARY(fs_xp_add_b, FS_XP_ADD_B)
FS_XP_BINARY(fs_xp_min_h, FS_XP_MIN_H)
FS_XP_BINARY(fs_xp_min_b, FS_XP_MIN_B)
FS_XP_BINARY(fs_xp_max_h, FS_XP_MAX_H)
FS_XP_BINARY(fs_xp_max_b, FS_XP_MAX_B)
FS_XP_BINARY(fs_xp_min, FS_XP_MIN)
FS_XP_BINARY(fs_xp_max, FS_XP_MAX)
#undef FS_XP_BINARY
static inline uint32_t fs_xp_bswap32(uint32_t a) {
  uint32_t r;
  __asm__(FS_XP_BSWAP("%0", "%1") : "=r"(r) : "r"(a));
  return r;
}

#endif /* FS_XPULP && __riscv */
#endif /* FS_XPULP_H */
