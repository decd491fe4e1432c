// The ISS's pre-decoded instruction: what decode() makes of a 16- or 32-bit RISC-V instruction
// word once, so that execution never looks at instruction bits again. Covers RV32I, M, A, F,
// Zicsr, Zifencei and C (compressed instructions decode to their 32-bit equivalents).
#pragma once
#include <cstdint>
#include <string>

namespace fs::iss {

enum class Op : uint8_t {
  kIllegal,
  // RV32I
  kLui, kAuipc, kJal, kJalr,
  kBeq, kBne, kBlt, kBge, kBltu, kBgeu,
  kLb, kLh, kLw, kLbu, kLhu, kSb, kSh, kSw,
  kAddi, kSlti, kSltiu, kXori, kOri, kAndi, kSlli, kSrli, kSrai,
  kAdd, kSub, kSll, kSlt, kSltu, kXor, kSrl, kSra, kOr, kAnd,
  kFence, kFenceI, kEcall, kEbreak,
  // Zicsr
  kCsrrw, kCsrrs, kCsrrc, kCsrrwi, kCsrrsi, kCsrrci,
  // M
  kMul, kMulh, kMulhsu, kMulhu, kDiv, kDivu, kRem, kRemu,
  // A
  kLrW, kScW, kAmoswapW, kAmoaddW, kAmoxorW, kAmoandW, kAmoorW, kAmominW, kAmomaxW, kAmominuW, kAmomaxuW,
  // F
  kFlw, kFsw, kFmaddS, kFmsubS, kFnmsubS, kFnmaddS, kFaddS, kFsubS, kFmulS, kFdivS, kFsqrtS,
  kFsgnjS, kFsgnjnS, kFsgnjxS, kFminS, kFmaxS, kFcvtWS, kFcvtWuS, kFmvXW, kFeqS, kFltS, kFleS,
  kFclassS, kFcvtSW, kFcvtSWu, kFmvWX,
  kCount
};

// Register numbers in one space: x0..x31 are 0..31, f0..f31 are 32..63; kNoReg: unused.
constexpr uint8_t kNoReg = 0xFF;
constexpr uint8_t kF = 32;

struct Insn {
  Op op = Op::kIllegal;
  uint8_t rd = 0, rs1 = 0, rs2 = 0, rs3 = 0;  // architectural fields (x or f by op)
  uint8_t rm = 0;                             // rounding mode field of F instructions
  uint8_t len = 4;                            // 2 for compressed
  uint8_t src[3] = {kNoReg, kNoReg, kNoReg};  // registers read, in the unified space (load-use)
  uint8_t dst = kNoReg;                       // register written, in the unified space
  int32_t imm = 0;                            // immediate; CSR number for Zicsr
  uint32_t raw = 0;                           // the instruction word as fetched (16 or 32 bits)
};

// Decodes a 32-bit instruction word. Unknown encodings give Op::kIllegal.
Insn decode32(uint32_t word);
// Decodes a 16-bit compressed instruction (RV32C with F loads/stores). Illegal ones give kIllegal.
Insn decode16(uint16_t half);
// The mnemonic of an operation ("addi").
const char* op_name(Op op);
// The disassembly of a decoded instruction at `pc`, e.g. "addi a0, sp, 16" (disasm.cpp).
std::string disassemble(const Insn& in, uint32_t pc);
// ABI name of a register in the unified numbering ("a0", "fa0").
const char* reg_name(uint8_t unified);

}  // namespace fs::iss
