// Tests of the calibration table (sc_model/pspin/calibration): the recorder's least-squares fit
// against lines worked out by hand (exact points, a one-size mean, the residual), timer and
// faulted runs left out, the "*" entry over every outcome, lookups falling back to it, the
// table's text read back unchanged, and malformed tables rejected with file and line.
#include "pspin/calibration.h"

#include <gtest/gtest.h>

#include <fstream>

#include "common/errors.h"

namespace fs_tb {
namespace {

fs::HandlerEvent event(const std::string* set, const std::string& outcome, uint64_t bytes, uint64_t cycles,
                       uint64_t dma_wait = 0, bool timer = false) {
  fs::HandlerEvent e{0, 0, set, 0, 0, 0, cycles, cycles, outcome};
  e.packet_bytes = bytes, e.dma_wait_cycles = dma_wait, e.timer = timer;
  return e;
}

TEST(Calibration, FitsCyclesPerByteAndFixedCycles) {
  const std::string set = "agg";
  fs::CalibrationRecorder r;
  // ok: cycles - dma wait = 100 + 0.5 x bytes exactly, at 64, 512 and 1024 bytes.
  r.handler_ran(event(&set, "ok", 64, 132));
  r.handler_ran(event(&set, "ok", 512, 356, 0));
  r.handler_ran(event(&set, "ok", 1024, 700, 88));  // 612 of its own
  // done: one size, cycles 1000 and 1010: the mean 1005, flat, rms 5.
  r.handler_ran(event(&set, "done", 1024, 1000));
  r.handler_ran(event(&set, "done", 1024, 1010));
  // Left out: a timer run and a faulted run.
  r.handler_ran(event(&set, "ok", 0, 999999, 0, true));
  r.handler_ran(event(&set, "fault", 64, 5000000));
  const fs::CalibrationTable t = r.table();
  EXPECT_EQ(t.size(), 3u);
  const fs::CalibrationEntry* ok = t.find("agg", "ok");
  ASSERT_NE(ok, nullptr);
  EXPECT_EQ(ok->runs, 3u);
  EXPECT_NEAR(ok->fixed_cycles, 100.0, 1e-9);
  EXPECT_NEAR(ok->cycles_per_byte, 0.5, 1e-12);
  EXPECT_NEAR(ok->rms_error_cycles, 0.0, 1e-6);
  EXPECT_EQ(ok->min_bytes, 64u);
  EXPECT_EQ(ok->max_bytes, 1024u);
  EXPECT_EQ(ok->cycles(2000), 1100u);
  const fs::CalibrationEntry* done = t.find("agg", "done");
  ASSERT_NE(done, nullptr);
  EXPECT_NEAR(done->fixed_cycles, 1005.0, 1e-9);
  EXPECT_EQ(done->cycles_per_byte, 0.0);
  EXPECT_NEAR(done->rms_error_cycles, 5.0, 1e-9);
  // Every outcome: five points; an outcome the table lacks falls back to it.
  const fs::CalibrationEntry* all = t.find("agg", "dropped");
  ASSERT_NE(all, nullptr);
  EXPECT_EQ(all->outcome, "*");
  EXPECT_EQ(all->runs, 5u);
  EXPECT_EQ(t.find("other", "ok"), nullptr);
}

TEST(Calibration, NegativeFitsCostNothing) {
  fs::CalibrationEntry e;
  e.fixed_cycles = -50, e.cycles_per_byte = 0.25;
  EXPECT_EQ(e.cycles(100), 0u);   // -25
  EXPECT_EQ(e.cycles(202), 1u);   // 0.5 rounds away from zero
  EXPECT_EQ(e.cycles(1000), 200u);
}

std::string write(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

std::string read_error(const std::string& path) {
  try {
    fs::CalibrationTable::read(path);
  } catch (const fs::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Calibration, TextReadsBackAndBadTablesAreRejected) {
  const std::string set = "agg";
  fs::CalibrationRecorder r;
  r.handler_ran(event(&set, "ok", 64, 132));
  r.handler_ran(event(&set, "ok", 1024, 612));
  const std::string text = r.table().text();
  const std::string path = write("cal_ok.txt", text);
  const fs::CalibrationTable back = fs::CalibrationTable::read(path);
  EXPECT_EQ(back.text(), text);
  EXPECT_EQ(back.path(), path);

  const std::string header = "# handler_set outcome runs fixed_cycles cycles_per_byte min_bytes max_bytes rms\n";
  auto line = [](const std::string& p) { return p + ":2: "; };
  const std::string a = write("cal_a.txt", header + "agg ok 3 100 0.5 64\n");
  EXPECT_EQ(read_error(a), line(a) + "expected 'handler_set outcome runs fixed_cycles cycles_per_byte min_bytes "
                                     "max_bytes rms_error_cycles', not 6 fields");
  const std::string b = write("cal_b.txt", header + "agg ok 0 100 0.5 64 64 0\n");
  EXPECT_EQ(read_error(b), line(b) + "runs must be a whole number above 0, not '0'");
  const std::string c = write("cal_c.txt", header + "agg ok 3 1e x 64 64 0\n");
  EXPECT_EQ(read_error(c), line(c) + "fixed_cycles must be a number, not '1e'");
  const std::string d = write("cal_d.txt", header + "agg ok 3 100 0.5 65 64 0\n");
  EXPECT_EQ(read_error(d), line(d) + "min_bytes and max_bytes must be whole numbers, min_bytes <= max_bytes");
  const std::string e = write("cal_e.txt", header + "agg ok 3 100 0.5 64 64 0\nagg ok 1 1 1 1 1 1\n");
  EXPECT_EQ(read_error(e), e + ":3: handler set agg outcome ok is listed twice");
  const std::string f = write("cal_f.txt", header);
  EXPECT_EQ(read_error(f), f + ": the calibration table has no entries");
  EXPECT_EQ(read_error(::testing::TempDir() + "no_such_table.txt"),
            ::testing::TempDir() + "no_such_table.txt: cannot open calibration table (No such file or directory)");
}

}  // namespace
}  // namespace fs_tb
