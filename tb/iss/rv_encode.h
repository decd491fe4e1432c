// Minimal RV32 instruction encoders for tests that hand-assemble code (tb/iss). constexpr (so
// inline): a test file that uses only some of them compiles without unused-function warnings.
#pragma once
#include <cstdint>

namespace fs::iss {
namespace {

constexpr uint32_t r(uint32_t f7, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t opc) {
  return (f7 << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | opc;
}
constexpr uint32_t i(int32_t imm, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t opc) {
  return (uint32_t(imm & 0xFFF) << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | opc;
}
constexpr uint32_t s(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3) {
  const uint32_t u = uint32_t(imm) & 0xFFF;
  return ((u >> 5) << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | ((u & 0x1F) << 7) | 0x23;
}
constexpr uint32_t b(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3) {
  const uint32_t u = uint32_t(imm);
  return (((u >> 12) & 1) << 31) | (((u >> 5) & 0x3F) << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) |
         (((u >> 1) & 0xF) << 8) | (((u >> 11) & 1) << 7) | 0x63;
}
constexpr uint32_t addi(uint32_t rd, uint32_t rs1, int32_t imm) { return i(imm, rs1, 0, rd, 0x13); }
constexpr uint32_t lw(uint32_t rd, uint32_t rs1, int32_t imm) { return i(imm, rs1, 2, rd, 0x03); }
constexpr uint32_t sw(uint32_t rs2, uint32_t rs1, int32_t imm) { return s(imm, rs2, rs1, 2); }
constexpr uint32_t add(uint32_t rd, uint32_t a, uint32_t c) { return r(0, c, a, 0, rd, 0x33); }
constexpr uint32_t mul(uint32_t rd, uint32_t a, uint32_t c) { return r(1, c, a, 0, rd, 0x33); }
constexpr uint32_t mulh(uint32_t rd, uint32_t a, uint32_t c) { return r(1, c, a, 1, rd, 0x33); }
constexpr uint32_t div_(uint32_t rd, uint32_t a, uint32_t c) { return r(1, c, a, 4, rd, 0x33); }
constexpr uint32_t divu(uint32_t rd, uint32_t a, uint32_t c) { return r(1, c, a, 5, rd, 0x33); }
constexpr uint32_t rem(uint32_t rd, uint32_t a, uint32_t c) { return r(1, c, a, 6, rd, 0x33); }
constexpr uint32_t remu(uint32_t rd, uint32_t a, uint32_t c) { return r(1, c, a, 7, rd, 0x33); }
constexpr uint32_t bne(uint32_t a, uint32_t c, int32_t off) { return b(off, c, a, 1); }
constexpr uint32_t jalr(uint32_t rd, uint32_t rs1, int32_t imm) { return i(imm, rs1, 0, rd, 0x67); }
constexpr uint32_t kEcall = 0x00000073;
constexpr uint32_t csrrs(uint32_t rd, uint32_t csr, uint32_t rs1) { return i(int32_t(csr), rs1, 2, rd, 0x73); }
constexpr uint32_t rdcycle(uint32_t rd) { return csrrs(rd, 0xC00, 0); }

// A-extension: funct5, aq = rl = 0, word width.
constexpr uint32_t amo(uint32_t f5, uint32_t rd, uint32_t rs1, uint32_t rs2) { return r(f5 << 2, rs2, rs1, 2, rd, 0x2F); }
constexpr uint32_t lr_w(uint32_t rd, uint32_t rs1) { return amo(0x02, rd, rs1, 0); }
constexpr uint32_t sc_w(uint32_t rd, uint32_t rs1, uint32_t rs2) { return amo(0x03, rd, rs1, rs2); }
constexpr uint32_t amoswap_w(uint32_t rd, uint32_t rs1, uint32_t rs2) { return amo(0x01, rd, rs1, rs2); }
constexpr uint32_t amoadd_w(uint32_t rd, uint32_t rs1, uint32_t rs2) { return amo(0x00, rd, rs1, rs2); }

}  // namespace
}  // namespace fs::iss
