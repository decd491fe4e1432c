// Encoders of RI5CY's Xpulp instructions for tests that hand-assemble code, written from the
// encoding tables of the CV32E40P v1 user manual (instruction_set_extensions.rst) and the RI5CY
// manual's hardware-loop chapter, independently of the ISS's decoder (sc_model/iss/decode_xpulp.cpp).
#pragma once
#include <cstdint>

#include "iss/rv_encode.h"

namespace fs::iss::xpe {
namespace {

// Post-increment (opcode 0x0B / 0x2B) and register-offset (LOAD/STORE funct3 7 / 4-6) forms.
constexpr uint32_t p_load_pi(uint32_t f3, uint32_t rd, uint32_t rs1, int32_t imm) { return i(imm, rs1, f3, rd, 0x0B); }
constexpr uint32_t p_lw_pi(uint32_t rd, uint32_t rs1, int32_t imm) { return p_load_pi(2, rd, rs1, imm); }
constexpr uint32_t p_lh_pi(uint32_t rd, uint32_t rs1, int32_t imm) { return p_load_pi(1, rd, rs1, imm); }
constexpr uint32_t p_lb_pi(uint32_t rd, uint32_t rs1, int32_t imm) { return p_load_pi(0, rd, rs1, imm); }
constexpr uint32_t p_lbu_pi(uint32_t rd, uint32_t rs1, int32_t imm) { return p_load_pi(4, rd, rs1, imm); }
// funct7 of the register forms: lb 0x00, lbu 0x20, lh 0x08, lhu 0x28, lw 0x10.
constexpr uint32_t p_load_rpi(uint32_t f7, uint32_t rd, uint32_t rs1, uint32_t rs2) { return r(f7, rs2, rs1, 7, rd, 0x0B); }
constexpr uint32_t p_load_rr(uint32_t f7, uint32_t rd, uint32_t rs1, uint32_t rs2) { return r(f7, rs2, rs1, 7, rd, 0x03); }
constexpr uint32_t p_store_pi(uint32_t f3, uint32_t rs2, uint32_t rs1, int32_t imm) {
  return (s(imm, rs2, rs1, f3) & ~0x7Fu) | 0x2B;
}
// funct3 of the register forms: sb 4, sh 5, sw 6; rs3 (the offset) in the rd field.
constexpr uint32_t p_store_rpi(uint32_t f3, uint32_t rs2, uint32_t rs1, uint32_t rs3) { return r(0, rs2, rs1, f3, rs3, 0x2B); }
constexpr uint32_t p_store_rr(uint32_t f3, uint32_t rs2, uint32_t rs1, uint32_t rs3) { return r(0, rs2, rs1, f3, rs3, 0x23); }

// Hardware loops (0x7B): uimmL in 31:20, rs1 or uimmS in 19:15, L in bit 7.
constexpr uint32_t lp(uint32_t f3, uint32_t l, uint32_t uimm_l, uint32_t rs1_or_s) {
  return (uimm_l << 20) | (rs1_or_s << 15) | (f3 << 12) | (l << 7) | 0x7B;
}
constexpr uint32_t lp_starti(uint32_t l, uint32_t half_off) { return lp(0, l, half_off, 0); }
constexpr uint32_t lp_endi(uint32_t l, uint32_t half_off) { return lp(1, l, half_off, 0); }
constexpr uint32_t lp_count(uint32_t l, uint32_t rs1) { return lp(2, l, 0, rs1); }
constexpr uint32_t lp_counti(uint32_t l, uint32_t n) { return lp(3, l, n, 0); }
constexpr uint32_t lp_setup(uint32_t l, uint32_t rs1, uint32_t end_half_off) { return lp(4, l, end_half_off, rs1); }
constexpr uint32_t lp_setupi(uint32_t l, uint32_t n, uint32_t end_half_off) { return lp(5, l, n, end_half_off); }

// OP (0x33) forms and bit manipulation with immediates (bits 31:30 = 11, Is3 29:25, Is2 24:20).
constexpr uint32_t alu(uint32_t f7, uint32_t f3, uint32_t rd, uint32_t rs1, uint32_t rs2) { return r(f7, rs2, rs1, f3, rd, 0x33); }
constexpr uint32_t bitman(uint32_t f3, uint32_t rd, uint32_t rs1, uint32_t is3, uint32_t is2) {
  return (3u << 30) | (is3 << 25) | (is2 << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | 0x33;
}
// PULP_OP (0x5B): f2 in 31:30, Is3 in 29:25.
constexpr uint32_t pulp_op(uint32_t f2, uint32_t is3, uint32_t f3, uint32_t rd, uint32_t rs1, uint32_t rs2) {
  return (f2 << 30) | (is3 << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | 0x5B;
}
// Packed SIMD (0x57): funct5 31:27, F 26; funct3 0 .h, 4 .sc.h, 6 .sci.h, 1 .b, 5 .sc.b, 7 .sci.b.
constexpr uint32_t pv(uint32_t f5, uint32_t f, uint32_t f3, uint32_t rd, uint32_t rs1, uint32_t rs2, uint32_t b25 = 0) {
  return (f5 << 27) | (f << 26) | (b25 << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | 0x57;
}
// The .sci forms: Imm6[0] in bit 25, Imm6[5:1] in 24:20.
constexpr uint32_t pv_sci(uint32_t f5, uint32_t f, uint32_t f3, uint32_t rd, uint32_t rs1, int32_t imm6) {
  const uint32_t u = uint32_t(imm6) & 0x3F;
  return pv(f5, f, f3, rd, rs1, u >> 1, u & 1);
}
// p.beqimm / p.bneimm: BRANCH funct3 2 / 3, the signed 5-bit immediate in the rs2 field.
constexpr uint32_t p_beqimm(uint32_t rs1, int32_t imm5, int32_t off) { return b(off, uint32_t(imm5) & 31, rs1, 2); }
constexpr uint32_t p_bneimm(uint32_t rs1, int32_t imm5, int32_t off) { return b(off, uint32_t(imm5) & 31, rs1, 3); }

}  // namespace
}  // namespace fs::iss::xpe
