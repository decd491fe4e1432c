// The calibration table: fitting, writing and reading it (see calibration.h).
#include "pspin/calibration.h"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/errors.h"
#include "common/text.h"

namespace fs {
namespace {

constexpr const char* kHeader =
    "# flaresim calibration table: cycles = fixed_cycles + cycles_per_byte x packet bytes, fitted on ISS runs\n"
    "# handler_set outcome runs fixed_cycles cycles_per_byte min_bytes max_bytes rms_error_cycles\n";

bool parse_real(const std::string& s, double* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  *out = std::strtod(s.c_str(), &end);
  return *end == '\0' && errno == 0 && std::isfinite(*out);
}

}  // namespace

uint64_t CalibrationEntry::cycles(uint64_t bytes) const {
  const double c = fixed_cycles + cycles_per_byte * double(bytes);
  return c <= 0 ? 0 : uint64_t(std::llround(c));
}

void CalibrationTable::add(CalibrationEntry e) {
  auto key = std::make_pair(e.set, e.outcome);
  entries_[key] = std::move(e);
}

const CalibrationEntry* CalibrationTable::find(const std::string& set, const std::string& outcome) const {
  auto it = entries_.find({set, outcome});
  if (it == entries_.end()) it = entries_.find({set, "*"});
  return it == entries_.end() ? nullptr : &it->second;
}

std::string CalibrationTable::text() const {
  std::ostringstream o;
  o << kHeader;
  char line[512];
  for (const auto& [key, e] : entries_) {
    std::snprintf(line, sizeof line, "%s %s %llu %.6f %.6f %llu %llu %.3f\n", e.set.c_str(), e.outcome.c_str(),
                  (unsigned long long)e.runs, e.fixed_cycles, e.cycles_per_byte, (unsigned long long)e.min_bytes,
                  (unsigned long long)e.max_bytes, e.rms_error_cycles);
    o << line;
  }
  return o.str();
}

CalibrationTable CalibrationTable::read(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0)
    throw InputError(path + ": cannot open calibration table (" + std::strerror(errno) + ")");
  if (S_ISDIR(st.st_mode)) throw InputError(path + ": is a directory, not a calibration table");
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open calibration table");
  CalibrationTable t;
  t.path_ = path;
  std::string line;
  for (size_t n = 1; std::getline(in, line); ++n) {
    const std::vector<std::string> w = line_words(line);
    if (w.empty()) continue;
    const std::string where = path + ":" + std::to_string(n) + ": ";
    if (w.size() != 8)
      throw InputError(where + "expected 'handler_set outcome runs fixed_cycles cycles_per_byte min_bytes max_bytes "
                               "rms_error_cycles', not " + std::to_string(w.size()) + " fields");
    CalibrationEntry e;
    e.set = w[0], e.outcome = w[1];
    if (!parse_decimal(w[2], ~0ull, &e.runs) || e.runs == 0)
      throw InputError(where + "runs must be a whole number above 0, not '" + w[2] + "'");
    if (!parse_real(w[3], &e.fixed_cycles)) throw InputError(where + "fixed_cycles must be a number, not '" + w[3] + "'");
    if (!parse_real(w[4], &e.cycles_per_byte))
      throw InputError(where + "cycles_per_byte must be a number, not '" + w[4] + "'");
    if (!parse_decimal(w[5], ~0ull, &e.min_bytes) || !parse_decimal(w[6], ~0ull, &e.max_bytes) ||
        e.min_bytes > e.max_bytes)
      throw InputError(where + "min_bytes and max_bytes must be whole numbers, min_bytes <= max_bytes");
    if (!parse_real(w[7], &e.rms_error_cycles) || e.rms_error_cycles < 0)
      throw InputError(where + "rms_error_cycles must be a number >= 0, not '" + w[7] + "'");
    if (t.entries_.count({e.set, e.outcome}))
      throw InputError(where + "handler set " + e.set + " outcome " + e.outcome + " is listed twice");
    t.add(std::move(e));
  }
  if (in.bad()) throw InputError(path + ": read error");
  if (t.entries_.empty()) throw InputError(path + ": the calibration table has no entries");
  return t;
}

void CalibrationRecorder::Sums::add(double px, double py) {
  ++n;
  min_x = std::min<uint64_t>(min_x, uint64_t(px));
  max_x = std::max<uint64_t>(max_x, uint64_t(px));
  x += px, y += py, xx += px * px, xy += px * py, yy += py * py;
}

void CalibrationRecorder::handler_ran(const HandlerEvent& e) {
  if (e.timer || e.outcome == "fault") return;
  const double bytes = double(e.packet_bytes), cycles = double(e.cycles - e.dma_wait_cycles);
  sums_[{*e.handler_set, e.outcome}].add(bytes, cycles);
  sums_[{*e.handler_set, "*"}].add(bytes, cycles);
}

CalibrationTable CalibrationRecorder::table() const {
  CalibrationTable t;
  for (const auto& [key, s] : sums_) {
    CalibrationEntry e;
    e.set = key.first, e.outcome = key.second, e.runs = s.n, e.min_bytes = s.min_x, e.max_bytes = s.max_x;
    const long double n = s.n, var = s.xx - s.x * s.x / n;
    // One packet size (or rounding noise): the mean, flat; else the least-squares line.
    const long double b = var > 1e-9L * (s.xx + 1) ? (s.xy - s.x * s.y / n) / var : 0;
    const long double a = (s.y - b * s.x) / n;
    const long double sse = s.yy - 2 * a * s.y - 2 * b * s.xy + n * a * a + 2 * a * b * s.x + b * b * s.xx;
    e.fixed_cycles = double(a), e.cycles_per_byte = double(b);
    e.rms_error_cycles = sse > 0 ? double(std::sqrt(sse / n)) : 0.0;
    t.add(std::move(e));
  }
  return t;
}

}  // namespace fs
