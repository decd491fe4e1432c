// Disassembly of pre-decoded instructions for instruction traces ("addi a0, sp, 16"), Xpulp in
// PULP's assembler syntax ("p.lw a0, 4(a1!)", "lp.setupi 0, 16, 0x00000120", "pv.add.sci.b a0, a1, 3").
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

// Xpulp instructions (op is the operation's base name, e.g. "pv.add").
bool disassemble_xpulp(const Insn& in, uint32_t pc, const char* op, char* b, size_t n) {
  const char *rd = xname(in.rd), *rs1 = xname(in.rs1), *rs2 = xname(in.rs2);
  if (in.op >= Op::kPLb && in.op <= Op::kPLw) {
    if (in.aux == kPostImm) std::snprintf(b, n, "%s %s, %d(%s!)", op, rd, in.imm, rs1);
    else std::snprintf(b, n, "%s %s, %s(%s%s)", op, rd, rs2, rs1, in.aux == kPostReg ? "!" : "");
    return true;
  }
  if (in.op >= Op::kPSb && in.op <= Op::kPSw) {
    if (in.aux == kPostImm) std::snprintf(b, n, "%s %s, %d(%s!)", op, rs2, in.imm, rs1);
    else std::snprintf(b, n, "%s %s, %s(%s%s)", op, rs2, xname(in.rs3), rs1, in.aux == kPostReg ? "!" : "");
    return true;
  }
  const uint32_t off = pc + (uint32_t(in.imm) << 1);
  switch (in.op) {
    case Op::kLpStarti: case Op::kLpEndi: std::snprintf(b, n, "%s %u, 0x%08x", op, in.aux, off); return true;
    case Op::kLpCount: std::snprintf(b, n, "%s %u, %s", op, in.aux, rs1); return true;
    case Op::kLpCounti: std::snprintf(b, n, "%s %u, %d", op, in.aux, in.imm); return true;
    case Op::kLpSetup: std::snprintf(b, n, "%s %u, %s, 0x%08x", op, in.aux, rs1, off); return true;
    case Op::kLpSetupi:
      std::snprintf(b, n, "%s %u, %d, 0x%08x", op, in.aux, in.imm, pc + (uint32_t(in.rs1) << 1));
      return true;
    case Op::kPBeqimm: case Op::kPBneimm:
      std::snprintf(b, n, "%s %s, %d, 0x%08x", op, rs1, int(int8_t(in.aux)), pc + uint32_t(in.imm));
      return true;
    case Op::kPAbs: case Op::kPExths: case Op::kPExthz: case Op::kPExtbs: case Op::kPExtbz: case Op::kPFf1:
    case Op::kPFl1: case Op::kPClb: case Op::kPCnt:
      std::snprintf(b, n, "%s %s, %s", op, rd, rs1);
      return true;
    case Op::kPClip: case Op::kPClipu: std::snprintf(b, n, "%s %s, %s, %d", op, rd, rs1, in.imm); return true;
    case Op::kPExtract: case Op::kPExtractu: case Op::kPInsert: case Op::kPBclr: case Op::kPBset: case Op::kPBitrev:
      std::snprintf(b, n, "%s %s, %s, %u, %d", op, rd, rs1, in.aux, in.imm);
      return true;
    default: break;
  }
  if ((in.op >= Op::kPAddN && in.op <= Op::kPSubuRN) || (in.op >= Op::kPMuluN && in.op <= Op::kPMachhsRN)) {
    std::snprintf(b, n, "%s %s, %s, %s, %u", op, rd, rs1, rs2, in.aux);
    return true;
  }
  if (in.op >= Op::kPvAdd && in.op <= Op::kPvSdotsp) {
    const bool packing = in.op == Op::kPvPack || in.op == Op::kPvPackH || in.op == Op::kPvPackhi ||
                         in.op == Op::kPvPacklo || (in.op >= Op::kPvShuffleI0 && in.op <= Op::kPvShuffleI3);
    const char* mode = in.aux & kSimdSci ? ".sci" : in.aux & kSimdSc ? ".sc" : "";
    const char* width = packing && in.op != Op::kPvPackhi && in.op != Op::kPvPacklo ? "" : in.aux & kSimdB ? ".b" : ".h";
    if (in.op >= Op::kPvShuffleI0 && in.op <= Op::kPvShuffleI3) width = ".b";
    if (in.op == Op::kPvAbs) std::snprintf(b, n, "%s%s %s, %s", op, width, rd, rs1);
    else if (in.aux & kSimdSci) std::snprintf(b, n, "%s%s%s %s, %s, %d", op, mode, width, rd, rs1, in.imm);
    else std::snprintf(b, n, "%s%s%s %s, %s, %s", op, mode, width, rd, rs1, rs2);
    return true;
  }
  return false;  // the R-type forms: "op rd, rs1, rs2"
}

}  // namespace

// The register name in the unified numbering of Insn::dst/src (x0..x31, then f0..f31).
const char* reg_name(uint8_t unified) { return unified >= kF ? fname(unified - kF) : xname(unified); }

std::string disassemble(const Insn& in, uint32_t pc) {
  char b[96];
  const char* op = op_name(in.op);
  const unsigned rd = in.rd, rs1 = in.rs1, rs2 = in.rs2, rs3 = in.rs3;
  if (in.op >= Op::kPLb && disassemble_xpulp(in, pc, op, b, sizeof b)) return b;
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
