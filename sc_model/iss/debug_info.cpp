// Function symbols and the DWARF line table of a RISC-V program (see debug_info.h). The line
// table is decoded by running each unit's line-number program (DWARF 5, section 6.2) into rows.
#include "iss/debug_info.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <stdexcept>
#include <utility>

namespace fs::iss {
namespace {

// A bounds-checked reader over one section; every overrun throws Malformed.
struct Malformed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Reader {
 public:
  Reader(const std::vector<uint8_t>& d, size_t pos, size_t end) : d_(d), pos_(pos), end_(end) {}
  size_t pos() const { return pos_; }
  bool done() const { return pos_ >= end_; }
  void seek(size_t p) {
    if (p > end_) throw Malformed("an offset past the end of its unit");
    pos_ = p;
  }
  uint64_t fixed(unsigned bytes) {
    need(bytes);
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; ++i) v |= uint64_t(d_[pos_ + i]) << (8 * i);
    pos_ += bytes;
    return v;
  }
  uint64_t uleb() {
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
      const uint8_t b = uint8_t(fixed(1));
      if (shift < 64) v |= uint64_t(b & 0x7F) << shift;
      if (!(b & 0x80)) return v;
    }
  }
  int64_t sleb() {
    int64_t v = 0;
    unsigned shift = 0;
    uint8_t b;
    do {
      b = uint8_t(fixed(1));
      if (shift < 64) v |= int64_t(uint64_t(b & 0x7F) << shift);
      shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40)) v |= -(int64_t(1) << shift);
    return v;
  }
  std::string cstring() {
    const void* nul = std::memchr(d_.data() + pos_, 0, end_ > pos_ ? end_ - pos_ : 0);
    if (!nul) throw Malformed("a string runs past the end of its unit");
    const size_t len = size_t(static_cast<const uint8_t*>(nul) - (d_.data() + pos_));
    std::string s(reinterpret_cast<const char*>(d_.data() + pos_), len);
    pos_ += len + 1;
    return s;
  }
  void skip(uint64_t bytes) {
    need(bytes);
    pos_ += size_t(bytes);
  }

 private:
  void need(uint64_t bytes) const {
    if (bytes > end_ - pos_) throw Malformed("data runs past the end of its unit");
  }
  const std::vector<uint8_t>& d_;
  size_t pos_, end_;
};

// A string in .debug_line_str or .debug_str.
std::string string_at(const ElfImage& img, const char* section, uint64_t off) {
  const auto it = img.debug_sections.find(section);
  if (it == img.debug_sections.end()) throw Malformed(std::string("a string in the missing section ") + section);
  if (off >= it->second.size()) throw Malformed(std::string("a string offset past the end of ") + section);
  Reader r(it->second, size_t(off), it->second.size());
  return r.cstring();
}

// DWARF 5's entry formats (directory and file tables): a value of `form`, as a string (paths) or
// a number (directory indices); other contents are skipped.
struct FormValue {
  std::string text;
  uint64_t number = 0;
};
FormValue read_form(Reader& r, uint64_t form, const ElfImage& img) {
  FormValue v;
  switch (form) {
    case 0x08: v.text = r.cstring(); break;                                 // DW_FORM_string
    case 0x1f: v.text = string_at(img, ".debug_line_str", r.fixed(4)); break;  // DW_FORM_line_strp
    case 0x0e: v.text = string_at(img, ".debug_str", r.fixed(4)); break;       // DW_FORM_strp
    case 0x0b: v.number = r.fixed(1); break;                                // DW_FORM_data1
    case 0x05: v.number = r.fixed(2); break;                                // DW_FORM_data2
    case 0x06: v.number = r.fixed(4); break;                                // DW_FORM_data4
    case 0x07: v.number = r.fixed(8); break;                                // DW_FORM_data8
    case 0x1e: r.skip(16); break;                                           // DW_FORM_data16 (MD5)
    case 0x0f: v.number = r.uleb(); break;                                  // DW_FORM_udata
    case 0x09: r.skip(r.uleb()); break;                                     // DW_FORM_block
    default: throw Malformed("an entry format of unknown form " + std::to_string(form));
  }
  return v;
}

