// Host code addresses as functions and source lines (see host_code.h).
#include "common/host_code.h"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

#include "common/command.h"

namespace fs {
namespace {

// The main program's file (addr2line runs in a process of its own: /proc/self/exe would be it).
std::string main_program_file() {
  char path[4096];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  return n > 0 ? std::string(path, size_t(n)) : "";
}

struct Object {
  std::string file;     // the mapped file
  uintptr_t base = 0;   // its load bias: the address addr2line takes is pc - base
  bool found = false;
};

Object object_of(uintptr_t pc) {
  struct Search {
    uintptr_t pc;
    Object object;
  } search{pc, {}};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          const uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
          if (ph.p_type != PT_LOAD || s->pc < begin || s->pc >= begin + ph.p_memsz) continue;
          s->object.file = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "";
          s->object.base = info->dlpi_addr;
          s->object.found = true;
          return 1;
        }
        return 0;
      },
      &search);
  if (search.object.found && search.object.file.empty()) search.object.file = main_program_file();
  return search.object;
}

// addr2line's answer: pairs of lines (function, file:line), the innermost inlined function first;
// "??" where it knows nothing.
std::string addr2line(const Object& o, uintptr_t address) {
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%" PRIxPTR, address);
  const CommandResult r = run_command({"addr2line", "-f", "-i", "-C", "-e", o.file, hex});
  if (!r.started || r.status != 0) return "";
  std::istringstream lines(r.out);
  std::string text, function, place;
  while (std::getline(lines, function) && std::getline(lines, place)) {
    const size_t note = place.find(" (discriminator");
    if (note != std::string::npos) place.erase(note);
    if (function == "??" || place.rfind("??", 0) == 0) break;
    // The file as the compiler named it, which can be relative to the build's folder
    // ("/src/build/tb/../../tb/x.c"): tidied to "/src/tb/x.c" (without touching the file system).
    const size_t colon = place.rfind(':');
    if (colon != std::string::npos)
      place = std::filesystem::path(place.substr(0, colon)).lexically_normal().string() + place.substr(colon);
    text += (text.empty() ? " in " : ", inlined into ") + function + " at " + place;
  }
  return text;
}

// What the dynamic linker knows: the nearest exported symbol, and the file.
std::string nearest_symbol(uintptr_t pc, const Object& o) {
  Dl_info info{};
  std::string text;
  if (dladdr(reinterpret_cast<void*>(pc), &info) && info.dli_sname) text = std::string(" in ") + info.dli_sname;
  if (o.found) text += " (" + o.file + ")";
  return text;
}

}  // namespace

std::string describe_host_pc(uintptr_t pc, bool return_address) {
  static std::mutex mutex;
  static std::map<std::pair<uintptr_t, bool>, std::string> known;
  std::lock_guard<std::mutex> lock(mutex);
  const auto it = known.find({pc, return_address});
  if (it != known.end()) return it->second;
  const uintptr_t at = return_address ? pc - 1 : pc;
  const Object o = object_of(at);
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%" PRIxPTR, pc);
  std::string where = o.found ? addr2line(o, at - o.base) : "";
  if (where.empty()) where = nearest_symbol(at, o);
  return known[{pc, return_address}] = "host pc " + std::string(hex) + where;
}

bool in_main_program(uintptr_t pc) {
  // The main program's loaded segments, found once (the first call must not be in a signal
  // handler; later ones may: they only read this table).
  static const std::vector<std::pair<uintptr_t, uintptr_t>> segments = [] {
    std::vector<std::pair<uintptr_t, uintptr_t>> s;
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) {
          auto* out = static_cast<std::vector<std::pair<uintptr_t, uintptr_t>>*>(data);
          for (int i = 0; i < info->dlpi_phnum; ++i) {
            const ElfW(Phdr)& ph = info->dlpi_phdr[i];
            if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
              out->push_back({info->dlpi_addr + ph.p_vaddr, info->dlpi_addr + ph.p_vaddr + ph.p_memsz});
          }
          return 1;  // the first object is the main program
        },
        &s);
    return s;
  }();
  for (const auto& seg : segments)
    if (pc >= seg.first && pc < seg.second) return true;
  return false;
}

}  // namespace fs
