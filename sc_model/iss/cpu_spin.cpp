// The hart's spin detection (see cpu.h): a wait loop on a shared word recognised from two turns
// alike (probe_spin), its turns fast-forwarded by their period (skip_spin), and the atomic writes
// a run made, which decide whether a parked core's word changed (note_atomic_write).
#include <cstring>

#include "iss/cpu.h"

namespace fs::iss {

bool Cpu::probe_spin(uint32_t load_pc, uint32_t addr, uint32_t value, const uint8_t* host, unsigned size,
                     uint64_t load_cycle, bool can_park) {
  SpinProbe& p = probe_;
  const bool same = p.stage > 0 && p.pc == load_pc && p.addr == addr && p.value == value && p.writes == writes_;
  if (same) {  // one more turn of a wait loop, from the last load to this one
    p.looping = true;
    counters.spin_cycles += load_cycle - p.load_cycle;
    p.load_cycle = load_cycle;
    if (!can_park) return false;
  }
  // A loop that takes no cycles (every timing.* at 0) cannot be fast-forwarded by its period.
  if (same && p.stage == 2 && cycles > p.cycles && std::memcmp(p.x, x, sizeof x) == 0 &&
      std::memcmp(p.f, f, sizeof f) == 0 && p.fflags == fflags && p.frm == frm) {
    const MemRegion* r = mem_.find(addr, size);
    spin_ = Spin{host, size, load_cycle, cycles - p.cycles, r ? r->sharing : kClusterShared};
    spin_instret_ = instret - p.instret;
    spin_counters_ = counters;
    spin_counters_ -= p.counters;
    p.stage = 0;
    return true;
  }
  if (same) {
    // Two loads in a row alike: remember the whole core to compare with the next one.
    std::memcpy(p.x, x, sizeof x);
    std::memcpy(p.f, f, sizeof f);
    p.fflags = fflags;
    p.frm = frm;
    p.cycles = cycles;
    p.instret = instret;
    p.counters = counters;
    p.stage = 2;
    return false;
  }
  p.stage = 1;
  p.looping = false;
  p.host = host;
  p.pc = load_pc;
  p.addr = addr;
  p.value = value;
  p.writes = writes_;
  p.load_cycle = load_cycle;
  return false;
}

// Only the last write to each word counts; writes that do not change the word are not noted.
void Cpu::note_atomic_write(const MemRegion&, const uint8_t* host, uint32_t addr, uint32_t before, uint32_t after,
                            const Insn& in) {
  for (AtomicWrite& w : atomic_writes_)
    if (w.host == host) {
      w.addr = addr, w.after = after, w.pc = pc, w.op = in.op;  // `before` stays the run's first
      return;
    }
  if (atomic_writes_.size() < kMaxAtomicWrites) atomic_writes_.push_back(AtomicWrite{host, addr, before, after, pc, in.op});
}

void Cpu::skip_spin(uint64_t iterations) {
  cycles += iterations * spin_.period;
  instret += iterations * spin_instret_;
  counters.add_scaled(spin_counters_, iterations);  // a turn's own fast-forwarded counts are 0
  counters.fast_forwarded_instructions += iterations * spin_instret_;
  counters.fast_forwarded_turns += iterations;
}

}  // namespace fs::iss
