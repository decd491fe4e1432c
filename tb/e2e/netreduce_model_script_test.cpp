// scripts/netreduce-model --point: NetReduce's appendix-A times for one setting, worked by hand
// here, and the sufficient conditions it reports; settings the model does not cover refused.
#include "support/cli_runner.h"

namespace fs::test {
namespace {

TEST(NetReduceModelScript, OnePointIsTheAppendixFormulasWorkedByHand) {
  ScratchDir dir;
  // P = 32, n = 8, alpha = 1 us, M = 100 MB, B_intra = 100 GB/s, B_inter = 12.5 GB/s:
  //   FR = 62 alpha + 2 x 31/32 x 8 ms = 0.062 + 15.5 ms;
  //   TA = (6 + 6 + 10) alpha + 1.75 x 1 ms + 1.5 x 8 ms + 1.75 x 1 ms = 0.022 + 15.5 ms;
  //   PN = 15 alpha + 2 x 7/8 x 1 ms + 8 ms = 0.015 + 9.75 ms.
  ASSERT_EQ(run_source_script(dir, "netreduce-model", "--point"), 0) << slurp(dir / "err.txt");
  EXPECT_EQ(slurp(dir / "out.txt"),
            "FR 15.562000 ms; TA 15.522000 ms; PN 9.765000 ms\n"
            "PN < TA: yes (sufficient: P > 3n: yes)\n"
            "PN < FR: yes (sufficient: B_intra / B_inter = 8.000 >= 2P / (P - 2) = 2.133: yes)\n");
  // P = 16, B_intra = 20 GB/s: both conditions fail; PN still beats TA, not FR.
  //   FR = 30 alpha + 2 x 15/16 x 8 ms = 0.030 + 15 ms; TA = (6 + 2 + 10) alpha + 2 x 1.75 x 5 ms +
  //   1 x 8 ms = 0.018 + 25.5 ms; PN = 0.015 + 2 x 7/8 x 5 ms + 8 ms = 0.015 + 16.75 ms.
  ASSERT_EQ(run_source_script(dir, "netreduce-model", "--point --P 16 --bintra-GBps 20"), 0);
  EXPECT_EQ(slurp(dir / "out.txt"),
            "FR 15.030000 ms; TA 25.518000 ms; PN 16.765000 ms\n"
            "PN < TA: yes (sufficient: P > 3n: no)\n"
            "PN < FR: no (sufficient: B_intra / B_inter = 1.600 >= 2P / (P - 2) = 2.286: no)\n");
  EXPECT_EQ(run_source_script(dir, "netreduce-model", "--point --n 6"), 1);
  EXPECT_EQ(slurp(dir / "err.txt"),
            "netreduce-model: the model needs n a power of 2 (at least 2) and P a multiple of n above it\n");
}

}  // namespace
}  // namespace fs::test
