// The ISS's fast engine against its plain one (Cpu::Engine): every program of the differential
// suite (FLARESIM_RISCV_TEST_DIR) to its end, and the first 3 million instructions of each
// held-out speed program (FLARESIM_RISCV_BENCH_DIR), run on both engines in lockstep, in steps of
// varied sizes or to varied cycle limits. After every step both cores must agree on everything:
// pc, registers, cycles, retired instructions, every counter, and what the program printed. Each
// program runs twice: under the default timing, with the fast engine's Cpu::run calls as long as
// the step (so runs of ALU instructions go whole); and under a timing where every instruction
// class costs something different (so that a cost charged to the wrong class shows), with the
// fast engine's calls of 13 instructions (so that its budget ends everywhere). One test case per
// program and timing.
#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "iss/bare_run.h"
#include "iss/elf.h"

namespace fs::iss {
namespace {

namespace stdfs = std::filesystem;

struct Case {
  std::string name;  // program and timing, for the test name
  std::string path;
  uint64_t instructions;  // how many to compare (the whole program: ~0)
  bool odd_timing;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::vector<Case> list_cases() {
  std::vector<Case> out;
  const std::pair<const char*, uint64_t> dirs[] = {{FLARESIM_RISCV_TEST_DIR, ~0ull},
                                                   {FLARESIM_RISCV_BENCH_DIR, 3'000'000}};
  for (const auto& [dir, instructions] : dirs) {
    std::error_code ec;
    std::vector<stdfs::path> elfs;
    for (const auto& entry : stdfs::directory_iterator(dir, ec))
      if (entry.is_regular_file() && entry.path().extension() == ".elf") elfs.push_back(entry.path());
    std::sort(elfs.begin(), elfs.end());
    for (const stdfs::path& p : elfs)
      for (bool odd : {false, true})
        out.push_back({p.stem().string() + (odd ? "_odd_timing" : ""), p.string(), instructions, odd});
  }
  return out;
}

std::string test_name(const testing::TestParamInfo<Case>& info) {
  std::string s = info.param.name;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

// Every instruction class at a cost of its own (the defaults share 1 among most of them).
Timing odd_timing() {
  Timing t;
  t.alu = 2, t.load = 3, t.load_use_stall = 4, t.store = 5, t.branch_taken = 7, t.branch_not_taken = 6;
  t.jump = 8, t.mul = 9, t.mulh = 11, t.div_min = 13, t.misaligned = 17, t.atomic = 19;
  t.fpu = 23, t.fcvt = 29, t.fdiv = 31, t.fsqrt = 37;
  return t;
}

std::vector<uint64_t> counts(CpuCounters c) {
  std::vector<uint64_t> v;
  c.each(c, [&v](uint64_t& a, uint64_t) { v.push_back(a); });
  return v;
}

// What must agree between the two cores, as text (a failure shows both).
std::string state(Cpu& cpu, const std::ostringstream& out) {
  std::ostringstream s;
  s << "pc " << cpu.pc << " cycles " << cpu.cycles << " instret " << cpu.instret << " fflags " << cpu.fflags
    << " frm " << cpu.frm << "\nx";
  for (uint32_t r : cpu.x) s << ' ' << r;
  s << "\nf";
  for (uint32_t r : cpu.f) s << ' ' << r;
  s << "\ncounters";
  for (uint64_t k : counts(cpu.counters)) s << ' ' << k;
  s << "\nprinted " << out.str().size() << " bytes, hash " << std::hash<std::string>{}(out.str());
  return s.str();
}

class Engines : public testing::TestWithParam<Case> {};

TEST_P(Engines, FastMatchesPlainStepByStep) {
  const Case& c = GetParam();
  const ElfImage img = read_elf(c.path);
  BareRunOptions plain_opts, fast_opts;
  plain_opts.plain = true;
  if (c.odd_timing) {
    plain_opts.timing = fast_opts.timing = odd_timing();
    fast_opts.slice = 13;
  }
  BareMachine plain(c.path, img, plain_opts), fast(c.path, img, fast_opts);
  ASSERT_EQ(plain.cpu().engine(), Cpu::Engine::kPlain);
  ASSERT_EQ(fast.cpu().engine(), Cpu::Engine::kFast);
  std::ostringstream plain_out, plain_err, fast_out, fast_err;
  const uint64_t steps[] = {1, 2, 3, 5, 17, 100, 1009, 65536, 7, 250000};
  // Every third step ends at a cycle instead (a cycle limit, as the interleaver's windows set).
  const uint64_t cycle_steps[] = {1, 2, 3, 4, 9, 31, 1000, 5, 40000};
  for (size_t i = 0; !plain.exited() && plain.cpu().instret < c.instructions; ++i) {
    const uint64_t left = c.instructions - plain.cpu().instret;
    const uint64_t step = std::min(steps[i % std::size(steps)], left);
    const uint64_t cycle_limit = i % 3 == 2 ? plain.cpu().cycles + cycle_steps[i / 3 % std::size(cycle_steps)] : ~0ull;
    plain.run(cycle_limit == ~0ull ? step : left, plain_out, plain_err, cycle_limit);
    fast.run(cycle_limit == ~0ull ? step : left, fast_out, fast_err, cycle_limit);
    ASSERT_EQ(state(fast.cpu(), fast_out), state(plain.cpu(), plain_out)) << c.name << ", after step " << i;
    ASSERT_EQ(fast.exited(), plain.exited());
  }
  EXPECT_EQ(fast_out.str(), plain_out.str());
  EXPECT_EQ(fast_err.str(), plain_err.str());
  EXPECT_EQ(fast.exit_code(), plain.exit_code());
  // The comparison ran: the programs of the suite end, the held-out ones run long enough.
  if (c.instructions == ~0ull)
    EXPECT_TRUE(plain.exited()) << c.name;
  else
    EXPECT_EQ(plain.cpu().instret, c.instructions) << c.name;
  EXPECT_GT(plain.cpu().instret, 1000u);
}

INSTANTIATE_TEST_SUITE_P(IssEngines, Engines, testing::ValuesIn(list_cases()), test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Engines);

TEST(IssEngines, EveryProgramIsCompared) {
  size_t suite = 0, held_out = 0;
  for (const Case& c : list_cases()) (c.instructions == ~0ull ? suite : held_out)++;
  EXPECT_GE(suite, 2 * 30u) << "the differential suite's programs, under two timings";
  EXPECT_EQ(held_out, 2 * 4u) << "bench/iss-programs' four programs, under two timings";
}

}  // namespace
}  // namespace fs::iss
