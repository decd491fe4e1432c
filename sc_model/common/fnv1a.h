// 64-bit FNV-1a: the hash of names and texts where a stable, documented function is needed (a
// sweep run's id, a component's seed from its name).
#pragma once
#include <cstdint>
#include <string>

#include "common/splitmix64.h"

namespace fs {

constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ull;

// FNV-1a of `data`, continuing from `h`.
inline uint64_t fnv1a64(const std::string& data, uint64_t h = kFnvOffset) {
  for (unsigned char c : data) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

// The seed of a component's random choices: the run's seed and the component's name mixed, so
// that each component draws its own sequence and the same run draws the same ones.
inline uint64_t component_seed(uint64_t run_seed, const std::string& name) {
  return splitmix64_mix(run_seed ^ fnv1a64(name));
}

}  // namespace fs
