// scripts/flare-sparse-figures against this build: --replot redraws the three figures from the
// committed CSVs of docs/results through `flaresim plot`, so a change to the CSVs' columns or to the
// plot commands that breaks them fails here rather than at the next regeneration; and the script's
// option errors. Nothing here runs a simulation (the full reproduction takes minutes).
#include <filesystem>
#include <string>

#include "support/cli_runner.h"

namespace fs::test {
namespace {

const char* const kCsvs[] = {"flare-sparse-size.csv", "flare-sparse-density.csv", "flare-sparse-spills.csv"};

int run_script(const ScratchDir& dir, const std::string& args, const std::string& build = "") {
  return run_source_script(dir, "flare-sparse-figures", args, build);
}

std::set<std::string> names_in(const std::string& folder) {
  std::set<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(folder)) names.insert(e.path().filename().string());
  return names;
}

TEST(FlareSparseFiguresScript, ReplotRedrawsTheThreeFiguresFromTheCsvs) {
  ScratchDir dir;
  std::filesystem::create_directory(dir / "results");
  for (const char* name : kCsvs)
    write_file(dir / ("results/" + std::string(name)), slurp(FLARESIM_SOURCE_DIR "/docs/results/" + std::string(name)));
  ASSERT_EQ(run_script(dir, "--replot --results results"), 0) << slurp(dir / "err.txt");
  EXPECT_EQ(slurp(dir / "out.txt"),
            "redrew results/flare-sparse-size.png, flare-sparse-density.png and flare-sparse-spills.png from their "
            "CSVs\n");
  EXPECT_EQ(slurp(dir / "err.txt"), "");
  // The sizes the script asks for (inches) at 90 dpi.
  EXPECT_EQ(png_size(dir / "results/flare-sparse-size.png"), std::make_pair(1530u, 432u));     // 17 x 4.8
  EXPECT_EQ(png_size(dir / "results/flare-sparse-density.png"), std::make_pair(1530u, 810u));  // 17 x 9
  EXPECT_EQ(png_size(dir / "results/flare-sparse-spills.png"), std::make_pair(1080u, 432u));   // 12 x 4.8
  EXPECT_EQ(names_in(dir / "results"),
            (std::set<std::string>{"flare-sparse-size.csv", "flare-sparse-density.csv", "flare-sparse-spills.csv",
                                   "flare-sparse-size.png", "flare-sparse-density.png", "flare-sparse-spills.png"}));
  for (const char* name : kCsvs)
    EXPECT_EQ(slurp(dir / ("results/" + std::string(name))),
              slurp(FLARESIM_SOURCE_DIR "/docs/results/" + std::string(name)))
        << name;
}

TEST(FlareSparseFiguresScript, ReplotNamesTheCsvItMissesAndDrawsNothing) {
  ScratchDir dir;
  for (const char* name : {kCsvs[0], kCsvs[1]})
    write_file(dir / name, slurp(FLARESIM_SOURCE_DIR "/docs/results/" + std::string(name)));
  EXPECT_EQ(run_script(dir, "--replot --results ."), 1);
  EXPECT_EQ(slurp(dir / "err.txt"),
            "flare-sparse-figures: --replot: no ./flare-sparse-spills.csv: run scripts/flare-sparse-figures without "
            "--replot first\n");
  EXPECT_EQ(files_in(dir),
            (std::set<std::string>{"out.txt", "err.txt", "flare-sparse-size.csv", "flare-sparse-density.csv"}));
}

TEST(FlareSparseFiguresScript, OptionErrorsSayWhatIsWrongAndRunNothing) {
  ScratchDir dir;
  EXPECT_EQ(run_script(dir, "--jobs 0 --results ."), 1);
  EXPECT_EQ(slurp(dir / "err.txt"), "flare-sparse-figures: --jobs 0: runs at a time, at least 1\n");
  EXPECT_EQ(run_script(dir, "--replot --quick --results ."), 1);
  EXPECT_EQ(slurp(dir / "err.txt"), "flare-sparse-figures: --replot runs nothing, so --quick means nothing with it\n");
  EXPECT_EQ(run_script(dir, "--quick --results .", dir / "no-build"), 1);
  EXPECT_EQ(slurp(dir / "err.txt"),
            "flare-sparse-figures: " + (dir / "no-build") + "/flaresim not found: run scripts/build Release first\n");
  EXPECT_EQ(run_script(dir, "--window 8"), 2);
  // argparse's usage first (wrapped to the terminal's width), then the error.
  const std::vector<std::string> err = lines_of(slurp(dir / "err.txt"));
  ASSERT_GE(err.size(), 2u);
  EXPECT_EQ(err.front().rfind("usage: flare-sparse-figures [-h] [--quick] [--jobs JOBS] [--replot]", 0), 0u) << err.front();
  EXPECT_EQ(err.back(), "flare-sparse-figures: error: unrecognized arguments: --window 8");
  EXPECT_EQ(slurp(dir / "out.txt"), "");
  EXPECT_EQ(files_in(dir), (std::set<std::string>{"out.txt", "err.txt"}));
}

}  // namespace
}  // namespace fs::test
