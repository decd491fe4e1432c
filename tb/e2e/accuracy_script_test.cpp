// scripts/accuracy against this build: it writes the accuracy page with every section and a
// measured value in every row, so a change to `flaresim iss`, the stats, the traces or the
// handlers that breaks one of its measurements fails here rather than on the next regeneration.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "support/cli_runner.h"

namespace fs::test {
namespace {

TEST(AccuracyScript, WritesEverySectionFromItsRuns) {
  ScratchDir dir;
  const std::string build = std::filesystem::path(FLARESIM_BIN).parent_path().string();
  const std::string cmd = "cd '" + dir.path() + "' && FLARESIM_BUILD_DIR='" + build + "' '" FLARESIM_SOURCE_DIR
                          "/scripts/accuracy' --jobs 1 --out a.md >out.txt 2>err.txt";
  const int status = std::system(cmd.c_str());
  ASSERT_EQ(status, 0) << slurp(dir / "err.txt");
  const std::string page = slurp(dir / "a.md");
  for (const char* heading : {"## Instruction timing", "### Integer instructions", "### Xpulp",
                              "### Where the RI5CY manual differs", "## The Flare paper's figures",
                              "## PsPIN's published figures"})
    EXPECT_NE(page.find(heading), std::string::npos) << heading;
  // Every table row has five or more cells and a value where flaresim's goes; rows with a
  // published figure have a difference.
  std::istringstream in(page);
  std::string line;
  int rows = 0;
  while (std::getline(in, line)) {
    if (line.rfind("| ", 0) != 0 || line.rfind("| ---", 0) == 0 || line.find(" | flaresim | ") != std::string::npos)
      continue;
    ++rows;
    EXPECT_EQ(line.find("nan"), std::string::npos) << line;
    EXPECT_EQ(line.find("| |"), std::string::npos) << line;
  }
  EXPECT_GT(rows, 70);
  // The hardware loop's back edge and Xpulp's fold, measured rather than copied from the source.
  EXPECT_NE(page.find("| hardware loop: going back to the loop's start |"), std::string::npos);
  EXPECT_NE(page.find("(`xp_sum_i32`) | rv32imafc_xpulp | int32 |"), std::string::npos);
}

TEST(AccuracyScript, RefusesABuildWithoutFlaresim) {
  ScratchDir dir;
  const std::string cmd = "cd '" + dir.path() + "' && FLARESIM_BUILD_DIR='" + dir.path() + "' '" FLARESIM_SOURCE_DIR
                          "/scripts/accuracy' --out a.md >out.txt 2>err.txt";
  const int status = std::system(cmd.c_str());
  EXPECT_NE(status, 0);
  EXPECT_NE(slurp(dir / "err.txt").find("flaresim is missing"), std::string::npos) << slurp(dir / "err.txt");
  EXPECT_FALSE(exists(dir / "a.md"));
}

}  // namespace
}  // namespace fs::test
