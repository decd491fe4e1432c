// The instruction cache on hand-worked fetch sequences (set indexing, LRU and the per-core LFSR
// replacement, programs kept apart, refills queueing on the refill port, fetches waiting for a
// refill in flight, rejected geometries), and cores fetching through it: cold and warm
// straight-line code, the look-ahead to the next line, a jump behind it, an instruction stopped at
// a gate, and two cores missing the same line. Cycles are worked out by hand in the comments (miss_cycles 8, 2 beats a line,
// and the default timing table).
#include <gtest/gtest.h>

#include <cstring>
#include <ostream>
#include <stdexcept>
#include <vector>

#include "iss/cpu.h"
#include "iss/icache.h"
#include "iss/rv_encode.h"

namespace fs::iss {

// For EXPECT_EQ on fetches (found by argument-dependent lookup, so in the type's namespace).
bool operator==(const InstructionCache::Fetch& a, const InstructionCache::Fetch& b) {
  return a.ready == b.ready && a.hit == b.hit && a.refilled == b.refilled;
}
void PrintTo(const InstructionCache::Fetch& f, std::ostream* os) {
  *os << "{ready " << f.ready << (f.hit ? ", hit" : "") << (f.refilled ? ", refilled" : "") << "}";
}

namespace {

IcacheParams params(uint64_t bytes, unsigned line, unsigned ways, unsigned miss, IcacheReplacement repl) {
  IcacheParams p;
  p.bytes = bytes;
  p.line_bytes = line;
  p.ways = ways;
  p.miss_cycles = miss;
  p.replacement = repl;
  return p;
}

// What a fetch finds: the line there, a refill it starts (there at `ready`), or a refill in
// flight it waits for.
InstructionCache::Fetch hit(uint64_t at) { return {at, true, false}; }
InstructionCache::Fetch refill(uint64_t ready) { return {ready, false, true}; }
InstructionCache::Fetch waits(uint64_t ready) { return {ready, false, false}; }

TEST(IssIcache, DefaultsArePspinsClusterCache) {
  const IcacheParams p;
  EXPECT_EQ(p.bytes, 4096u);
  EXPECT_EQ(p.line_bytes, 16u);
  EXPECT_EQ(p.ways, 4u);
  EXPECT_EQ(p.replacement, IcacheReplacement::kRandom);
  EXPECT_EQ(p.miss_cycles, 8u);
  EXPECT_EQ(p.refill_bytes_per_cycle, 8u);
  EXPECT_TRUE(p.prefetch);
}

TEST(IssIcache, LruWithinASet) {
  // 64 bytes, 16-byte lines, 2 ways: 2 sets. Lines 0, 2, 4 (addresses 0x00, 0x20, 0x40) all map
  // to set 0. Fetches 100 cycles apart: every refill (7 cycles) is over before the next fetch.
  InstructionCache c(params(64, 16, 2, 7, IcacheReplacement::kLru));
  EXPECT_EQ(c.fetch(0, 0x00, 0, 100), refill(107));  // line 0
  EXPECT_EQ(c.fetch(0, 0x0c, 0, 200), hit(200));      // same line
  EXPECT_EQ(c.fetch(0, 0x20, 0, 300), refill(307));  // line 2, set 0 now {0, 2}
  EXPECT_EQ(c.fetch(0, 0x10, 0, 400), refill(407));  // line 1 goes to set 1
  EXPECT_EQ(c.fetch(0, 0x00, 0, 500), hit(500));      // line 0 is now the most recent in set 0
  EXPECT_EQ(c.fetch(0, 0x40, 0, 600), refill(607));  // evicts line 2 (least recently used)
  EXPECT_EQ(c.fetch(0, 0x00, 0, 700), hit(700));
  EXPECT_EQ(c.fetch(0, 0x20, 0, 800), refill(807));  // line 2 was evicted; evicts line 4
  EXPECT_EQ(c.fetch(1, 0x00, 0, 900), refill(907));  // another program's line 0 is another line
  EXPECT_EQ(c.hits, 3u);
  EXPECT_EQ(c.misses, 6u);
  EXPECT_EQ(c.merged, 0u);
}

TEST(IssIcache, RandomReplacementFollowsEachCoresLfsr) {
  // One set of 4 ways (64 bytes). Lines 0-3 fill the empty ways from the highest: line 0 way 3,
  // line 1 way 2, line 2 way 1, line 3 way 0. Then core 0's LFSR (8 bits from 0, shifted left
  // with the inverted XOR of bits 7, 3, 2, 1 coming in) picks bits 2:1 of 0, 1, 3, 6, 13:
  // ways 0, 0, 1, 3, 2. Line 4 replaces way 0 (line 3), line 5 way 0 (line 4), line 6 way 1
  // (line 2), line 7 way 3 (line 0), line 8 way 2 (line 1).
  InstructionCache c(params(64, 16, 4, 8, IcacheReplacement::kRandom));
  // Fetches 100 cycles apart (each refill is over before the next fetch), at t.
  uint64_t t = 0;
  const auto fetch = [&](uint32_t line, uint32_t hart) { return c.fetch(0, line * 16, hart, t); };
  for (uint32_t line = 0; line <= 8; ++line, t += 100) EXPECT_EQ(fetch(line, 0), refill(t + 8)) << line;
  for (uint32_t line : {5u, 6u, 7u, 8u}) {
    EXPECT_EQ(fetch(line, 0), hit(t)) << line;
    t += 100;
  }
  // Core 1's LFSR has not stepped: its miss replaces way 0 (line 5), the others stay.
  EXPECT_EQ(fetch(9, 1), refill(t + 8));
  t += 100;
  for (uint32_t line : {6u, 7u, 8u, 9u}) {
    EXPECT_EQ(fetch(line, 0), hit(t)) << line;
    t += 100;
  }
  EXPECT_EQ(fetch(5, 0), refill(t + 8));
}

TEST(IssIcache, RefillsQueueOnThePortAndShareAFetchInFlight) {
  // 8 cycles a miss, 2 beats (16-byte line, 8 bytes a cycle) on the refill port.
  InstructionCache c(params(4096, 16, 4, 8, IcacheReplacement::kRandom));
  // Two cores miss on the same line: the second waits for the first's refill (no second one).
  EXPECT_EQ(c.fetch(0, 0x100, 0, 100), refill(108));
  EXPECT_EQ(c.fetch(0, 0x104, 1, 103), waits(108));
  EXPECT_EQ(c.fetch(0, 0x108, 1, 108), hit(108));
  // Three misses on different lines at about the same time: each refill starts when the one
  // before it has had the port for its 2 beats (200, 202, 204).
  EXPECT_EQ(c.fetch(0, 0x200, 0, 200), refill(208));
  EXPECT_EQ(c.fetch(0, 0x300, 1, 200), refill(210));
  EXPECT_EQ(c.fetch(0, 0x400, 2, 201), refill(212));
  // The port is free again from 206: a miss at 300 does not wait.
  EXPECT_EQ(c.fetch(0, 0x500, 0, 300), refill(308));
  // Fetches out of time order (a core stepped behind another): a miss at 400, then a fetch of
  // the same line asked at 390, whose refill starts at 390 without queueing: the line is there at
  // 398, for both.
  EXPECT_EQ(c.fetch(0, 0x600, 0, 400), refill(408));
  EXPECT_EQ(c.fetch(0, 0x600, 1, 390), waits(398));
  EXPECT_EQ(c.fetch(0, 0x600, 0, 398), hit(398));
  EXPECT_EQ(c.misses, 6u);
  EXPECT_EQ(c.merged, 2u);
  EXPECT_EQ(c.hits, 2u);
}

TEST(IssIcache, Geometry) {
  const auto repl = IcacheReplacement::kRandom;
  EXPECT_THROW(InstructionCache(params(3000, 16, 4, 1, repl)), std::invalid_argument);
  EXPECT_THROW(InstructionCache(params(64, 24, 1, 1, repl)), std::invalid_argument);
  EXPECT_THROW(InstructionCache(params(64, 128, 1, 1, repl)), std::invalid_argument);
  EXPECT_THROW(InstructionCache(params(64, 16, 3, 1, repl)), std::invalid_argument);
  EXPECT_NO_THROW(InstructionCache(params(4096, 16, 4, 8, repl)));
}

// Cores fetching through one cache: code at 0x1000 (16-byte lines 0x1000, 0x1010, ...).
constexpr uint32_t kCode = 0x1000;

struct Cluster {
  std::vector<uint8_t> code = std::vector<uint8_t>(4096, 0);
  AddressSpace mem;
  Timing timing;
  InstructionCache cache;
  explicit Cluster(const std::vector<uint32_t>& program, bool prefetch = true)
      : Cluster(program, [prefetch] {
          IcacheParams p;
          p.prefetch = prefetch;
          return p;
        }()) {}
  Cluster(const std::vector<uint32_t>& program, const IcacheParams& p) : cache(p) {
    for (size_t k = 0; k < program.size(); ++k) std::memcpy(&code[4 * k], &program[k], 4);
    mem.add(MemRegion{kCode, uint32_t(code.size()), code.data(), false, true, 0, "code"});
  }
  // A core starting a run at kCode at absolute cycle `base`.
  Cpu core(uint32_t hart, uint64_t base) {
    Cpu c(mem, timing, hart);
    start(c, base);
    return c;
  }
  void start(Cpu& c, uint64_t base) {
    c.pc = kCode;
    c.cycles = 0;
    c.counters = CpuCounters{};
    c.set_cycle_base(base);
    c.set_icache(&cache, 0);
  }
};

TEST(IssIcacheCore, StraightLineCodeColdThenWarm) {
  // Eight addi: two lines. Cold:
  //   0x1000 a jump's target (the run's start): fetched at 0, refill 8      -> starts 8, ends 9
  //   0x1004, 0x1008                                                          -> 10, 11
  //   0x100c the line's last word: fetches 0x1010 ahead, asked for cycle 12: refill 12..20 -> 12
  //   0x1010 enters that line at 12: waits for the refill in flight        -> starts 20, ends 21
  //   0x1014, 0x1018                                                          -> 22, 23
  //   0x101c fetches 0x1020 ahead (refill 24..32, no wait for the addi)      -> 24
  // 24 cycles; 8 + 8 waiting; line 0x1000 refilled for a fetch, 0x1010 and 0x1020 ahead.
  Cluster cl(std::vector<uint32_t>(8, addi(5, 5, 1)));
  Cpu c = cl.core(0, 0);
  ASSERT_EQ(c.run(8), Stop::kBudget);
  EXPECT_EQ(c.x[5], 8u);
  EXPECT_EQ(c.cycles, 24u);
  EXPECT_EQ(c.counters.icache_stall_cycles, 16u);
  EXPECT_EQ(c.counters.icache_misses, 1u);
  EXPECT_EQ(c.counters.icache_prefetches, 2u);
  // Warm, in a later run: every line is there, 1 cycle each.
  cl.start(c, 1000);
  ASSERT_EQ(c.run(8), Stop::kBudget);
  EXPECT_EQ(c.cycles, 8u);
  EXPECT_EQ(c.counters.icache_stall_cycles, 0u);
  EXPECT_EQ(c.counters.icache_misses + c.counters.icache_prefetches, 0u);
}

TEST(IssIcacheCore, TheLookAheadHidesARefillBehindALongInstruction) {
  // addi x5, addi x5, addi x5, then in the last word divu x6, x7, x8 (x8 = 2: 3 + 30 leading
  // zeros = 33 cycles), then addi in the next line. The look-ahead asks for line 0x1010 at 12
  // (the divu starts at 11): there at 20, long before the divu ends at 44.
  //   with it:    8 + 1 + 1 + 1 + 33 + 1 = 45 cycles, 8 waiting, 0x1010 refilled ahead
  //   without it: the addi at 0x1010 fetches its line at 44 and waits 8: 53 cycles
  const std::vector<uint32_t> program = {addi(5, 5, 1), addi(5, 5, 1), addi(5, 5, 1), divu(6, 7, 8),
                                         addi(5, 5, 1)};
  for (bool prefetch : {true, false}) {
    Cluster cl(program, prefetch);
    Cpu c = cl.core(0, 0);
    c.x[8] = 2;
    ASSERT_EQ(c.run(5), Stop::kBudget);
    EXPECT_EQ(c.cycles, prefetch ? 45u : 53u);
    EXPECT_EQ(c.counters.icache_stall_cycles, prefetch ? 8u : 16u);
    EXPECT_EQ(c.counters.icache_misses, prefetch ? 1u : 2u);
    EXPECT_EQ(c.counters.icache_prefetches, prefetch ? 1u : 0u);
  }
}

TEST(IssIcacheCore, AJumpWaitsForTheLookAhead) {
  // addi, addi, addi, jalr x0, 0(x9) back to 0x1000 in the last word; twice round (8 instructions).
  //   first: 0x1000 refill -> 8; addi 9, 10, 11; the jalr starts at 11 and fetches 0x1010
  //          ahead (refill 12..20); ends at 13. Its target's fetch waits for that line to be
  //          back (a cycle before it could start) and goes at 21: a hit, so it starts at 21.
  //   second: addi 22, 23, 24; the jalr at 24 fetches ahead again (a hit, asked for 25), ends
  //          at 26; its target starts at 26 without waiting.
  // 26 cycles, 8 + 8 waiting. Without the look-ahead: 9, 10, 11, 13; 14, 15, 16, 18.
  const std::vector<uint32_t> program = {addi(5, 5, 1), addi(5, 5, 1), addi(5, 5, 1), jalr(0, 9, 0)};
  for (bool prefetch : {true, false}) {
    Cluster cl(program, prefetch);
    Cpu c = cl.core(0, 0);
    c.x[9] = kCode;
    ASSERT_EQ(c.run(8), Stop::kBudget);
    EXPECT_EQ(c.x[5], 6u);
    EXPECT_EQ(c.cycles, prefetch ? 26u : 18u);
    EXPECT_EQ(c.counters.icache_stall_cycles, prefetch ? 16u : 8u);
    EXPECT_EQ(c.counters.icache_prefetches, prefetch ? 1u : 0u);
  }
}

TEST(IssIcacheCore, AnInstructionRunningIntoTheNextLineWaitsForIt) {
  // Compressed code puts a 4-byte instruction at 0x100e: c.nop x7 (0x0001 each), then addi
  // across the line's end. The c.nop at 0x100c is in the last word: its look-ahead asks for
  // 0x1010 at 8 + 6 + 1 = 15 (refill 15..23). The addi at 0x100e (due at 15) needs that line
  // too: it starts at 23 and ends at 24.
  Cluster cl({0x00010001, 0x00010001, 0x00010001, 0x00010001});
  const uint32_t addi_insn = addi(5, 5, 1);
  std::memcpy(&cl.code[14], &addi_insn, 4);
  Cpu c = cl.core(0, 0);
  ASSERT_EQ(c.run(8), Stop::kBudget);
  EXPECT_EQ(c.x[5], 1u);
  EXPECT_EQ(c.cycles, 24u);
  EXPECT_EQ(c.counters.icache_stall_cycles, 16u);
  EXPECT_EQ(c.counters.icache_misses, 1u);
  EXPECT_EQ(c.counters.icache_prefetches, 1u);
}

TEST(IssIcacheCore, AnInstructionStoppedAtAGateIsNotFetchedAgain) {
  // addi x3, then jalr x0, 0(x9) in the last word to 0x101c, the last word of the next line:
  // lw x6, 0(x10) from the cluster's shared memory.
  //   0x1000 refill -> 8; addi 9, 10, 11; the jalr at 11 fetches 0x1010 ahead (refill 12..20)
  //   and ends at 13; the lw's fetch waits for that look-ahead (until 21, a hit) and it fetches
  //   0x1020 ahead in turn. Its access at 21 is past the cluster gate 13: the core stops at 21.
  // With the gate at 21 it runs without waiting again (its line and the look-ahead are done): 22.
  Cluster cl({addi(5, 5, 1), addi(5, 5, 1), addi(5, 5, 1), jalr(0, 9, 0), 0, 0, 0, lw(6, 10, 0)});
  std::vector<uint8_t> shared(64, 0);
  MemRegion m{0x8000, 64, shared.data(), true, false, 0, "cluster memory"};
  m.sharing = kClusterShared;
  cl.mem.add(m);
  Cpu c = cl.core(0, 0);
  c.x[9] = kCode + 0x1c;
  c.x[10] = 0x8000;
  Gates gates;
  gates.cluster = 13;
  ASSERT_EQ(c.run(10, ~0ull, gates), Stop::kGate);
  EXPECT_EQ(c.pc, kCode + 0x1c);
  EXPECT_EQ(c.cycles, 21u);
  gates.cluster = 21;
  ASSERT_EQ(c.run(1, ~0ull, gates), Stop::kBudget);
  EXPECT_EQ(c.cycles, 22u);
  EXPECT_EQ(c.counters.icache_stall_cycles, 16u);
  EXPECT_EQ(c.counters.icache_prefetches, 2u);
}

TEST(IssIcacheCore, AnInstructionAcrossTwoLinesStoppedAtAGateRunsWhenItsLineIsEvicted) {
  // A 64-byte direct-mapped cache (4 lines). Seven c.addi x5, 1 at 0x1000..0x100c, then
  // lw x6, 0(x10) at 0x100e, across lines 0x1000 and 0x1010:
  //   0x1000 refill 0..8; the c.addi start at 8..14; the one at 0x100c (last word) fetches
  //   0x1010 ahead, asked for 15 (refill 15..23); the lw needs that line: waits until 23, and its
  //   access at 23 is past the cluster gate 13: the core stops at 23.
  // Another core then fetches 0x1050, which evicts line 0x1010. The lw was fetched before the
  // gate stopped it: it runs at once (24), without a second refill (one that another core could
  // evict again before every try, so that the core would never run on).
  const uint32_t caddi = 0x0285, load = lw(6, 10, 0);
  Cluster cl({caddi | caddi << 16, caddi | caddi << 16, caddi | caddi << 16, caddi | (load & 0xffff) << 16, load >> 16},
             params(64, 16, 1, 8, IcacheReplacement::kLru));
  std::vector<uint8_t> shared(64, 0);
  shared[0] = 7;
  MemRegion m{0x8000, 64, shared.data(), true, false, 0, "cluster memory"};
  m.sharing = kClusterShared;
  cl.mem.add(m);
  Cpu c = cl.core(0, 0);
  c.x[10] = 0x8000;
  Gates gates;
  gates.cluster = 13;
  ASSERT_EQ(c.run(10, ~0ull, gates), Stop::kGate);
  EXPECT_EQ(c.pc, kCode + 0xe);
  EXPECT_EQ(c.x[5], 7u);
  EXPECT_EQ(c.cycles, 23u);
  EXPECT_FALSE(cl.cache.fetch(0, 0x1050, 1, 23).hit);
  gates.cluster = ~0ull;
  ASSERT_EQ(c.run(1, ~0ull, gates), Stop::kBudget);
  EXPECT_EQ(c.x[6], 7u);
  EXPECT_EQ(c.cycles, 24u);
  EXPECT_EQ(c.counters.icache_stall_cycles, 16u);
  EXPECT_EQ(c.counters.icache_misses, 1u);
  EXPECT_EQ(c.counters.icache_prefetches, 1u);
}

TEST(IssIcacheCore, TwoCoresMissingTheSameLineShareItsRefill) {
  // Both run one addi at 0x1000. Core 0 starts at cycle 0: refill 0..8, ends at 9. Core 1 starts
  // at cycle 3: the line is on its way, it waits 5 and ends at 3 + 5 + 1 (its cycle count 6).
  Cluster cl({addi(5, 5, 1), addi(5, 5, 1)});
  Cpu a = cl.core(0, 0), b = cl.core(1, 3);
  ASSERT_EQ(a.run(1), Stop::kBudget);
  ASSERT_EQ(b.run(1), Stop::kBudget);
  EXPECT_EQ(a.cycles, 9u);
  EXPECT_EQ(b.cycles, 6u);
  EXPECT_EQ(a.counters.icache_misses, 1u);
  EXPECT_EQ(b.counters.icache_misses, 0u);
  EXPECT_EQ(b.counters.icache_stall_cycles, 5u);
  EXPECT_EQ(cl.cache.misses, 1u);
  EXPECT_EQ(cl.cache.merged, 1u);
}

TEST(IssIcacheCore, TwoCoresMissingDifferentLinesQueueOnTheRefillPort) {
  // Core 0 at 0x1000 and core 1 at 0x1040, both from cycle 0: core 0's refill has the port first
  // (0..8); core 1's starts after its 2 beats (2..10).
  Cluster cl(std::vector<uint32_t>(20, addi(5, 5, 1)));
  Cpu a = cl.core(0, 0), b = cl.core(1, 0);
  b.pc = kCode + 0x40;
  ASSERT_EQ(a.run(1), Stop::kBudget);
  ASSERT_EQ(b.run(1), Stop::kBudget);
  EXPECT_EQ(a.cycles, 9u);
  EXPECT_EQ(b.cycles, 11u);
}

}  // namespace
}  // namespace fs::iss
