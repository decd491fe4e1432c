// Tests of why a guarded memory's mapping failed (sc_model/common/guarded_memory): at the limit
// of a process's memory mappings the reason names it, its value and how to raise it; short of
// it, or for another error, it is memory that ran out (std::bad_alloc, "").
#include "common/guarded_memory.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace fs {
namespace {

TEST(GuardedMemoryLimit, AtTheMappingLimitTheReasonSaysSo) {
  EXPECT_EQ(mapping_limit_reason(ENOMEM, 65530, 65530),
            "the process has 65530 memory mappings and Linux allows it 65530 (vm.max_map_count); each simulated "
            "memory region (an L1 state area, a stack, L2 handler memory) takes up to three, itself and its guard "
            "pages, so many switches of many clusters reach the limit: simulate fewer or smaller switches, or raise "
            "the limit (as root: sysctl -w vm.max_map_count=262120)");
  EXPECT_NE(mapping_limit_reason(ENOMEM, 65514, 65530), "");  // 16 short: the three of one more region may not fit
  EXPECT_EQ(mapping_limit_reason(ENOMEM, 65513, 65530), "");  // room left: memory ran out
  EXPECT_EQ(mapping_limit_reason(EINVAL, 65530, 65530), "");
  EXPECT_EQ(mapping_limit_reason(ENOMEM, -1, 65530), "");     // the counts could not be read
  EXPECT_EQ(mapping_limit_reason(ENOMEM, 65530, -1), "");
}

}  // namespace
}  // namespace fs
