// `flaresim iss` on ELF files built byte by byte here: loading, exit status, write system calls,
// the watchdog, faults and unsupported system calls, and every malformed-ELF message.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "common/errors.h"
#include "iss/bare_run.h"
#include "iss/elf.h"
#include "support/elf_builder.h"

namespace fs::iss {
namespace {

using test::make_elf;
using test::put32;

uint32_t li(uint32_t rd, int32_t imm) { return (uint32_t(imm & 0xFFF) << 20) | (rd << 7) | 0x13; }  // addi rd, x0, imm
uint32_t lui(uint32_t rd, uint32_t value) { return (value & 0xFFFFF000u) | (rd << 7) | 0x37; }
constexpr uint32_t kEcall = 0x00000073;

struct Ran {
  BareRunResult result;
  std::string out, err, error;
};

Ran run(const std::vector<uint8_t>& elf, uint64_t max_insns = 1000) {
  // One file per test: ctest runs the tests of this file in parallel processes.
  const std::string path = ::testing::TempDir() + "fs_bare_run_" +
                           ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".elf";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(elf.data()), std::streamsize(elf.size()));
  BareRunOptions opts;
  opts.max_instructions = max_insns;
  std::ostringstream out, err;
  Ran r;
  try {
    r.result = run_bare_elf(path, opts, out, err);
  } catch (const std::exception& e) {
    r.error = e.what();
    r.error = r.error.substr(r.error.find(": ") + 2);  // drop the temp path
  }
  r.out = out.str();
  r.err = err.str();
  return r;
}

TEST(IssBareRun, WriteAndExit) {
  // write(1, 0x20000, 6); write(2, 0x20003, 3); exit(300) -> status 300 & 0xff = 44
  const Ran r = run(make_elf({li(10, 1), lui(11, 0x20000), li(12, 6), li(17, 64), kEcall,
                              li(10, 2), lui(11, 0x20000), 0x00358593u /* addi a1, a1, 3 */, li(12, 3), kEcall,
                              li(10, 300), li(17, 93), kEcall},
                             "hello\n"));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.out, "hello\n");
  EXPECT_EQ(r.err, "lo\n");
  EXPECT_EQ(r.result.exit_code, 44);
  // 13 instructions ran; the 3 ecalls raise an exception to the environment and, as the RISC-V
  // spec counts, do not retire.
  EXPECT_EQ(r.result.instret, 10u);
}

TEST(IssBareRun, WriteErrorsReturnLinuxCodes) {
  // write(7, ...) -> -EBADF (-9), then exit with a0 as the status: (-9) & 0xff = 247.
  const Ran r = run(make_elf({li(10, 7), lui(11, 0x20000), li(12, 1), li(17, 64), kEcall, li(17, 93), kEcall}, "x"));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.result.exit_code, 247);
  // write(1, 0x50000000, 4): not mapped -> -EFAULT (-14) -> 242.
  const Ran f = run(make_elf({li(10, 1), lui(11, 0x50000000), li(12, 4), li(17, 64), kEcall, li(17, 93), kEcall}));
  EXPECT_EQ(f.result.exit_code, 242);
}

TEST(IssBareRun, StackIsMappedBelowTwoGiB) {
  // sw x0, -4(sp); lw a0, -4(sp); exit(a0)
  const Ran r = run(make_elf({0xfe012e23u, 0xffc12503u, li(17, 93), kEcall}));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.result.exit_code, 0);
}

TEST(IssBareRun, StopsWithAReason) {
  EXPECT_EQ(run(make_elf({li(17, 57), kEcall})).error,
            "unsupported system call 57 (a7) at pc 0x00010004; bare programs may use exit (93), exit_group (94) and "
            "write (64)");
  EXPECT_EQ(run(make_elf({0x00100073u})).error, "ebreak at pc 0x00010000");
  EXPECT_EQ(run(make_elf({li(5, 1), 0x0000006fu /* j . */}), 500).error,
            "stopped after 500 instructions without exiting (pc 0x00010004); raise --max-instructions if it should "
            "run longer");
  EXPECT_EQ(run(make_elf({li(5, 1), 0xffffffffu})).error, "illegal instruction 0xffffffff at pc 0x00010004");
  EXPECT_EQ(run(make_elf({lui(5, 0x40000000), 0x0002a303u /* lw t1, 0(t0) */})).error,
            "load access fault at address 0x40000000 (pc 0x00010004, instruction 0x0002a303)");
}

