// A RISC-V program's debug information, for messages and traces: which function a PC lies in
// (from .symtab's function symbols) and which source file and line it came from (the DWARF line
// table in .debug_line, versions 2 to 5, 32-bit DWARF). Debug information is optional: a program
// built without -g has none, and a malformed table is not an error (the program still runs) but
// leaves a reason that messages can show.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "iss/elf.h"

namespace fs::iss {

struct SourceLine {
  std::string file;  // as the table names it (the compilation's directory joined to the name)
  unsigned line = 0;
};

class DebugInfo {
 public:
  DebugInfo() = default;
  explicit DebugInfo(const ElfImage& img);

  // "name+0x1c" for a PC inside a function symbol ("name" at its start), "" outside all.
  std::string symbolise(uint32_t pc) const;
  // The source line the instruction at `pc` came from; nullptr if the table has none.
  const SourceLine* line_at(uint32_t pc) const;
  // "file:line" or "" (no line for pc).
  std::string where(uint32_t pc) const;
  // Why there is no line table ("" if there is one): no .debug_line, or what was wrong with it.
  const std::string& line_problem() const { return problem_; }
  size_t rows() const { return rows_.size(); }

 private:
  struct Row {
    uint32_t addr;
    uint32_t line;  // index into lines_, or kEnd: the end of a sequence
  };
  static constexpr uint32_t kEnd = ~0u;
  void read_line_table(const ElfImage& img);

  std::vector<ElfFunction> functions_;  // sorted by address
  std::vector<Row> rows_;               // sorted by address, ends before starts at equal addresses
  std::vector<SourceLine> lines_;
  std::string problem_;
};

}  // namespace fs::iss
