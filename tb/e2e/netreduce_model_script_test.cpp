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
  // The second setting's stages (--stages), by hand (P = 16, n = 8, B_intra = 20 GB/s):
  //   TA: reduce 2 alpha log2 8 + 2 x 7/8 x 100 MB / 20 GB/s = 0.006 + 8.75 ms; the 2 masters' ring
  //   2 x 1 alpha + 2 x 1/2 x 8 ms = 0.002 + 8 ms; broadcast (3 + 7) alpha + 8.75 ms;
  //   PN: reduce-scatter 7 alpha + 7 x 100 MB / (8 x 20 GB/s) = 0.007 + 4.375 ms, and the allgather
  //   the same; NetReduce alpha + 8 ms.
  ASSERT_EQ(run_source_script(dir, "netreduce-model", "--point --stages --P 16 --bintra-GBps 20"), 0);
  EXPECT_EQ(slurp(dir / "out.txt"),
            "FR 15.030000 ms; TA 25.518000 ms; PN 16.765000 ms\n"
            "  FR network: ring allreduce of all P GPUs 15.030000 ms\n"
            "  TA intra: reduce to the master GPU 8.756000 ms\n"
            "  TA network: ring allreduce of the P / n masters 8.002000 ms\n"
            "  TA intra: broadcast from the master GPU 8.760000 ms\n"
            "  PN intra: reduce-scatter inside the machine 4.382000 ms\n"
            "  PN network: NetReduce on n rings 8.001000 ms\n"
            "  PN intra: allgather inside the machine 4.382000 ms\n"
            "PN < TA: yes (sufficient: P > 3n: no)\n"
            "PN < FR: no (sufficient: B_intra / B_inter = 1.600 >= 2P / (P - 2) = 2.286: no)\n");
  EXPECT_EQ(run_source_script(dir, "netreduce-model", "--point --n 6"), 1);
  EXPECT_EQ(slurp(dir / "err.txt"),
            "netreduce-model: the model needs n a power of 2 (at least 2) and P a multiple of n above it\n");
}

}  // namespace
}  // namespace fs::test
