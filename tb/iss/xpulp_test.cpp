// Directed tests of the ISS's Xpulp instructions (hpu.isa = rv32imafc_xpulp) on hand-assembled
// code: every instruction's result worked out by hand from the CV32E40P v1 / RI5CY manuals' tables
// (qemu has no Xpulp to compare with), cycle counts from the timing table, hardware-loop corner
// cases (nested loops, a loop of one instruction, a branch out of a loop, broken rules), and the
// disassembly the instruction traces print.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "iss/cpu.h"
#include "iss/xpulp_encode.h"

namespace fs::iss {
namespace {

using namespace xpe;
constexpr uint32_t kCode = 0x1000, kData = 0x8000;

struct Machine {
  std::vector<uint8_t> code = std::vector<uint8_t>(4096, 0), data = std::vector<uint8_t>(4096, 0);
  AddressSpace mem;
  Timing timing;
  explicit Machine(const std::vector<uint32_t>& program) {
    for (size_t k = 0; k < program.size(); ++k) std::memcpy(&code[4 * k], &program[k], 4);
    mem.add(MemRegion{kCode, uint32_t(code.size()), code.data(), false, true, 0, "code"});
    mem.add(MemRegion{kData, uint32_t(data.size()), data.data(), true, false, 0, "data"});
  }
  Cpu cpu(bool xpulp = true) {
    Cpu c(mem, timing);
    c.set_xpulp(xpulp);
    c.pc = kCode;
    return c;
  }
  void word(uint32_t off, uint32_t v) { std::memcpy(&data[off], &v, 4); }
  uint32_t word(uint32_t off) const {
    uint32_t v;
    std::memcpy(&v, &data[off], 4);
    return v;
  }
};

// Runs `program` (ending in ecall) with the given registers set; returns the core.
Cpu run(Machine& m, std::initializer_list<std::pair<unsigned, uint32_t>> regs) {
  Cpu c = m.cpu();
  for (auto [r, v] : regs) c.x[r] = v;
  EXPECT_EQ(c.run(10000), Stop::kEcall) << c.fault().describe();
  return c;
}

TEST(Xpulp, PostIncrementAndRegisterOffsetLoadsAndStores) {
  Machine m({p_lw_pi(5, 10, 4),              // x5 = word 0;  x10 += 4
             p_lbu_pi(6, 10, 1),             // x6 = byte 4 (0xDD);  x10 += 1
             p_lb_pi(7, 10, 1),              // x7 = sext(byte 5 = 0xCC);  x10 += 1
             p_load_rpi(0x08, 8, 10, 11),    // p.lh x8, x11(x10!): halfword 6 (0xAABB) sign-extended; x10 += 2
             p_load_rr(0x28, 9, 10, 11),     // p.lhu x9, x11(x10): halfword at 8 + 2 (0x5566); x10 unchanged
             p_store_pi(2, 5, 12, 4),        // p.sw x5, 4(x12!): word 0x100;  x12 += 4
             p_store_rpi(5, 6, 12, 11),      // p.sh x6, x11(x12!): halfword 0x104;  x12 += 2
             p_store_rr(4, 7, 12, 11),       // p.sb x7, x11(x12): byte 0x106 + 2
             kEcall});
  m.word(0, 0x11223344);
  m.word(4, 0xAABBCCDD);
  m.word(8, 0x55667788);
  Cpu c = run(m, {{10, kData}, {11, 2}, {12, kData + 0x100}});
  EXPECT_EQ(c.x[5], 0x11223344u);
  EXPECT_EQ(c.x[6], 0xDDu);
  EXPECT_EQ(c.x[7], 0xFFFFFFCCu);
  EXPECT_EQ(c.x[8], 0xFFFFAABBu);
  EXPECT_EQ(c.x[9], 0x5566u);
  EXPECT_EQ(c.x[10], kData + 8);
  EXPECT_EQ(c.x[12], kData + 0x106);
  EXPECT_EQ(m.word(0x100), 0x11223344u);
  EXPECT_EQ(m.data[0x104], 0xDD);
  EXPECT_EQ(m.data[0x105], 0x00);
  EXPECT_EQ(m.data[0x108], 0xCC);
  // Eight accesses of one cycle each; no instruction reads the register the one before loaded.
  EXPECT_EQ(c.cycles, 8u);
  EXPECT_EQ(c.counters.loads, 5u);
  EXPECT_EQ(c.counters.stores, 3u);
  EXPECT_EQ(c.counters.load_use_stalls, 0u);
}

TEST(Xpulp, PostIncrementedBaseNeedsNoStallButTheLoadedValueDoes) {
  // p.lw x5, 4(x10!); add x6, x10, x0 (the incremented base: forwarded, no stall);
  // p.lw x7, 4(x10!); add x8, x7, x0 (the loaded value: one load-use stall); p.lw x10, 4(x10!)
  // (the load wins over the increment). 5 instructions + 1 stall = 6 cycles.
  Machine m({p_lw_pi(5, 10, 4), add(6, 10, 0), p_lw_pi(7, 10, 4), add(8, 7, 0), p_lw_pi(10, 10, 4), kEcall});
  m.word(0, 7);
  m.word(4, 9);
  m.word(8, 0xCAFE);
  Cpu c = run(m, {{10, kData}});
  EXPECT_EQ(c.x[6], kData + 4);
  EXPECT_EQ(c.x[8], 9u);
  EXPECT_EQ(c.x[10], 0xCAFEu);
  EXPECT_EQ(c.cycles, 6u);
  EXPECT_EQ(c.counters.load_use_stalls, 1u);
}

TEST(Xpulp, HardwareLoopRunsItsBodyCountTimesWithNoOverhead) {
  //  0: lp.setupi 0, 5, 6     start = 4, end = 0 + 6 * 2 = 12 (the last instruction), count 5
  //  4: addi x5, x5, 1
  //  8: addi x6, x6, 2
  // 12: addi x7, x7, 3
  // 16: ecall
  Machine m({lp_setupi(0, 5, 6), addi(5, 5, 1), addi(6, 6, 2), addi(7, 7, 3), kEcall});
  Cpu c = run(m, {});
  EXPECT_EQ(c.x[5], 5u);
  EXPECT_EQ(c.x[6], 10u);
  EXPECT_EQ(c.x[7], 15u);
  EXPECT_EQ(c.instret, 1u + 5 * 3);
  EXPECT_EQ(c.cycles, 16u);  // one cycle each: going back to the start costs nothing
  EXPECT_EQ(c.loops[0].count, 0u);
  EXPECT_EQ(c.loops[0].start, kCode + 4);
  EXPECT_EQ(c.loops[0].end, kCode + 12);
}

TEST(Xpulp, NestedHardwareLoops) {
  //  0: addi x10, x0, 3
  //  4: addi x11, x0, 4
  //  8: lp.setup 1, x10, 12   outer: start 12, end 8 + 24 = 32, 3 turns
  // 12: lp.setup 0, x11, 6    inner: start 16, end 12 + 12 = 24, 4 turns
  // 16: addi x5, x5, 1
  // 20: addi x5, x5, 1
  // 24: addi x5, x5, 1        (inner end)
  // 28: addi x6, x6, 1
  // 32: addi x6, x6, 1        (outer end: 8 bytes past the inner end, as RI5CY requires)
  // 36: ecall
  Machine m({addi(10, 0, 3), addi(11, 0, 4), lp_setup(1, 10, 12), lp_setup(0, 11, 6), addi(5, 5, 1), addi(5, 5, 1),
             addi(5, 5, 1), addi(6, 6, 1), addi(6, 6, 1), kEcall});
  Cpu c = run(m, {});
  EXPECT_EQ(c.x[5], 3u * 4 * 3);
  EXPECT_EQ(c.x[6], 3u * 2);
  // 3 set-up instructions, then 3 outer turns of (lp.setup + 4 x 3 + 2) = 15.
  EXPECT_EQ(c.instret, 3u + 3 * 15);
  EXPECT_EQ(c.cycles, 48u);
}

TEST(Xpulp, LongFormSetupAndTheLoopRegistersAsCsrs) {
  //  0: lp.starti 0, 8        start = 0 + 16 = 16
  //  4: lp.endi 0, 12         end = 4 + 24 = 28
  //  8: lp.counti 0, 2
  // 12: lp.count 0, x12       (overrides: 3 turns)
  // 16: addi x5, x5, 1
  // 20: addi x5, x5, 1
  // 24: csrrs x6, 0x7C2, x0   reads lpcount0 before the turn ends: 3, 2, 1
  // 28: add x7, x7, x6        (end) x7 = 3 + 2 + 1
  // 32: csrrs x8, 0x7C0, x0 / 36: csrrs x9, 0x7C1, x0 / 40: ecall
  Machine m({lp_starti(0, 8), lp_endi(0, 12), lp_counti(0, 2), lp_count(0, 12), addi(5, 5, 1), addi(5, 5, 1),
             csrrs(6, 0x7C2, 0), add(7, 7, 6), csrrs(8, 0x7C0, 0), csrrs(9, 0x7C1, 0), kEcall});
  Cpu c = run(m, {{12, 3}});
  EXPECT_EQ(c.x[5], 6u);
  EXPECT_EQ(c.x[7], 6u);
  EXPECT_EQ(c.x[8], kCode + 16);
  EXPECT_EQ(c.x[9], kCode + 28);
}

TEST(Xpulp, BranchOutOfALoopLeavesItsCountArmed) {
  //  0: lp.setupi 0, 10, 8    start 4, end 16, 10 turns
  //  4: addi x5, x5, 1
  //  8: p.beqimm x5, 3, +16   -> 24 on the third turn
  // 12: addi x6, x6, 1
  // 16: addi x7, x7, 1        (end)
  // 20: ecall
  // 24: csrrs x8, 0x7C2, x0   lpcount0: 10 - 2 finished turns = 8
  // 28: ecall
  Machine m({lp_setupi(0, 10, 8), addi(5, 5, 1), p_beqimm(5, 3, 16), addi(6, 6, 1), addi(7, 7, 1), kEcall,
             csrrs(8, 0x7C2, 0), kEcall});
  Cpu c = run(m, {});
  EXPECT_EQ(c.pc, kCode + 28);
  EXPECT_EQ(c.x[5], 3u);
  EXPECT_EQ(c.x[6], 2u);
  EXPECT_EQ(c.x[7], 2u);
  EXPECT_EQ(c.x[8], 8u);
  // lp.setupi 1; two whole turns of 4 (branch not taken: 1); the third: addi 1 + taken branch 3;
  // csrrs 1: 1 + 8 + 4 + 1 = 14.
  EXPECT_EQ(c.cycles, 14u);
}

TEST(Xpulp, ALoopOfOneInstructionBreaksRi5cysRules) {
  //  0: lp.setupi 0, 4, 2     start 4, end 4: a body of one instruction (RI5CY needs 3)
  //  4: addi x5, x5, 1
  Machine m({lp_setupi(0, 4, 2), addi(5, 5, 1), kEcall});
  Cpu c = m.cpu();
  ASSERT_EQ(c.run(100), Stop::kFault);
  EXPECT_EQ(c.fault().kind, Fault::kHwLoop);
  EXPECT_EQ(c.fault().pc, kCode + 4);
  EXPECT_EQ(c.fault().describe(),
            "hardware loop rule broken at pc 0x00001004 (instruction 0x00128293): loop 0 body 0x00001004..0x00001004 "
            "has fewer than 3 instructions");
}

TEST(Xpulp, CompressedInstructionsAndJumpsAtTheEndBreakTheRules) {
  {  // body 4..12 with two c.nop (0x0001) at 8 and 10
    Machine m({lp_setupi(0, 2, 6), addi(5, 5, 1), 0x00010001u, addi(6, 6, 1), kEcall});
    Cpu c = m.cpu();
    ASSERT_EQ(c.run(100), Stop::kFault);
    EXPECT_NE(c.fault().describe().find("loop 0 body has a compressed or unreadable instruction at 0x00001008"),
              std::string::npos)
        << c.fault().describe();
  }
  {  // the body's last instruction (12) is a taken branch back to 4
    Machine m({lp_setupi(0, 2, 6), addi(5, 5, 1), addi(6, 6, 1), bne(6, 0, -8), kEcall});
    Cpu c = m.cpu();
    ASSERT_EQ(c.run(100), Stop::kFault);
    EXPECT_EQ(c.fault().pc, kCode + 12);
    EXPECT_NE(c.fault().describe().find("loop 0 ends with a jump or a taken branch"), std::string::npos);
  }
}

TEST(Xpulp, GeneralAlu) {
  const uint32_t neg10 = 0xFFFFFFF6u;
  Machine m({alu(2, 0, 5, 10, 0),    // p.abs x5, x10          = 10
             alu(2, 2, 6, 10, 11),   // p.slet x6, x10, x11    -10 <= 5: 1
             alu(2, 3, 7, 10, 11),   // p.sletu                0xFFFFFFF6 <= 5: 0
             alu(2, 4, 8, 10, 11),   // p.min                  -10
             alu(2, 5, 9, 10, 11),   // p.minu                 5
             alu(2, 6, 13, 10, 11),  // p.max                  5
             alu(2, 7, 14, 10, 11),  // p.maxu                 0xFFFFFFF6
             alu(8, 4, 15, 12, 0),   // p.exths x15, x12(0x123480F1)
             alu(8, 5, 16, 12, 0),   // p.exthz
             alu(8, 6, 17, 12, 0),   // p.extbs
             alu(8, 7, 18, 12, 0),   // p.extbz
             kEcall});
  Cpu c = run(m, {{10, neg10}, {11, 5}, {12, 0x123480F1}});
  EXPECT_EQ(c.x[5], 10u);
  EXPECT_EQ(c.x[6], 1u);
  EXPECT_EQ(c.x[7], 0u);
  EXPECT_EQ(c.x[8], neg10);
  EXPECT_EQ(c.x[9], 5u);
  EXPECT_EQ(c.x[13], 5u);
  EXPECT_EQ(c.x[14], neg10);
  EXPECT_EQ(c.x[15], 0xFFFF80F1u);  // low half 0x80F1, sign-extended
  EXPECT_EQ(c.x[16], 0x80F1u);
  EXPECT_EQ(c.x[17], 0xFFFFFFF1u);  // low byte 0xF1
  EXPECT_EQ(c.x[18], 0xF1u);
  EXPECT_EQ(c.cycles, 11u);
}

TEST(Xpulp, ClipsAndBitCounts) {
  Machine m({alu(0x0A, 1, 5, 10, 4),    // p.clip x5, x10(-10), 4: bounds -8 .. 7     = -8
             alu(0x0A, 1, 6, 11, 4),    // p.clip x11(5), 4                            = 5
             alu(0x0A, 2, 7, 10, 4),    // p.clipu x10, 4: 0 .. 7                      = 0
             alu(0x0A, 2, 8, 13, 4),    // p.clipu x13(100), 4                         = 7
             alu(0x0A, 5, 9, 13, 11),   // p.clipr x13(100), x11(5): -6 .. 5           = 5
             alu(0x0A, 5, 14, 10, 11),  // p.clipr x10(-10), x11                       = -6
             alu(0x0A, 6, 15, 10, 11),  // p.clipur x10, x11: 0 .. 5                   = 0
             alu(8, 0, 16, 12, 0),      // p.ff1 x12(0x00012344)                       = 2
             alu(8, 1, 17, 12, 0),      // p.fl1 x12                                   = 16
             alu(8, 0, 18, 0, 0),       // p.ff1 zero                                  = 32
             alu(8, 2, 19, 10, 0),      // p.clb x10: ~(-10) = 9 has 28 leading zeros  = 27
             alu(8, 2, 20, 0, 0),       // p.clb zero                                  = 0
             alu(8, 2, 21, 22, 0),      // p.clb x22(-1)                               = 31
             alu(8, 3, 23, 12, 0),      // p.cnt x12: 1 + 1 + 2 + 1 + 1 bits           = 6
             alu(4, 5, 24, 12, 25),     // p.ror x12, x25(36 = 4 mod 32)               = 0x40001234
             kEcall});
  Cpu c = run(m, {{10, 0xFFFFFFF6u}, {11, 5}, {12, 0x00012344}, {13, 100}, {22, 0xFFFFFFFFu}, {25, 36}});
  EXPECT_EQ(c.x[5], 0xFFFFFFF8u);
  EXPECT_EQ(c.x[6], 5u);
  EXPECT_EQ(c.x[7], 0u);
  EXPECT_EQ(c.x[8], 7u);
  EXPECT_EQ(c.x[9], 5u);
  EXPECT_EQ(c.x[14], 0xFFFFFFFAu);
  EXPECT_EQ(c.x[15], 0u);
  EXPECT_EQ(c.x[16], 2u);
  EXPECT_EQ(c.x[17], 16u);
  EXPECT_EQ(c.x[18], 32u);
  EXPECT_EQ(c.x[19], 27u);
  EXPECT_EQ(c.x[20], 0u);
  EXPECT_EQ(c.x[21], 31u);
  EXPECT_EQ(c.x[23], 6u);
  EXPECT_EQ(c.x[24], 0x40001234u);
}

TEST(Xpulp, BitManipulation) {
  Machine m({bitman(0, 5, 10, 3, 4),     // p.extract x10(0xF0A0), 3, 4: bits 7:4 = 0xA, sign bit set = 0xFFFFFFFA
             bitman(1, 6, 10, 3, 4),     // p.extractu                                          = 0xA
             bitman(0, 7, 11, 7, 28),    // p.extract x11(0x80000000), 7, 28: bits 31:28 = 8, sign = bit 31 = 0xFFFFFFF8
             bitman(2, 8, 12, 3, 8),     // p.insert x8(0xFFFFFFFF), x12(5), 3, 8: bits 11:8 = 5 = 0xFFFFF5FF
             bitman(3, 9, 13, 3, 8),     // p.bclr x13(0xFFFFFFFF), 3, 8: 4 bits cleared       = 0xFFFFF0FF
             bitman(4, 14, 0, 0, 31),    // p.bset zero, 0, 31                                  = 0x80000000
             alu(0x40, 1, 15, 10, 16),   // p.extractur x10, x16((3 << 5) | 4)                  = 0xA
             alu(0x40, 0, 17, 10, 16),   // p.extractr                                          = 0xFFFFFFFA
             alu(0x40, 3, 18, 13, 19),   // p.bclrr x13, x19((7 << 5) | 0)                      = 0xFFFFFF00
             alu(0x40, 4, 20, 0, 21),    // p.bsetr zero, x21((7 << 5) | 8)                     = 0x0000FF00
             alu(0x40, 2, 22, 23, 24),   // p.insertr x22(0), x23(0xAB), x24((7 << 5) | 24)     = 0xAB000000
             // p.bitrev on the manual's worked example 0xC64A5933 shifted by 4: radix 2, 4, 8.
             bitman(5, 25, 26, 0, 4), bitman(5, 27, 26, 1, 4), bitman(5, 28, 26, 2, 4), kEcall});
  Cpu c = run(m, {{10, 0xF0A0}, {11, 0x80000000u}, {8, 0xFFFFFFFFu}, {12, 5}, {13, 0xFFFFFFFFu}, {16, (3 << 5) | 4},
                  {19, 7 << 5}, {21, (7 << 5) | 8}, {22, 0}, {23, 0xAB}, {24, (7 << 5) | 24}, {26, 0xC64A5933u}});
  EXPECT_EQ(c.x[5], 0xFFFFFFFAu);
  EXPECT_EQ(c.x[6], 0xAu);
  EXPECT_EQ(c.x[7], 0xFFFFFFF8u);
  EXPECT_EQ(c.x[8], 0xFFFFF5FFu);
  EXPECT_EQ(c.x[9], 0xFFFFF0FFu);
  EXPECT_EQ(c.x[14], 0x80000000u);
  EXPECT_EQ(c.x[15], 0xAu);
  EXPECT_EQ(c.x[17], 0xFFFFFFFAu);
  EXPECT_EQ(c.x[18], 0xFFFFFF00u);
  EXPECT_EQ(c.x[20], 0x0000FF00u);
  EXPECT_EQ(c.x[22], 0xAB000000u);
  EXPECT_EQ(c.x[25], 0x0CC9A526u);
  EXPECT_EQ(c.x[27], 0x0CC65A19u);
  EXPECT_EQ(c.x[28], 0x216B244Bu);
}

TEST(Xpulp, AddSubWithShiftsAndMultiplies) {
  Machine m({pulp_op(0, 1, 2, 5, 10, 11),   // p.addN x10(7), x11(4), 1: 11 >> 1          = 5
             pulp_op(0, 1, 6, 6, 10, 11),   // p.addRN: (11 + 1) >> 1                      = 6
             pulp_op(2, 1, 2, 7, 12, 0),    // p.adduN x12(-2), zero, 1: logical           = 0x7FFFFFFF
             pulp_op(0, 1, 2, 8, 12, 0),    // p.addN: arithmetic                          = -1
             pulp_op(0, 1, 3, 9, 13, 14),   // p.subN x13(3), x14(10), 1: -7 >> 1           = -4
             pulp_op(0, 1, 7, 15, 13, 14),  // p.subRN: (-7 + 1) >> 1                      = -3
             pulp_op(1, 0, 2, 16, 14, 17),  // p.addNr x16(6), x14(10), x17(2): 16 >> 2    = 4
             alu(0x21, 0, 18, 10, 19),      // p.mac x18(100), x10(7), x19(6)              = 142
             alu(0x21, 1, 20, 10, 19),      // p.msu x20(100)                              = 58
             pulp_op(2, 0, 0, 21, 22, 23),  // p.mulsN x22(0xFFFF), x23(3), 0: -1 * 3      = -3
             pulp_op(0, 0, 0, 24, 22, 23),  // p.muluN: 0xFFFF * 3                         = 0x2FFFD
             pulp_op(3, 1, 0, 25, 26, 27),  // p.mulhhsN x26(-2 << 16), x27(5 << 16), 1    = -5
             pulp_op(2, 2, 4, 28, 13, 29),  // p.mulsRN x13(3), x29(5), 2: (15 + 2) >> 2   = 4
             pulp_op(2, 0, 1, 30, 10, 23),  // p.macsN x30(10), x10(7), x23(3), 0           = 31
             kEcall});
  Cpu c = run(m, {{10, 7}, {11, 4}, {12, 0xFFFFFFFEu}, {13, 3}, {14, 10}, {16, 6}, {17, 2}, {18, 100}, {19, 6},
                  {20, 100}, {22, 0xFFFF}, {23, 3}, {26, 0xFFFE0000u}, {27, 0x00050000u}, {29, 5}, {30, 10}});
  EXPECT_EQ(c.x[5], 5u);
  EXPECT_EQ(c.x[6], 6u);
  EXPECT_EQ(c.x[7], 0x7FFFFFFFu);
  EXPECT_EQ(c.x[8], 0xFFFFFFFFu);
  EXPECT_EQ(c.x[9], 0xFFFFFFFCu);
  EXPECT_EQ(c.x[15], 0xFFFFFFFDu);
  EXPECT_EQ(c.x[16], 4u);
  EXPECT_EQ(c.x[18], 142u);
  EXPECT_EQ(c.x[20], 58u);
  EXPECT_EQ(c.x[21], 0xFFFFFFFDu);
  EXPECT_EQ(c.x[24], 0x2FFFDu);
  EXPECT_EQ(c.x[25], 0xFFFFFFFBu);
  EXPECT_EQ(c.x[28], 4u);
  EXPECT_EQ(c.x[30], 31u);
  EXPECT_EQ(c.cycles, 14u);  // ALU and multiplier forms: one cycle each (timing.alu, timing.mul)
}

TEST(Xpulp, PackedSimdArithmeticAndComparisons) {
  Machine m({pv(0, 0, 0, 5, 10, 11),       // pv.add.h 0x7FFF0001 + 0x00010002           = 0x80000003
             pv(1, 0, 0, 6, 10, 11),       // pv.sub.h                                    = 0x7FFEFFFF
             pv(0, 0, 4, 7, 10, 11),       // pv.add.sc.h: + 2 in each half               = 0x80010003
             pv_sci(0, 0, 6, 8, 10, -1),   // pv.add.sci.h -1                             = 0x7FFE0000
             pv(6, 0, 0, 9, 10, 12),       // pv.max.h vs 0x8000FFFF: 0x7FFF, 1           = 0x7FFF0001
             pv(7, 0, 0, 13, 10, 12),      // pv.maxu.h                                   = 0x8000FFFF
             pv(0, 0, 1, 14, 15, 16),      // pv.add.b 0x01FF7F80 + 0x01010101            = 0x02008081
             pv(2, 0, 1, 17, 15, 16),      // pv.avg.b: sums 81 80 00 02 >> 1 (arith)     = 0x0100C0C0
             pv(3, 0, 1, 18, 15, 16),      // pv.avgu.b                                   = 0x01004040
             pv(9, 0, 1, 19, 15, 16),      // pv.sra.b by 1                               = 0x00FF3FC0
             pv(8, 0, 1, 20, 15, 16),      // pv.srl.b                                    = 0x007F3F40
             pv(10, 0, 1, 21, 15, 16),     // pv.sll.b                                    = 0x02FEFE00
             pv(14, 0, 1, 22, 15, 0),      // pv.abs.b: 0x80 stays 0x80                   = 0x01017F80
             pv(2, 1, 1, 23, 15, 16),      // pv.cmpgt.b > 1: only 0x7F                   = 0x0000FF00
             pv(6, 1, 1, 24, 15, 16),      // pv.cmpgtu.b                                 = 0x00FFFFFF
             pv_sci(0, 1, 7, 25, 15, 1),   // pv.cmpeq.sci.b == 1: only the top byte      = 0xFF000000
             kEcall});
  Cpu c = run(m, {{10, 0x7FFF0001u}, {11, 0x00010002u}, {12, 0x8000FFFFu}, {15, 0x01FF7F80u}, {16, 0x01010101u}});
  EXPECT_EQ(c.x[5], 0x80000003u);
  EXPECT_EQ(c.x[6], 0x7FFEFFFFu);
  EXPECT_EQ(c.x[7], 0x80010003u);
  EXPECT_EQ(c.x[8], 0x7FFE0000u);
  EXPECT_EQ(c.x[9], 0x7FFF0001u);
  EXPECT_EQ(c.x[13], 0x8000FFFFu);
  EXPECT_EQ(c.x[14], 0x02008081u);
  EXPECT_EQ(c.x[17], 0x0100C0C0u);
  EXPECT_EQ(c.x[18], 0x01004040u);
  EXPECT_EQ(c.x[19], 0x00FF3FC0u);
  EXPECT_EQ(c.x[20], 0x007F3F40u);
  EXPECT_EQ(c.x[21], 0x02FEFE00u);
  EXPECT_EQ(c.x[22], 0x01017F80u);
  EXPECT_EQ(c.x[23], 0x0000FF00u);
  EXPECT_EQ(c.x[24], 0x00FFFFFFu);
  EXPECT_EQ(c.x[25], 0xFF000000u);
  EXPECT_EQ(c.cycles, 16u);
}

TEST(Xpulp, DotProductsShufflesAndPacking) {
  Machine m({pv(19, 0, 0, 5, 10, 11),      // pv.dotsp.h [-1, 2] . [4, 3]                 = 2
             pv(16, 0, 0, 6, 10, 11),      // pv.dotup.h 0xFFFF * 4 + 2 * 3               = 0x40002
             pv(23, 0, 1, 7, 12, 13),      // pv.sdotsp.b x7(100) + [4,3,2,1].[3,2,1,-1]  = 119
             pv(16, 0, 1, 8, 14, 14),      // pv.dotup.b 4 x 255 x 255                    = 260100
             pv(24, 0, 1, 9, 15, 16),      // pv.shuffle.b 0x44332211 by 0x00010203       = 0x11223344
             pv_sci(24, 0, 6, 17, 18, 1),  // pv.shuffle.sci.h 0xAAAA5555, I1 = 0, I0 = 1 = 0x5555AAAA
             pv_sci(29, 0, 7, 19, 15, 6),  // pv.shuffleI1.sci.b: top = byte 1; 0, 1, 2   = 0x22112233
             pv(25, 0, 0, 20, 21, 22),     // pv.shuffle2.h x20(0xDDDDCCCC), x21(0xBBBBAAAA), sel 0x00020001 = 0xAAAADDDD
             pv(26, 0, 0, 23, 24, 25),     // pv.pack 0x1111AAAA, 0x2222BBBB              = 0xAAAABBBB
             pv(26, 0, 0, 26, 24, 25, 1),  // pv.pack.h                                   = 0x11112222
             pv(27, 0, 1, 27, 28, 29),     // pv.packhi.b x27(0x12345678), 0xAB, 0xCD     = 0xABCD5678
             pv(28, 0, 1, 30, 28, 29),     // pv.packlo.b x30(0x12345678)                 = 0x1234ABCD
             pv_sci(15, 0, 6, 31, 3, 1),   // pv.extract.h x3(0x80001234), 1              = 0xFFFF8000
             pv_sci(18, 0, 7, 1, 3, 3),    // pv.extractu.b x3, 3                         = 0x80
             pv_sci(22, 0, 7, 4, 28, 2),   // pv.insert.b x4(0x11223344), x28(0xAB), 2    = 0x11AB3344
             kEcall});
  Cpu c = run(m, {{10, 0x0002FFFFu}, {11, 0x00030004u}, {7, 100}, {12, 0x01020304u}, {13, 0xFF010203u},
                  {14, 0xFFFFFFFFu}, {15, 0x44332211u}, {16, 0x00010203u}, {18, 0xAAAA5555u}, {20, 0xDDDDCCCCu},
                  {21, 0xBBBBAAAAu}, {22, 0x00020001u}, {24, 0x1111AAAAu}, {25, 0x2222BBBBu}, {27, 0x12345678u},
                  {28, 0xAB}, {29, 0xCD}, {30, 0x12345678u}, {3, 0x80001234u}, {4, 0x11223344u}});
  EXPECT_EQ(c.x[5], 2u);
  EXPECT_EQ(c.x[6], 0x40002u);
  EXPECT_EQ(c.x[7], 119u);
  EXPECT_EQ(c.x[8], 260100u);
  EXPECT_EQ(c.x[9], 0x11223344u);
  EXPECT_EQ(c.x[17], 0x5555AAAAu);
  EXPECT_EQ(c.x[19], 0x22112233u);
  EXPECT_EQ(c.x[20], 0xAAAADDDDu);
  EXPECT_EQ(c.x[23], 0xAAAABBBBu);
  EXPECT_EQ(c.x[26], 0x11112222u);
  EXPECT_EQ(c.x[27], 0xABCD5678u);
  EXPECT_EQ(c.x[30], 0x1234ABCDu);
  EXPECT_EQ(c.x[31], 0xFFFF8000u);
  EXPECT_EQ(c.x[1], 0x80u);
  EXPECT_EQ(c.x[4], 0x11AB3344u);
}

TEST(Xpulp, ImmediateBranches) {
  //  0: p.beqimm x5, -3, +8 -> 8 (taken: 3 cycles)
  //  4: addi x6, x0, 1      (skipped)
  //  8: p.bneimm x5, -3, +8 (not taken: 1 cycle)
  // 12: addi x7, x0, 1
  // 16: ecall
  Machine m({p_beqimm(5, -3, 8), addi(6, 0, 1), p_bneimm(5, -3, 8), addi(7, 0, 1), kEcall});
  Cpu c = run(m, {{5, 0xFFFFFFFDu}});
  EXPECT_EQ(c.x[6], 0u);
  EXPECT_EQ(c.x[7], 1u);
  EXPECT_EQ(c.cycles, 5u);
  EXPECT_EQ(c.counters.taken, 1u);
}

TEST(Xpulp, WithoutXpulpTheEncodingsAreIllegal) {
  EXPECT_EQ(decode32(p_lw_pi(5, 10, 4)).op, Op::kIllegal);
  EXPECT_EQ(decode32(p_lw_pi(5, 10, 4), true).op, Op::kPLw);
  EXPECT_EQ(decode32(lp_setupi(0, 5, 6)).op, Op::kIllegal);
  EXPECT_EQ(decode32(pv(0, 0, 1, 5, 10, 11), true).op, Op::kPvAdd);
  EXPECT_EQ(decode32(pv(0, 0, 2, 5, 10, 11), true).op, Op::kIllegal);  // funct3 2: no .div form in Xpulpv2
  EXPECT_EQ(decode32(alu(0x21, 2, 5, 10, 11), true).op, Op::kIllegal);
  Machine m({p_lw_pi(5, 10, 4), kEcall});
  Cpu c = m.cpu(/*xpulp=*/false);
  ASSERT_EQ(c.run(10), Stop::kFault);
  EXPECT_EQ(c.fault().kind, Fault::kIllegalInstruction);
  Machine m2({csrrs(5, 0x7C2, 0), kEcall});  // the loop registers exist only with Xpulp
  Cpu c2 = m2.cpu(false);
  ASSERT_EQ(c2.run(10), Stop::kFault);
}

TEST(Xpulp, Disassembly) {
  auto dis = [](uint32_t w, uint32_t pc = 0x100) { return disassemble(decode32(w, true), pc); };
  EXPECT_EQ(dis(p_lw_pi(5, 10, 4)), "p.lw t0, 4(a0!)");
  EXPECT_EQ(dis(p_load_rpi(0x08, 8, 10, 11)), "p.lh s0, a1(a0!)");
  EXPECT_EQ(dis(p_load_rr(0x28, 9, 10, 11)), "p.lhu s1, a1(a0)");
  EXPECT_EQ(dis(p_store_pi(2, 5, 12, -4)), "p.sw t0, -4(a2!)");
  EXPECT_EQ(dis(p_store_rpi(5, 6, 12, 11)), "p.sh t1, a1(a2!)");
  EXPECT_EQ(dis(lp_setupi(0, 5, 6)), "lp.setupi 0, 5, 0x0000010c");
  EXPECT_EQ(dis(lp_setup(1, 10, 12)), "lp.setup 1, a0, 0x00000118");
  EXPECT_EQ(dis(lp_counti(1, 7)), "lp.counti 1, 7");
  EXPECT_EQ(dis(p_beqimm(5, -3, 8)), "p.beqimm t0, -3, 0x00000108");
  EXPECT_EQ(dis(alu(0x21, 0, 18, 10, 19)), "p.mac s2, a0, s3");
  EXPECT_EQ(dis(bitman(0, 5, 10, 3, 4)), "p.extract t0, a0, 3, 4");
  EXPECT_EQ(dis(alu(0x0A, 1, 5, 10, 4)), "p.clip t0, a0, 4");
  EXPECT_EQ(dis(pv(0, 0, 1, 5, 10, 11)), "pv.add.b t0, a0, a1");
  EXPECT_EQ(dis(pv(0, 0, 4, 5, 10, 11)), "pv.add.sc.h t0, a0, a1");
  EXPECT_EQ(dis(pv_sci(0, 0, 7, 5, 10, -1)), "pv.add.sci.b t0, a0, -1");
  EXPECT_EQ(dis(pv(23, 0, 1, 7, 12, 13)), "pv.sdotsp.b t2, a2, a3");
  EXPECT_EQ(dis(pv(26, 0, 0, 26, 24, 25, 1)), "pv.pack.h s10, s8, s9");
}

}  // namespace
}  // namespace fs::iss
