// Statistics building blocks shared by every module: a sample distribution (count, min, avg,
// max, percentiles, histogram) and a time-weighted level (occupancy: max and time average). Both print to JSON.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "common/stats_tree.h"


#include "common/units.h"

namespace fs {

// The nearest-rank percentile of sorted samples: the smallest with at least p% of them at or
// below it (ceil(p% of n) in whole numbers, p to a tenth of a percent: p999 is 99.9); p 0 gives
// the smallest; 0 for no samples.
template <typename T>
T nearest_rank(const std::vector<T>& sorted, double p) {
  if (sorted.empty()) return T(0);
  const uint64_t permille = uint64_t(std::llround(p * 10.0));
  size_t rank = size_t((permille * sorted.size() + 999) / 1000);
  rank = std::clamp<size_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

class Distribution {
 public:
  void add(uint64_t v) { samples_.push_back(v); }
  uint64_t count() const { return samples_.size(); }
  uint64_t min() const { return samples_.empty() ? 0 : *std::min_element(samples_.begin(), samples_.end()); }
  uint64_t max() const { return samples_.empty() ? 0 : *std::max_element(samples_.begin(), samples_.end()); }
  double mean() const {
    if (samples_.empty()) return 0.0;
    long double s = 0;
    for (uint64_t v : samples_) s += v;
    return double(s / samples_.size());
  }
  // Nearest-rank percentile: the smallest sample with at least p% of samples at or below it.
  uint64_t percentile(double p) const { return percentile_of(sorted(), p); }
  // {count, min, avg, max, p50, p90, p99, p999}, and with `histogram` the histogram (below);
  // `scale` divides every value (e.g. 1000: picoseconds as ns).
  void report(StatsTree& out, double scale = 1.0, bool histogram = true) const {
    const std::vector<uint64_t> s = sorted();
    out["count"] = count();
    auto put = [&](const char* key, uint64_t v) {
      if (scale == 1.0) out[key] = v;
      else out[key] = double(v) / scale;
    };
    put("min", s.empty() ? 0 : s.front());
    out["avg"] = mean() / scale;
    put("max", s.empty() ? 0 : s.back());
    static const std::pair<const char*, double> kPercentiles[] = {{"p50", 50}, {"p90", 90}, {"p99", 99}, {"p999", 99.9}};
    for (const auto& [key, p] : kPercentiles) put(key, percentile_of(s, p));
    if (histogram) report_histogram(s, scale, out["histogram"]);
  }

  // The histogram's buckets: values below 8 one each, then four per power of two, each a
  // quarter of its octave wide ([8, 10), [10, 12), ..., [1024, 1280), ...), so that every run
  // buckets alike and relative resolution is 25%. `value` is in the reported unit.
  static std::pair<uint64_t, uint64_t> bucket_of(uint64_t value) {
    if (value < 8) return {value, value + 1};
    int e = 63;
    while (!(value >> e)) --e;
    const uint64_t step = uint64_t(1) << (e - 2);
    const uint64_t lo = value & ~(step - 1);
    return {lo, lo + step};
  }

 private:
  std::vector<uint64_t> sorted() const {
    std::vector<uint64_t> s = samples_;
    std::sort(s.begin(), s.end());
    return s;
  }
  static uint64_t percentile_of(const std::vector<uint64_t>& s, double p) { return nearest_rank(s, p); }
  // The non-empty buckets in ascending order, each {lo, hi, count}: the samples with
  // lo <= sample / scale < hi (whole units, rounded down).
  static void report_histogram(const std::vector<uint64_t>& s, double scale, StatsTree& out) {
    out.make_array();
    StatsTree* last = nullptr;
    uint64_t last_lo = 0, n = 0;
    for (uint64_t v : s) {
      const auto [lo, hi] = bucket_of(uint64_t(double(v) / scale));
      if (last && lo == last_lo) {
        (*last)["count"] = ++n;
        continue;
      }
      last = &out.append();
      (*last)["lo"] = lo, (*last)["hi"] = hi, (*last)["count"] = n = 1;
      last_lo = lo;
    }
  }

 private:
  std::vector<uint64_t> samples_;
};

class TimeWeighted {
 public:
  void set(Picos now, uint64_t level) {
    area_ += (long double)level_ * (long double)(now - last_);
    last_ = now;
    level_ = level;
    max_ = std::max(max_, level);
  }
  uint64_t level() const { return level_; }
  uint64_t max() const { return max_; }
  double average(Picos end) const {
    if (end == 0) return 0.0;
    long double area = area_ + (long double)level_ * (long double)(end - last_);
    return double(area / (long double)end);
  }

 private:
  uint64_t level_ = 0, max_ = 0;
  Picos last_ = 0;
  long double area_ = 0;
};

}  // namespace fs
