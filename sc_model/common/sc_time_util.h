// Bridges the model's integer-picosecond times and SystemC's sc_time, and the PsPIN clock.
// The kernel's time resolution is 1 ps (set once in Simulation before anything is built).
#pragma once
#include <cmath>
#include <systemc>

#include "common/units.h"

namespace fs {

inline sc_core::sc_time ps_time(Picos ps) { return sc_core::sc_time::from_value(ps); }
inline Picos now_ps() { return sc_core::sc_time_stamp().value(); }

// A clock domain: converts cycle counts to time. The period is rounded to whole picoseconds.
struct Clock {
  Picos period_ps = 1000;
  static Clock from_ghz(double ghz) { return Clock{Picos(std::llround(1000.0 / ghz))}; }
  Picos cycles_ps(uint64_t n) const { return n * period_ps; }
  sc_core::sc_time cycles(uint64_t n) const { return ps_time(cycles_ps(n)); }
};

}  // namespace fs
