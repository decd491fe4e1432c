// splitmix64's output function and increment: the mixing that every generator's documented
// random draws are built from (the draws allreduce_gen.h, allreduce_timing.h and
// pspin_workload.cpp describe), defined once so that they cannot drift apart.
#pragma once
#include <cstdint>

namespace fs {

// The golden-ratio increment of splitmix64's state.
constexpr uint64_t kSplitmixGolden = 0x9E3779B97F4A7C15ull;

// splitmix64's finalizer: a bijection of 64-bit values that spreads every input bit.
inline uint64_t splitmix64_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace fs
