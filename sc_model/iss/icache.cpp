// Instruction cache lookups, refills and replacement (see icache.h).
#include "iss/icache.h"

#include <algorithm>
#include <stdexcept>

namespace fs::iss {

InstructionCache::InstructionCache(const IcacheParams& p)
    : line_shift_(0),
      sets_(0),
      ways_(p.ways),
      miss_cycles_(p.miss_cycles),
      beats_(0),
      replacement_(p.replacement),
      prefetch_(p.prefetch) {
  auto pow2 = [](uint64_t v) { return v && !(v & (v - 1)); };
  if (!pow2(p.bytes) || p.bytes > (1u << 31) || !pow2(p.line_bytes) || p.line_bytes > p.bytes || p.ways == 0 ||
      (p.bytes / p.line_bytes) % p.ways != 0 || p.refill_bytes_per_cycle == 0)
    throw std::invalid_argument("instruction cache geometry");
  while ((1u << line_shift_) < p.line_bytes) ++line_shift_;
  sets_ = uint32_t(p.bytes / p.line_bytes / p.ways);
  beats_ = std::max(1u, (p.line_bytes + p.refill_bytes_per_cycle - 1) / p.refill_bytes_per_cycle);
  lines_.resize(size_t(sets_) * ways_);
}

InstructionCache::Fetch InstructionCache::fetch(uint32_t program, uint32_t addr, uint32_t hart, uint64_t at) {
  const uint64_t line = addr >> line_shift_;
  const uint64_t tag = (uint64_t(program) << 32) | line;
  Way* set = &lines_[size_t(line % sets_) * ways_];
  ++clock_;
  for (uint32_t w = 0; w < ways_; ++w) {
    Way& way = set[w];
    if (way.tag != tag) continue;
    way.last_use = clock_;
    if (at >= way.ready) {
      ++hits;
      return {at, true, false};
    }
    ++merged;
    // Asked before the refill in flight was (fetches stepped out of time order): that refill
    // is this fetch's, so it starts earlier.
    if (at < way.requested) {
      way.requested = at;
      way.ready = std::min(way.ready, refill_start(at) + miss_cycles_);
    }
    return {way.ready, false, false};
  }
  Way& v = victim(set, hart);
  v = Way{tag, clock_, at, refill_start(at) + miss_cycles_};
  ++misses;
  return {v.ready, false, true};
}

// When a refill asked at `at` has the refill port: after the refills queued before it, each
// holding the port for a line's beats. One asked before the last that queued (stepped out of
// time order) does not queue.
uint64_t InstructionCache::refill_start(uint64_t at) {
  if (at < port_last_ask_) return at;
  port_last_ask_ = at;
  const uint64_t start = std::max(at, port_free_);
  port_free_ = start + beats_;
  return start;
}

// The way a refill fills: the highest empty one, else the least recently used, or the one
// core `hart`'s 8-bit LFSR picks (bits [log2(ways):1]; taps 7, 3, 2, 1, inverted feedback,
// starting at 0), which then steps.
InstructionCache::Way& InstructionCache::victim(Way* set, uint32_t hart) {
  for (uint32_t w = ways_; w-- > 0;)
    if (set[w].tag == kEmpty) return set[w];
  if (replacement_ == IcacheReplacement::kLru)
    return *std::min_element(set, set + ways_, [](const Way& a, const Way& b) { return a.last_use < b.last_use; });
  uint8_t& r = lfsr_[hart];
  Way& v = set[(r >> 1) % ways_];
  const unsigned feedback = ~((r >> 7) ^ (r >> 3) ^ (r >> 2) ^ (r >> 1)) & 1u;
  r = uint8_t((r << 1) | feedback);
  return v;
}

}  // namespace fs::iss
