// Running a bare RISC-V program (`flaresim iss`): the ELF's PT_LOAD segments at their link
// addresses (bss zeroed; at most 256 MiB in all, outside the stack, checked before anything is
// allocated), a 2 MiB stack below 0x80000000 (sp = 0x7ffffff0), and the Linux RISC-V
// system calls exit (93), exit_group (94) and write (64) to fd 1 and 2. Anything else the
// program does outside that (another system call, ebreak, a fault, running past the
// instruction budget) stops it with a SimError naming the place.
#pragma once
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "iss/cpu.h"
#include "iss/elf.h"
#include "iss/timing.h"

namespace fs::iss {

struct BareRunOptions {
  uint64_t max_instructions = 10'000'000'000ull;  // watchdog
  Timing timing;
  bool xpulp = false;  // decode RI5CY's Xpulp instructions (`flaresim iss --isa rv32imafc_xpulp`)
  bool plain = false;  // run on the plain engine (`flaresim iss --engine plain`; Cpu::Engine)
  uint64_t slice = uint64_t(1) << 24;  // instructions per Cpu::run call (between interrupt checks)
};

struct BareRunResult {
  int exit_code = 0;  // the program's exit status, & 0xff as on Linux
  uint64_t instret = 0, cycles = 0;
  CpuCounters counters;
};

constexpr uint32_t kBareStackTop = 0x80000000u;
constexpr uint32_t kBareStackBytes = 2u << 20;
constexpr uint64_t kBareMaxSegmentBytes = 256u << 20;  // the loadable segments' memory sizes, summed

// Throws InputError naming the file and the segment if the image does not fit the bare memory map.
void check_fits_bare_memory(const std::string& path, const ElfImage& img);

// A bare program loaded into its memory, with its core, to run a number of instructions at a
// time (tests compare engines this way); run_bare_image runs one to its end.
class BareMachine {
 public:
  // Throws InputError if the image does not fit (check_fits_bare_memory).
  BareMachine(const std::string& path, const ElfImage& img, const BareRunOptions& opts);
  // Runs up to `instructions` more, in calls of Cpu::run of at most opts.slice each, serving the
  // system calls, until the core's cycles reach `cycle_limit`; true once the program has exited.
  // Throws SimError as run_bare_image does.
  bool run(uint64_t instructions, std::ostream& out, std::ostream& err, uint64_t cycle_limit = ~0ull);
  Cpu& cpu() { return *cpu_; }
  bool exited() const { return exited_; }
  int exit_code() const { return exit_code_; }

 private:
  std::string path_;
  BareRunOptions opts_;
  AddressSpace mem_;
  std::vector<std::unique_ptr<std::vector<uint8_t>>> storage_;
  std::unique_ptr<Cpu> cpu_;
  bool exited_ = false;
  int exit_code_ = 0;
};

BareRunResult run_bare_elf(const std::string& path, const BareRunOptions& opts, std::ostream& out, std::ostream& err);
// The same for an image already read; `path` names it in messages.
BareRunResult run_bare_image(const std::string& path, const ElfImage& img, const BareRunOptions& opts,
                             std::ostream& out, std::ostream& err);

}  // namespace fs::iss
