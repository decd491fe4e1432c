// Disassembly of pre-decoded instructions for instruction traces ("addi a0, sp, 16").
#include <cstdio>
#include <string>

#include "iss/insn.h"

namespace fs::iss {
namespace {

const char* xname(unsigned r) {
  static const char* n[32] = {"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0",
                              "a1",   "a2", "a3", "a4", "a5", "a6", "a7", "s2", "s3", "s4", "s5",
                              "s6",   "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6"};
  return n[r & 31];
}
const char* fname(unsigned r) {
  static const char* n[32] = {"ft0", "ft1", "ft2",  "ft3",  "ft4", "ft5", "ft6",  "ft7",
                              "fs0", "fs1", "fa0",  "fa1",  "fa2", "fa3", "fa4",  "fa5",
                              "fa6", "fa7", "fs2",  "fs3",  "fs4", "fs5", "fs6",  "fs7",
                              "fs8", "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11"};
  return n[r & 31];
}

}  // namespace

// The register name in the unified numbering of Insn::dst/src (x0..x31, then f0..f31).
const char* reg_name(uint8_t unified) { return unified >= kF ? fname(unified - kF) : xname(unified); }

std::string disassemble(const Insn& in, uint32_t pc) {
  char b[96];
  const char* op = op_name(in.op);
  const unsigned rd = in.rd, rs1 = in.rs1, rs2 = in.rs2, rs3 = in.rs3;
  switch (in.op) {
    case Op::kIllegal: std::snprintf(b, sizeof b, "illegal"); break;
    case Op::kLui: case Op::kAuipc:
      std::snprintf(b, sizeof b, "%s %s, 0x%x", op, xname(rd), uint32_t(in.imm) >> 12);
      break;
    case Op::kJal: std::snprintf(b, sizeof b, "%s %s, 0x%08x", op, xname(rd), pc + uint32_t(in.imm)); break;
    case Op::kJalr: std::snprintf(b, sizeof b, "%s %s, %d(%s)", op, xname(rd), in.imm, xname(rs1)); break;
    case Op::kBeq: case Op::kBne: case Op::kBlt: case Op::kBge: case Op::kBltu: case Op::kBgeu:
      std::snprintf(b, sizeof b, "%s %s, %s, 0x%08x", op, xname(rs1), xname(rs2), pc + uint32_t(in.imm));
      break;
    case Op::kLb: case Op::kLh: case Op::kLw: case Op::kLbu: case Op::kLhu:
      std::snprintf(b, sizeof b, "%s %s, %d(%s)", op, xname(rd), in.imm, xname(rs1));
      break;
    case Op::kFlw: std::snprintf(b, sizeof b, "%s %s, %d(%s)", op, fname(rd), in.imm, xname(rs1)); break;
    case Op::kSb: case Op::kSh: case Op::kSw:
      std::snprintf(b, sizeof b, "%s %s, %d(%s)", op, xname(rs2), in.imm, xname(rs1));
      break;
    case Op::kFsw: std::snprintf(b, sizeof b, "%s %s, %d(%s)", op, fname(rs2), in.imm, xname(rs1)); break;
    case Op::kAddi: case Op::kSlti: case Op::kSltiu: case Op::kXori: case Op::kOri: case Op::kAndi:
    case Op::kSlli: case Op::kSrli: case Op::kSrai:
      std::snprintf(b, sizeof b, "%s %s, %s, %d", op, xname(rd), xname(rs1), in.imm);
      break;
    case Op::kFence: case Op::kFenceI: case Op::kEcall: case Op::kEbreak: std::snprintf(b, sizeof b, "%s", op); break;
    case Op::kCsrrw: case Op::kCsrrs: case Op::kCsrrc:
      std::snprintf(b, sizeof b, "%s %s, 0x%03x, %s", op, xname(rd), uint32_t(in.imm), xname(rs1));
      break;
    case Op::kCsrrwi: case Op::kCsrrsi: case Op::kCsrrci:
      std::snprintf(b, sizeof b, "%s %s, 0x%03x, %u", op, xname(rd), uint32_t(in.imm), rs1);
      break;
    case Op::kLrW: std::snprintf(b, sizeof b, "%s %s, (%s)", op, xname(rd), xname(rs1)); break;
    case Op::kScW: case Op::kAmoswapW: case Op::kAmoaddW: case Op::kAmoxorW: case Op::kAmoandW: case Op::kAmoorW:
    case Op::kAmominW: case Op::kAmomaxW: case Op::kAmominuW: case Op::kAmomaxuW:
      std::snprintf(b, sizeof b, "%s %s, %s, (%s)", op, xname(rd), xname(rs2), xname(rs1));
      break;
    case Op::kFmaddS: case Op::kFmsubS: case Op::kFnmsubS: case Op::kFnmaddS:
      std::snprintf(b, sizeof b, "%s %s, %s, %s, %s", op, fname(rd), fname(rs1), fname(rs2), fname(rs3));
      break;
    case Op::kFsqrtS: std::snprintf(b, sizeof b, "%s %s, %s", op, fname(rd), fname(rs1)); break;
    case Op::kFcvtWS: case Op::kFcvtWuS: case Op::kFmvXW: case Op::kFclassS:
      std::snprintf(b, sizeof b, "%s %s, %s", op, xname(rd), fname(rs1));
      break;
    case Op::kFcvtSW: case Op::kFcvtSWu: case Op::kFmvWX:
      std::snprintf(b, sizeof b, "%s %s, %s", op, fname(rd), xname(rs1));
      break;
    case Op::kFeqS: case Op::kFltS: case Op::kFleS:
      std::snprintf(b, sizeof b, "%s %s, %s, %s", op, xname(rd), fname(rs1), fname(rs2));
      break;
    case Op::kFaddS: case Op::kFsubS: case Op::kFmulS: case Op::kFdivS: case Op::kFsgnjS: case Op::kFsgnjnS:
    case Op::kFsgnjxS: case Op::kFminS: case Op::kFmaxS:
      std::snprintf(b, sizeof b, "%s %s, %s, %s", op, fname(rd), fname(rs1), fname(rs2));
      break;
    default:  // R-type integer and M
      std::snprintf(b, sizeof b, "%s %s, %s, %s", op, xname(rd), xname(rs1), xname(rs2));
      break;
  }
  return b;
}

}  // namespace fs::iss
