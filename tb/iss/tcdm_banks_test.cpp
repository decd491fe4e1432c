// L1 TCDM bank arbitration on hand-worked accesses: word interleaving across banks, a stall only
// for two different HPUs on one bank in one cycle, and an AMO's bank held for its write.
#include <gtest/gtest.h>

#include "iss/tcdm_banks.h"

namespace fs::iss {
namespace {

TEST(IssTcdmBanks, ConflictsOnlyForTwoHartsOnOneBankInOneCycle) {
  TcdmBanks b(32);
  EXPECT_EQ(b.access(0, 100, 0x000), 0u);  // bank 0
  EXPECT_EQ(b.access(1, 100, 0x004), 0u);  // bank 1: no conflict
  EXPECT_EQ(b.access(1, 100, 0x080), 1u);  // 0x80 / 4 = 32 -> bank 0 again, same cycle, other hart
  EXPECT_EQ(b.access(2, 101, 0x100), 1u);  // bank 0 is busy in cycle 101 now (the stalled access)
  EXPECT_EQ(b.access(2, 102, 0x000), 0u);  // the same hart again: no conflict with itself
  EXPECT_EQ(b.access(2, 102, 0x000), 0u);
  EXPECT_EQ(b.access(3, 200, 0x07c), 0u);  // bank 31
  EXPECT_EQ(b.conflicts, 2u);
  TcdmBanks one(1);  // a single bank: every word collides
  EXPECT_EQ(one.access(0, 5, 0x0), 0u);
  EXPECT_EQ(one.access(1, 5, 0x400), 1u);
}

TEST(IssTcdmBanks, AnAmoHoldsItsBankTheNextCycle) {
  TcdmBanks b(32);
  EXPECT_EQ(b.access(0, 10, 0x000, /*amo=*/true), 0u);  // reads bank 0 at 10, writes at 11
  EXPECT_EQ(b.access(1, 10, 0x080), 2u);  // bank 0: hart 0 at 10, its write at 11: in at 12
  EXPECT_EQ(b.access(0, 20, 0x004, true), 0u);  // bank 1 at 20, held at 21
  EXPECT_EQ(b.access(0, 21, 0x004), 1u);        // even for the same hart
  EXPECT_EQ(b.access(2, 21, 0x008), 0u);        // bank 2 is free
  EXPECT_EQ(b.access(3, 30, 0x00c, true), 0u);  // bank 3 at 30, held at 31
  EXPECT_EQ(b.access(4, 32, 0x00c), 0u);        // at 32 it is free again
  EXPECT_EQ(b.conflicts, 2u);
}

}  // namespace
}  // namespace fs::iss
