// The ISS timing model: cycles per instruction class, starting from the RI5CY/CV32E40P figures
// (docs/ISS.md), all configurable. The core adds memory-region costs and stalls on top.
#pragma once
#include <cstdint>

namespace fs::iss {

struct Timing {
  uint32_t alu = 1;              // integer ALU, lui/auipc, CSR, fence
  uint32_t load = 1;             // loads (plus region cost)
  uint32_t load_use_stall = 1;   // extra when the next instruction reads the loaded register
  uint32_t store = 1;
  uint32_t branch_taken = 3;
  uint32_t branch_not_taken = 1;
  uint32_t jump = 2;             // jal, jalr
  uint32_t mul = 1;              // mul
  uint32_t mulh = 5;             // mulh, mulhsu, mulhu
  uint32_t div_min = 3;          // div/rem: div_min + (bit length of dividend - bit length of divisor),
  uint32_t div_max = 35;         //          clamped to [div_min, div_max]
  uint32_t misaligned = 1;       // extra for a load or store that is not naturally aligned
  uint32_t atomic = 2;           // lr/sc/amo (plus region cost)
  uint32_t fpu = 1;              // fadd, fsub, fmul, fmadd family, fmin/fmax, compare, sign, moves
  uint32_t fcvt = 1;             // float/int conversions, fclass
  uint32_t fdiv = 12;
  uint32_t fsqrt = 12;
};

}  // namespace fs::iss
