// The ISS's debug information (iss/debug_info.h): the source line of every code address of real
// handler ELFs agrees with binutils' riscv64-unknown-elf-addr2line, an independent reader of the
// same DWARF line tables; function symbols name PCs; missing or malformed tables are reported,
// not fatal.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "iss/debug_info.h"
#include "iss/elf.h"

namespace fs::iss {
namespace {

// addr2line's answer for each address, as "file:line" ("" where it has none).
std::vector<std::string> addr2line(const std::string& elf, const std::vector<uint32_t>& pcs) {
  const std::string list = testing::TempDir() + "/debug_info_pcs.txt";
  {
    std::ofstream out(list);
    for (uint32_t pc : pcs) out << std::hex << "0x" << pc << "\n";
  }
  FILE* p = popen(("riscv64-unknown-elf-addr2line -e '" + elf + "' < '" + list + "'").c_str(), "r");
  std::vector<std::string> out;
  if (!p) return out;
  char buf[1024];
  while (std::fgets(buf, sizeof buf, p)) {
    std::string s(buf);
    s = s.substr(0, s.find_first_of(" \n"));  // drop " (discriminator N)"
    // "??:0": nothing known; "file:?": no line, the file known from .debug_info's compilation
    // unit ranges (which DebugInfo does not read): no line either way.
    out.push_back(s.rfind("??:", 0) == 0 || s.compare(s.size() - 2, 2, ":?") == 0 ? "" : s);
  }
  pclose(p);
  return out;
}

void agrees_with_addr2line(const std::string& elf_path) {
  const ElfImage img = read_elf(elf_path);
  const DebugInfo debug(img);
  ASSERT_EQ(debug.line_problem(), "");
  ASSERT_GT(debug.rows(), 100u);
  std::vector<uint32_t> pcs;  // every halfword of every function (not the read-only data beside them)
  for (const ElfFunction& f : img.functions)
    for (uint32_t a = f.addr; a < f.addr + f.size; a += 2) pcs.push_back(a);
  ASSERT_GT(pcs.size(), 1000u);
  const std::vector<std::string> expected = addr2line(elf_path, pcs);
  ASSERT_EQ(expected.size(), pcs.size());
  size_t with_line = 0, mismatches = 0;
  for (size_t k = 0; k < pcs.size(); ++k) {
    // The project's code only: in picolibc's units (a .c file including another), bfd's
    // addr2line takes DWARF 5 file 1 for file 0, where readelf --debug-dump=decodedline and this
    // reader follow the table.
    if (expected[k].rfind(FLARESIM_SOURCE_DIR "/", 0) != 0) continue;
    with_line += !expected[k].empty();
    if (debug.where(pcs[k]) != expected[k] && ++mismatches <= 5)
      ADD_FAILURE() << elf_path << " pc 0x" << std::hex << pcs[k] << ": " << debug.where(pcs[k]) << " vs addr2line "
                    << expected[k];
  }
  EXPECT_EQ(mismatches, 0u);
  EXPECT_GT(with_line, 500u);  // the halfwords of the project's code that were compared
}

TEST(DebugInfo, LinesAgreeWithAddr2lineOnHandlerElfs) {
  agrees_with_addr2line(FLARESIM_HANDLER_ELF_DIR "/flare_dense.elf");
  agrees_with_addr2line(FLARESIM_HANDLER_ELF_DIR "/xpulp/flare_dense.elf");
  agrees_with_addr2line(FLARESIM_HANDLER_ELF_DIR "/api_probe.elf");  // calls fs_log: picolibc's vsnprintf
}

TEST(DebugInfo, SymbolsNameFunctionsAndOffsets) {
  const ElfImage img = read_elf(FLARESIM_HANDLER_ELF_DIR "/flare_dense.elf");
  const DebugInfo debug(img);
  const uint32_t handler = img.symbols.at("flare_dense_handler");
  EXPECT_EQ(debug.symbolise(handler), "flare_dense_handler");
  EXPECT_EQ(debug.symbolise(handler + 6), "flare_dense_handler+0x6");
  EXPECT_EQ(debug.symbolise(0x100), "");  // below program memory
}

TEST(DebugInfo, MissingOrMalformedLineTablesAreReportedNotFatal) {
  ElfImage img = read_elf(FLARESIM_HANDLER_ELF_DIR "/flare_dense.elf");
  ElfImage stripped = img;
  stripped.debug_sections.clear();
  EXPECT_EQ(DebugInfo(stripped).line_problem(), "the program has no .debug_line section (build it with -g)");
  EXPECT_EQ(DebugInfo(stripped).where(img.symbols.at("flare_dense_handler")), "");

  ElfImage truncated = img;
  truncated.debug_sections[".debug_line"].resize(30);  // inside the first unit's header
  EXPECT_EQ(DebugInfo(truncated).line_problem(), ".debug_line: a unit runs past the end of the section");

  ElfImage version = img;
  version.debug_sections[".debug_line"][4] = 9;  // the first unit's version
  EXPECT_EQ(DebugInfo(version).line_problem(), ".debug_line: DWARF version 9");

  ElfImage no_strings = img;
  no_strings.debug_sections.erase(".debug_line_str");
  EXPECT_EQ(DebugInfo(no_strings).line_problem(), ".debug_line: a string in the missing section .debug_line_str");
}

}  // namespace
}  // namespace fs::iss
