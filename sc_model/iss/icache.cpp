// Instruction cache lookups (see icache.h).
#include "iss/icache.h"

#include <stdexcept>

namespace fs::iss {

InstructionCache::InstructionCache(uint32_t bytes, uint32_t line_bytes, uint32_t ways, uint32_t miss_cycles)
    : line_shift_(0), sets_(0), ways_(ways), miss_cycles_(miss_cycles) {
  auto pow2 = [](uint32_t v) { return v && !(v & (v - 1)); };
  if (!pow2(bytes) || !pow2(line_bytes) || line_bytes > bytes || ways == 0 || (bytes / line_bytes) % ways != 0)
    throw std::invalid_argument("instruction cache geometry");
  while ((1u << line_shift_) < line_bytes) ++line_shift_;
  sets_ = bytes / line_bytes / ways;
  lines_.resize(size_t(sets_) * ways_);
}

uint32_t InstructionCache::access(uint32_t program, uint32_t addr) {
  const uint64_t line = addr >> line_shift_;
  const uint64_t tag = (uint64_t(program) << 32) | line;
  Way* set = &lines_[size_t(line % sets_) * ways_];
  ++clock_;
  Way* victim = set;
  for (uint32_t w = 0; w < ways_; ++w) {
    if (set[w].tag == tag) {
      set[w].last_use = clock_;
      ++hits;
      return 0;
    }
    if (set[w].last_use < victim->last_use) victim = &set[w];
  }
  victim->tag = tag;
  victim->last_use = clock_;
  ++misses;
  return miss_cycles_;
}

}  // namespace fs::iss
