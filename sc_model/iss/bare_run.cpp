// The bare-program environment of `flaresim iss` (see bare_run.h).
#include "iss/bare_run.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <vector>

#include "common/errors.h"
#include "common/interrupt.h"
#include "common/text.h"
#include "iss/cpu.h"
#include "iss/elf.h"

namespace fs::iss {

void check_fits_bare_memory(const std::string& path, const ElfImage& img) {
  constexpr uint64_t stack_lo = kBareStackTop - kBareStackBytes, stack_hi = kBareStackTop;
  uint64_t total = 0;
  for (const ElfSegment& s : img.segments) {
    const uint64_t lo = s.vaddr, hi = uint64_t(s.vaddr) + s.memsz;
    if (lo < stack_hi && stack_lo < hi)
      throw InputError(path + ": segment " + std::to_string(s.header) + " (" + hex32(s.vaddr) + ", " +
                       std::to_string(s.memsz) + " bytes) overlaps the stack (" + hex32(uint32_t(stack_lo)) + " to " +
                       hex32(uint32_t(stack_hi - 1)) + ")");
    total += s.memsz;
  }
  if (total > kBareMaxSegmentBytes)
    throw InputError(path + ": loadable segments of " + std::to_string(total) + " bytes in memory; bare programs may have " +
                     std::to_string(kBareMaxSegmentBytes >> 20) + " MiB");
}

BareRunResult run_bare_elf(const std::string& path, const BareRunOptions& opts, std::ostream& out, std::ostream& err) {
  return run_bare_image(path, read_elf(path), opts, out, err);
}

BareMachine::BareMachine(const std::string& path, const ElfImage& img, const BareRunOptions& opts)
    : path_(path), opts_(opts) {
  check_fits_bare_memory(path, img);
  try {
    for (size_t i = 0; i < img.segments.size(); ++i) {
      const ElfSegment& s = img.segments[i];
      storage_.push_back(std::make_unique<std::vector<uint8_t>>(s.memsz, 0));
      std::copy(s.bytes.begin(), s.bytes.end(), storage_.back()->begin());
      mem_.add(MemRegion{s.vaddr, s.memsz, storage_.back()->data(), s.writable, s.executable, 0,
                         "ELF segment " + std::to_string(i)});
    }
    storage_.push_back(std::make_unique<std::vector<uint8_t>>(kBareStackBytes, 0));
    mem_.add(MemRegion{kBareStackTop - kBareStackBytes, kBareStackBytes, storage_.back()->data(), true, false, 0, "stack"});
  } catch (const std::invalid_argument& e) {
    throw InputError(path + ": " + e.what());
  }
  cpu_ = std::make_unique<Cpu>(mem_, opts.timing);
  cpu_->set_xpulp(opts.xpulp);
  cpu_->set_engine(opts.plain ? Cpu::Engine::kPlain : Cpu::Engine::kFast);
  cpu_->pc = img.entry;
  cpu_->x[2] = kBareStackTop - 16;
}

bool BareMachine::run(uint64_t instructions, std::ostream& out, std::ostream& err, uint64_t cycle_limit) {
  Cpu& cpu = *cpu_;
  const uint64_t end = instructions > ~0ull - cpu.instret ? ~0ull : cpu.instret + instructions;
  while (!exited_ && cpu.instret < end && cpu.cycles < cycle_limit) {
    const uint64_t left = end - cpu.instret;
    const Stop stop = cpu.run(std::min(left, std::max<uint64_t>(opts_.slice, 1)), cycle_limit);
    if (stop == Stop::kBudget) continue;
    if (stop == Stop::kEcall) {
      const uint32_t nr = cpu.x[17], a0 = cpu.x[10], a1 = cpu.x[11], a2 = cpu.x[12];
      if (nr == 93 || nr == 94) {
        exit_code_ = int(a0 & 0xFF);
        exited_ = true;
        break;
      }
      if (nr == 64) {
        std::ostream* dst = a0 == 1 ? &out : a0 == 2 ? &err : nullptr;
        const MemRegion* r = a2 ? mem_.find(a1, a2) : nullptr;
        if (!dst) cpu.x[10] = uint32_t(-9);              // EBADF
        else if (a2 && !r) cpu.x[10] = uint32_t(-14);    // EFAULT
        else {
          if (a2) dst->write(reinterpret_cast<const char*>(r->host + (a1 - r->base)), a2);
          cpu.x[10] = a2;
        }
        cpu.skip();
        continue;
      }
      throw SimError(path_ + ": unsupported system call " + std::to_string(nr) + " (a7) at pc " + hex32(cpu.pc) +
                     "; bare programs may use exit (93), exit_group (94) and write (64)");
    }
    if (stop == Stop::kEbreak) throw SimError(path_ + ": ebreak at pc " + hex32(cpu.pc));
    if (stop == Stop::kFault) throw SimError(path_ + ": " + cpu.fault().describe());
    throw SimError(path_ + ": the core stopped unexpectedly at pc " + hex32(cpu.pc));  // (no gates, devices or watch here)
  }
  return exited_;
}

BareRunResult run_bare_image(const std::string& path, const ElfImage& img, const BareRunOptions& opts,
                             std::ostream& out, std::ostream& err) {
  BareMachine m(path, img, opts);
  // Runs in slices, checking for SIGINT and SIGTERM in between.
  while (m.cpu().instret < opts.max_instructions) {
    if (pending_interrupt())
      check_interrupted("running " + path + ", after " + std::to_string(m.cpu().instret) + " instructions");
    if (m.run(std::min(opts.max_instructions - m.cpu().instret, std::max<uint64_t>(opts.slice, 1)), out, err)) break;
  }
  if (!m.exited())
    throw SimError(path + ": stopped after " + std::to_string(opts.max_instructions) +
                   " instructions without exiting (pc " + hex32(m.cpu().pc) + "); raise --max-instructions if it should run longer");
  out.flush();
  BareRunResult res;
  res.exit_code = m.exit_code();
  res.instret = m.cpu().instret;
  res.cycles = m.cpu().cycles;
  res.counters = m.cpu().counters;
  return res;
}

}  // namespace fs::iss
