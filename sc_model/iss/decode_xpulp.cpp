// Decoding RI5CY's Xpulpv2 extensions (as PULP's toolchain emits them, and as the CV32E40P v1
// manual's encoding tables give them): post-increment and register-offset loads and stores
// (opcodes 0x0B, 0x2B, and funct3 7 / 4-6 of LOAD / STORE), hardware loops (0x7B), branches on an
// immediate (funct3 2 and 3 of BRANCH), the scalar ALU and multiplier forms on OP (0x33) and
// PULP_OP (0x5B), and packed SIMD (0x57). Anything else gives Op::kIllegal.
#include "iss/decode_fields.h"
#include "iss/insn.h"

namespace fs::iss {
namespace {

using field::bits;
using field::illegal;
using field::sext;

// An Xpulp instruction reading the listed integer registers (kNoReg: none) and writing rd.
Insn make(Op op, uint32_t w, uint8_t s0, uint8_t s1 = kNoReg, uint8_t s2 = kNoReg, bool writes_rd = true) {
  Insn i = field::with_registers(op, w);
  i.src[0] = s0;
  i.src[1] = s1;
  i.src[2] = s2;
  i.dst = writes_rd && i.rd ? i.rd : kNoReg;
  return i;
}
uint8_t rs1(uint32_t w) { return uint8_t(bits(w, 19, 15)); }
uint8_t rs2(uint32_t w) { return uint8_t(bits(w, 24, 20)); }
uint8_t rd(uint32_t w) { return uint8_t(bits(w, 11, 7)); }

// The width of an Xpulp register-offset load from its funct7 (lb, lbu, lh, lhu, lw).
Op reg_load(uint32_t f7) {
  switch (f7) {
    case 0x00: return Op::kPLb;
    case 0x20: return Op::kPLbu;
    case 0x08: return Op::kPLh;
    case 0x28: return Op::kPLhu;
    case 0x10: return Op::kPLw;
    default: return Op::kIllegal;
  }
}

Insn load_post_imm(uint32_t w) {
  static const Op ops[8] = {Op::kPLb, Op::kPLh, Op::kPLw, Op::kIllegal, Op::kPLbu, Op::kPLhu, Op::kIllegal, Op::kIllegal};
  const uint32_t f3 = bits(w, 14, 12);
  if (f3 == 7) {
    const Op op = reg_load(bits(w, 31, 25));
    if (op == Op::kIllegal) return illegal(w);
    Insn i = make(op, w, rs1(w), rs2(w));
    i.aux = kPostReg;
    return i;
  }
  if (ops[f3] == Op::kIllegal) return illegal(w);
  Insn i = make(ops[f3], w, rs1(w));
  i.imm = sext(bits(w, 31, 20), 12);
  i.aux = kPostImm;
  return i;
}

// Stores: rs3 (the register offset) sits in the rd field.
Insn store(Op op, uint32_t w, XpMem mode) {
  Insn i = make(op, w, rs1(w), rs2(w), mode == kPostImm ? kNoReg : rd(w), false);
  i.rs3 = mode == kPostImm ? 0 : rd(w);
  i.aux = mode;
  if (mode == kPostImm) i.imm = sext((bits(w, 31, 25) << 5) | bits(w, 11, 7), 12);
  return i;
}

Insn store_post(uint32_t w) {
  static const Op ops[3] = {Op::kPSb, Op::kPSh, Op::kPSw};
  const uint32_t f3 = bits(w, 14, 12);
  if (f3 <= 2) return store(ops[f3], w, kPostImm);
  if (f3 >= 4 && f3 <= 6 && bits(w, 31, 25) == 0) return store(ops[f3 - 4], w, kPostReg);
  return illegal(w);
}

Insn hwloop(uint32_t w) {
  if (bits(w, 11, 8) != 0) return illegal(w);
  static const Op ops[8] = {Op::kLpStarti, Op::kLpEndi, Op::kLpCount, Op::kLpCounti, Op::kLpSetup, Op::kLpSetupi,
                            Op::kIllegal, Op::kIllegal};
  const uint32_t f3 = bits(w, 14, 12);
  const Op op = ops[f3];
  if (op == Op::kIllegal) return illegal(w);
  const bool reads_rs1 = op == Op::kLpCount || op == Op::kLpSetup;
  if (!reads_rs1 && op != Op::kLpSetupi && rs1(w) != 0) return illegal(w);
  if (op == Op::kLpCount && bits(w, 31, 20) != 0) return illegal(w);
  Insn i = make(op, w, reads_rs1 ? rs1(w) : kNoReg, kNoReg, kNoReg, false);
  i.rd = 0;
  i.imm = int32_t(bits(w, 31, 20));  // uimmL: an offset in halfwords, or a count
  i.aux = uint8_t(bits(w, 7, 7));    // the loop
  return i;                          // lp.setupi: uimmS (end offset in halfwords) stays in rs1
}

Insn branch_imm(uint32_t w) {
  Insn i = make(bits(w, 14, 12) == 2 ? Op::kPBeqimm : Op::kPBneimm, w, rs1(w), kNoReg, kNoReg, false);
  i.imm = sext((bits(w, 31, 31) << 12) | (bits(w, 7, 7) << 11) | (bits(w, 30, 25) << 5) | (bits(w, 11, 8) << 1), 13);
  i.aux = uint8_t(int8_t(sext(bits(w, 24, 20), 5)));
  return i;
}

// OP (0x33) with funct7 other than RV32IM's.
Insn op_alu(uint32_t w) {
  const uint32_t f7 = bits(w, 31, 25), f3 = bits(w, 14, 12);
  const uint8_t a = rs1(w), b = rs2(w), d = rd(w);
  if (bits(w, 31, 30) == 3) {  // bit manipulation with immediates: Is3 in 29:25, Is2 in 24:20
    static const Op ops[8] = {Op::kPExtract, Op::kPExtractu, Op::kPInsert, Op::kPBclr, Op::kPBset, Op::kPBitrev,
                              Op::kIllegal, Op::kIllegal};
    if (ops[f3] == Op::kIllegal) return illegal(w);
    Insn i = make(ops[f3], w, a, kNoReg, ops[f3] == Op::kPInsert ? d : kNoReg);
    i.aux = uint8_t(ops[f3] == Op::kPBitrev ? bits(w, 26, 25) : bits(w, 29, 25));
    i.imm = int32_t(bits(w, 24, 20));
    return i;
  }
  switch (f7) {
    case 0x40: {  // bit manipulation with the field in rs2 (bits 9:5 length - 1, 4:0 position)
      static const Op ops[8] = {Op::kPExtractr, Op::kPExtractur, Op::kPInsertr, Op::kPBclrr, Op::kPBsetr,
                                Op::kIllegal, Op::kIllegal, Op::kIllegal};
      if (ops[f3] == Op::kIllegal) return illegal(w);
      return make(ops[f3], w, a, b, ops[f3] == Op::kPInsertr ? d : kNoReg);
    }
    case 0x02: {
      static const Op ops[8] = {Op::kPAbs, Op::kIllegal, Op::kPSlet, Op::kPSletu, Op::kPMin, Op::kPMinu, Op::kPMax,
                                Op::kPMaxu};
      if (ops[f3] == Op::kIllegal || (f3 == 0 && b != 0)) return illegal(w);
      return make(ops[f3], w, a, f3 == 0 ? kNoReg : b);
    }
    case 0x08: {
      static const Op ops[8] = {Op::kPFf1, Op::kPFl1, Op::kPClb, Op::kPCnt, Op::kPExths, Op::kPExthz, Op::kPExtbs,
                                Op::kPExtbz};
      return b == 0 ? make(ops[f3], w, a) : illegal(w);
    }
    case 0x04: return f3 == 5 ? make(Op::kPRor, w, a, b) : illegal(w);
    case 0x0A: {
      if (f3 == 1 || f3 == 2) {
        Insn i = make(f3 == 1 ? Op::kPClip : Op::kPClipu, w, a);
        i.imm = int32_t(b);  // Is2: the bound's bit count
        return i;
      }
      if (f3 == 5 || f3 == 6) return make(f3 == 5 ? Op::kPClipr : Op::kPClipur, w, a, b);
      return illegal(w);
    }
    case 0x21:
      if (f3 > 1) return illegal(w);
      return make(f3 == 0 ? Op::kPMac : Op::kPMsu, w, a, b, d);
    default: return illegal(w);
  }
}

// PULP_OP (0x5B): additions, subtractions and 16-bit multiplies with a shift; f2 = bits 31:30.
Insn pulp_op(uint32_t w) {
  const uint32_t f2 = bits(w, 31, 30), f3 = bits(w, 14, 12), is3 = bits(w, 29, 25);
  static const Op mul[4] = {Op::kPMuluN, Op::kPMulhhuN, Op::kPMulsN, Op::kPMulhhsN};
  static const Op mul_rn[4] = {Op::kPMuluRN, Op::kPMulhhuRN, Op::kPMulsRN, Op::kPMulhhsRN};
  static const Op mac[4] = {Op::kPMacuN, Op::kPMachhuN, Op::kPMacsN, Op::kPMachhsN};
  static const Op mac_rn[4] = {Op::kPMacuRN, Op::kPMachhuRN, Op::kPMacsRN, Op::kPMachhsRN};
  // {signed, unsigned, signed with rD, unsigned with rD} for add, addR, sub, subR (f2 order 0, 2, 1, 3)
  static const Op add[4] = {Op::kPAddN, Op::kPAddNr, Op::kPAdduN, Op::kPAdduNr};
  static const Op add_rn[4] = {Op::kPAddRN, Op::kPAddRNr, Op::kPAdduRN, Op::kPAdduRNr};
  static const Op sub[4] = {Op::kPSubN, Op::kPSubNr, Op::kPSubuN, Op::kPSubuNr};
  static const Op sub_rn[4] = {Op::kPSubRN, Op::kPSubRNr, Op::kPSubuRN, Op::kPSubuRNr};
  const Op* table = nullptr;
  switch (f3) {
    case 0: table = mul; break;
    case 4: table = mul_rn; break;
    case 1: table = mac; break;
    case 5: table = mac_rn; break;
    case 2: table = add; break;
    case 6: table = add_rn; break;
    case 3: table = sub; break;
    default: table = sub_rn; break;
  }
  const Op op = table[f2];
  const bool reg_shift = (f3 == 2 || f3 == 6 || f3 == 3 || f3 == 7) && (f2 & 1);  // the ...Nr forms
  if (reg_shift && is3 != 0) return illegal(w);
  const bool reads_rd = reg_shift || f3 == 1 || f3 == 5;
  Insn i = make(op, w, rs1(w), rs2(w), reads_rd ? rd(w) : kNoReg);
  i.aux = uint8_t(is3);
  return i;
}

// Packed SIMD (0x57): funct5 = bits 31:27, F = bit 26, funct3 the width and operand mode.
Insn simd(uint32_t w) {
  const uint32_t f5 = bits(w, 31, 27), f = bits(w, 26, 26), b25 = bits(w, 25, 25), f3 = bits(w, 14, 12);
  static const uint8_t modes[8] = {0, kSimdB, 0xFF, 0xFF, kSimdSc, kSimdB | kSimdSc, kSimdSci, kSimdB | kSimdSci};
  const uint8_t mode = modes[f3];
  if (mode == 0xFF) return illegal(w);  // funct3 2 and 3: the .div forms, not in Xpulpv2
  const bool sci = mode & kSimdSci, vv = !(mode & (kSimdSc | kSimdSci)), bytes = mode & kSimdB;
  Op op = Op::kIllegal;
  bool zero_ext = false, reads_rd = false, needs_rs2 = !sci;
  if (f == 1) {
    static const Op cmp[10] = {Op::kPvCmpeq, Op::kPvCmpne, Op::kPvCmpgt, Op::kPvCmpge, Op::kPvCmplt,
                               Op::kPvCmple, Op::kPvCmpgtu, Op::kPvCmpgeu, Op::kPvCmpltu, Op::kPvCmpleu};
    if (f5 >= 10) return illegal(w);
    op = cmp[f5];
    zero_ext = f5 >= 6;
  } else {
    switch (f5) {
      case 0: op = Op::kPvAdd; break;
      case 1: op = Op::kPvSub; break;
      case 2: op = Op::kPvAvg; break;
      case 3: op = Op::kPvAvgu; zero_ext = true; break;
      case 4: op = Op::kPvMin; break;
      case 5: op = Op::kPvMinu; zero_ext = true; break;
      case 6: op = Op::kPvMax; break;
      case 7: op = Op::kPvMaxu; zero_ext = true; break;
      case 8: op = Op::kPvSrl; zero_ext = true; break;
      case 9: op = Op::kPvSra; zero_ext = true; break;
      case 10: op = Op::kPvSll; zero_ext = true; break;
      case 11: op = Op::kPvOr; break;
      case 12: op = Op::kPvXor; break;
      case 13: op = Op::kPvAnd; break;
      case 14: op = vv && rs2(w) == 0 ? Op::kPvAbs : Op::kIllegal; needs_rs2 = false; break;
      case 15: op = sci ? Op::kPvExtract : Op::kIllegal; break;
      case 18: op = sci ? Op::kPvExtractu : Op::kIllegal; zero_ext = true; break;
      case 22: op = sci ? Op::kPvInsert : Op::kIllegal; reads_rd = true; break;
      case 16: op = Op::kPvDotup; zero_ext = true; break;
      case 17: op = Op::kPvDotusp; break;
      case 19: op = Op::kPvDotsp; break;
      case 20: op = Op::kPvSdotup; zero_ext = true; reads_rd = true; break;
      case 21: op = Op::kPvSdotusp; reads_rd = true; break;
      case 23: op = Op::kPvSdotsp; reads_rd = true; break;
      case 24: op = vv || sci ? (bytes && sci ? Op::kPvShuffleI0 : Op::kPvShuffle) : Op::kIllegal; zero_ext = true; break;
      case 29: op = bytes && sci ? Op::kPvShuffleI1 : Op::kIllegal; zero_ext = true; break;
      case 30: op = bytes && sci ? Op::kPvShuffleI2 : Op::kIllegal; zero_ext = true; break;
      case 31: op = bytes && sci ? Op::kPvShuffleI3 : Op::kIllegal; zero_ext = true; break;
      case 25: op = vv ? Op::kPvShuffle2 : Op::kIllegal; reads_rd = true; break;
      case 26: op = f3 == 0 ? (b25 ? Op::kPvPackH : Op::kPvPack) : Op::kIllegal; break;
      case 27: op = f3 == 1 ? Op::kPvPackhi : Op::kIllegal; reads_rd = true; break;
      case 28: op = f3 == 1 ? Op::kPvPacklo : Op::kIllegal; reads_rd = true; break;
      default: break;
    }
  }
  if (op == Op::kIllegal) return illegal(w);
  if (!sci && b25 && op != Op::kPvPackH) return illegal(w);
  Insn i = make(op, w, rs1(w), needs_rs2 ? rs2(w) : kNoReg, reads_rd ? rd(w) : kNoReg);
  i.aux = mode;
  if (op == Op::kPvPack || op == Op::kPvPackH) i.aux = 0;
  if (op == Op::kPvPackhi || op == Op::kPvPacklo) i.aux = kSimdB;
  if (sci) {
    const uint32_t imm6 = (bits(w, 24, 20) << 1) | b25;  // Imm6[0] at bit 25, Imm6[5:1] at 24:20
    i.imm = zero_ext ? int32_t(imm6) : sext(imm6, 6);
    i.rs2 = 0;
  }
  return i;
}

}  // namespace

Insn decode_xpulp(uint32_t w) {
  const uint32_t f3 = bits(w, 14, 12);
  switch (bits(w, 6, 0)) {
    case 0x0B: return load_post_imm(w);
    case 0x03: {  // LOAD, funct3 7: register-offset loads
      if (f3 != 7) return illegal(w);
      const Op op = reg_load(bits(w, 31, 25));
      if (op == Op::kIllegal) return illegal(w);
      Insn i = make(op, w, rs1(w), rs2(w));
      i.aux = kRegReg;
      return i;
    }
    case 0x2B: return store_post(w);
    case 0x23: {  // STORE, funct3 4-6: register-offset stores
      static const Op ops[3] = {Op::kPSb, Op::kPSh, Op::kPSw};
      if (f3 < 4 || f3 > 6 || bits(w, 31, 25) != 0) return illegal(w);
      return store(ops[f3 - 4], w, kRegReg);
    }
    case 0x7B: return hwloop(w);
    case 0x63: return f3 == 2 || f3 == 3 ? branch_imm(w) : illegal(w);
    case 0x33: return op_alu(w);
    case 0x5B: return pulp_op(w);
    case 0x57: return simd(w);
    default: return illegal(w);
  }
}

}  // namespace fs::iss
