// Handler programs for the ISS engine: each handler set's RISC-V ELF (handlers/CMakeLists.txt
// builds it), read and checked once before the simulation starts (its program-memory image, the
// firmware's entry, its call of the handler and the point the handler returns to, and the
// handler's address), and what a run hands the program: the handler's arguments in the RV32
// layout, made from fs_handler_args_t's field list.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fs_memory_map.h"
#include "iss/debug_info.h"
#include "pspin/handler_sets.h"
#include "pspin/memory/pspin_memory.h"

namespace fs {

// A handler set's program: its code image in program memory and its entry points.
struct HandlerProgram {
  uint32_t base = 0;     // where the image starts (FS_PROGRAM_BASE or above)
  uint32_t entry = 0;    // the firmware's entry (crt0.S)
  uint32_t call = 0;     // the firmware's call of the handler (_fs_handler_call)
  uint32_t ret = 0;      // where the handler returns to (_fs_handler_return)
  uint32_t handler = 0;  // NAME_handler
  uint32_t timer = 0;    // NAME_timer, or 0 when the set has no timer handler
  std::vector<uint8_t> image;
  iss::DebugInfo debug;  // functions and source lines, for fault messages and traces
};

// The programs of the handler sets, read from `dir` (hpu.handler_dir, or the build's ELFs).
class HandlerPrograms {
 public:
  explicit HandlerPrograms(std::string dir) : dir_(std::move(dir)) {}
  // Reads and checks the set's ELF (once); throws InputError if it is missing or unusable.
  void preload(const HandlerSet& set);
  std::string elf_path(const HandlerSet& set) const { return dir_ + "/" + set.name + ".elf"; }
  // A preloaded set's program.
  const HandlerProgram& at(const HandlerSet& set) const { return *programs_.at(set.name); }

 private:
  std::string dir_;
  std::map<std::string, std::unique_ptr<HandlerProgram>> programs_;
};

// Bytes at the top of an HPU's stack that hold the handler's arguments; sp starts below them.
constexpr uint32_t kHandlerArgsRoom = 64;
static_assert(sizeof(fs_handler_args_rv32_t) <= kHandlerArgsRoom, "the RV32 handler arguments outgrew their room");

// `args` (host pointers into `view`) as the RV32 handler sees them: every pointer at its place in
// the memory map (firmware/fs_memory_map.h, pspin/memory/hpu_address_map.h).
fs_handler_args_rv32_t rv32_handler_args(const fs_handler_args_t& args, const HpuMemoryView& view);

}  // namespace fs
