// The sample distribution every stats section reports (common/stats.h): nearest-rank
// percentiles, the histogram's fixed buckets, and the scaled (picoseconds as ns) form.
#include <gtest/gtest.h>

#include "common/stats.h"

namespace fs {
namespace {

TEST(StatsDistribution, PercentilesAreNearestRank) {
  Distribution d;
  for (uint64_t v = 1000; v >= 1; --v) d.add(v);  // 1..1000, added out of order
  // Rank ceil(p% of 1000): 500, 900, 990, 999.
  EXPECT_EQ(d.percentile(50), 500u);
  EXPECT_EQ(d.percentile(90), 900u);
  EXPECT_EQ(d.percentile(99), 990u);
  EXPECT_EQ(d.percentile(99.9), 999u);
  Distribution three;
  for (uint64_t v : {7, 3, 5}) three.add(v);
  // ceil(1.5) = 2 -> 5; ceil(2.7), ceil(2.97), ceil(2.997) = 3 -> 7.
  EXPECT_EQ(three.percentile(50), 5u);
  EXPECT_EQ(three.percentile(90), 7u);
  EXPECT_EQ(three.percentile(99.9), 7u);
  EXPECT_EQ(Distribution().percentile(50), 0u);
}

TEST(StatsDistribution, BucketsAreOnePerValueBelowEightThenFourPerOctave) {
  using B = std::pair<uint64_t, uint64_t>;
  EXPECT_EQ(Distribution::bucket_of(0), B(0, 1));
  EXPECT_EQ(Distribution::bucket_of(7), B(7, 8));
  EXPECT_EQ(Distribution::bucket_of(8), B(8, 10));
  EXPECT_EQ(Distribution::bucket_of(9), B(8, 10));
  EXPECT_EQ(Distribution::bucket_of(10), B(10, 12));
  EXPECT_EQ(Distribution::bucket_of(15), B(14, 16));
  EXPECT_EQ(Distribution::bucket_of(16), B(16, 20));
  EXPECT_EQ(Distribution::bucket_of(1023), B(896, 1024));
  EXPECT_EQ(Distribution::bucket_of(1024), B(1024, 1280));
  EXPECT_EQ(Distribution::bucket_of(1279), B(1024, 1280));
  EXPECT_EQ(Distribution::bucket_of(1280), B(1280, 1536));
  EXPECT_EQ(Distribution::bucket_of(uint64_t(1) << 63), B(uint64_t(1) << 63, (uint64_t(1) << 63) + (uint64_t(1) << 61)));
}

TEST(StatsDistribution, ReportHasEveryKeyAndTheNonEmptyBuckets) {
  Distribution d;
  for (uint64_t v : {9, 8, 100, 11}) d.add(v);
  StatsTree t;
  d.report(t);
  EXPECT_EQ(t["count"].uint_value(), 4u);
  EXPECT_EQ(t["min"].uint_value(), 8u);
  EXPECT_EQ(t["max"].uint_value(), 100u);
  EXPECT_DOUBLE_EQ(t["avg"].double_value(), 32.0);
  EXPECT_EQ(t["p50"].uint_value(), 9u);   // rank 2 of 8, 9, 11, 100
  EXPECT_EQ(t["p90"].uint_value(), 100u);  // rank 4
  const auto& h = t["histogram"].items();
  ASSERT_EQ(h.size(), 3u);  // [8, 10) x2, [10, 12) x1, [96, 112) x1
  EXPECT_EQ(h[0].members().at("lo").uint_value(), 8u);
  EXPECT_EQ(h[0].members().at("hi").uint_value(), 10u);
  EXPECT_EQ(h[0].members().at("count").uint_value(), 2u);
  EXPECT_EQ(h[1].members().at("lo").uint_value(), 10u);
  EXPECT_EQ(h[1].members().at("count").uint_value(), 1u);
  EXPECT_EQ(h[2].members().at("lo").uint_value(), 96u);
  EXPECT_EQ(h[2].members().at("hi").uint_value(), 112u);
  EXPECT_EQ(h[2].members().at("count").uint_value(), 1u);
}

TEST(StatsDistribution, ScaledReportDividesValuesAndBucketsWholeUnits) {
  Distribution ps;
  for (uint64_t v : {1500, 2500, 999}) ps.add(v);
  StatsTree t;
  ps.report(t, 1000.0);
  EXPECT_DOUBLE_EQ(t["min"].double_value(), 0.999);
  EXPECT_DOUBLE_EQ(t["max"].double_value(), 2.5);
  EXPECT_DOUBLE_EQ(t["p50"].double_value(), 1.5);
  // 0.999 ns, 1.5 ns and 2.5 ns fall in [0, 1), [1, 2) and [2, 3).
  const auto& h = t["histogram"].items();
  ASSERT_EQ(h.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(h[i].members().at("lo").uint_value(), i);
    EXPECT_EQ(h[i].members().at("count").uint_value(), 1u);
  }
  // Without samples: every key, zeros, no bucket.
  StatsTree e;
  Distribution().report(e, 1000.0);
  EXPECT_EQ(e["count"].uint_value(), 0u);
  EXPECT_DOUBLE_EQ(e["p999"].double_value(), 0.0);
  EXPECT_EQ(e["histogram"].kind(), StatsTree::Kind::kArray);
  EXPECT_TRUE(e["histogram"].items().empty());
}

}  // namespace
}  // namespace fs
