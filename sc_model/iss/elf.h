// Reading RISC-V ELF executables: ELF32, little-endian, EM_RISCV, ET_EXEC, with PT_LOAD segments.
// Every malformed file is an InputError naming the file and the reason; nothing is trusted.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fs::iss {

struct ElfSegment {
  uint32_t vaddr = 0;
  uint32_t memsz = 0;
  uint16_t header = 0;  // the index of its program header ("segment N" in messages)
  std::vector<uint8_t> bytes;  // the file's bytes (filesz); the rest up to memsz is zero
  bool readable = false, writable = false, executable = false;
};

// A function symbol of .symtab: where it starts and how many bytes it spans (0 if unknown).
struct ElfFunction {
  uint32_t addr = 0, size = 0;
  std::string name;
};

struct ElfImage {
  uint32_t entry = 0;
  std::vector<ElfSegment> segments;
  uint32_t flags = 0;  // e_flags (float ABI, RVC)
  std::map<std::string, uint32_t> symbols;  // function and object symbols of .symtab, if any
  std::vector<ElfFunction> functions;       // the function symbols, in .symtab order
  // The DWARF sections that map code to source lines (.debug_line, .debug_line_str, .debug_str),
  // as the file has them; absent if the program was built without -g (iss/debug_info.h reads them).
  std::map<std::string, std::vector<uint8_t>> debug_sections;
  bool has_writable_segment() const {
    for (const ElfSegment& s : segments)
      if (s.writable) return true;
    return false;
  }
};

ElfImage read_elf(const std::string& path);
ElfImage parse_elf(const std::string& name, const std::vector<uint8_t>& file);

}  // namespace fs::iss
