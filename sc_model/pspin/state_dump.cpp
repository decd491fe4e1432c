// Handler state dumps (see state_dump.h).
#include "pspin/state_dump.h"

#include <cstdio>
#include <cstring>

#include "common/sc_time_util.h"

namespace fs {

void hex_dump(std::ostream& out, const uint8_t* bytes, size_t size) {
  bool folded = false;
  for (size_t off = 0; off < size; off += 16) {
    const size_t n = std::min<size_t>(16, size - off);
    if (off > 0 && n == 16 && std::memcmp(bytes + off, bytes + off - 16, 16) == 0) {
      if (!folded) out << "*\n";
      folded = true;
      continue;
    }
    folded = false;
    char line[96];
    int k = std::snprintf(line, sizeof line, "%08zx ", off);
    for (size_t i = 0; i < 16; ++i) {
      if (i == 8) line[k++] = ' ';
      k += i < n ? std::snprintf(line + k, sizeof line - size_t(k), " %02x", bytes[off + i])
                 : std::snprintf(line + k, sizeof line - size_t(k), "   ");
    }
    k += std::snprintf(line + k, sizeof line - size_t(k), "  |");
    for (size_t i = 0; i < n; ++i) line[k++] = bytes[off + i] >= 0x20 && bytes[off + i] < 0x7F ? char(bytes[off + i]) : '.';
    line[k++] = '|';
    line[k] = 0;
    out << line << '\n';
  }
  char end[16];
  std::snprintf(end, sizeof end, "%08zx", size);
  out << end << '\n';
}

void dump_handler_state(std::ostream& out, PspinUnit& unit) {
  out << "# flaresim --dump-state: handler memory at " << double(now_ps()) / double(kPicosPerUs)
      << " us of simulated time; offsets from the start of each set's range (the handler's l1 and "
         "handler_mem pointers)\n";
  PspinMemory& mem = unit.memory();
  for (int set : unit.installed_sets()) {
    const std::string& name = handler_sets()[size_t(set)].name;
    const HandlerSetMemory& m = unit.set_memory(set);
    for (unsigned c = 0; c < mem.clusters(); ++c) {
      out << "\n## " << name << " L1 of cluster " << c << " (" << m.l1_bytes << " bytes at state area offset "
          << m.l1_offset << ")\n";
      hex_dump(out, mem.set_l1(set, c).data(), m.l1_bytes);
    }
    out << "\n## " << name << " L2 handler memory (" << m.l2_bytes << " bytes at offset " << m.l2_offset << ")\n";
    hex_dump(out, mem.set_l2(set).data(), m.l2_bytes);
  }
}

}  // namespace fs
