// The instruction cache on hand-worked access sequences: set indexing, LRU replacement, programs
// kept apart, refill cycles, and rejected geometries.
#include <gtest/gtest.h>

#include <stdexcept>

#include "iss/icache.h"

namespace fs::iss {
namespace {

TEST(IssIcache, LruWithinASet) {
  // 64 bytes, 16-byte lines, 2 ways: 2 sets. Lines 0, 2, 4 (addresses 0x00, 0x20, 0x40) all map
  // to set 0.
  InstructionCache c(fs::iss::IcacheParams{64, 16, 2, 7});
  EXPECT_EQ(c.access(0, 0x00), 7u);  // miss: line 0
  EXPECT_EQ(c.access(0, 0x0c), 0u);  // hit: same line
  EXPECT_EQ(c.access(0, 0x20), 7u);  // miss: line 2, set 0 now {0, 2}
  EXPECT_EQ(c.access(0, 0x10), 7u);  // miss: line 1 goes to set 1
  EXPECT_EQ(c.access(0, 0x00), 0u);  // hit: line 0 is now the most recent in set 0
  EXPECT_EQ(c.access(0, 0x40), 7u);  // miss: evicts line 2 (least recently used)
  EXPECT_EQ(c.access(0, 0x00), 0u);  // hit
  EXPECT_EQ(c.access(0, 0x20), 7u);  // miss: line 2 was evicted; evicts line 4
  EXPECT_EQ(c.access(1, 0x00), 7u);  // another program's line 0 is a different line
  EXPECT_EQ(c.hits, 3u);
  EXPECT_EQ(c.misses, 6u);
}

TEST(IssIcache, Geometry) {
  EXPECT_THROW(InstructionCache(fs::iss::IcacheParams{3000, 16, 4, 1}), std::invalid_argument);
  EXPECT_THROW(InstructionCache(fs::iss::IcacheParams{64, 24, 1, 1}), std::invalid_argument);
  EXPECT_THROW(InstructionCache(fs::iss::IcacheParams{64, 128, 1, 1}), std::invalid_argument);
  EXPECT_THROW(InstructionCache(fs::iss::IcacheParams{64, 16, 3, 1}), std::invalid_argument);
  EXPECT_NO_THROW(InstructionCache(fs::iss::IcacheParams{4096, 16, 4, 15}));
}

}  // namespace
}  // namespace fs::iss
