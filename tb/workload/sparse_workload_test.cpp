// Tests of sc_model/protocols/flare_sparse/sparse_workload: what each distribution puts where
// (exact non-zero counts, distinct positions inside their blocks, the overlap pool shared by every
// host, clustered runs, topk's concentration), the values, the packets of a block (sizes, shard
// numbers, the last flag, header-only empty blocks), the option errors, determinism, and the
// reference against a dense reduction written here.
#include "protocols/flare_sparse/sparse_workload.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include "common/errors.h"
#include "flare/flare_proto.h"
#include "flare/flare_sparse.h"
#include "net/frame.h"

namespace fs {
namespace {

SparseWorkloadOptions options(unsigned hosts, uint64_t elements, uint32_t span, double density,
                              const std::string& distribution = "uniform") {
  SparseWorkloadOptions o;
  o.hosts = hosts;
  o.bytes = elements * 4;  // int32
  o.span = span;
  o.density = density;
  o.distribution = distribution;
  return o;
}

// Host h's non-zero positions in the whole vector, ascending, checking on the way that every
// block's pairs are ascending, distinct, inside the block and non-zero.
std::vector<uint64_t> positions(const SparseWorkload& w, unsigned h) {
  std::vector<uint64_t> out;
  for (uint64_t b = 0; b < w.blocks(); ++b) {
    const uint64_t length = std::min<uint64_t>(w.span, w.elements - b * w.span);
    const SparsePairs& pairs = w.hosts[h][b];
    for (size_t i = 0; i < pairs.size(); ++i) {
      EXPECT_LT(pairs[i].index, length) << "host " << h << " block " << b;
      if (i) {
        EXPECT_LT(pairs[i - 1].index, pairs[i].index) << "host " << h << " block " << b;
      }
      EXPECT_NE(pairs[i].bits, 0u) << "host " << h << " block " << b;
      out.push_back(b * w.span + pairs[i].index);
    }
  }
  return out;
}

uint64_t dtype_size(const std::string& dtype) { return dtype == "int8" ? 1 : dtype == "int16" ? 2 : 4; }

std::string workload_error(const SparseWorkloadOptions& o) {
  try {
    make_sparse_workload(o);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(SparseWorkload, UniformHasExactlyRoundedDensityDistinctPositionsSpreadEvenly) {
  // 20000 elements in blocks of 1000 (the last 20 blocks), density 0.1234: round(2468) each.
  const SparseWorkload w = make_sparse_workload(options(3, 20000, 1000, 0.1234));
  EXPECT_EQ(w.blocks(), 20u);
  EXPECT_EQ(w.nonzeros, 2468u);
  EXPECT_TRUE(w.pool.empty());
  for (unsigned h = 0; h < 3; ++h) {
    const std::vector<uint64_t> p = positions(w, h);
    ASSERT_EQ(p.size(), 2468u) << h;
    // Spread: each tenth of the vector holds 246.8 on average; a uniform draw stays well within
    // half and twice that.
    std::vector<unsigned> tenth(10, 0);
    for (uint64_t x : p) ++tenth[x / 2000];
    for (unsigned t = 0; t < 10; ++t) {
      EXPECT_GT(tenth[t], 123u) << "host " << h << " tenth " << t;
      EXPECT_LT(tenth[t], 494u) << "host " << h << " tenth " << t;
    }
  }
  // Hosts draw their own positions: no two hosts alike.
  EXPECT_NE(positions(w, 0), positions(w, 1));
  // A short last block: 2500 elements in blocks of 1000.
  const SparseWorkload s = make_sparse_workload(options(1, 2500, 1000, 0.5));
  EXPECT_EQ(s.blocks(), 3u);
  EXPECT_EQ(positions(s, 0).size(), 1250u);
  for (const SparsePair& pr : s.hosts[0][2]) EXPECT_LT(pr.index, 500u);
  // Density 1: every element.
  const SparseWorkload full = make_sparse_workload(options(2, 300, 128, 1.0));
  EXPECT_EQ(positions(full, 1).size(), 300u);
  EXPECT_EQ(positions(full, 1).back(), 299u);
}

TEST(SparseWorkload, OverlapPoolIsSharedByEveryHostAndNothingElseIs) {
  // 50000 elements, density 0.02: 1000 non-zeros; overlap 0.3: 300 of them in the pool.
  SparseWorkloadOptions o = options(4, 50000, 5000, 0.02);
  o.overlap = 0.3;
  for (const char* dist : {"uniform", "clustered", "topk"}) {
    o.distribution = dist;
    const SparseWorkload w = make_sparse_workload(o);
    ASSERT_EQ(w.pool.size(), 300u) << dist;
    EXPECT_TRUE(std::is_sorted(w.pool.begin(), w.pool.end())) << dist;
    EXPECT_EQ(std::set<uint64_t>(w.pool.begin(), w.pool.end()).size(), 300u) << dist;
    std::vector<uint64_t> common = positions(w, 0);
    EXPECT_EQ(common.size(), 1000u) << dist;
    for (unsigned h = 1; h < 4; ++h) {
      const std::vector<uint64_t> p = positions(w, h);
      EXPECT_EQ(p.size(), 1000u) << dist;
      std::vector<uint64_t> both;
      std::set_intersection(common.begin(), common.end(), p.begin(), p.end(), std::back_inserter(both));
      common = both;
    }
    // The positions all four hosts have are the pool (700 own positions of each of 50000 - 300
    // rarely meet in all four).
    EXPECT_EQ(common, w.pool) << dist;
  }
  // overlap 1: every host has the same positions, and their values still differ.
  o.overlap = 1;
  o.distribution = "uniform";
  const SparseWorkload same = make_sparse_workload(o);
  EXPECT_EQ(positions(same, 0), positions(same, 3));
  EXPECT_EQ(same.pool, positions(same, 0));
  EXPECT_NE(same.hosts[0][0][0].bits, same.hosts[3][0][0].bits);
}

TEST(SparseWorkload, ClusteredComesInRunsOfRunLength) {
  // 4000 elements, density 0.05075: 203 non-zeros = 25 runs of 8 and one of 3.
  SparseWorkloadOptions o = options(3, 4000, 700, 0.05075, "clustered");
  o.run_length = 8;
  const SparseWorkload w = make_sparse_workload(o);
  EXPECT_EQ(w.nonzeros, 203u);
  for (unsigned h = 0; h < 3; ++h) {
    const std::vector<uint64_t> p = positions(w, h);
    ASSERT_EQ(p.size(), 203u);
    // Maximal runs of consecutive positions: runs may touch, so each is some runs of 8 and at
    // most the short one of 3.
    std::vector<uint64_t> runs;
    for (size_t i = 0; i < p.size(); ++i) {
      if (i && p[i] == p[i - 1] + 1) ++runs.back();
      else runs.push_back(1);
    }
    unsigned short_runs = 0;
    for (uint64_t r : runs) {
      if (r % 8 == 3) ++short_runs;
      else EXPECT_EQ(r % 8, 0u) << "host " << h << " run of " << r;
    }
    EXPECT_EQ(short_runs, 1u) << h;
    EXPECT_GE(runs.size(), 10u) << h;  // 26 runs placed at random rarely merge into few
  }
  // A run longer than the vector: one run of every element.
  o.run_length = 100000;
  o.density = 1;
  o.bytes = 100 * 4;
  const SparseWorkload all = make_sparse_workload(o);
  EXPECT_EQ(positions(all, 0).size(), 100u);
}

TEST(SparseWorkload, TopkKeepsExactCountsAndConcentratesWhereTheScaleIsLarge) {
  // 64 scale segments of 4096 elements; density 0.01: 2621 non-zeros, 41 per segment on average.
  const SparseWorkload w = make_sparse_workload(options(2, 64 * 4096, 4096, 0.01, "topk"));
  EXPECT_EQ(w.nonzeros, 2621u);
  for (unsigned h = 0; h < 2; ++h) {
    const std::vector<uint64_t> p = positions(w, h);
    ASSERT_EQ(p.size(), 2621u);
    std::vector<unsigned> per_segment(64, 0);
    for (uint64_t x : p) ++per_segment[x / 4096];
    const unsigned most = *std::max_element(per_segment.begin(), per_segment.end());
    const unsigned least = *std::min_element(per_segment.begin(), per_segment.end());
    // Scales up to 16x apart with a Pareto tail of index 2: the densest segments hold several
    // times the mean and the sparsest a small part of it (uniform positions would keep every
    // segment within about 41 +- 20).
    EXPECT_GT(most, 100u) << h;
    EXPECT_LT(least, 10u) << h;
  }
  // The scales are common to the hosts: their counts per segment follow one profile, apart by
  // little more than sampling noise (a few per segment), far less than their total.
  std::vector<int> a(64, 0), b(64, 0);
  for (uint64_t x : positions(w, 0)) ++a[x / 4096];
  for (uint64_t x : positions(w, 1)) ++b[x / 4096];
  int apart = 0;
  for (unsigned s = 0; s < 64; ++s) apart += std::abs(a[s] - b[s]);
  EXPECT_LT(apart, 2621 / 2);
}

TEST(SparseWorkload, ValuesAreNonZeroAndInTheDtypesRange) {
  for (const char* dtype : {"int8", "int16", "int32", "float32"}) {
    SparseWorkloadOptions o = options(2, 4000, 1000, 0.5);
    o.dtype = dtype;
    o.bytes = 4000 * dtype_size(dtype);
    const SparseWorkload w = make_sparse_workload(o);
    std::set<uint32_t> distinct;
    for (unsigned h = 0; h < 2; ++h)
      for (const SparsePairs& block : w.hosts[h])
        for (const SparsePair& p : block) {
          ASSERT_NE(p.bits, 0u) << dtype;
          distinct.insert(p.bits);
          ASSERT_LE(p.bits, w.dtype == FLARE_INT8 ? 0xFFu : w.dtype == FLARE_INT16 ? 0xFFFFu : 0xFFFFFFFFu);
          if (w.dtype == FLARE_FLOAT32) {
            float f;
            std::memcpy(&f, &p.bits, 4);
            ASSERT_GE(f, -1.0f);
            ASSERT_LT(f, 1.0f);
            ASSERT_NE(f, 0.0f);
            const float scaled = f * 8388608.0f;  // a multiple of 2^-23
            ASSERT_EQ(scaled, std::floor(scaled));
          }
        }
    // 4000 uniform draws of n values give n (1 - exp(-4000 / n)) distinct ones on average: all
    // 255 non-zero int8s, about 3880 of 65535 int16s, nearly 4000 of the 2^24 floats or 2^32 int32s.
    if (w.dtype == FLARE_INT8) EXPECT_EQ(distinct.size(), 255u);
    else if (w.dtype == FLARE_INT16) EXPECT_GT(distinct.size(), 3800u);
    else EXPECT_GT(distinct.size(), 3990u) << dtype;
  }
}

TEST(SparseWorkload, BlockPacketsAreNumberedFromZeroAndTheLastCarriesTheCount) {
  // 1000 int16 elements in blocks of 100, density 0.3: 30 pairs a block on average; 60 pair
  // bytes a packet hold 10 six-byte pairs.
  SparseWorkloadOptions o = options(2, 1000, 100, 0.3);
  o.dtype = "int16";
  o.bytes = 2000;
  o.elem_bytes = 60;
  o.allreduce_id = 9;
  const SparseWorkload w = make_sparse_workload(o);
  EXPECT_EQ(w.pairs_per_packet, 10u);
  for (unsigned h = 0; h < 2; ++h)
    for (uint32_t b = 0; b < w.blocks(); ++b) {
      const SparsePairs& pairs = w.hosts[h][b];
      const std::vector<Bytes> frames = sparse_block_frames(w, h, b, uint16_t(7 + h));
      ASSERT_EQ(frames.size(), std::max<size_t>(1, (pairs.size() + 9) / 10));
      SparsePairs sent;
      for (size_t k = 0; k < frames.size(); ++k) {
        const bool last = k + 1 == frames.size();
        const size_t n = last ? pairs.size() - 10 * k : 10;
        // 42 bytes of Ethernet, IPv4 and UDP headers, the 20-byte header, n pairs of 6 bytes.
        ASSERT_EQ(frames[k].size(), 42 + 20 + 6 * n);
        const uint8_t* u = frames[k].data() + 42;
        EXPECT_EQ(u[1], last ? 0xC0 : 0x80);  // contribution, sparse, last flag
        EXPECT_EQ(u[2], FLARE_INT16);
        EXPECT_EQ(fs_be32(u + 4), 9u);
        EXPECT_EQ(fs_be32(u + 8), b);
        EXPECT_EQ(fs_be16(u + 12), h);
        EXPECT_EQ(fs_be16(u + 14), n);
        EXPECT_EQ(fs_be16(u + 16), k);
        EXPECT_EQ(fs_be16(u + 18), last ? frames.size() : 0);
        EXPECT_EQ(fs_be16(frames[k].data() + 36), 4950);  // UDP destination port
        for (size_t i = 0; i < n; ++i) {
          const uint8_t* p = u + 20 + 6 * i;
          sent.push_back(SparsePair{uint32_t(p[0] | p[1] << 8 | p[2] << 16 | uint32_t(p[3]) << 24),
                                    uint32_t(p[4] | p[5] << 8)});
        }
      }
      EXPECT_EQ(sent, pairs) << "host " << h << " block " << b;
    }
  // Empty blocks: 2 non-zeros in 10 blocks leave at least 8 empty, each one header-only packet.
  const SparseWorkload sparse = make_sparse_workload(options(1, 1000, 100, 0.002));
  unsigned empty = 0;
  for (uint32_t b = 0; b < sparse.blocks(); ++b) {
    if (!sparse.hosts[0][b].empty()) continue;
    ++empty;
    const std::vector<Bytes> frames = sparse_block_frames(sparse, 0, b, 0);
    ASSERT_EQ(frames.size(), 1u);
    ASSERT_EQ(frames[0].size(), 62u);
    EXPECT_EQ(frames[0][42 + 1], 0xC0);
    EXPECT_EQ(fs_be16(frames[0].data() + 42 + 14), 0u);
    EXPECT_EQ(fs_be16(frames[0].data() + 42 + 16), 0u);
    EXPECT_EQ(fs_be16(frames[0].data() + 42 + 18), 1u);
  }
  EXPECT_GE(empty, 8u);
}

TEST(SparseWorkload, OptionErrorsNameTheOption) {
  SparseWorkloadOptions o = options(2, 1000, 100, 0.1);
  o.names = {{"density", "flare_sparse.density"}, {"elem_bytes", "--elem-bytes"}};
  auto with = [&](auto edit) {
    SparseWorkloadOptions c = o;
    edit(c);
    return workload_error(c);
  };
  const std::string p = "sparse workload: ";
  EXPECT_EQ(with([](auto&) {}), "");
  EXPECT_EQ(with([](auto& c) { c.hosts = 0; }), p + "hosts: 0 hosts, not 1..65535");
  EXPECT_EQ(with([](auto& c) { c.dtype = "int64"; }), p + "dtype: unknown 'int64' (valid: int32, int16, int8 or float32)");
  EXPECT_EQ(with([](auto& c) { c.op = "prod"; }), p + "op: unknown 'prod' (valid: sum, min or max)");
  EXPECT_EQ(with([](auto& c) { c.distribution = "zipf"; }),
            p + "distribution: unknown 'zipf' (valid: uniform, clustered or topk)");
  EXPECT_EQ(with([](auto& c) { c.elem_bytes = 7; }), p + "--elem-bytes: 7 bytes hold no 8-byte int32 pair");
  EXPECT_EQ(with([](auto& c) { c.dtype = "int8"; c.elem_bytes = 65500; }),
            p + "--elem-bytes: 65500 pair bytes do not fit in a 65535-byte frame");
  EXPECT_EQ(with([](auto& c) { c.bytes = 6; }), p + "bytes: 6 is not a positive multiple of the int32 size 4");
  EXPECT_EQ(with([](auto& c) { c.span = 0; }), p + "span: must be positive");
  EXPECT_EQ(with([](auto& c) { c.density = 0; }), p + "flare_sparse.density: must be above 0 and at most 1");
  EXPECT_EQ(with([](auto& c) { c.overlap = 1.5; }), p + "overlap: must be from 0 to 1");
  EXPECT_EQ(with([](auto& c) { c.run_length = 0; }), p + "run_length: must be positive");
  EXPECT_EQ(with([](auto& c) { c.dtype = "int8"; c.bytes = 5ull << 30; c.span = 1u << 30; c.density = 1; }),
            p + "bytes: 2 hosts x 5368709120 non-zeros x 5 bytes: at most 4 GiB of pairs in one workload");
}

TEST(SparseWorkload, ABlockOfMoreThan64PacketsNamesTheHostBlockAndKeys) {
  // Runs of 5000 at density 1 fill every block of 5000; 64 pair bytes hold 8 pairs: 625 packets.
  SparseWorkloadOptions o = options(2, 10000, 5000, 1.0, "clustered");
  o.run_length = 5000;
  o.elem_bytes = 64;
  o.names = {{"span", "flare_sparse.span"}, {"run_length", "flare_sparse.run_length"}, {"elem_bytes", "hosts.elem_bytes"}};
  EXPECT_EQ(workload_error(o),
            "sparse workload: host 0 block 0 has 5000 non-zeros, 625 packets of at most 8 pairs; a block may have 64 "
            "packets at most: lower flare_sparse.span (5000 elements per block) or flare_sparse.run_length, or raise "
            "hosts.elem_bytes");
  // 64 packets exactly is fine: 512 elements of 8 pairs a packet.
  o.span = 512;
  o.bytes = 512 * 4;
  EXPECT_EQ(workload_error(o), "");
  EXPECT_EQ(sparse_packets_for(512, 8), uint32_t(FLARE_SPARSE_MAX_SHARDS));
}

TEST(SparseWorkload, SameSeedSameWorkloadOtherSeedAnother) {
  for (const char* dist : {"uniform", "clustered", "topk"}) {
    SparseWorkloadOptions o = options(3, 30000, 3000, 0.02, dist);
    o.overlap = 0.25;
    const SparseWorkload a = make_sparse_workload(o), b = make_sparse_workload(o);
    o.seed = 2;
    const SparseWorkload c = make_sparse_workload(o);
    EXPECT_EQ(a.hosts, b.hosts) << dist;
    EXPECT_EQ(a.pool, b.pool) << dist;
    EXPECT_NE(a.hosts, c.hosts) << dist;
    EXPECT_NE(a.pool, c.pool) << dist;
  }
}

// The dense reduction of the hosts' vectors, written out element by element: sums wrap in the
// dtype's width, float32 adds in rank order, min and max over the hosts that have the element.
std::vector<double> dense_reference(const SparseWorkload& w) {
  const unsigned size = flare_dtype_bytes(w.dtype);
  std::vector<double> out(size_t(w.elements), 0);
  std::vector<bool> seen(size_t(w.elements), false);
  std::vector<int64_t> isum(size_t(w.elements), 0);
  std::vector<float> fsum(size_t(w.elements), 0.0f);
  for (unsigned h = 0; h < w.hosts.size(); ++h)
    for (uint64_t b = 0; b < w.blocks(); ++b)
      for (const SparsePair& p : w.hosts[h][b]) {
        const size_t i = size_t(b * w.span + p.index);
        double v;
        if (w.dtype == FLARE_FLOAT32) {
          float f;
          std::memcpy(&f, &p.bits, 4);
          v = f;
          fsum[i] += f;
        } else {
          v = size == 1 ? double(int8_t(p.bits)) : size == 2 ? double(int16_t(p.bits)) : double(int32_t(p.bits));
          isum[i] += int64_t(v);
        }
        if (w.op == FLARE_OP_MIN) out[i] = seen[i] ? std::min(out[i], v) : v;
        if (w.op == FLARE_OP_MAX) out[i] = seen[i] ? std::max(out[i], v) : v;
        seen[i] = true;
      }
  if (w.op == FLARE_OP_SUM)
    for (size_t i = 0; i < out.size(); ++i) {
      if (w.dtype == FLARE_FLOAT32) out[i] = fsum[i];
      else if (size == 1) out[i] = int8_t(uint8_t(isum[i]));
      else if (size == 2) out[i] = int16_t(uint16_t(isum[i]));
      else out[i] = int32_t(uint32_t(isum[i]));
    }
  return out;
}

TEST(SparseWorkload, ReferenceIsTheDenseReductionWithZerosLeftOut) {
  for (const char* dtype : {"int8", "int16", "int32", "float32"})
    for (const char* op : {"sum", "min", "max"}) {
      // 8 hosts at half overlap: many indices shared, int8 sums wrap and some cancel.
      SparseWorkloadOptions o = options(8, 3000, 700, 0.3);
      o.dtype = dtype;
      o.op = op;
      o.overlap = 0.5;
      o.bytes = 3000 * dtype_size(dtype);
      const SparseWorkload w = make_sparse_workload(o);
      const std::vector<double> want = dense_reference(w);
      std::vector<double> got(want.size(), 0);
      size_t zeros_in_want = 0;
      ASSERT_EQ(w.reference.size(), w.blocks());
      for (uint64_t b = 0; b < w.blocks(); ++b) {
        const SparseExpectedBlock& e = w.reference[b];
        EXPECT_EQ(e.block_id, b);
        EXPECT_EQ(e.length, std::min<uint64_t>(700, 3000 - b * 700));
        for (size_t i = 0; i < e.pairs.size(); ++i) {
          if (i) {
            EXPECT_LT(e.pairs[i - 1].index, e.pairs[i].index);
          }
          ASSERT_NE(e.pairs[i].bits, 0u);
          double v = 0;
          if (w.dtype == FLARE_FLOAT32) {
            float f;
            std::memcpy(&f, &e.pairs[i].bits, 4);
            v = f;
          } else {
            const unsigned size = flare_dtype_bytes(w.dtype);
            v = size == 1 ? double(int8_t(e.pairs[i].bits)) : size == 2 ? double(int16_t(e.pairs[i].bits))
                                                                          : double(int32_t(e.pairs[i].bits));
          }
          got[size_t(b * 700 + e.pairs[i].index)] = v;
        }
      }
      for (double v : want) zeros_in_want += v == 0;
      EXPECT_EQ(got, want) << dtype << " " << op;
      // Half of 3000 elements is in a host's vector, a share of them in none: zeros remain.
      EXPECT_GT(zeros_in_want, 100u) << dtype << " " << op;
    }
}

TEST(SparseWorkload, FoldAndValueText) {
  EXPECT_EQ(sparse_fold(FLARE_INT8, FLARE_OP_SUM, 0x7F, 0x01), 0x80u);  // 127 + 1 wraps to -128
  EXPECT_EQ(sparse_fold(FLARE_INT16, FLARE_OP_MIN, 0xFFFF, 0x0001), 0xFFFFu);  // min(-1, 1)
  EXPECT_EQ(sparse_fold(FLARE_INT32, FLARE_OP_MAX, 0x80000000u, 0x7FFFFFFFu), 0x7FFFFFFFu);
  uint32_t half, quarter;
  const float h = 0.5f, q = 0.25f;
  std::memcpy(&half, &h, 4);
  std::memcpy(&quarter, &q, 4);
  EXPECT_EQ(sparse_fold(FLARE_FLOAT32, FLARE_OP_SUM, half, quarter), 0x3F400000u);  // 0.75
  EXPECT_EQ(sparse_value_text(FLARE_INT8, 0x80), "-128");
  EXPECT_EQ(sparse_value_text(FLARE_INT16, 0x1234), "4660");
  EXPECT_EQ(sparse_value_text(FLARE_FLOAT32, 0x3DCCCCCDu), "0.1");
  EXPECT_EQ(sparse_value_text(FLARE_FLOAT32, 0xBF400000u), "-0.75");
  uint32_t bits = 0;
  EXPECT_TRUE(parse_sparse_value("-128", FLARE_INT8, &bits));
  EXPECT_EQ(bits, 0x80u);
  EXPECT_FALSE(parse_sparse_value("128", FLARE_INT8, &bits));
  EXPECT_FALSE(parse_sparse_value("1.5", FLARE_INT32, &bits));
  EXPECT_TRUE(parse_sparse_value("0.1", FLARE_FLOAT32, &bits));
  EXPECT_EQ(bits, 0x3DCCCCCDu);
  EXPECT_FALSE(parse_sparse_value("", FLARE_FLOAT32, &bits));
}

}  // namespace
}  // namespace fs