TEST(IssBareRun, SegmentsMustFitTheMemoryMapBeforeAnythingIsAllocated) {
  // A 4-byte code segment whose memory size reaches into the stack: refused, not zero-filled.
  std::vector<uint8_t> into_stack = make_elf({kEcall});
  test::put32(into_stack, test::elf_phdr_field(0, 20), 0x7FF00000u - 0x10000u);
  EXPECT_EQ(run(into_stack).error,
            "segment 0 (0x00010000, 2146369536 bytes) overlaps the stack (0x7fe00000 to 0x7fffffff)");
  // Below the stack but over the 256 MiB the bare environment gives a program: code 4 bytes,
  // data 6 + 64 + (256 MiB - 69) bytes = 256 MiB + 1 byte in all.
  std::vector<uint8_t> big = make_elf({li(17, 93), kEcall}, "hello\n");
  const uint32_t memsz = (256u << 20) - 8u + 1u;  // the code segment has 8 bytes
  test::put32(big, test::elf_phdr_field(1, 20), memsz);
  EXPECT_EQ(run(big).error, "loadable segments of 268435457 bytes in memory; bare programs may have 256 MiB");
  // Exactly 256 MiB fits (checked without running it, which would allocate the 256 MiB).
  test::put32(big, test::elf_phdr_field(1, 20), memsz - 1);
  EXPECT_NO_THROW(check_fits_bare_memory("p.elf", parse_elf("p.elf", big)));
}

TEST(IssBareRun, AnInstructionCutByTheEndOfItsSegmentIsAFetchFault) {
  // A 5-byte code segment: addi, then one byte where a 2-byte parcel would start.
  std::vector<uint8_t> elf = make_elf({li(5, 1), 0});
  test::put32(elf, test::elf_phdr_field(0, 16), 5);
  test::put32(elf, test::elf_phdr_field(0, 20), 5);
  EXPECT_EQ(run(elf).error, "instruction fetch access fault 0x00000000 at pc 0x00010004");
}

std::string elf_error(std::vector<uint8_t> f) {
  try {
    parse_elf("p.elf", f);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(IssElf, MalformedFiles) {
  const std::vector<uint8_t> good = make_elf({kEcall});
  EXPECT_EQ(elf_error(good), "");
  EXPECT_EQ(elf_error({1, 2, 3}), "p.elf: not an ELF file");
  auto with = [&](size_t off, uint8_t v) {
    std::vector<uint8_t> f = good;
    f[off] = v;
    return elf_error(f);
  };
  EXPECT_EQ(with(4, 2), "p.elf: not a 32-bit ELF file (ELFCLASS32 expected; flaresim runs RV32)");
  EXPECT_EQ(with(5, 2), "p.elf: not a little-endian ELF file");
  EXPECT_EQ(with(18, 62), "p.elf: not a RISC-V ELF file (e_machine 62, expected 243)");
  EXPECT_EQ(with(16, 3), "p.elf: not an executable (e_type 3, expected ET_EXEC)");
  EXPECT_EQ(with(44, 0), "p.elf: no program headers");
  EXPECT_EQ(with(44, 200), "p.elf: program headers run past the end of the file");
  EXPECT_EQ(with(52 + 16, 200), "p.elf: segment 0: file size 200 exceeds memory size 4");
  std::vector<uint8_t> past = good;
  put32(past, 52 + 4, 1000);
  EXPECT_EQ(elf_error(past), "p.elf: segment 0: data runs past the end of the file");
  std::vector<uint8_t> entry = good;
  put32(entry, 24, 0x30000);
  EXPECT_EQ(elf_error(entry), "p.elf: entry point 0x00030000 is not in an executable segment");
  std::vector<uint8_t> odd = good;
  put32(odd, 24, 0x10001);  // found by fuzzing: fetches ran one byte past the segment
  EXPECT_EQ(elf_error(odd), "p.elf: entry point 0x00010001 is not 2-byte aligned");
  std::vector<uint8_t> cut(good.begin(), good.begin() + 40);
  EXPECT_EQ(elf_error(cut), "p.elf: not an ELF file");
  EXPECT_THROW(read_elf("/nonexistent/p.elf"), InputError);
}

}  // namespace
}  // namespace fs::iss
