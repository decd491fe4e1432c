// Instruction decoding for the ISS: 32-bit RV32IMAF + Zicsr + Zifencei words and 16-bit RV32C
// (with the F load/store forms), into pre-decoded Insn records; Xpulp in decode_xpulp.cpp.
#include <cstddef>

#include "iss/decode_fields.h"
#include "iss/insn.h"

namespace fs::iss {
namespace {

using field::bits;
using field::illegal;
using field::sext;

// Fills the unified source/destination registers from the op's kind of operands.
enum Shape { kR, kI, kS, kB, kU, kJ, kNone, kCsrR, kCsrI, kFR, kFR1, kFR4, kFLoad, kFStore, kFToX, kXToF, kFCmp };

Insn make(Op op, uint32_t w, Shape shape) {
  Insn i = field::with_registers(op, w);
  i.rs3 = uint8_t(bits(w, 31, 27));
  i.rm = uint8_t(bits(w, 14, 12));
  auto x = [](uint8_t r) { return r; };
  auto f = [](uint8_t r) { return uint8_t(r + kF); };
  switch (shape) {
    case kR: i.src[0] = x(i.rs1); i.src[1] = x(i.rs2); i.dst = x(i.rd); break;
    case kI: i.src[0] = x(i.rs1); i.dst = x(i.rd); i.imm = sext(bits(w, 31, 20), 12); break;
    case kS: i.src[0] = x(i.rs1); i.src[1] = x(i.rs2); i.imm = sext((bits(w, 31, 25) << 5) | bits(w, 11, 7), 12); break;
    case kB:
      i.src[0] = x(i.rs1);
      i.src[1] = x(i.rs2);
      i.imm = sext((bits(w, 31, 31) << 12) | (bits(w, 7, 7) << 11) | (bits(w, 30, 25) << 5) | (bits(w, 11, 8) << 1), 13);
      break;
    case kU: i.dst = x(i.rd); i.imm = int32_t(w & 0xFFFFF000u); break;
    case kJ:
      i.dst = x(i.rd);
      i.imm = sext((bits(w, 31, 31) << 20) | (bits(w, 19, 12) << 12) | (bits(w, 20, 20) << 11) | (bits(w, 30, 21) << 1), 21);
      break;
    case kNone: break;
    case kCsrR: i.src[0] = x(i.rs1); i.dst = x(i.rd); i.imm = int32_t(bits(w, 31, 20)); break;
    case kCsrI: i.dst = x(i.rd); i.imm = int32_t(bits(w, 31, 20)); break;
    case kFR: i.src[0] = f(i.rs1); i.src[1] = f(i.rs2); i.dst = f(i.rd); break;
    case kFR1: i.src[0] = f(i.rs1); i.dst = f(i.rd); break;
    case kFR4: i.src[0] = f(i.rs1); i.src[1] = f(i.rs2); i.src[2] = f(i.rs3); i.dst = f(i.rd); break;
    case kFLoad: i.src[0] = x(i.rs1); i.dst = f(i.rd); i.imm = sext(bits(w, 31, 20), 12); break;
    case kFStore: i.src[0] = x(i.rs1); i.src[1] = f(i.rs2); i.imm = sext((bits(w, 31, 25) << 5) | bits(w, 11, 7), 12); break;
    case kFToX: i.src[0] = f(i.rs1); i.dst = x(i.rd); break;
    case kXToF: i.src[0] = x(i.rs1); i.dst = f(i.rd); break;
    case kFCmp: i.src[0] = f(i.rs1); i.src[1] = f(i.rs2); i.dst = x(i.rd); break;
  }
  if (i.dst == 0) i.dst = kNoReg;  // writes to x0 are discarded
  return i;
}

bool valid_rm(uint32_t rm) { return rm <= 4 || rm == 7; }

Insn decode_op_fp(uint32_t w) {
  const uint32_t f7 = bits(w, 31, 25), rm = bits(w, 14, 12), rs2 = bits(w, 24, 20);
  switch (f7) {
    case 0x00: return valid_rm(rm) ? make(Op::kFaddS, w, kFR) : illegal(w);
    case 0x04: return valid_rm(rm) ? make(Op::kFsubS, w, kFR) : illegal(w);
    case 0x08: return valid_rm(rm) ? make(Op::kFmulS, w, kFR) : illegal(w);
    case 0x0C: return valid_rm(rm) ? make(Op::kFdivS, w, kFR) : illegal(w);
    case 0x2C: return rs2 == 0 && valid_rm(rm) ? make(Op::kFsqrtS, w, kFR1) : illegal(w);
    case 0x10:
      if (rm == 0) return make(Op::kFsgnjS, w, kFR);
      if (rm == 1) return make(Op::kFsgnjnS, w, kFR);
      if (rm == 2) return make(Op::kFsgnjxS, w, kFR);
      return illegal(w);
    case 0x14:
      if (rm == 0) return make(Op::kFminS, w, kFR);
      if (rm == 1) return make(Op::kFmaxS, w, kFR);
      return illegal(w);
    case 0x60:
      if (!valid_rm(rm)) return illegal(w);
      if (rs2 == 0) return make(Op::kFcvtWS, w, kFToX);
      if (rs2 == 1) return make(Op::kFcvtWuS, w, kFToX);
      return illegal(w);
    case 0x70:
      if (rs2 != 0) return illegal(w);
      if (rm == 0) return make(Op::kFmvXW, w, kFToX);
      if (rm == 1) return make(Op::kFclassS, w, kFToX);
      return illegal(w);
    case 0x50:
      if (rm == 2) return make(Op::kFeqS, w, kFCmp);
      if (rm == 1) return make(Op::kFltS, w, kFCmp);
      if (rm == 0) return make(Op::kFleS, w, kFCmp);
      return illegal(w);
    case 0x68:
      if (!valid_rm(rm)) return illegal(w);
      if (rs2 == 0) return make(Op::kFcvtSW, w, kXToF);
      if (rs2 == 1) return make(Op::kFcvtSWu, w, kXToF);
      return illegal(w);
    case 0x78: return rs2 == 0 && rm == 0 ? make(Op::kFmvWX, w, kXToF) : illegal(w);
    default: return illegal(w);
  }
}

Insn decode_amo(uint32_t w) {
  if (bits(w, 14, 12) != 2) return illegal(w);  // only .w
  switch (bits(w, 31, 27)) {
    case 0x02: return bits(w, 24, 20) == 0 ? make(Op::kLrW, w, kI) : illegal(w);
    case 0x03: return make(Op::kScW, w, kR);
    case 0x01: return make(Op::kAmoswapW, w, kR);
    case 0x00: return make(Op::kAmoaddW, w, kR);
    case 0x04: return make(Op::kAmoxorW, w, kR);
    case 0x0C: return make(Op::kAmoandW, w, kR);
    case 0x08: return make(Op::kAmoorW, w, kR);
    case 0x10: return make(Op::kAmominW, w, kR);
    case 0x14: return make(Op::kAmomaxW, w, kR);
    case 0x18: return make(Op::kAmominuW, w, kR);
    case 0x1C: return make(Op::kAmomaxuW, w, kR);
    default: return illegal(w);
  }
}

// RV32IMAF + Zicsr + Zifencei.
Insn decode_base(uint32_t w) {
  if ((w & 3) != 3) return illegal(w);
  const uint32_t f3 = bits(w, 14, 12), f7 = bits(w, 31, 25);
  switch (bits(w, 6, 0)) {
    case 0x37: return make(Op::kLui, w, kU);
    case 0x17: return make(Op::kAuipc, w, kU);
    case 0x6F: return make(Op::kJal, w, kJ);
    case 0x67: return f3 == 0 ? make(Op::kJalr, w, kI) : illegal(w);
    case 0x63: {
      static const Op ops[8] = {Op::kBeq, Op::kBne, Op::kIllegal, Op::kIllegal, Op::kBlt, Op::kBge, Op::kBltu, Op::kBgeu};
      return ops[f3] == Op::kIllegal ? illegal(w) : make(ops[f3], w, kB);
    }
    case 0x03: {
      static const Op ops[8] = {Op::kLb, Op::kLh, Op::kLw, Op::kIllegal, Op::kLbu, Op::kLhu, Op::kIllegal, Op::kIllegal};
      return ops[f3] == Op::kIllegal ? illegal(w) : make(ops[f3], w, kI);
    }
    case 0x23: {
      static const Op ops[8] = {Op::kSb, Op::kSh, Op::kSw, Op::kIllegal, Op::kIllegal, Op::kIllegal, Op::kIllegal, Op::kIllegal};
      return ops[f3] == Op::kIllegal ? illegal(w) : make(ops[f3], w, kS);
    }
    case 0x13: {
      switch (f3) {
        case 0: return make(Op::kAddi, w, kI);
        case 2: return make(Op::kSlti, w, kI);
        case 3: return make(Op::kSltiu, w, kI);
        case 4: return make(Op::kXori, w, kI);
        case 6: return make(Op::kOri, w, kI);
        case 7: return make(Op::kAndi, w, kI);
        case 1: {
          if (f7 != 0) return illegal(w);
          Insn i = make(Op::kSlli, w, kI);
          i.imm = int32_t(bits(w, 24, 20));
          return i;
        }
        case 5: {
          if (f7 != 0 && f7 != 0x20) return illegal(w);
          Insn i = make(f7 ? Op::kSrai : Op::kSrli, w, kI);
          i.imm = int32_t(bits(w, 24, 20));
          return i;
        }
      }
      return illegal(w);
    }
    case 0x33: {
      if (f7 == 0x01) {
        static const Op ops[8] = {Op::kMul, Op::kMulh, Op::kMulhsu, Op::kMulhu, Op::kDiv, Op::kDivu, Op::kRem, Op::kRemu};
        return make(ops[f3], w, kR);
      }
      if (f7 == 0x00) {
        static const Op ops[8] = {Op::kAdd, Op::kSll, Op::kSlt, Op::kSltu, Op::kXor, Op::kSrl, Op::kOr, Op::kAnd};
        return make(ops[f3], w, kR);
      }
      if (f7 == 0x20 && f3 == 0) return make(Op::kSub, w, kR);
      if (f7 == 0x20 && f3 == 5) return make(Op::kSra, w, kR);
      return illegal(w);
    }
    case 0x0F:
      if (f3 == 0) return make(Op::kFence, w, kNone);
      if (f3 == 1) return make(Op::kFenceI, w, kNone);
      return illegal(w);
    case 0x73: {
      if (f3 == 0) {
        if (w == 0x00000073u) return make(Op::kEcall, w, kNone);
        if (w == 0x00100073u) return make(Op::kEbreak, w, kNone);
        return illegal(w);
      }
      static const Op ops[8] = {Op::kIllegal, Op::kCsrrw, Op::kCsrrs, Op::kCsrrc, Op::kIllegal, Op::kCsrrwi, Op::kCsrrsi, Op::kCsrrci};
      if (ops[f3] == Op::kIllegal) return illegal(w);
      return make(ops[f3], w, f3 >= 5 ? kCsrI : kCsrR);
    }
    case 0x2F: return decode_amo(w);
    case 0x07: return f3 == 2 ? make(Op::kFlw, w, kFLoad) : illegal(w);
    case 0x27: return f3 == 2 ? make(Op::kFsw, w, kFStore) : illegal(w);
    case 0x43: return bits(w, 26, 25) == 0 && valid_rm(f3) ? make(Op::kFmaddS, w, kFR4) : illegal(w);
    case 0x47: return bits(w, 26, 25) == 0 && valid_rm(f3) ? make(Op::kFmsubS, w, kFR4) : illegal(w);
    case 0x4B: return bits(w, 26, 25) == 0 && valid_rm(f3) ? make(Op::kFnmsubS, w, kFR4) : illegal(w);
    case 0x4F: return bits(w, 26, 25) == 0 && valid_rm(f3) ? make(Op::kFnmaddS, w, kFR4) : illegal(w);
    case 0x53: return decode_op_fp(w);
    default: return illegal(w);
  }
}

}  // namespace

Insn decode32(uint32_t w, bool xpulp) {
  Insn i = decode_base(w);
  if (i.op == Op::kIllegal && xpulp && (w & 3) == 3) return decode_xpulp(w);
  return i;
}

// ---- RV32C: each compressed form is rebuilt as its 32-bit equivalent and decoded as such. ----
namespace {

uint32_t r_type(uint32_t f7, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t opc) {
  return (f7 << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | opc;
}
uint32_t i_type(int32_t imm, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t opc) {
  return (uint32_t(imm & 0xFFF) << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | opc;
}
uint32_t s_type(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t opc) {
  const uint32_t u = uint32_t(imm) & 0xFFF;
  return ((u >> 5) << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | ((u & 0x1F) << 7) | opc;
}
uint32_t b_type(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3) {
  const uint32_t u = uint32_t(imm);
  return (((u >> 12) & 1) << 31) | (((u >> 5) & 0x3F) << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) |
         (((u >> 1) & 0xF) << 8) | (((u >> 11) & 1) << 7) | 0x63;
}
uint32_t j_type(int32_t imm, uint32_t rd) {
  const uint32_t u = uint32_t(imm);
  return (((u >> 20) & 1) << 31) | (((u >> 1) & 0x3FF) << 21) | (((u >> 11) & 1) << 20) | (((u >> 12) & 0xFF) << 12) |
         (rd << 7) | 0x6F;
}

// The 32-bit equivalent of a compressed instruction, or 0 if it is illegal or reserved.
uint32_t expand(uint16_t h) {
  const uint32_t op = h & 3, f3 = bits(h, 15, 13);
  const uint32_t rd = bits(h, 11, 7), rs2 = bits(h, 6, 2);
  const uint32_t rdp = 8 + bits(h, 4, 2), rs1p = 8 + bits(h, 9, 7);
  if (op == 0) {
    switch (f3) {
      case 0: {  // c.addi4spn
        const uint32_t imm = (bits(h, 10, 7) << 6) | (bits(h, 12, 11) << 4) | (bits(h, 5, 5) << 3) | (bits(h, 6, 6) << 2);
        return imm ? i_type(int32_t(imm), 2, 0, rdp, 0x13) : 0;
      }
      case 2: case 3: {  // c.lw, c.flw
        const int32_t imm = int32_t((bits(h, 5, 5) << 6) | (bits(h, 12, 10) << 3) | (bits(h, 6, 6) << 2));
        return i_type(imm, rs1p, 2, rdp, f3 == 2 ? 0x03 : 0x07);
      }
      case 6: case 7: {  // c.sw, c.fsw
        const int32_t imm = int32_t((bits(h, 5, 5) << 6) | (bits(h, 12, 10) << 3) | (bits(h, 6, 6) << 2));
        return s_type(imm, rdp, rs1p, 2, f3 == 6 ? 0x23 : 0x27);
      }
      default: return 0;  // c.fld/c.fsd (no D) and reserved
    }
  }
  if (op == 1) {
    const int32_t imm6 = sext((bits(h, 12, 12) << 5) | bits(h, 6, 2), 6);
    switch (f3) {
      case 0: return i_type(imm6, rd, 0, rd, 0x13);  // c.addi / c.nop
      case 1: case 5: {  // c.jal (RV32) / c.j
        const int32_t imm = sext((bits(h, 12, 12) << 11) | (bits(h, 8, 8) << 10) | (bits(h, 10, 9) << 8) |
                                     (bits(h, 6, 6) << 7) | (bits(h, 7, 7) << 6) | (bits(h, 2, 2) << 5) |
                                     (bits(h, 11, 11) << 4) | (bits(h, 5, 3) << 1),
                                 12);
        return j_type(imm, f3 == 1 ? 1 : 0);
      }
      case 2: return i_type(imm6, 0, 0, rd, 0x13);  // c.li (rd = 0: a HINT, executes as a nop)
      case 3: {
        if (rd == 2) {  // c.addi16sp
          const int32_t imm = sext((bits(h, 12, 12) << 9) | (bits(h, 4, 3) << 7) | (bits(h, 5, 5) << 6) |
                                       (bits(h, 2, 2) << 5) | (bits(h, 6, 6) << 4),
                                   10);
          return imm ? i_type(imm, 2, 0, 2, 0x13) : 0;
        }
        const int32_t imm = sext((bits(h, 12, 12) << 17) | (bits(h, 6, 2) << 12), 18);  // c.lui (rd = 0: HINT)
        return imm ? (uint32_t(imm) & 0xFFFFF000u) | (rd << 7) | 0x37 : 0;
      }
      case 4: {
        const uint32_t f2 = bits(h, 11, 10);
        const uint32_t sh = (bits(h, 12, 12) << 5) | bits(h, 6, 2);
        if (f2 == 0 || f2 == 1) {  // c.srli / c.srai (shamt[5] must be 0 on RV32)
          if (sh & 0x20) return 0;
          return i_type(int32_t(sh | (f2 == 1 ? 0x400 : 0)), rs1p, 5, rs1p, 0x13);
        }
        if (f2 == 2) return i_type(imm6, rs1p, 7, rs1p, 0x13);  // c.andi
        if (bits(h, 12, 12)) return 0;                          // RV64 c.subw/c.addw
        const uint32_t rs2p = 8 + bits(h, 4, 2);
        switch (bits(h, 6, 5)) {
          case 0: return r_type(0x20, rs2p, rs1p, 0, rs1p, 0x33);  // c.sub
          case 1: return r_type(0, rs2p, rs1p, 4, rs1p, 0x33);     // c.xor
          case 2: return r_type(0, rs2p, rs1p, 6, rs1p, 0x33);     // c.or
          default: return r_type(0, rs2p, rs1p, 7, rs1p, 0x33);    // c.and
        }
      }
      case 6: case 7: {  // c.beqz / c.bnez
        const int32_t imm = sext((bits(h, 12, 12) << 8) | (bits(h, 6, 5) << 6) | (bits(h, 2, 2) << 5) |
                                     (bits(h, 11, 10) << 3) | (bits(h, 4, 3) << 1),
                                 9);
        return b_type(imm, 0, rs1p, f3 == 6 ? 0 : 1);
      }
    }
    return 0;
  }
  if (op == 2) {
    switch (f3) {
      case 0: {  // c.slli
        const uint32_t sh = (bits(h, 12, 12) << 5) | bits(h, 6, 2);
        return !(sh & 0x20) ? i_type(int32_t(sh), rd, 1, rd, 0x13) : 0;  // rd = 0: HINT
      }
      case 2: case 3: {  // c.lwsp, c.flwsp
        const int32_t imm = int32_t((bits(h, 3, 2) << 6) | (bits(h, 12, 12) << 5) | (bits(h, 6, 4) << 2));
        if (f3 == 2 && rd == 0) return 0;
        return i_type(imm, 2, 2, rd, f3 == 2 ? 0x03 : 0x07);
      }
      case 4: {
        if (bits(h, 12, 12) == 0) {
          if (rs2 == 0) return rd ? i_type(0, rd, 0, 0, 0x67) : 0;  // c.jr
          return r_type(0, rs2, 0, 0, rd, 0x33);                    // c.mv (rd = 0: HINT)
        }
        if (rs2 == 0) {
          if (rd == 0) return 0x00100073u;          // c.ebreak
          return i_type(0, rd, 0, 1, 0x67);         // c.jalr
        }
        return r_type(0, rs2, rd, 0, rd, 0x33);  // c.add (rd = 0: HINT)
      }
      case 6: case 7: {  // c.swsp, c.fswsp
        const int32_t imm = int32_t((bits(h, 8, 7) << 6) | (bits(h, 12, 9) << 2));
        return s_type(imm, rs2, 2, 2, f3 == 6 ? 0x23 : 0x27);
      }
      default: return 0;
    }
  }
  return 0;
}

}  // namespace

Insn decode16(uint16_t h) {
  const uint32_t w = h ? expand(h) : 0;  // the all-zero halfword is defined illegal
  Insn i = w ? decode32(w) : illegal(h, 2);
  i.len = 2;
  i.raw = h;
  return i;
}

const char* op_name(Op op) {
  static const char* names[] = {
      "illegal", "lui", "auipc", "jal", "jalr", "beq", "bne", "blt", "bge", "bltu", "bgeu",
      "lb", "lh", "lw", "lbu", "lhu", "sb", "sh", "sw",
      "addi", "slti", "sltiu", "xori", "ori", "andi", "slli", "srli", "srai",
      "add", "sub", "sll", "slt", "sltu", "xor", "srl", "sra", "or", "and",
      "fence", "fence.i", "ecall", "ebreak",
      "csrrw", "csrrs", "csrrc", "csrrwi", "csrrsi", "csrrci",
      "mul", "mulh", "mulhsu", "mulhu", "div", "divu", "rem", "remu",
      "lr.w", "sc.w", "amoswap.w", "amoadd.w", "amoxor.w", "amoand.w", "amoor.w", "amomin.w", "amomax.w",
      "amominu.w", "amomaxu.w",
      "flw", "fsw", "fmadd.s", "fmsub.s", "fnmsub.s", "fnmadd.s", "fadd.s", "fsub.s", "fmul.s", "fdiv.s", "fsqrt.s",
      "fsgnj.s", "fsgnjn.s", "fsgnjx.s", "fmin.s", "fmax.s", "fcvt.w.s", "fcvt.wu.s", "fmv.x.w", "feq.s", "flt.s",
      "fle.s", "fclass.s", "fcvt.s.w", "fcvt.s.wu", "fmv.w.x",
      "p.lb", "p.lbu", "p.lh", "p.lhu", "p.lw", "p.sb", "p.sh", "p.sw",
      "lp.starti", "lp.endi", "lp.count", "lp.counti", "lp.setup", "lp.setupi",
      "p.beqimm", "p.bneimm",
      "p.abs", "p.slet", "p.sletu", "p.min", "p.minu", "p.max", "p.maxu", "p.exths", "p.exthz", "p.extbs", "p.extbz",
      "p.clip", "p.clipu", "p.clipr", "p.clipur", "p.ff1", "p.fl1", "p.clb", "p.cnt", "p.ror",
      "p.extract", "p.extractu", "p.insert", "p.bclr", "p.bset", "p.extractr", "p.extractur", "p.insertr", "p.bclrr",
      "p.bsetr", "p.bitrev",
      "p.addN", "p.adduN", "p.addRN", "p.adduRN", "p.subN", "p.subuN", "p.subRN", "p.subuRN",
      "p.addNr", "p.adduNr", "p.addRNr", "p.adduRNr", "p.subNr", "p.subuNr", "p.subRNr", "p.subuRNr",
      "p.mac", "p.msu", "p.muluN", "p.mulhhuN", "p.mulsN", "p.mulhhsN", "p.muluRN", "p.mulhhuRN", "p.mulsRN",
      "p.mulhhsRN", "p.macuN", "p.machhuN", "p.macsN", "p.machhsN", "p.macuRN", "p.machhuRN", "p.macsRN", "p.machhsRN",
      "pv.add", "pv.sub", "pv.avg", "pv.avgu", "pv.min", "pv.minu", "pv.max", "pv.maxu", "pv.srl", "pv.sra", "pv.sll",
      "pv.or", "pv.xor", "pv.and", "pv.abs", "pv.extract", "pv.extractu", "pv.insert", "pv.shuffle", "pv.shuffleI0",
      "pv.shuffleI1", "pv.shuffleI2", "pv.shuffleI3", "pv.shuffle2", "pv.pack", "pv.pack.h", "pv.packhi", "pv.packlo",
      "pv.cmpeq", "pv.cmpne", "pv.cmpgt", "pv.cmpge", "pv.cmplt", "pv.cmple", "pv.cmpgtu", "pv.cmpgeu", "pv.cmpltu",
      "pv.cmpleu", "pv.dotup", "pv.dotusp", "pv.dotsp", "pv.sdotup", "pv.sdotusp", "pv.sdotsp"};
  static_assert(sizeof(names) / sizeof(names[0]) == size_t(Op::kCount), "op names out of step with Op");
  return names[size_t(op)];
}

}  // namespace fs::iss
