// Differential test of iss/fpu.h against qemu-riscv32, an independent RISC-V implementation
// (its F extension is built on SoftFloat-derived code). The test compiles qemu_fpu_probe.c with
// riscv64-unknown-elf-gcc, feeds it random {op, rm, a, b, c} records on stdin and compares every
// result and every fflags bit exactly, for all 19 F-extension computational instructions and all
// five rounding modes, RMM included (which the host comparison cannot cover). Skipped when the
// cross compiler or qemu-riscv32 is missing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "iss/fpu.h"
#include "iss_fpu/fpu_test_gen.h"

namespace fpu = fs::iss::fpu;

namespace {

constexpr const char* kOpName[] = {"fadd", "fsub", "fmul", "fdiv", "fsqrt", "fmadd", "fmsub",
                                   "fnmsub", "fnmadd", "fmin", "fmax", "feq", "flt", "fle",
                                   "fclass", "fcvt.w.s", "fcvt.wu.s", "fcvt.s.w", "fcvt.s.wu"};
constexpr unsigned kOps = 19;
constexpr const char* kModeName[] = {"RNE", "RTZ", "RDN", "RUP", "RMM"};

struct Record {
  uint32_t op, rm, a, b, c;
};

uint32_t Ours(const Record& r, uint32_t& f) {
  switch (r.op) {
    case 0: return fpu::add(r.a, r.b, r.rm, f);
    case 1: return fpu::sub(r.a, r.b, r.rm, f);
    case 2: return fpu::mul(r.a, r.b, r.rm, f);
    case 3: return fpu::div(r.a, r.b, r.rm, f);
    case 4: return fpu::sqrt(r.a, r.rm, f);
    case 5: return fpu::fmadd(r.a, r.b, r.c, r.rm, f);
    case 6: return fpu::fmsub(r.a, r.b, r.c, r.rm, f);
    case 7: return fpu::fnmsub(r.a, r.b, r.c, r.rm, f);
    case 8: return fpu::fnmadd(r.a, r.b, r.c, r.rm, f);
    case 9: return fpu::min(r.a, r.b, f);
    case 10: return fpu::max(r.a, r.b, f);
    case 11: return fpu::feq(r.a, r.b, f);
    case 12: return fpu::flt(r.a, r.b, f);
    case 13: return fpu::fle(r.a, r.b, f);
    case 14: return fpu::fclass(r.a);
    case 15: return uint32_t(fpu::cvt_w_s(r.a, r.rm, f));
    case 16: return fpu::cvt_wu_s(r.a, r.rm, f);
    case 17: return fpu::cvt_s_w(int32_t(r.a), r.rm, f);
    default: return fpu::cvt_s_wu(r.a, r.rm, f);
  }
}

bool HaveTool(const std::string& name) {
  return std::system(("command -v " + name + " >/dev/null 2>&1").c_str()) == 0;
}

std::string ProbeSource() {
#ifdef FLARESIM_SOURCE_DIR
  return std::string(FLARESIM_SOURCE_DIR) + "/tb/iss_fpu/qemu_fpu_probe.c";
#else
  const std::string here = __FILE__;
  return here.substr(0, here.rfind('/') + 1) + "qemu_fpu_probe.c";
#endif
}

// Random operands for `op`, mixing the generator's biased patterns with cases aimed at the
// op's delicate spots (cancellation, exact ties, the underflow boundary, integer boundaries).
Record Make(fpu_test::Gen& g, uint32_t op, uint32_t rm) {
  Record r{op, rm, g.Any(), g.Any(), g.Any()};
  const uint64_t k = g.Bits();
  switch (op) {
    case 0: case 1: case 9: case 10: case 11: case 12: case 13:
      if (k & 1) r.b = g.Near(r.a);
      else if (k & 2) r.a = g.SmallInt(), r.b = g.SmallInt();
      break;
    case 2: case 3:
      if ((k & 3) == 1) r.a = g.SmallInt(), r.b = g.SmallInt();
      if ((k & 3) == 2) std::tie(r.a, r.b) = g.NearMinNormal(op == 3);
      break;
    case 4:
      if (k & 1) r.a &= 0x7fffffff;
      if ((k & 6) == 2) {  // a perfect square, or one ulp off it
        uint32_t f = 0, s = g.SmallInt() & 0x7fffffff;
        r.a = fpu::mul(s, s, fpu::kRNE, f) + uint32_t(k >> 8 & 3) - 1;
      }
      break;
    case 5: case 6: case 7: case 8: {
      uint32_t f = 0;
      if ((k & 3) == 1) r.c = g.Near(fpu::mul(r.a, r.b, fpu::kRNE, f));
      if ((k & 3) == 2) r.a = g.SmallInt(), r.b = g.SmallInt(), r.c = (k & 4) ? g.SmallInt() : r.c;
      if ((k & 3) == 3) {
        std::tie(r.a, r.b) = g.NearMinNormal(false);
        r.c = (k & 4) ? uint32_t(k >> 8) & 0x80000003 : 0;
      }
      break;
    }
    case 15: case 16:
      // |a| in [2^-3, 2^33): fractions, ties and both integer boundaries.
      if (k & 1) r.a = (r.a & 0x807fffff) | uint32_t(124 + (k >> 8) % 36) << 23;
      if ((k & 6) == 2) r.a &= 0xffffff00;  // fewer significant bits: more exact / tie cases
      break;
    default: {  // 17, 18: integers of every width
      const uint32_t v = uint32_t(k >> 32) >> (k >> 8 & 31);
      r.a = (k & 1) ? uint32_t(-int64_t(v)) : v;
      if ((k & 6) == 2) r.a = uint32_t(k >> 32) | 0x7fffff80u;  // near 2^31 / 2^32
      break;
    }
  }
  return r;
}

TEST(FpuQemu, AllInstructionsAllModes) {
  // Both are dependencies (scripts/install-deps): their absence is a broken install, not a skip.
  ASSERT_TRUE(HaveTool("riscv64-unknown-elf-gcc") && HaveTool("qemu-riscv32"))
      << "needs riscv64-unknown-elf-gcc and qemu-riscv32 (scripts/install-deps)";
  char dir_template[] = "/tmp/fpu_qemu_XXXXXX";
  const char* dir = mkdtemp(dir_template);
  ASSERT_NE(dir, nullptr);
  const std::string d = dir, elf = d + "/probe.elf", in = d + "/in.bin", out = d + "/out.bin";
  const std::string cc = "riscv64-unknown-elf-gcc -march=rv32imafc -mabi=ilp32f -O2 -static -nostdlib "
                         "-nostartfiles -ffreestanding -o " + elf + " " + ProbeSource();
  ASSERT_EQ(std::system(cc.c_str()), 0) << cc;

  const int kPerOpMode = 5000 * fpu_test::Scale();
  fpu_test::Gen g(7);
  std::vector<Record> recs;
  recs.reserve(kOps * 5 * kPerOpMode);
  for (uint32_t op = 0; op < kOps; ++op)
    for (uint32_t rm = 0; rm < 5; ++rm)
      for (int i = 0; i < kPerOpMode; ++i) recs.push_back(Make(g, op, rm));
  {
    std::ofstream f(in, std::ios::binary);
    f.write(reinterpret_cast<const char*>(recs.data()), std::streamsize(recs.size() * sizeof(Record)));
  }
  const std::string run = "qemu-riscv32 " + elf + " < " + in + " > " + out;
  ASSERT_EQ(std::system(run.c_str()), 0) << run;
  std::vector<uint32_t> res(recs.size() * 2);
  {
    std::ifstream f(out, std::ios::binary);
    f.read(reinterpret_cast<char*>(res.data()), std::streamsize(res.size() * 4));
    ASSERT_EQ(size_t(f.gcount()), res.size() * 4) << "short output from qemu";
  }
  std::remove(elf.c_str());
  std::remove(in.c_str());
  std::remove(out.c_str());
  rmdir(dir);

  int failures = 0;
  uint64_t flag_count[5] = {};
  for (size_t i = 0; i < recs.size(); ++i) {
    const Record& r = recs[i];
    uint32_t f = 0;
    const uint32_t got = Ours(r, f);
    for (int b = 0; b < 5; ++b) flag_count[b] += res[2 * i + 1] >> b & 1;
    if (got == res[2 * i] && f == res[2 * i + 1]) continue;
    if (++failures <= 20)
      ADD_FAILURE() << kOpName[r.op] << " " << kModeName[r.rm] << std::hex << " a=0x" << r.a << " b=0x" << r.b
                    << " c=0x" << r.c << ": qemu 0x" << res[2 * i] << " flags 0x" << res[2 * i + 1] << ", ours 0x"
                    << got << " flags 0x" << f;
  }
  std::printf("[ qemu ] %zu cases compared (results and fflags); qemu raised NX %llu UF %llu OF %llu DZ %llu "
              "NV %llu\n", recs.size(), (unsigned long long)flag_count[0], (unsigned long long)flag_count[1],
              (unsigned long long)flag_count[2], (unsigned long long)flag_count[3],
              (unsigned long long)flag_count[4]);
  EXPECT_EQ(failures, 0);
}

}  // namespace