std::string join_path(const std::string& dir, const std::string& name) {
  if (name.empty() || name[0] == '/' || dir.empty()) return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

// DWARF 5 directory or file name table: (content type, form) pairs, then the entries. Paths
// come back joined with their directory (files name it by index into `dirs`).
std::vector<std::string> read_entry_table(Reader& r, const ElfImage& img, const std::vector<std::string>* dirs) {
  std::vector<std::pair<uint64_t, uint64_t>> format(r.fixed(1));
  for (auto& [type, form] : format) type = r.uleb(), form = r.uleb();
  const uint64_t count = r.uleb();
  if (count > 1000000) throw Malformed("a table of " + std::to_string(count) + " entries");
  std::vector<std::string> out;
  for (uint64_t i = 0; i < count; ++i) {
    std::string path;
    uint64_t dir = 0;
    for (const auto& [type, form] : format) {
      const FormValue v = read_form(r, form, img);
      if (type == 1) path = v.text;    // DW_LNCT_path
      if (type == 2) dir = v.number;   // DW_LNCT_directory_index
    }
    if (dirs) {
      if (dir >= dirs->size()) throw Malformed("a file names directory " + std::to_string(dir) + " of " + std::to_string(dirs->size()));
      path = join_path((*dirs)[size_t(dir)], path);
    }
    out.push_back(std::move(path));
  }
  return out;
}

// The line-number program's state machine (the registers that matter for a PC-to-line map).
struct LineState {
  uint64_t addr = 0, file = 1, line = 1;
};

}  // namespace

DebugInfo::DebugInfo(const ElfImage& img) {
  for (const ElfFunction& f : img.functions)
    if (!f.name.empty()) functions_.push_back(f);
  std::stable_sort(functions_.begin(), functions_.end(),
                   [](const ElfFunction& a, const ElfFunction& b) { return a.addr < b.addr; });
  try {
    read_line_table(img);
  } catch (const Malformed& e) {
    rows_.clear();
    lines_.clear();
    problem_ = std::string(".debug_line: ") + e.what();
  }
}

