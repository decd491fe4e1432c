// Statistics building blocks shared by every module: a sample distribution (count, min, avg,
// max, p99) and a time-weighted level (occupancy: max and time average). Both print to JSON.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "common/stats_tree.h"


#include "common/units.h"

namespace fs {

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
  uint64_t percentile(double p) const {
    if (samples_.empty()) return 0;
    std::vector<uint64_t> s = samples_;
    std::sort(s.begin(), s.end());
    size_t rank = size_t(std::ceil(p / 100.0 * double(s.size())));
    rank = std::clamp<size_t>(rank, 1, s.size());
    return s[rank - 1];
  }
  // {count, min, avg, max, p99}; `scale` divides every value (e.g. 1000: picoseconds as ns).
  void report(StatsTree& out, double scale = 1.0) const {
    out["count"] = count();
    if (scale == 1.0) {
      out["min"] = min(), out["avg"] = mean(), out["max"] = max(), out["p99"] = percentile(99);
    } else {
      out["min"] = double(min()) / scale, out["avg"] = mean() / scale, out["max"] = double(max()) / scale;
      out["p99"] = double(percentile(99)) / scale;
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
