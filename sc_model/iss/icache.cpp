// Instruction cache lookups (see icache.h).
#include "iss/icache.h"

#include <stdexcept>

namespace fs::iss {

InstructionCache::InstructionCache(const IcacheParams& p)
    : line_shift_(0), sets_(0), ways_(p.ways), miss_cycles_(p.miss_cycles) {
  auto pow2 = [](uint64_t v) { return v && !(v & (v - 1)); };
  if (!pow2(p.bytes) || p.bytes > (1u << 31) || !pow2(p.line_bytes) || p.line_bytes > p.bytes || p.ways == 0 ||
      (p.bytes / p.line_bytes) % p.ways != 0)
    throw std::invalid_argument("instruction cache geometry");
  while ((1u << line_shift_) < p.line_bytes) ++line_shift_;
  sets_ = uint32_t(p.bytes / p.line_bytes / p.ways);
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
