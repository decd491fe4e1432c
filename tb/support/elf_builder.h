// ELF32 RISC-V executables built byte by byte for tests and fuzzing seeds: a code segment at
// 0x10000 (the entry) and an optional writable data segment at 0x20000 (64 bytes of bss after its
// data). Tests edit the bytes to make malformed files.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace fs::test {

inline void put32(std::vector<uint8_t>& f, size_t off, uint32_t v) { std::memcpy(&f[off], &v, 4); }
inline void put16(std::vector<uint8_t>& f, size_t off, uint16_t v) { std::memcpy(&f[off], &v, 2); }

inline std::vector<uint8_t> make_elf(const std::vector<uint32_t>& code, const std::string& data = "") {
  const size_t phnum = data.empty() ? 1 : 2;
  const size_t code_off = 52 + 32 * phnum, data_off = code_off + 4 * code.size();
  std::vector<uint8_t> f(data_off + data.size(), 0);
  std::memcpy(f.data(), "\x7f" "ELF", 4);
  f[4] = 1;  // ELFCLASS32
  f[5] = 1;  // little-endian
  f[6] = 1;  // version
  put16(f, 16, 2);    // ET_EXEC
  put16(f, 18, 243);  // EM_RISCV
  put32(f, 20, 1);
  put32(f, 24, 0x10000);  // entry
  put32(f, 28, 52);       // phoff
  put16(f, 40, 52);
  put16(f, 42, 32);
  put16(f, 44, uint16_t(phnum));
  auto ph = [&](size_t k, uint32_t off, uint32_t vaddr, uint32_t filesz, uint32_t memsz, uint32_t flags) {
    const size_t p = 52 + 32 * k;
    put32(f, p, 1);
    put32(f, p + 4, off);
    put32(f, p + 8, vaddr);
    put32(f, p + 12, vaddr);
    put32(f, p + 16, filesz);
    put32(f, p + 20, memsz);
    put32(f, p + 24, flags);
    put32(f, p + 28, 4);
  };
  ph(0, uint32_t(code_off), 0x10000, uint32_t(4 * code.size()), uint32_t(4 * code.size()), 5);  // R+X
  if (!data.empty()) ph(1, uint32_t(data_off), 0x20000, uint32_t(data.size()), uint32_t(data.size()) + 64, 6);  // R+W
  for (size_t k = 0; k < code.size(); ++k) put32(f, code_off + 4 * k, code[k]);
  std::memcpy(&f[data_off], data.data(), data.size());
  return f;
}

// Offset of program header k's field at byte `field` (4 offset, 8 vaddr, 16 filesz, 20 memsz, 24 flags).
constexpr size_t elf_phdr_field(size_t k, size_t field) { return 52 + 32 * k + field; }

}  // namespace fs::test
