// The layout of handler sets' memory (pspin/memory/handler_memory.h), worked out by hand.
#include <gtest/gtest.h>

#include "common/errors.h"
#include "pspin/memory/handler_memory.h"

namespace fs_tb {
namespace {

using fs::HandlerSetMemory;
using fs::MemoryNeed;

TEST(BlocksHandlerMemory, ASetAloneGetsAllOfBoth) {
  const auto m = fs::lay_out_handler_memory({"a"}, {MemoryNeed{}}, 1000, 4096);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].l1_offset, 0u);
  EXPECT_EQ(m[0].l1_bytes, 1000u);  // the remainder, not rounded
  EXPECT_EQ(m[0].l2_offset, 0u);
  EXPECT_EQ(m[0].l2_bytes, 4096u);
}

TEST(BlocksHandlerMemory, SizedSetsFirstAlignedThenSharersSplitTheRest) {
  // L1 of 10000 bytes: a asks 100 (offset 0), c asks 65 (offset 128, the next 64-byte boundary),
  // so the sharers start at 256: 9744 bytes left for b and d. b gets floor(9744 / 2 / 64) * 64 =
  // 4864 at 256; d, the last sharer, the remaining 4880 at 5120. L2 of 4096: only b asks (1000
  // bytes at 0); a, c and d share from 1024: 3072 / 3 = 1024 each, at 1024, 2048 and 3072.
  const auto m = fs::lay_out_handler_memory({"a", "b", "c", "d"},
                                            {MemoryNeed{100, 0}, MemoryNeed{0, 1000}, MemoryNeed{65, 0}, MemoryNeed{}},
                                            10000, 4096);
  auto eq = [](const HandlerSetMemory& x, uint32_t l1o, uint32_t l1b, uint32_t l2o, uint32_t l2b) {
    EXPECT_EQ(x.l1_offset, l1o);
    EXPECT_EQ(x.l1_bytes, l1b);
    EXPECT_EQ(x.l2_offset, l2o);
    EXPECT_EQ(x.l2_bytes, l2b);
  };
  eq(m[0], 0, 100, 1024, 1024);
  eq(m[1], 256, 4864, 0, 1000);
  eq(m[2], 128, 65, 2048, 1024);
  eq(m[3], 5120, 4880, 3072, 1024);
}

TEST(BlocksHandlerMemory, TooMuchAskedNamesTheSetsAndTheMemory) {
  try {
    fs::lay_out_handler_memory({"a", "b"}, {MemoryNeed{600, 0}, MemoryNeed{500, 0}}, 1000, 4096);
    FAIL() << "no error";
  } catch (const fs::InputError& e) {
    EXPECT_STREQ(e.what(), "the handler sets ask for 1152 bytes of each cluster's L1 state area ('pspin.l1_bytes' "
                           "less the HPUs' packet slots), which has 1000 (a 600, b 500, at 64-byte aligned offsets)");
  }
  try {  // what is asked fits exactly, but leaves nothing for a set that shares
    fs::lay_out_handler_memory({"a", "b"}, {MemoryNeed{0, 4096}, MemoryNeed{}}, 1000, 4096);
    FAIL() << "no error";
  } catch (const fs::InputError& e) {
    EXPECT_STREQ(e.what(), "the handler sets ask for 4096 bytes of L2 handler memory ('pspin.l2_handler_bytes'), "
                           "which has 4096 (a 4096, at 64-byte aligned offsets, and room for the sets that share the rest)");
  }
  try {  // two sharers of 100 bytes: the first's share rounds down to nothing
    fs::lay_out_handler_memory({"a", "b"}, {MemoryNeed{}, MemoryNeed{}}, 100, 4096);
    FAIL() << "no error";
  } catch (const fs::InputError& e) {
    EXPECT_STREQ(e.what(), "handler set a gets none of each cluster's L1 state area ('pspin.l1_bytes' less the HPUs' "
                           "packet slots): 100 bytes are left for 2 sets");
  }
}

}  // namespace
}  // namespace fs_tb
