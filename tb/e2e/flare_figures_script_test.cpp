// scripts/flare-figures --replot against this build: it redraws both figures from the committed
// CSV of docs/results through `flaresim plot`, so a change to the CSV's columns or to the plot
// command that breaks them fails here rather than at the next regeneration; it runs no
// simulation and writes neither flare.md nor the CSVs.
#include <filesystem>
#include <string>

#include "support/cli_runner.h"

namespace fs::test {
namespace {

int run_script(const ScratchDir& dir, const std::string& args) { return run_source_script(dir, "flare-figures", args); }

TEST(FlareFiguresScript, ReplotRedrawsBothFiguresFromTheCsv) {
  ScratchDir dir;
  std::filesystem::create_directory(dir / "results");
  const std::string csv = slurp(FLARESIM_SOURCE_DIR "/docs/results/flare-bandwidth-memory.csv");
  write_file(dir / "results/flare-bandwidth-memory.csv", csv);
  ASSERT_EQ(run_script(dir, "--replot --results results"), 0) << slurp(dir / "err.txt");
  EXPECT_EQ(slurp(dir / "out.txt"), "redrew results/flare-4x8.png and flare-64x8.png from flare-bandwidth-memory.csv\n");
  // 17 x 4.8 inches at 90 dpi, as the script asks.
  EXPECT_EQ(png_size(dir / "results/flare-4x8.png"), std::make_pair(1530u, 432u));
  EXPECT_EQ(png_size(dir / "results/flare-64x8.png"), std::make_pair(1530u, 432u));
  std::set<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir / "results")) names.insert(e.path().filename().string());
  EXPECT_EQ(names, (std::set<std::string>{"flare-bandwidth-memory.csv", "flare-4x8.png", "flare-64x8.png"}));
  EXPECT_EQ(slurp(dir / "results/flare-bandwidth-memory.csv"), csv);
}

TEST(FlareFiguresScript, ReplotWithoutTheCsvSaysHowToMakeIt) {
  ScratchDir dir;
  EXPECT_EQ(run_script(dir, "--replot --results ."), 1);
  EXPECT_EQ(slurp(dir / "err.txt"),
            "flare-figures: --replot: no ./flare-bandwidth-memory.csv: run scripts/flare-figures without --replot "
            "first\n");
  EXPECT_EQ(files_in(dir), (std::set<std::string>{"out.txt", "err.txt"}));
}

}  // namespace
}  // namespace fs::test
