// The ISS's pre-decoded instruction: what decode() makes of a 16- or 32-bit RISC-V instruction
// word once, so that execution never looks at instruction bits again. Covers RV32I, M, A, F,
// Zicsr, Zifencei and C (compressed instructions decode to their 32-bit equivalents), and RI5CY's
// Xpulpv2 extensions when the core has them (docs/ISS.md "Xpulp").
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
  // Xpulp: loads and stores with post-increment or register offset (Insn::aux says which: XpMem)
  kPLb, kPLbu, kPLh, kPLhu, kPLw, kPSb, kPSh, kPSw,
  // Xpulp: hardware loops (Insn::aux: the loop, 0 or 1)
  kLpStarti, kLpEndi, kLpCount, kLpCounti, kLpSetup, kLpSetupi,
  // Xpulp: branches comparing with an immediate (Insn::aux: the signed 5-bit immediate, as int8)
  kPBeqimm, kPBneimm,
  // Xpulp: scalar ALU (p.*); Is3 of the bit-manipulation and add/mul-shift forms in Insn::aux
  kPAbs, kPSlet, kPSletu, kPMin, kPMinu, kPMax, kPMaxu, kPExths, kPExthz, kPExtbs, kPExtbz,
  kPClip, kPClipu, kPClipr, kPClipur, kPFf1, kPFl1, kPClb, kPCnt, kPRor,
  kPExtract, kPExtractu, kPInsert, kPBclr, kPBset, kPExtractr, kPExtractur, kPInsertr, kPBclrr, kPBsetr, kPBitrev,
  kPAddN, kPAdduN, kPAddRN, kPAdduRN, kPSubN, kPSubuN, kPSubRN, kPSubuRN,
  kPAddNr, kPAdduNr, kPAddRNr, kPAdduRNr, kPSubNr, kPSubuNr, kPSubRNr, kPSubuRNr,
  // Xpulp: multiplier (p.mac, p.msu and the 16-bit multiplies with a shift)
  kPMac, kPMsu, kPMuluN, kPMulhhuN, kPMulsN, kPMulhhsN, kPMuluRN, kPMulhhuRN, kPMulsRN, kPMulhhsRN,
  kPMacuN, kPMachhuN, kPMacsN, kPMachhsN, kPMacuRN, kPMachhuRN, kPMacsRN, kPMachhsRN,
  // Xpulp: packed SIMD on halfwords or bytes (Insn::aux: XpSimd)
  kPvAdd, kPvSub, kPvAvg, kPvAvgu, kPvMin, kPvMinu, kPvMax, kPvMaxu, kPvSrl, kPvSra, kPvSll, kPvOr, kPvXor,
  kPvAnd, kPvAbs, kPvExtract, kPvExtractu, kPvInsert, kPvShuffle, kPvShuffleI0, kPvShuffleI1, kPvShuffleI2,
  kPvShuffleI3, kPvShuffle2, kPvPack, kPvPackH, kPvPackhi, kPvPacklo,
  kPvCmpeq, kPvCmpne, kPvCmpgt, kPvCmpge, kPvCmplt, kPvCmple, kPvCmpgtu, kPvCmpgeu, kPvCmpltu, kPvCmpleu,
  kPvDotup, kPvDotusp, kPvDotsp, kPvSdotup, kPvSdotusp, kPvSdotsp,
  kCount
};

// Register numbers in one space: x0..x31 are 0..31, f0..f31 are 32..63; kNoReg: unused.
constexpr uint8_t kNoReg = 0xFF;
constexpr uint8_t kF = 32;

// Insn::aux of the Xpulp loads and stores: how the address is formed.
enum XpMem : uint8_t {
  kPostImm = 0,  // access rs1, then rs1 += imm
  kPostReg = 1,  // access rs1, then rs1 += rs2 (loads) or rs3 (stores)
  kRegReg = 2,   // access rs1 + rs2 (loads) or rs1 + rs3 (stores)
};
// Insn::aux of the packed-SIMD instructions: bit 0 set for bytes (.b), else halfwords (.h); bits
// 1-2 the second operand: vector (rs2), .sc (rs2's lowest element replicated) or .sci (Insn::imm
// replicated).
enum XpSimd : uint8_t { kSimdB = 1, kSimdSc = 2, kSimdSci = 4 };

struct Insn {
  Op op = Op::kIllegal;
  uint8_t rd = 0, rs1 = 0, rs2 = 0, rs3 = 0;  // architectural fields (x or f by op)
  uint8_t rm = 0;                             // rounding mode field of F instructions
  uint8_t aux = 0;                            // Xpulp: a second immediate or a mode (see Op)
  uint8_t len = 4;                            // 2 for compressed
  uint8_t src[3] = {kNoReg, kNoReg, kNoReg};  // registers read, in the unified space (load-use)
  uint8_t dst = kNoReg;                       // register written, in the unified space
  uint8_t alu_run = 0;  // the fast engine's: at least this many ALU instructions in a row, this one
                        // included, start here (0: not counted)
  int32_t imm = 0;                            // immediate; CSR number for Zicsr
  uint32_t raw = 0;                           // the instruction word as fetched (16 or 32 bits)
};

// Decodes a 32-bit instruction word. Unknown encodings give Op::kIllegal; so do the Xpulp ones
// unless `xpulp` (the core implements RI5CY's Xpulpv2 extensions).
Insn decode32(uint32_t word, bool xpulp = false);
// The Xpulp part of decode32 (decode_xpulp.cpp): kIllegal if `word` is not an Xpulp instruction.
Insn decode_xpulp(uint32_t word);
// Decodes a 16-bit compressed instruction (RV32C with F loads/stores). Illegal ones give kIllegal.
Insn decode16(uint16_t half);
// The mnemonic of an operation ("addi").
const char* op_name(Op op);
// The disassembly of a decoded instruction at `pc`, e.g. "addi a0, sp, 16" (disasm.cpp).
std::string disassemble(const Insn& in, uint32_t pc);
// ABI name of a register in the unified numbering ("a0", "fa0").
const char* reg_name(uint8_t unified);

}  // namespace fs::iss
