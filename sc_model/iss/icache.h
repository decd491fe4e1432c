// A cluster's instruction cache, shared by the cluster's HPUs in front of program memory, timed
// as PsPIN's cluster I-cache (docs/ISS.md, "The instruction cache"): set-associative; a fetch that
// misses starts a refill that queues on the cluster's refill port and arrives miss_cycles after
// it starts; fetches of a line whose refill is in flight wait for that refill; an empty way is
// filled first, else a random (per-core LFSR) or the least recently used way is replaced.
// Deterministic. The core (cpu.cpp, cpu_fetch.cpp) decides when it fetches which line.
#pragma once
#include <cstdint>
#include <map>
#include <vector>

namespace fs::iss {

// Which full way a refill replaces (icache.replacement).
enum class IcacheReplacement : uint8_t { kRandom, kLru };

// Its geometry and timing: the icache.* keys (iss/icache.def).
struct IcacheParams {
#define FS_UINT(sec, field, type, def, lo, hi, doc) type field = def;
#define FS_SIZE(sec, field, def, lo, hi, doc) uint64_t field = def;
#define FS_ENUM(sec, field, type, def, doc) type field = def;
#define FS_BOOL(sec, field, def, doc) bool field = def;
#include "iss/icache.def"
#undef FS_UINT
#undef FS_SIZE
#undef FS_ENUM
#undef FS_BOOL
};

class InstructionCache {
 public:
  // bytes and line_bytes are powers of two; ways divides bytes / line_bytes (else
  // std::invalid_argument).
  explicit InstructionCache(const IcacheParams& p);

  // What a fetch found. `ready`: the cycle the line's instructions can start, for a fetch asked
  // at `at` (a hit: `at`). `hit`: the line was there; `refilled`: this fetch started its refill.
  struct Fetch {
    uint64_t ready;
    bool hit, refilled;
  };
  // Core `hart` fetches the line holding `addr` of program `program` (handler sets share
  // addresses) at absolute cycle `at`. Fetches are exact while they come in time order; one that
  // comes earlier than a refill already in flight for its line makes that refill start at its time.
  Fetch fetch(uint32_t program, uint32_t addr, uint32_t hart, uint64_t at);

  uint32_t line_shift() const { return line_shift_; }
  bool prefetch() const { return prefetch_; }

  uint64_t hits = 0, misses = 0, merged = 0;  // merged: fetches that waited for a refill in flight

 private:
  static constexpr uint64_t kEmpty = ~0ull;
  struct Way {
    uint64_t tag = kEmpty;
    uint64_t last_use = 0;
    uint64_t requested = 0, ready = 0;  // the refill: asked at, and the line there at
  };
  Way& victim(Way* set, uint32_t hart);
  uint64_t refill_start(uint64_t at);

  uint32_t line_shift_, sets_, ways_, miss_cycles_, beats_;
  IcacheReplacement replacement_;
  bool prefetch_;
  uint64_t clock_ = 0;                 // lookups so far (LRU order)
  uint64_t port_free_ = 0;             // the refill port is busy until this cycle
  uint64_t port_last_ask_ = 0;         // when the last refill that queued was asked
  std::vector<Way> lines_;             // sets_ x ways_
  std::map<uint32_t, uint8_t> lfsr_;   // each core's replacement LFSR, by hart
};

}  // namespace fs::iss