void DebugInfo::read_line_table(const ElfImage& img) {
  const auto section = img.debug_sections.find(".debug_line");
  if (section == img.debug_sections.end()) {
    problem_ = "the program has no .debug_line section (build it with -g)";
    return;
  }
  const std::vector<uint8_t>& d = section->second;
  std::map<std::pair<std::string, uint64_t>, uint32_t> line_index;
  auto emit = [&](const std::vector<std::string>& files, const LineState& s, bool end) {
    if (s.addr > 0xFFFFFFFFu) throw Malformed("an address beyond 32 bits");
    if (end) {
      rows_.push_back(Row{uint32_t(s.addr), kEnd});
      return;
    }
    const std::string file = s.file < files.size() ? files[size_t(s.file)] : "?";
    auto [it, added] = line_index.emplace(std::make_pair(file, s.line), uint32_t(lines_.size()));
    if (added) lines_.push_back(SourceLine{file, unsigned(s.line)});
    rows_.push_back(Row{uint32_t(s.addr), it->second});
  };
  for (size_t unit = 0; unit < d.size();) {
    Reader head(d, unit, d.size());
    const uint64_t length = head.fixed(4);
    if (length >= 0xFFFFFFF0u) throw Malformed("64-bit DWARF is not supported");
    const size_t end = head.pos() + size_t(length);
    if (end > d.size()) throw Malformed("a unit runs past the end of the section");
    Reader r(d, head.pos(), end);
    const unsigned version = unsigned(r.fixed(2));
    if (version < 2 || version > 5) throw Malformed("DWARF version " + std::to_string(version));
    if (version >= 5) {
      if (r.fixed(1) != 4) throw Malformed("addresses that are not 4 bytes");
      r.fixed(1);  // segment selector size
    }
    const uint64_t header_length = r.fixed(4);
    const size_t program = r.pos() + size_t(header_length);
    const unsigned min_insn = unsigned(r.fixed(1));
    if (version >= 4) r.fixed(1);  // maximum operations per instruction (1 on RISC-V)
    const bool default_stmt = r.fixed(1) != 0;
    (void)default_stmt;
    const int line_base = int8_t(r.fixed(1));
    const unsigned line_range = unsigned(r.fixed(1));
    const unsigned opcode_base = unsigned(r.fixed(1));
    if (line_range == 0 || opcode_base == 0) throw Malformed("a line range or opcode base of 0");
    std::vector<uint8_t> arg_counts(opcode_base, 0);
    for (unsigned k = 1; k < opcode_base; ++k) arg_counts[k] = uint8_t(r.fixed(1));
    std::vector<std::string> files;
    if (version >= 5) {
      // Directory 0 is the compilation's; the others are relative to it unless absolute.
      std::vector<std::string> dirs = read_entry_table(r, img, nullptr);
      for (size_t k = 1; k < dirs.size(); ++k)
        if (!dirs[0].empty()) dirs[k] = join_path(dirs[0], dirs[k]);
      files = read_entry_table(r, img, &dirs);
    } else {
      std::vector<std::string> dirs{""};
      for (std::string dir = r.cstring(); !dir.empty(); dir = r.cstring()) dirs.push_back(dir);
      files.push_back("?");  // before DWARF 5, files count from 1
      for (std::string name = r.cstring(); !name.empty(); name = r.cstring()) {
        const uint64_t dir = r.uleb();
        r.uleb(), r.uleb();  // modification time, length
        files.push_back(join_path(dir < dirs.size() ? dirs[size_t(dir)] : "", name));
      }
    }
    r.seek(program);
    LineState s;
    while (!r.done()) {
      const unsigned op = unsigned(r.fixed(1));
      if (op >= opcode_base) {  // special opcode: advance address and line, emit a row
        const unsigned adjusted = op - opcode_base;
        s.addr += uint64_t(adjusted / line_range) * min_insn;
        s.line += uint64_t(int64_t(line_base) + int64_t(adjusted % line_range));
        emit(files, s, false);
      } else if (op == 0) {  // extended opcode
        const uint64_t len = r.uleb();
        if (len == 0) continue;
        const size_t next = r.pos() + size_t(len);
        const unsigned sub = unsigned(r.fixed(1));
        if (sub == 1) {  // end_sequence
          emit(files, s, true);
          s = LineState{};
        } else if (sub == 2) {  // set_address
          s.addr = r.fixed(unsigned(std::min<uint64_t>(len - 1, 8)));
        } else if (sub == 3 && version < 5) {  // define_file
          const std::string name = r.cstring();
          files.push_back(name);
        }
        r.seek(next);
      } else if (op == 1) {  // copy
        emit(files, s, false);
      } else if (op == 2) {
        s.addr += r.uleb() * min_insn;
      } else if (op == 3) {
        s.line += uint64_t(r.sleb());
      } else if (op == 4) {
        s.file = r.uleb();
      } else if (op == 8) {  // const_add_pc
        s.addr += uint64_t((255 - opcode_base) / line_range) * min_insn;
      } else if (op == 9) {  // fixed_advance_pc
        s.addr += r.fixed(2);
      } else {  // column, stmt, basic block, prologue/epilogue, isa, and opcodes this reader does not know
        for (unsigned k = 0; k < arg_counts[op]; ++k) r.uleb();
      }
    }
    unit = end;
  }
  // Sequences are sorted by address; at an address where one ends and another starts, the start wins.
  std::stable_sort(rows_.begin(), rows_.end(), [](const Row& a, const Row& b) {
    return a.addr != b.addr ? a.addr < b.addr : (a.line == kEnd && b.line != kEnd);
  });
}

const SourceLine* DebugInfo::line_at(uint32_t pc) const {
  auto it = std::upper_bound(rows_.begin(), rows_.end(), pc, [](uint32_t a, const Row& r) { return a < r.addr; });
  if (it == rows_.begin()) return nullptr;
  --it;
  return it->line == kEnd ? nullptr : &lines_[it->line];
}

std::string DebugInfo::where(uint32_t pc) const {
  const SourceLine* l = line_at(pc);
  return l ? l->file + ":" + std::to_string(l->line) : "";
}

std::string DebugInfo::symbolise(uint32_t pc) const {
  auto it = std::upper_bound(functions_.begin(), functions_.end(), pc,
                             [](uint32_t a, const ElfFunction& f) { return a < f.addr; });
  if (it == functions_.begin()) return "";
  --it;  // the last function starting at or below pc (functions do not nest)
  if (pc - it->addr >= std::max<uint32_t>(it->size, 1)) return "";
  if (pc == it->addr) return it->name;
  char off[16];
  std::snprintf(off, sizeof off, "+0x%x", pc - it->addr);
  return it->name + off;
  return "";
}

}  // namespace fs::iss
