// Time and rate units used outside SystemC: simulated times are integer picoseconds (Picos) so
// that parsers, trace writers and workload generators need no SystemC. Conversions to sc_time
// live with the SystemC modules.
#pragma once
#include <cstdint>

namespace fs {

using Picos = uint64_t;  // simulated time or duration in picoseconds

constexpr Picos kPicosPerNs = 1000;
constexpr Picos kPicosPerUs = 1000 * kPicosPerNs;
constexpr Picos kPicosPerMs = 1000 * kPicosPerUs;
constexpr Picos kPicosPerS = 1000 * kPicosPerMs;

// Time a frame of `bytes` bytes (plus the per-frame wire overhead: preamble, SFD, FCS, IFG)
// occupies a link of `gbps` Gbit/s, rounded up to a whole picosecond.
inline Picos wire_time(uint64_t bytes, uint64_t overhead_bytes, double gbps) {
  const double bits = 8.0 * double(bytes + overhead_bytes);
  const double ps = bits * 1000.0 / gbps;  // 1 Gbit/s = 1 bit per ns = 1 bit per 1000 ps
  const Picos whole = Picos(ps);
  return (double(whole) < ps - 1e-6) ? whole + 1 : whole;
}

}  // namespace fs
