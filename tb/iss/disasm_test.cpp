// Disassembly used by instruction traces: ABI register names, operand order as in the RISC-V
// assembly syntax, branch and jump targets as absolute addresses.
#include <gtest/gtest.h>

#include "iss/insn.h"

namespace fs::iss {
namespace {

TEST(IssDisasm, CommonForms) {
  EXPECT_EQ(disassemble(decode32(0x00a50513), 0), "addi a0, a0, 10");
  EXPECT_EQ(disassemble(decode32(0x0005a283), 0), "lw t0, 0(a1)");
  EXPECT_EQ(disassemble(decode32(0xfe112e23), 0), "sw ra, -4(sp)");
  EXPECT_EQ(disassemble(decode32(0x02b50533), 0), "mul a0, a0, a1");
  EXPECT_EQ(disassemble(decode32(0x00b50463), 0x100), "beq a0, a1, 0x00000108");
  EXPECT_EQ(disassemble(decode32(0x008000ef), 0x200), "jal ra, 0x00000208");
  EXPECT_EQ(disassemble(decode32(0x00c58553), 0), "fadd.s fa0, fa1, fa2");
  EXPECT_EQ(disassemble(decode32(0xc0051553), 0), "fcvt.w.s a0, fa0");
  EXPECT_EQ(disassemble(decode32(0x00b5252f), 0), "amoadd.w a0, a1, (a0)");
  EXPECT_EQ(disassemble(decode32(0xc0002573), 0), "csrrs a0, 0xc00, zero");
  EXPECT_EQ(disassemble(decode16(0x4515), 0), "addi a0, zero, 5");  // c.li a0, 5
  EXPECT_EQ(disassemble(decode32(0x00000073), 0), "ecall");
  EXPECT_EQ(disassemble(decode32(0xffffffff), 0), "illegal");
  EXPECT_STREQ(reg_name(10), "a0");
  EXPECT_STREQ(reg_name(kF + 10), "fa0");
}

}  // namespace
}  // namespace fs::iss
