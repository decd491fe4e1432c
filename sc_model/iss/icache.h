// A cluster's instruction cache: set-associative with LRU replacement, shared by the cluster's
// HPUs, in front of program memory. The core asks it once per cache line it enters; a miss costs
// the configured refill cycles. Deterministic: no randomness in replacement.
#pragma once
#include <cstdint>
#include <vector>

namespace fs::iss {

// Its geometry and timing: the icache.* keys (iss/icache.def).
struct IcacheParams {
#define FS_UINT(sec, field, type, def, lo, hi, doc) type field = def;
#define FS_SIZE(sec, field, def, lo, hi, doc) uint64_t field = def;
#include "iss/icache.def"
#undef FS_UINT
#undef FS_SIZE
};

class InstructionCache {
 public:
  // bytes and line_bytes are powers of two; ways divides bytes / line_bytes (else
  // std::invalid_argument).
  explicit InstructionCache(const IcacheParams& p);

  // Looks up the line holding `addr` of program `program` (handler sets share addresses);
  // returns the extra cycles (0 on a hit) and fills the line on a miss.
  uint32_t access(uint32_t program, uint32_t addr);
  uint32_t line_shift() const { return line_shift_; }

  uint64_t hits = 0, misses = 0;

 private:
  struct Way {
    uint64_t tag = ~0ull;
    uint64_t last_use = 0;
  };
  uint32_t line_shift_, sets_, ways_, miss_cycles_;
  uint64_t clock_ = 0;
  std::vector<Way> lines_;  // sets_ x ways_
};

}  // namespace fs::iss
