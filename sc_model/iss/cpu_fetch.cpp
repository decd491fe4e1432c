// The hart's instruction fetch through its cluster's instruction cache (see cpu.h): how long an
// instruction waits for its line, the look-ahead to the next line, and demand fetches.
// Cpu::stalls_before (cpu.cpp, inlined into the execution loop) decides when to ask.
#include <algorithm>

#include "iss/cpu.h"
#include "iss/icache.h"

namespace fs::iss {

// How long `in`, due to start at absolute cycle `now`, waits for its instructions. The core's
// fetch buffer holds one line (RI5CY's L0 buffer, docs/ISS.md): a jump's target or a line entered
// in sequence is fetched when the instruction is due; while it executes its line's last word
// it fetches the next line ahead (icache.prefetch), and an instruction running into that line
// waits for it; a jump's target is fetched only after that look-ahead has come back.
uint64_t Cpu::fetch_stall(const Insn& in, bool jumped, uint64_t now) {
  const uint32_t shift = icache_->line_shift(), line_bytes = 1u << shift, line = pc >> shift;
  uint64_t start = now;
  if (jumped || line != icache_line_) {
    start = std::max(now, demand_fetch(pc, jumped ? std::max(now, look_ahead_until_) : now));
    icache_line_ = line;
    looked_ahead_ = false;
  }
  const uint32_t offset = pc & (line_bytes - 1);
  if (offset >= line_bytes - 4) {
    const uint32_t next = (line + 1) << shift;
    // A hardware loop's end that turns back fetches the loop's start instead (RI5CY's L0 buffer).
    const bool loops_back = loops_active_ && ((loops[0].count > 1 && pc == loops[0].end) ||
                                              (loops[1].count > 1 && pc == loops[1].end));
    if (offset + in.len > line_bytes) {
      start = std::max(start, demand_fetch(next, start));
      looked_ahead_ = true;
    } else if (!looked_ahead_ && icache_->prefetch() && !loops_back) {
      looked_ahead_ = true;
      // Asked as the instruction leaves the buffer, for the one after it: a hit arrives in time.
      const InstructionCache::Fetch f = icache_->fetch(icache_program_, next, hart_id_, start + 1);
      if (f.refilled) ++counters.icache_prefetches;
      // A jump asks for its target 2 cycles before the target starts (CV32E40P manual, "Jump"),
      // after the look-ahead's line has arrived a cycle before it could start.
      look_ahead_until_ = f.ready + 1;
    }
  }
  counters.icache_stall_cycles += start - now;
  return start - now;
}

// A fetch the core waits for, at absolute cycle `at`: when its instructions can start.
uint64_t Cpu::demand_fetch(uint32_t addr, uint64_t at) {
  const InstructionCache::Fetch f = icache_->fetch(icache_program_, addr, hart_id_, at);
  if (f.refilled) ++counters.icache_misses;
  return f.ready;
}

}  // namespace fs::iss
