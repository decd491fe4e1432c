// Helpers the instruction decoders share (decode.cpp, decode_xpulp.cpp): bit fields of an
// instruction word, sign extension, the register fields every format keeps in the same place, and
// the illegal-instruction record.
#pragma once
#include <cstdint>

#include "iss/insn.h"

namespace fs::iss::field {

inline uint32_t bits(uint32_t w, int hi, int lo) { return (w >> lo) & ((1u << (hi - lo + 1)) - 1); }
inline int32_t sext(uint32_t v, int width) { return int32_t(v << (32 - width)) >> (32 - width); }
// An instruction of operation `op` with rd, rs1 and rs2 from their usual bits.
inline Insn with_registers(Op op, uint32_t w) {
  Insn i;
  i.op = op;
  i.raw = w;
  i.rd = uint8_t(bits(w, 11, 7));
  i.rs1 = uint8_t(bits(w, 19, 15));
  i.rs2 = uint8_t(bits(w, 24, 20));
  return i;
}
inline Insn illegal(uint32_t w, uint8_t len = 4) {
  Insn i;
  i.raw = w;
  i.len = len;
  return i;
}

}  // namespace fs::iss::field
