// The README's "Using it" commands, run as written: a new user copies them from the page, so
// each must work from a clone's root after scripts/test. The test runs them in order in a
// scratch folder that sees build/, configs/, traces/ and scripts/ as the clone's root does; a
// graphical viewer (gtkwave) is not started, its input file is checked instead.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "common/text.h"
#include "support/cli_runner.h"

namespace fs::test {
namespace {

// The commands of the first ```sh block after "## Using it": continuation lines joined, comments
// (from a '#' after a blank, outside quotes) and comment-only lines dropped.
std::vector<std::string> using_it_commands() {
  const std::string readme = slurp(FLARESIM_SOURCE_DIR "/README.md");
  const size_t section = readme.find("\n## Using it");
  EXPECT_NE(section, std::string::npos);
  const size_t begin = readme.find("```sh\n", section);
  const size_t end = readme.find("```", begin + 6);
  std::istringstream block(readme.substr(begin + 6, end - begin - 6));
  std::vector<std::string> commands;
  std::string pending;
  for (std::string line; std::getline(block, line);) {
    char quote = 0;
    for (size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (quote) {
        if (c == quote) quote = 0;
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '#' && (i == 0 || line[i - 1] == ' ')) {
        line.resize(i);
        break;
      }
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    const bool continued = !line.empty() && line.back() == '\\';
    if (continued) line.pop_back();
    pending += line;
    if (continued) continue;
    if (pending.find_first_not_of(' ') != std::string::npos) commands.push_back(pending.substr(pending.find_first_not_of(' ')));
    pending.clear();
  }
  return commands;
}

std::string dir_of(const std::string& path) { return path.substr(0, path.rfind('/')); }

TEST(ReadmeCommands, EveryUsingItCommandRunsAsWritten) {
  const std::vector<std::string> commands = using_it_commands();
  ASSERT_GE(commands.size(), 10u) << "the README's Using it block was not found or lost commands";
  ScratchDir dir;
  // The clone's root as the README's reader sees it.
  ASSERT_EQ(symlink(dir_of(FLARESIM_BIN).c_str(), (dir / "build").c_str()), 0);
  for (const char* d : {"configs", "traces", "scripts"})
    ASSERT_EQ(symlink((std::string(FLARESIM_SOURCE_DIR) + "/" + d).c_str(), (dir / d).c_str()), 0);
  int ran = 0;
  for (const std::string& cmd : commands) {
    if (cmd.rfind("gtkwave ", 0) == 0) {  // a window: check what it would open
      const std::string file = dir / cmd.substr(8);
      struct stat st;
      ASSERT_EQ(stat(file.c_str(), &st), 0) << cmd << ": no " << file;
      EXPECT_GT(st.st_size, 0) << cmd;
      continue;
    }
    const std::string out = dir / ".out", err = dir / ".err";
    const int status =
        std::system(("cd '" + dir.path() + "' && bash -c " + shell_quote(cmd) + " >'" + out + "' 2>'" + err + "'").c_str());
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "README command failed: " << cmd << "\nstdout:\n" << slurp(out) << "\nstderr:\n" << slurp(err);
    EXPECT_FALSE(slurp(out).empty() && slurp(err).empty()) << cmd << " printed nothing";
    if (cmd.find(" run ") != std::string::npos && cmd.find("--verify") != std::string::npos) {
      EXPECT_NE(slurp(out).find("verify           OK"), std::string::npos) << cmd << "\n" << slurp(out);
    }
    ++ran;
  }
  EXPECT_EQ(ran, int(commands.size()) - 1);  // all but the viewer
  // What they left: the sweep's table, the CSV row of the rerun.
  EXPECT_TRUE(exists(dir / "policies/results.csv"));
  EXPECT_EQ(slurp(dir / "again.csv").find("commands.frames_out,"), 0u);
}

TEST(ReadmeCommands, TheRunLineGenPrintsRunsAsPrinted) {
  ScratchDir dir;
  ASSERT_EQ(symlink((std::string(FLARESIM_SOURCE_DIR) + "/configs").c_str(), (dir / "configs").c_str()), 0);
  // A configuration file, keys and a gen flag that a run must see too, and a name to quote.
  const CliResult g = flaresim("gen allreduce --hosts 8 --bytes 16KiB --gbps 200 --config configs/flare-64x8.ini "
                               "--scheduler.policy hier-fcfs --scheduler.subset 8 --allreduce-id 3 -o 'my trace.txt'",
                               dir);
  ASSERT_EQ(g.code, 0) << g.err;
  const std::string prefix = "run it with: ";
  const size_t at = g.out.find(prefix);
  ASSERT_NE(at, std::string::npos) << g.out;
  const std::string line = g.out.substr(at + prefix.size(), g.out.find('\n', at) - at - prefix.size());
  EXPECT_EQ(line, std::string(FLARESIM_BIN) +
                      " run --config configs/flare-64x8.ini --scheduler.policy hier-fcfs --scheduler.subset 8 "
                      "--ports.gbps 200 --flare.allreduce_id 3 --flare.ports 0-7 --trace 'my trace.txt' --stats "
                      "stats.json --verify 'my trace.txt.expected'");
  const std::string out = dir / ".run";
  const int status = std::system(("cd '" + dir.path() + "' && " + line + " >'" + out + "' 2>&1").c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << line << "\n" << slurp(out);
  EXPECT_NE(slurp(out).find("verify           OK: 128 of 128"), std::string::npos) << slurp(out);
}

}  // namespace
}  // namespace fs::test
