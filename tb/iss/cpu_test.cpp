// The ISS core on hand-assembled code: results, cycle counts from the timing table (worked out
// by hand in comments), and every kind of fault with its pc and instruction word.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "iss/cpu.h"
#include "iss/rv_encode.h"
#include "iss/tcdm_banks.h"

namespace fs::iss {
namespace {

constexpr uint32_t kCode = 0x1000, kData = 0x8000;

struct Machine {
  std::vector<uint8_t> code = std::vector<uint8_t>(4096, 0), data = std::vector<uint8_t>(4096, 0);
  AddressSpace mem;
  Timing timing;
  explicit Machine(const std::vector<uint32_t>& program, uint32_t data_extra_cycles = 0) {
    for (size_t k = 0; k < program.size(); ++k) std::memcpy(&code[4 * k], &program[k], 4);
    mem.add(MemRegion{kCode, uint32_t(code.size()), code.data(), false, true, 0, "code"});
    mem.add(MemRegion{kData, uint32_t(data.size()), data.data(), true, false, data_extra_cycles, "data"});
  }
  Cpu cpu() {
    Cpu c(mem, timing);
    c.pc = kCode;
    return c;
  }
};

TEST(IssCpu, ArithmeticLoadStoreAndEcall) {
  Machine m2({addi(5, 0, 1000), addi(6, 0, -3), add(7, 5, 6), sw(7, 10, 4), lw(9, 10, 4), kEcall});
  Cpu c2 = m2.cpu();
  c2.x[10] = kData;
  ASSERT_EQ(c2.run(100), Stop::kEcall);
  EXPECT_EQ(c2.x[7], 997u);
  EXPECT_EQ(c2.x[9], 997u);
  EXPECT_EQ(c2.pc, kCode + 20);  // pc stays on the ecall
  EXPECT_EQ(c2.instret, 5u);
  // addi, addi, add (1 each), sw (1), lw (1): 5 cycles, no stall (ecall is next, reads nothing).
  EXPECT_EQ(c2.cycles, 5u);
  EXPECT_EQ(m2.data[4], uint8_t(997 & 0xFF));
}

TEST(IssCpu, LoadUseStallTakenBranchMulAndDivCycles) {
  // Loop three times: x5 counts down from 3 (lw then immediately used: one stall each time).
  //   0: lw   x6, 0(x10)      load 1
  //   4: add  x7, x7, x6      alu 1 + load-use stall 1
  //   8: addi x5, x5, -1      1
  //  12: bne  x5, x0, -12     taken 3 (twice), not taken 1 (last)
  //  16: mul  x8, x7, x7      1
  //  20: mulh x9, x7, x7      5
  //  24: div  x11, x7, x12    3 + the divisor 2's 30 leading zeros = 33
  //  28: ecall
  // Loop: 3 x (1 + 2 + 1) + 3 + 3 + 1 = 19; then 1 + 5 + 33 = 39: 58 cycles, 3 stalls.
  Machine m({lw(6, 10, 0), add(7, 7, 6), addi(5, 5, -1), bne(5, 0, -12), mul(8, 7, 7), mulh(9, 7, 7),
             div_(11, 7, 12), kEcall});
  uint32_t seven = 7;
  std::memcpy(m.data.data(), &seven, 4);
  Cpu c = m.cpu();
  c.x[10] = kData;
  c.x[5] = 3;
  c.x[12] = 2;
  ASSERT_EQ(c.run(1000), Stop::kEcall);
  EXPECT_EQ(c.x[7], 21u);
  EXPECT_EQ(c.x[8], 441u);
  EXPECT_EQ(c.x[9], 0u);
  EXPECT_EQ(c.x[11], 10u);
  EXPECT_EQ(c.instret, 3u * 4 + 3);
  EXPECT_EQ(c.cycles, 58u);
  EXPECT_EQ(c.counters.load_use_stalls, 3u);
  EXPECT_EQ(c.counters.branches, 3u);
  EXPECT_EQ(c.counters.taken, 2u);
}

TEST(IssCpu, DivisionCyclesCountTheDivisorsLeadingZeros) {
  // 3 + the serial divider's steps (docs/ISS.md, "Timing"): the divisor's leading zeros (32 for
  // 0, 0 from 2^31 up); for div/rem by a negative divisor, one less than -b's leading zeros, 63
  // for -2^31. The dividend does not count.
  struct Case {
    uint32_t insn, a, b, cycles;
  };
  const Case cases[] = {
      {divu(7, 5, 6), 100, 0, 3 + 32},                     // divide by zero
      {divu(7, 5, 6), 100, 1, 3 + 31},
      {divu(7, 5, 6), 0xFFFFFFFFu, 0x80000000u, 3 + 0},
      {divu(7, 5, 6), 7, 0x40000000u, 3 + 1},
      {remu(7, 5, 6), 5, 0xFFFFFFFFu, 3 + 0},
      {div_(7, 5, 6), 21, 2, 3 + 30},
      {div_(7, 5, 6), 0x7FFFFFFFu, 2, 3 + 30},             // another dividend, the same steps
      {div_(7, 5, 6), 21, uint32_t(-1), 3 + 31 - 1},       // -b = 1: 31 leading zeros
      {div_(7, 5, 6), 21, uint32_t(-2), 3 + 30 - 1},       // -b = 2: 30
      {div_(7, 5, 6), 21, 0xC0000000u, 3 + 1 - 1},         // -b = 2^30: 1
      {div_(7, 5, 6), 21, 0x80000000u, 3 + 63},            // -b = 2^31: none, the count wraps
      {rem(7, 5, 6), 21, 0, 3 + 32},
      {rem(7, 5, 6), uint32_t(-7), 7, 3 + 29},
  };
  for (const Case& k : cases) {
    Machine m({k.insn, kEcall});
    Cpu c = m.cpu();
    c.x[5] = k.a;
    c.x[6] = k.b;
    ASSERT_EQ(c.run(10), Stop::kEcall);
    EXPECT_EQ(c.cycles, k.cycles) << std::hex << k.insn << " " << k.a << " / " << k.b;
    EXPECT_EQ(c.counters.div_cycles, k.cycles);
  }
}

TEST(IssCpu, AnAtomicTakesALoadsCycleAndItsResultALoadsStall) {
  // Memory word 10, x6 = 3.
  //   amoadd.w x5, x6, (x10)   1; x5 = 10, the word 13
  //   add x7, x5, x5           1 + 1 (x5 just came from memory); 20
  //   amoswap.w x8, x6, (x10)  1; x8 = 13, the word 3
  //   addi x9, x0, 1           1
  //   add x9, x8, x9           1 (x8 came two instructions back); 14
  // 6 cycles, one load-use stall. In a region of 15 extra cycles: 6 + 2 x 15.
  for (uint32_t extra : {0u, 15u}) {
    Machine m({amoadd_w(5, 10, 6), add(7, 5, 5), amoswap_w(8, 10, 6), addi(9, 0, 1), add(9, 8, 9), kEcall}, extra);
    const uint32_t ten = 10;
    std::memcpy(m.data.data(), &ten, 4);
    Cpu c = m.cpu();
    c.x[10] = kData;
    c.x[6] = 3;
    ASSERT_EQ(c.run(10), Stop::kEcall);
    EXPECT_EQ(c.x[5], 10u);
    EXPECT_EQ(c.x[7], 20u);
    EXPECT_EQ(c.x[8], 13u);
    EXPECT_EQ(c.x[9], 14u);
    EXPECT_EQ(m.data[0], 3u);
    EXPECT_EQ(c.cycles, 6u + 2 * extra);
    EXPECT_EQ(c.counters.load_use_stalls, 1u);
    EXPECT_EQ(c.counters.atomics, 2u);
  }
}

TEST(IssCpu, AnAmoHoldsItsTcdmBankForItsWrite) {
  // TCDM of 4 word-interleaved banks. amoadd.w at word 0 (bank 0) at cycle 0 writes at cycle 1:
  // a load from bank 0 at cycle 1 waits a cycle (3 cycles in all); one from bank 1 does not (2).
  for (uint32_t offset : {0u, 4u}) {
    Machine m({amoadd_w(5, 10, 6), lw(7, 10, int32_t(offset)), kEcall});
    TcdmBanks banks(4);
    AddressSpace mem;
    mem.add(MemRegion{kCode, uint32_t(m.code.size()), m.code.data(), false, true, 0, "code"});
    MemRegion l1{kData, uint32_t(m.data.size()), m.data.data(), true, false, 0, "L1"};
    l1.banks = &banks;
    mem.add(l1);
    Cpu c(mem, m.timing);
    c.pc = kCode;
    c.x[10] = kData;
    ASSERT_EQ(c.run(10), Stop::kEcall);
    EXPECT_EQ(c.cycles, offset == 0 ? 3u : 2u);
    EXPECT_EQ(c.counters.bank_conflict_cycles, offset == 0 ? 1u : 0u);
  }
}

TEST(IssCpu, LrScFaultWhereTheMemoryHasNone) {
  // PsPIN's L1 executes AMOs but has no LR/SC: a region without them (lrsc = false).
  for (uint32_t insn : {lr_w(5, 10), sc_w(5, 10, 6), amoadd_w(5, 10, 6)}) {
    Machine m({insn, kEcall});
    AddressSpace mem;
    mem.add(MemRegion{kCode, uint32_t(m.code.size()), m.code.data(), false, true, 0, "code"});
    MemRegion l1{kData, uint32_t(m.data.size()), m.data.data(), true, false, 0, "L1"};
    l1.lrsc = false;
    mem.add(l1);
    Cpu c(mem, m.timing);
    c.pc = kCode;
    c.x[10] = kData + 8;
    if (insn == amoadd_w(5, 10, 6)) {
      EXPECT_EQ(c.run(10), Stop::kEcall);
      continue;
    }
    ASSERT_EQ(c.run(10), Stop::kFault);
    EXPECT_EQ(c.fault().kind, Fault::kNoLrSc);
    EXPECT_EQ(c.fault().addr, kData + 8);
    EXPECT_EQ(c.instret, 0u);
    char want[160];
    std::snprintf(want, sizeof want,
                  "lr.w/sc.w to memory without LR/SC (PsPIN's L1 has none) at address 0x%08x (pc 0x%08x, "
                  "instruction 0x%08x)",
                  kData + 8, kCode, insn);
    EXPECT_EQ(c.fault().describe(), want);
  }
}

TEST(IssCpu, RegionCostsAndMisalignedAccess) {
  // A load from a region costing 10 extra cycles, then a misaligned load (+1) from it.
  Machine m({lw(6, 10, 0), lw(7, 10, 2), kEcall}, /*data_extra_cycles=*/10);
  const uint8_t bytes[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  std::memcpy(m.data.data(), bytes, 8);
  Cpu c = m.cpu();
  c.x[10] = kData;
  ASSERT_EQ(c.run(10), Stop::kEcall);
  EXPECT_EQ(c.x[6], 0x04030201u);
  EXPECT_EQ(c.x[7], 0x06050403u);
  EXPECT_EQ(c.cycles, (1u + 10) + (1u + 10 + 1));
  EXPECT_EQ(c.counters.region_stall_cycles, 20u);
  EXPECT_EQ(c.counters.misaligned, 1u);  // the second load only
}

TEST(IssCpu, CallMarksTimeACallFromItsFirstInstructionToItsReturn) {
  // A firmware-like call through a register and the function it calls:
  //   0x1000: jalr x1, 0(x11)   the call (call_pc): 2       -> the callee starts at cycle 2
  //   0x1004: ecall              the return point (return_pc)
  //   0x1008: lw   x6, 0(x10)    1
  //   0x100c: add  x10, x6, x6   1 + 1 load-use stall
  //   0x1010: jalr x0, 0(x1)     the return: 2                -> returned at 2 + 1 + 2 + 2 = 7
  Machine m({jalr(1, 11, 0), kEcall, lw(6, 10, 0), add(10, 6, 6), jalr(0, 1, 0)});
  m.data[0] = 21;
  Cpu c = m.cpu();
  c.x[10] = kData;
  c.x[11] = kCode + 8;
  c.set_call_marks(kCode, kCode + 4);
  EXPECT_EQ(c.call_marks().entered, CallMarks::kNotReached);
  ASSERT_EQ(c.run(100), Stop::kEcall);
  EXPECT_EQ(c.x[10], 42u);
  EXPECT_EQ(c.cycles, 7u);
  EXPECT_EQ(c.call_marks().entered, 2u);
  EXPECT_EQ(c.call_marks().returned, 7u);
  // Marking again forgets what was reached; without marks nothing is.
  c.set_call_marks(kCode, kCode + 4);
  EXPECT_EQ(c.call_marks().entered, CallMarks::kNotReached);
  EXPECT_EQ(c.call_marks().returned, CallMarks::kNotReached);
  Cpu d = m.cpu();
  d.x[10] = kData;
  d.x[11] = kCode + 8;
  ASSERT_EQ(d.run(100), Stop::kEcall);
  EXPECT_EQ(d.cycles, 7u);
  EXPECT_EQ(d.call_marks().entered, CallMarks::kNotReached);
  EXPECT_EQ(d.call_marks().returned, CallMarks::kNotReached);
}

TEST(IssCpu, Faults) {
  {  // an illegal word
    Machine m({addi(1, 0, 1), 0xFFFFFFFFu});
    Cpu c = m.cpu();
    ASSERT_EQ(c.run(10), Stop::kFault);
    EXPECT_EQ(c.fault().describe(), "illegal instruction 0xffffffff at pc 0x00001004");
  }
  {  // a load outside every region
    Machine m({lw(6, 0, 0x7F0)});
    Cpu c = m.cpu();
    ASSERT_EQ(c.run(10), Stop::kFault);
    EXPECT_EQ(c.fault().describe(),
              "load access fault at address 0x000007f0 (pc 0x00001000, instruction 0x7f002303)");
  }
  {  // a store into read-only code
    Machine m({sw(1, 10, 0)});
    Cpu c = m.cpu();
    c.x[10] = kCode;
    ASSERT_EQ(c.run(10), Stop::kFault);
    EXPECT_EQ(c.fault().kind, Fault::kStoreAccess);
    EXPECT_EQ(c.fault().addr, kCode);
  }
  {  // amoadd.w on a misaligned address
    Machine m({r(0x00, 6, 10, 2, 5, 0x2F)});
    Cpu c = m.cpu();
    c.x[10] = kData + 2;
    ASSERT_EQ(c.run(10), Stop::kFault);
    EXPECT_EQ(c.fault().kind, Fault::kMisalignedAtomic);
    EXPECT_EQ(c.fault().addr, kData + 2);
  }
  {  // an unknown CSR, and a write to a read-only one (cycle)
    Machine m({i(0x7C0, 0, 2, 5, 0x73)});
    Cpu c = m.cpu();
    ASSERT_EQ(c.run(10), Stop::kFault);
    EXPECT_EQ(c.fault().kind, Fault::kIllegalInstruction);
    Machine w({i(0xC00, 5, 1, 0, 0x73)});  // csrrw x0, cycle, x5
    Cpu cw = w.cpu();
    ASSERT_EQ(cw.run(10), Stop::kFault);
    EXPECT_EQ(cw.fault().kind, Fault::kIllegalInstruction);
  }
  {  // running off the end of the code region
    Machine m({});
    Cpu c = m.cpu();
    c.pc = kCode + 4096;
    ASSERT_EQ(c.run(10), Stop::kFault);
    EXPECT_EQ(c.fault().kind, Fault::kFetchAccess);
  }
  {  // the budget stops an endless loop
    Machine m({b(0, 0, 0, 0)});  // beq x0, x0, 0
    Cpu c = m.cpu();
    EXPECT_EQ(c.run(1000), Stop::kBudget);
    EXPECT_EQ(c.instret, 1000u);
    EXPECT_EQ(c.cycles, 3000u);
  }
}

TEST(IssCpu, CompressedInstructions) {
  // c.li a0, 5 (0x4515); c.addi a0, 3 (0x050d); c.mv a1, a0 (0x85aa); c.add a1, a0 (0x95aa); ecall
  Machine m({0x050d4515u, 0x95aa85aau, kEcall});
  Cpu c = m.cpu();
  ASSERT_EQ(c.run(10), Stop::kEcall);
  EXPECT_EQ(c.x[10], 8u);
  EXPECT_EQ(c.x[11], 16u);
  EXPECT_EQ(c.pc, kCode + 8);
  EXPECT_EQ(c.instret, 4u);
  // An all-zero halfword is illegal.
  Machine z({0x00000000u});
  Cpu cz = z.cpu();
  ASSERT_EQ(cz.run(10), Stop::kFault);
  EXPECT_EQ(cz.fault().describe(), "illegal instruction 0x00000000 at pc 0x00001000");
}

TEST(IssCpu, ALongRunOfAluInstructionsStopsExactlyAtBudgetAndCycleLimit) {
  // 600 x `addi x5, x5, 1` (more than an ALU run's count of 255) and an ecall, at 3 cycles per
  // ALU instruction; an instruction starts while the core's cycles are below the limit.
  //   run(300):               300 instructions, 900 cycles, x5 = 300
  //   run(all, limit 1000):   starts at 900, 903, ..., 999: 34 more; 334, 1002 cycles
  //   run(all, limit 1002):   at the limit already: nothing
  //   run(1000):              the other 266 up to the ecall: 600, 1800 cycles, x5 = 600
  // On both engines, the fast one counting runs as it goes and from a decode shared up front
  // (as threads share a switch's code), and with a second core on that shared decode.
  std::vector<uint32_t> program(600, addi(5, 5, 1));
  program.push_back(kEcall);
  Machine m(program);
  m.timing.alu = 3;
  struct Variant {
    const char* name;
    Cpu::Engine engine;
    bool shared;
  };
  for (const Variant& v : {Variant{"plain", Cpu::Engine::kPlain, false}, Variant{"fast", Cpu::Engine::kFast, false},
                           Variant{"fast, shared decode", Cpu::Engine::kFast, true}}) {
    SharedDecode decode;
    Cpu first = m.cpu(), c = m.cpu();
    for (Cpu* core : {&first, &c}) {
      core->set_engine(v.engine);
      if (v.shared) core->share_decode(&decode);
      core->decode_shared_code();
    }
    ASSERT_EQ(first.run(1000), Stop::kEcall) << v.name;  // the shared decode's first user
    EXPECT_EQ(first.x[5], 600u) << v.name;
    ASSERT_EQ(c.run(300), Stop::kBudget) << v.name;
    EXPECT_EQ(c.instret, 300u) << v.name;
    EXPECT_EQ(c.cycles, 900u) << v.name;
    EXPECT_EQ(c.x[5], 300u) << v.name;
    EXPECT_EQ(c.pc, kCode + 4 * 300) << v.name;
    ASSERT_EQ(c.run(~0ull, 1000), Stop::kBudget) << v.name;
    EXPECT_EQ(c.instret, 334u) << v.name;
    EXPECT_EQ(c.cycles, 1002u) << v.name;
    EXPECT_EQ(c.x[5], 334u) << v.name;
    ASSERT_EQ(c.run(~0ull, 1002), Stop::kBudget) << v.name;
    EXPECT_EQ(c.instret, 334u) << v.name;
    ASSERT_EQ(c.run(1000), Stop::kEcall) << v.name;
    EXPECT_EQ(c.instret, 600u) << v.name;
    EXPECT_EQ(c.cycles, 1800u) << v.name;
    EXPECT_EQ(c.x[5], 600u) << v.name;
    EXPECT_EQ(c.pc, kCode + 4 * 600) << v.name;
    EXPECT_EQ(decode.size(), v.shared ? 1u : 0u) << v.name;
  }
}

}  // namespace
}  // namespace fs::iss
