// Differential test of the instruction-set simulator against qemu-riscv32 (Linux user mode):
// every RISC-V test program built from tb/riscv/programs (one ELF each in
// FLARESIM_RISCV_TEST_DIR) is run under `qemu-riscv32 PROG.elf` and under `flaresim iss PROG.elf`,
// and the two runs must print byte-identical stdout and end with the same exit status. qemu's
// output must not be empty, so a broken build or runtime cannot pass by both sides printing
// nothing. One test case per program (IssDiff/Program.MatchesQemu/NAME), listed from the ELF
// directory when the test binary starts; IssDiff.AtLeast30Programs guards against the directory
// silently losing programs. qemu-riscv32 is taken from PATH unless FLARESIM_QEMU_RISCV32 names it.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/cli_runner.h"

namespace fs::test {
namespace {

namespace stdfs = std::filesystem;

// Each side gets this long before it is killed (the slowest program takes well under a second
// on qemu; an ISS stuck in a loop must fail the test rather than hang it).
constexpr int kTimeoutSeconds = 120;

struct Elf {
  std::string name;  // file name without .elf
  std::string path;  // absolute path of the ELF
};

void PrintTo(const Elf& e, std::ostream* os) { *os << e.name; }

std::vector<Elf> list_programs() {
  std::vector<Elf> out;
  std::error_code ec;
  for (const auto& entry : stdfs::directory_iterator(FLARESIM_RISCV_TEST_DIR, ec)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".elf") continue;
    out.push_back({entry.path().stem().string(), entry.path().string()});
  }
  std::sort(out.begin(), out.end(), [](const Elf& a, const Elf& b) { return a.name < b.name; });
  return out;
}

const std::vector<Elf>& programs() {
  static const std::vector<Elf> list = list_programs();
  return list;
}

// GoogleTest parameter names allow only [A-Za-z0-9_].
std::string test_name(const testing::TestParamInfo<Elf>& info) {
  std::string s = info.param.name;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

std::string qemu_binary() {
  const char* env = std::getenv("FLARESIM_QEMU_RISCV32");
  return env && *env ? env : "qemu-riscv32";
}

struct Outcome {
  int status = -1;         // exit status, or -1 when the process did not exit normally
  bool timed_out = false;  // killed after kTimeoutSeconds
  int spawn_error = 0;     // errno of a failed posix_spawnp (program not found, ...)
  std::string out, err;
};

// Runs argv with stdin from /dev/null and stdout/stderr captured to files in dir (no shell, so
// any exit status, including 124 or 127, is the program's own).
Outcome run_program(const std::vector<std::string>& argv, const ScratchDir& dir, const std::string& tag) {
  const std::string out = dir / (tag + ".stdout"), err = dir / (tag + ".stderr");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  Outcome r;
  pid_t pid = -1;
  r.spawn_error = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (r.spawn_error != 0) return r;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kTimeoutSeconds);
  int st = 0;
  for (;;) {
    const pid_t w = waitpid(pid, &st, WNOHANG);
    if (w == pid) break;
    if (w == -1 && errno != EINTR) return r;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &st, 0);
      r.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!r.timed_out && WIFEXITED(st)) r.status = WEXITSTATUS(st);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

std::string describe(const Outcome& r) {
  if (r.spawn_error) return std::string("could not start: ") + std::strerror(r.spawn_error);
  if (r.timed_out) return "killed after " + std::to_string(kTimeoutSeconds) + " s";
  if (r.status < 0) return "did not exit normally (signal)";
  return "exit " + std::to_string(r.status);
}

// The first line where a and b differ, with its number, for a readable failure message.
std::string first_difference(const std::string& a, const std::string& b) {
  std::istringstream sa(a), sb(b);
  std::string la, lb;
  for (int line = 1;; line++) {
    const bool ha = static_cast<bool>(std::getline(sa, la)), hb = static_cast<bool>(std::getline(sb, lb));
    if (!ha && !hb) return "outputs differ only in a trailing newline";
    if (!ha) return "line " + std::to_string(line) + ": qemu output ended; iss printed: " + lb;
    if (!hb) return "line " + std::to_string(line) + ": iss output ended; qemu printed: " + la;
    if (la != lb) return "line " + std::to_string(line) + ":\n  qemu: " + la + "\n  iss:  " + lb;
  }
}

std::string tail(const std::string& s, size_t n = 2000) { return s.size() <= n ? s : "..." + s.substr(s.size() - n); }

// The fixture's name shows in the test names: IssDiff/Program.MatchesQemu/<program>.
class Program : public testing::TestWithParam<Elf> {};

TEST_P(Program, MatchesQemu) {
  const auto& prog = GetParam();
  ScratchDir dir;
  const Outcome qemu = run_program({qemu_binary(), prog.path}, dir, "qemu");
  const Outcome iss = run_program({FLARESIM_BIN, "iss", prog.path}, dir, "iss");

  // The reference side must work, whatever the ISS does.
  ASSERT_EQ(qemu.spawn_error, 0) << "cannot run " << qemu_binary() << " (is qemu-user installed?): " << describe(qemu);
  ASSERT_GE(qemu.status, 0) << prog.name << ": qemu-riscv32 " << describe(qemu) << "; stderr:\n" << tail(qemu.err);
  ASSERT_FALSE(qemu.out.empty()) << prog.name << ": qemu-riscv32 printed nothing (" << describe(qemu)
                                 << "); stderr:\n" << tail(qemu.err);

  EXPECT_EQ(iss.status, qemu.status) << prog.name << ": qemu " << describe(qemu) << ", iss " << describe(iss)
                                     << "; iss stderr:\n" << tail(iss.err);
  EXPECT_TRUE(iss.out == qemu.out) << prog.name << ": stdout differs (qemu " << qemu.out.size() << " bytes, iss "
                                   << iss.out.size() << " bytes), first difference at "
                                   << first_difference(qemu.out, iss.out) << "\niss stderr:\n" << tail(iss.err);
}

INSTANTIATE_TEST_SUITE_P(IssDiff, Program, testing::ValuesIn(programs()), test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Program);

TEST(IssDiff, AtLeast30Programs) {
  EXPECT_GE(programs().size(), 30u)
      << "expected at least 30 test programs in " FLARESIM_RISCV_TEST_DIR " (built from tb/riscv/programs)";
}

}  // namespace
}  // namespace fs::test
