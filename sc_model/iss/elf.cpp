// ELF32 RISC-V executable reader (see elf.h).
#include "iss/elf.h"

#include <cstring>
#include <fstream>

#include "common/errors.h"
#include "common/text.h"

namespace fs::iss {
namespace {

uint32_t u32(const std::vector<uint8_t>& f, size_t off) {
  uint32_t v;
  std::memcpy(&v, f.data() + off, 4);
  return v;
}
uint16_t u16(const std::vector<uint8_t>& f, size_t off) {
  uint16_t v;
  std::memcpy(&v, f.data() + off, 2);
  return v;
}

// Function and object symbols from .symtab (and its string table). A file without one has none;
// a malformed one is an error.
void read_symbols(const std::string& name, const std::vector<uint8_t>& f, ElfImage& img) {
  auto bad = [&](const std::string& why) -> void { throw InputError(name + ": " + why); };
  const uint32_t shoff = u32(f, 32);
  const uint16_t shentsize = u16(f, 46), shnum = u16(f, 48);
  if (shoff == 0 || shnum == 0) return;
  if (shentsize < 40 || uint64_t(shoff) + uint64_t(shentsize) * shnum > f.size())
    bad("section headers run past the end of the file");
  for (uint16_t k = 0; k < shnum; ++k) {
    const size_t sh = shoff + size_t(k) * shentsize;
    if (u32(f, sh + 4) != 2) continue;  // SHT_SYMTAB
    const uint32_t off = u32(f, sh + 16), size = u32(f, sh + 20), link = u32(f, sh + 24);
    if (link >= shnum) bad("symbol table names a missing string table");
    const size_t st = shoff + size_t(link) * shentsize;
    const uint32_t str_off = u32(f, st + 16), str_size = u32(f, st + 20);
    if (uint64_t(off) + size > f.size() || uint64_t(str_off) + str_size > f.size())
      bad("symbol table runs past the end of the file");
    for (uint32_t e = 0; e + 16 <= size; e += 16) {
      const uint32_t name_off = u32(f, off + e), value = u32(f, off + e + 4);
      const uint8_t type = f[off + e + 12] & 0xF;
      if ((type != 1 && type != 2) || name_off >= str_size) continue;  // STT_OBJECT, STT_FUNC
      const char* s = reinterpret_cast<const char*>(f.data() + str_off + name_off);
      const size_t len = strnlen(s, str_size - name_off);
      img.symbols[std::string(s, len)] = value;
      if (type == 2) img.functions.push_back(ElfFunction{value, u32(f, off + e + 8), std::string(s, len)});
    }
  }
}

// The sections iss/debug_info.h reads, by name (from the section-name string table). Sections
// that do not fit in the file are left out: debug information is optional, the program runs
// without it.
void read_debug_sections(const std::vector<uint8_t>& f, ElfImage& img) {
  const uint32_t shoff = u32(f, 32);
  const uint16_t shentsize = u16(f, 46), shnum = u16(f, 48), shstrndx = u16(f, 50);
  if (shoff == 0 || shstrndx >= shnum) return;  // read_symbols checked the headers' extent
  const size_t names = shoff + size_t(shstrndx) * shentsize;
  const uint32_t names_off = u32(f, names + 16), names_size = u32(f, names + 20);
  if (uint64_t(names_off) + names_size > f.size()) return;
  for (uint16_t k = 0; k < shnum; ++k) {
    const size_t sh = shoff + size_t(k) * shentsize;
    const uint32_t name = u32(f, sh), off = u32(f, sh + 16), size = u32(f, sh + 20);
    if (name >= names_size || u32(f, sh + 4) != 1 || uint64_t(off) + size > f.size()) continue;  // SHT_PROGBITS
    const char* s = reinterpret_cast<const char*>(f.data() + names_off + name);
    const std::string section(s, strnlen(s, names_size - name));
    if (section == ".debug_line" || section == ".debug_line_str" || section == ".debug_str")
      img.debug_sections[section].assign(f.begin() + off, f.begin() + off + size);
  }
}

}  // namespace

ElfImage parse_elf(const std::string& name, const std::vector<uint8_t>& f) {
  auto bad = [&](const std::string& why) -> void { throw InputError(name + ": " + why); };
  if (f.size() < 52 || std::memcmp(f.data(), "\x7f" "ELF", 4) != 0) bad("not an ELF file");
  if (f[4] != 1) bad("not a 32-bit ELF file (ELFCLASS32 expected; flaresim runs RV32)");
  if (f[5] != 1) bad("not a little-endian ELF file");
  if (u16(f, 18) != 243) bad("not a RISC-V ELF file (e_machine " + std::to_string(u16(f, 18)) + ", expected 243)");
  if (u16(f, 16) != 2) bad("not an executable (e_type " + std::to_string(u16(f, 16)) + ", expected ET_EXEC)");
  ElfImage img;
  img.entry = u32(f, 24);
  img.flags = u32(f, 36);
  const uint32_t phoff = u32(f, 28);
  const uint16_t phentsize = u16(f, 42), phnum = u16(f, 44);
  if (phnum == 0) bad("no program headers");
  if (phentsize < 32) bad("program header entries of " + std::to_string(phentsize) + " bytes (at least 32 expected)");
  if (uint64_t(phoff) + uint64_t(phentsize) * phnum > f.size()) bad("program headers run past the end of the file");
  for (uint16_t i = 0; i < phnum; ++i) {
    const size_t ph = phoff + size_t(i) * phentsize;
    if (u32(f, ph) != 1) continue;  // PT_LOAD only
    const uint32_t offset = u32(f, ph + 4), vaddr = u32(f, ph + 8), filesz = u32(f, ph + 16), memsz = u32(f, ph + 20),
                   flags = u32(f, ph + 24);
    const std::string seg = "segment " + std::to_string(i);
    if (filesz > memsz) bad(seg + ": file size " + std::to_string(filesz) + " exceeds memory size " + std::to_string(memsz));
    if (uint64_t(offset) + filesz > f.size()) bad(seg + ": data runs past the end of the file");
    if (uint64_t(vaddr) + memsz > (uint64_t(1) << 32)) bad(seg + ": wraps past the 4 GiB address space");
    if (memsz == 0) continue;
    ElfSegment s;
    s.vaddr = vaddr;
    s.memsz = memsz;
    s.header = i;
    s.bytes.assign(f.begin() + offset, f.begin() + offset + filesz);
    s.executable = flags & 1;
    s.writable = flags & 2;
    s.readable = flags & 4;
    for (const ElfSegment& o : img.segments)
      if (uint64_t(vaddr) < uint64_t(o.vaddr) + o.memsz && uint64_t(o.vaddr) < uint64_t(vaddr) + memsz)
        bad(seg + " overlaps another loadable segment");
    img.segments.push_back(std::move(s));
  }
  if (img.segments.empty()) bad("no loadable segments");
  read_symbols(name, f, img);
  read_debug_sections(f, img);
  bool entry_ok = false;
  for (const ElfSegment& s : img.segments)
    entry_ok = entry_ok || (s.executable && img.entry - s.vaddr < s.memsz);
  if (!entry_ok) bad("entry point " + hex32(img.entry) + " is not in an executable segment");
  if (img.entry & 1) bad("entry point " + hex32(img.entry) + " is not 2-byte aligned");  // pc stays even from there
  return img;
}

ElfImage read_elf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open ELF file");
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  in.seekg(0, std::ios::beg);
  if (size < 0 || size > (std::streamoff(1) << 30)) throw InputError(path + ": cannot read (or larger than 1 GiB)");
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  if (size > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), size)) throw InputError(path + ": read error");
  return parse_elf(path, bytes);
}

}  // namespace fs::iss
