// Reading handler programs and laying out their arguments (see handler_program.h).
#include "pspin/handler_program.h"

#include <algorithm>
#include <utility>

#include "common/errors.h"
#include "common/text.h"
#include "iss/elf.h"
#include "pspin/memory/hpu_address_map.h"

namespace fs {

void HandlerPrograms::preload(const HandlerSet& set) {
  if (programs_.count(set.name)) return;
  const std::string path = elf_path(set);
  iss::ElfImage img;
  try {
    img = iss::read_elf(path);
  } catch (const InputError& e) {
    throw InputError(std::string(e.what()) + " (the RISC-V build of handler set '" + set.name +
                     "'; hpu.handler_dir says where to find it, hpu.model = native runs without it)");
  }
  if (img.has_writable_segment())
    throw InputError(path + ": handler programs may not have writable data (keep state in L1 or L2 handler memory)");
  const auto sym = img.symbols.find(set.name + "_handler");
  if (sym == img.symbols.end()) throw InputError(path + ": no function '" + set.name + "_handler'");
  uint32_t lo = ~0u, hi = 0;
  for (const iss::ElfSegment& s : img.segments) {
    lo = std::min(lo, s.vaddr);
    hi = std::max(hi, s.vaddr + s.memsz);
  }
  if (lo < FS_PROGRAM_BASE || hi > FS_L1_GLOBAL_BASE)
    throw InputError(path + ": segments outside program memory (" + hex32(FS_PROGRAM_BASE) + " onwards)");
  auto p = std::make_unique<HandlerProgram>();
  p->base = lo;
  p->entry = img.entry;
  p->handler = sym->second;
  for (const auto& [name, at] : {std::pair<const char*, uint32_t*>{"_fs_handler_call", &p->call},
                                 std::pair<const char*, uint32_t*>{"_fs_handler_return", &p->ret}}) {
    const auto mark = img.symbols.find(name);
    if (mark == img.symbols.end())
      throw InputError(path + ": no symbol '" + name + "' (the firmware's crt0.S marks the handler's call and return)");
    *at = mark->second;
  }
  if (set.timer_fn) {
    const auto timer = img.symbols.find(set.name + "_timer");
    if (timer == img.symbols.end()) throw InputError(path + ": no function '" + set.name + "_timer' (the set has timers)");
    p->timer = timer->second;
  }
  p->debug = iss::DebugInfo(img);
  p->image.assign(hi - lo, 0);
  for (const iss::ElfSegment& s : img.segments) std::copy(s.bytes.begin(), s.bytes.end(), p->image.begin() + (s.vaddr - lo));
  programs_.emplace(set.name, std::move(p));
}

fs_handler_args_rv32_t rv32_handler_args(const fs_handler_args_t& args, const HpuMemoryView& view) {
  fs_handler_args_rv32_t a{};
#define FS_RV32_PTR_(type, name) a.name = guest_address(view, args.name);
#define FS_RV32_U32_(name) a.name = args.name;
  FS_HANDLER_ARGS(FS_RV32_PTR_, FS_RV32_U32_)
#undef FS_RV32_PTR_
#undef FS_RV32_U32_
  return a;
}

}  // namespace fs
