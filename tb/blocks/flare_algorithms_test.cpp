// Tests of the Flare dense handler's algorithms on the host, without SystemC (HandlerHarness):
// single buffer, 2 and 4 buffers and the tree give exact results for every dtype and operator
// on seeded random data with 2, 3, 8 and 16 hosts; float tree sums are the same bits in any
// arrival order; duplicates never change a result; several allreduces with their own algorithms
// and L1 shares; a switch below the root sends its aggregate up and forwards the parent's result;
// and the algorithm the setup picks by size (Flare 6.4).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "blocks/handler_harness.h"
#include "blocks/sc_testbench.h"
#include "common/errors.h"
#include "flare/flare_dense.h"
#include "protocols/flare_dense/flare_setup.h"

namespace fs_tb {
namespace {

using fs::Bytes;

fs::Config hosts_config(unsigned hosts, const std::string& algorithm, unsigned multi_buffers = 0) {
  fs::Config cfg;
  cfg.pspin.clusters = 2;
  cfg.pspin.hpus_per_cluster = 2;
  cfg.pspin.l1_bytes = 1 << 20;
  cfg.pspin.l2_handler_bytes = 64 << 10;
  cfg.ports.count = 20;
  fs::flare_config(cfg).ports = "0-" + std::to_string(hosts - 1);
  fs::flare_config(cfg).allreduce_id = 7;  // flare_frame's default
  fs::flare_config(cfg).algorithm = algorithm;
  fs::flare_config(cfg).multi_buffers = multi_buffers;
  fs::flare_config(cfg).buffers = 4;
  return cfg;
}

// Seeded random elements of a dtype (raw little-endian bytes): ints over their whole range,
// floats of mixed magnitudes so that the summation order shows in the low bits.
Bytes random_elems(std::mt19937_64& rng, uint8_t dtype, unsigned count) {
  Bytes b(size_t(count) * flare_dtype_bytes(dtype));
  for (unsigned i = 0; i < count; ++i) {
    const uint64_t r = rng();
    if (dtype == FLARE_FLOAT32) {
      const float f = float(int64_t(r % 2000001) - 1000000) * (((r >> 32) & 1) ? 1e-3f : 1.0f);
      std::memcpy(&b[i * 4], &f, 4);
    } else {
      std::memcpy(&b[i * flare_dtype_bytes(dtype)], &r, flare_dtype_bytes(dtype));
    }
  }
  return b;
}

// acc op= in, element-wise, computed here independently of the handler.
void fold_ref(Bytes& acc, const Bytes& in, uint8_t dtype, uint8_t op) {
  const size_t n = acc.size() / flare_dtype_bytes(dtype);
  for (size_t i = 0; i < n; ++i) {
    auto apply = [&](auto a, auto b) {
      if (op == FLARE_OP_MIN) return b < a ? b : a;
      if (op == FLARE_OP_MAX) return b > a ? b : a;
      return decltype(a)(a + b);
    };
    if (dtype == FLARE_INT32) {
      int32_t a, b;
      std::memcpy(&a, &acc[i * 4], 4), std::memcpy(&b, &in[i * 4], 4);
      int32_t r = op == FLARE_OP_SUM ? int32_t(uint32_t(a) + uint32_t(b)) : apply(a, b);
      std::memcpy(&acc[i * 4], &r, 4);
    } else if (dtype == FLARE_INT16) {
      int16_t a, b;
      std::memcpy(&a, &acc[i * 2], 2), std::memcpy(&b, &in[i * 2], 2);
      int16_t r = op == FLARE_OP_SUM ? int16_t(uint16_t(a + b)) : apply(a, b);
      std::memcpy(&acc[i * 2], &r, 2);
    } else if (dtype == FLARE_INT8) {
      int8_t a = int8_t(acc[i]), b = int8_t(in[i]);
      acc[i] = uint8_t(op == FLARE_OP_SUM ? int8_t(uint8_t(a + b)) : apply(a, b));
    } else {
      float a, b;
      std::memcpy(&a, &acc[i * 4], 4), std::memcpy(&b, &in[i * 4], 4);
      float r = apply(a, b);
      std::memcpy(&acc[i * 4], &r, 4);
    }
  }
}

// The order each algorithm folds in when the contributions arrive one at a time in rank order
// (the harness runs one handler at a time):
//  single: ((r0 op r1) op r2) ...;
//  multi (B buffers): rank r lands in buffer r % B (always free), so buffer k folds the ranks
//    k, k + B, ... in order; the last rank's handler folds the other buffers into its own in
//    buffer order;
//  tree: node (l, j) = left half op right half, bottom up, whatever the arrival order.
Bytes reference(const std::vector<Bytes>& in, uint8_t dtype, uint8_t op, const std::string& algo, unsigned b) {
  const size_t n = in.size();
  if (algo == "single") {
    Bytes acc = in[0];
    for (size_t r = 1; r < n; ++r) fold_ref(acc, in[r], dtype, op);
    return acc;
  }
  if (algo == "multi") {
    std::vector<Bytes> buf(b);
    for (size_t r = 0; r < n; ++r) {
      Bytes& t = buf[r % b];
      if (t.empty())
        t = in[r];
      else
        fold_ref(t, in[r], dtype, op);
    }
    const size_t mine = (n - 1) % b;
    Bytes acc = buf[mine];
    for (size_t k = 0; k < b; ++k)
      if (k != mine && !buf[k].empty()) fold_ref(acc, buf[k], dtype, op);
    return acc;
  }
  std::vector<Bytes> level = in;  // tree
  while (level.size() > 1) {
    std::vector<Bytes> up;
    for (size_t i = 0; i < level.size(); i += 2) {
      Bytes l = level[i];
      if (i + 1 < level.size()) fold_ref(l, level[i + 1], dtype, op);
      up.push_back(l);
    }
    level = up;
  }
  return level[0];
}

struct Algo {
  const char* name;
  unsigned buffers;
};
const Algo kAlgos[] = {{"single", 0}, {"multi", 2}, {"multi", 4}, {"tree", 0}};

TEST(BlocksFlareAlgorithms, ExactResultsForEveryDtypeOpAndAlgorithm) {
  std::mt19937_64 rng(20261122);
  for (const Algo& a : kAlgos) {
    for (unsigned hosts : {2u, 3u, 8u, 16u}) {
      HandlerHarness h(hosts_config(hosts, a.name, a.buffers), "flare_dense");
      uint32_t block = 0;
      for (uint8_t dtype : {FLARE_INT32, FLARE_INT16, FLARE_INT8, FLARE_FLOAT32}) {
        for (uint8_t op : {FLARE_OP_SUM, FLARE_OP_MIN, FLARE_OP_MAX}) {
          const unsigned count = 1024 / flare_dtype_bytes(dtype) - 3 * block % 7;
          std::vector<Bytes> in;
          for (unsigned r = 0; r < hosts; ++r) in.push_back(random_elems(rng, dtype, count));
          HandlerCall last;
          for (unsigned r = 0; r < hosts; ++r) {
            last = h.run(flare_frame(block, uint16_t(r), uint16_t(r), dtype, op, in[r]), r, r % 2, r % 2);
            ASSERT_EQ(last.outcome, r + 1 == hosts ? FLARE_DENSE_RESULT_SENT : FS_OK)
                << a.name << a.buffers << " hosts " << hosts << " rank " << r;
          }
          ASSERT_EQ(last.sent.size(), 1u);
          std::vector<uint32_t> all(hosts);
          for (unsigned r = 0; r < hosts; ++r) all[r] = r;
          EXPECT_EQ(last.sent[0].ports, all);
          const Bytes got(last.sent[0].data.begin() + 58, last.sent[0].data.end());
          EXPECT_EQ(got, reference(in, dtype, op, a.name, a.buffers))
              << a.name << a.buffers << " hosts " << hosts << " dtype " << int(dtype) << " op " << int(op);
          ++block;
        }
      }
    }
  }
}

TEST(BlocksFlareAlgorithms, FloatTreeSumIsTheSameBitsInAnyArrivalOrder) {
  std::mt19937_64 rng(5);
  const unsigned hosts = 16;
  std::vector<Bytes> in;
  for (unsigned r = 0; r < hosts; ++r) in.push_back(random_elems(rng, FLARE_FLOAT32, 256));
  const Bytes want = reference(in, FLARE_FLOAT32, FLARE_OP_SUM, "tree", 0);
  // A single buffer in rank order gives other bits: the order matters for these floats.
  ASSERT_NE(want, reference(in, FLARE_FLOAT32, FLARE_OP_SUM, "single", 0));
  std::vector<unsigned> order(hosts);
  for (unsigned r = 0; r < hosts; ++r) order[r] = r;
  std::vector<std::vector<unsigned>> orders;
  for (int k = 0; k < 5; ++k) {
    std::shuffle(order.begin(), order.end(), rng);
    orders.push_back(order);
  }
  ASSERT_NE(orders[0], orders[1]);
  for (const auto& o : orders) {
    HandlerHarness h(hosts_config(hosts, "tree"), "flare_dense");
    HandlerCall last;
    for (unsigned r : o) last = h.run(flare_frame(3, uint16_t(r), uint16_t(r), FLARE_FLOAT32, FLARE_OP_SUM, in[r]), r);
    ASSERT_EQ(last.outcome, FLARE_DENSE_RESULT_SENT);
    EXPECT_EQ(Bytes(last.sent.at(0).data.begin() + 58, last.sent.at(0).data.end()), want);
  }
}

TEST(BlocksFlareAlgorithms, DuplicatesNeverChangeAResult) {
  std::mt19937_64 rng(11);
  for (const Algo& a : kAlgos) {
    const unsigned hosts = 8;
    HandlerHarness h(hosts_config(hosts, a.name, a.buffers), "flare_dense");
    std::vector<Bytes> in;
    for (unsigned r = 0; r < hosts; ++r) in.push_back(random_elems(rng, FLARE_INT32, 64));
    // Every contribution but the last is sent twice in a row, and rank 0 again before the last.
    HandlerCall last;
    for (unsigned r = 0; r + 1 < hosts; ++r) {
      EXPECT_EQ(h.run(flare_frame(9, uint16_t(r), uint16_t(r), FLARE_INT32, FLARE_OP_SUM, in[r]), r).outcome, FS_OK);
      EXPECT_EQ(h.run(flare_frame(9, uint16_t(r), uint16_t(r), FLARE_INT32, FLARE_OP_SUM, in[r]), r).outcome,
                FLARE_DENSE_DUPLICATE);
    }
    EXPECT_EQ(h.run(flare_frame(9, 0, 0, FLARE_INT32, FLARE_OP_SUM, in[0]), 0).outcome, FLARE_DENSE_DUPLICATE);
    last = h.run(flare_frame(9, uint16_t(hosts - 1), uint16_t(hosts - 1), FLARE_INT32, FLARE_OP_SUM, in[hosts - 1]), hosts - 1);
    ASSERT_EQ(last.outcome, FLARE_DENSE_RESULT_SENT) << a.name;
    EXPECT_EQ(Bytes(last.sent.at(0).data.begin() + 58, last.sent.at(0).data.end()),
              reference(in, FLARE_INT32, FLARE_OP_SUM, "single", 0))
        << a.name;
    // A retransmission after the result went out is a duplicate and starts nothing.
    EXPECT_EQ(h.run(flare_frame(9, 2, 2, FLARE_INT32, FLARE_OP_SUM, in[2]), 2).outcome, FLARE_DENSE_DUPLICATE) << a.name;
  }
}

TEST(BlocksFlareAlgorithms, LateRetransmissionOfAnOlderBlockIsADuplicate) {
  // 2 states per cluster, 2 clusters: blocks 0, 4 and 8 share cluster 0's state 0. A host whose
  // window moved on (it sent block 4 only after block 0's result) may still have a
  // retransmission of block 0 on the wire: it must not restart block 0 in the state.
  for (const Algo& a : kAlgos) {
    fs::Config cfg = hosts_config(2, a.name, a.buffers);
    fs::flare_config(cfg).buffers = 2;
    HandlerHarness h(cfg, "flare_dense");
    const Bytes v = elems_of<int32_t>({1, 2});
    auto run = [&](uint32_t block, uint16_t rank) {
      return h.run(flare_frame(block, rank, rank, FLARE_INT32, FLARE_OP_SUM, v), rank).outcome;
    };
    EXPECT_EQ(run(0, 0), FS_OK) << a.name;
    EXPECT_EQ(run(0, 1), FLARE_DENSE_RESULT_SENT) << a.name;
    EXPECT_EQ(run(4, 0), FS_OK) << a.name;
    EXPECT_EQ(run(0, 1), FLARE_DENSE_DUPLICATE) << a.name;  // older than the block in the state
    EXPECT_EQ(run(8, 1), FLARE_DENSE_WINDOW_EXCEEDED) << a.name;  // newer: the host is too far ahead
    EXPECT_EQ(run(4, 1), FLARE_DENSE_RESULT_SENT) << a.name;
    EXPECT_EQ(run(0, 0), FLARE_DENSE_DUPLICATE) << a.name;  // state free, but block 0 is older
    EXPECT_EQ(run(8, 0), FS_OK) << a.name;
    EXPECT_EQ(run(8, 1), FLARE_DENSE_RESULT_SENT) << a.name;
  }
}

TEST(BlocksFlareAlgorithms, AllreducesHaveTheirOwnAlgorithmAndL1Share) {
  fs::Config cfg = hosts_config(4, "single");
  fs::flare_config(cfg).buffers = 0;  // entries without buffers= share what is left
  fs::flare_config(cfg).allreduces = "id=1 ports=0-3 algorithm=tree buffers=2; id=2 ports=4-5 algorithm=multi multi_buffers=2";
  const auto all = fs::flare_allreduces(cfg, 1 << 20);
  ASSERT_EQ(all.size(), 2u);
  // Tree over 4 children: header 64 + 4 x (2 << 2 = 8 counters) = 96; 4 buffers of 1032.
  EXPECT_EQ(all[0].algorithm, "tree");
  EXPECT_EQ(all[0].buffers_per_block, 4u);
  EXPECT_EQ(all[0].state_bytes, 96u + 4 * 1032u);
  EXPECT_EQ(all[0].states_per_cluster, 2u);
  EXPECT_EQ(all[0].l1_offset, 1176u);  // after the allreduce table (FLARE_TABLE_L1_BYTES)
  // Multi with 2 buffers: 64 + 2 x 1032 = 2128 bytes; the rest of L1 after the table and
  // allreduce 1's 2 x 4224 = 8448 bytes: floor((1048576 - 1176 - 8448) / 2128) = 488 states.
  EXPECT_EQ(all[1].algorithm, "multi");
  EXPECT_EQ(all[1].state_bytes, 2128u);
  EXPECT_EQ(all[1].l1_offset, 1176u + 8448u);
  EXPECT_EQ(all[1].states_per_cluster, 488u);

  HandlerHarness h(cfg, "flare_dense");
  const Bytes one = elems_of<int32_t>({1, 2}), ten = elems_of<int32_t>({10, 20});
  auto run = [&](uint32_t ar, uint32_t block, uint16_t rank, const Bytes& v) {
    return h.run(flare_frame(block, rank, rank, FLARE_INT32, FLARE_OP_SUM, v, ar), rank);
  };
  // Interleaved blocks 0 of both allreduces: each completes with its own children's data.
  EXPECT_EQ(run(1, 0, 0, one).outcome, FS_OK);
  EXPECT_EQ(run(2, 0, 0, ten).outcome, FS_OK);
  EXPECT_EQ(run(1, 0, 1, one).outcome, FS_OK);
  EXPECT_EQ(run(1, 0, 2, one).outcome, FS_OK);
  const HandlerCall r2 = run(2, 0, 1, ten);
  ASSERT_EQ(r2.outcome, FLARE_DENSE_RESULT_SENT);
  EXPECT_EQ(elems_from<int32_t>(r2.sent.at(0).data), (std::vector<int32_t>{20, 40}));
  EXPECT_EQ(r2.sent.at(0).ports, (std::vector<uint32_t>{4, 5}));
  // Allreduce 1 has a window of 2 states x 2 clusters: block 4 would reuse block 0's state.
  EXPECT_EQ(run(1, 4, 0, one).outcome, FLARE_DENSE_WINDOW_EXCEEDED);
  EXPECT_EQ(run(2, 4, 0, ten).outcome, FS_OK);  // allreduce 2 has hundreds of states per cluster
  const HandlerCall r1 = run(1, 0, 3, one);
  ASSERT_EQ(r1.outcome, FLARE_DENSE_RESULT_SENT);
  EXPECT_EQ(elems_from<int32_t>(r1.sent.at(0).data), (std::vector<int32_t>{4, 8}));
  EXPECT_EQ(run(3, 0, 0, one).outcome, FLARE_DENSE_UNKNOWN_ALLREDUCE);
  EXPECT_EQ(h.outcome_name(FLARE_DENSE_UNKNOWN_ALLREDUCE), "unknown_allreduce");
  // Rank 2 is not a child of allreduce 2 (2 children).
  EXPECT_EQ(run(2, 1, 2, ten).outcome, FLARE_DENSE_BAD_RANK);
}

TEST(BlocksFlareAlgorithms, BelowTheRootTheAggregateGoesUpAndResultsComeDown) {
  for (const char* algo : {"single", "multi", "tree"}) {
    fs::Config cfg = hosts_config(3, algo, 2);
    fs::flare_config(cfg).parent = "9";
    fs::flare_config(cfg).rank = 5;
    HandlerHarness h(cfg, "flare_dense");
    HandlerCall last;
    for (uint16_t r = 0; r < 3; ++r)
      last = h.run(flare_frame(2, r, r, FLARE_INT32, FLARE_OP_SUM, elems_of<int32_t>({r + 1, 100})), r);
    ASSERT_EQ(last.outcome, FLARE_DENSE_SENT_UP) << algo;
    ASSERT_EQ(last.sent.size(), 1u);
    EXPECT_EQ(last.sent[0].kind, SentFrame::kSend);
    EXPECT_EQ(last.sent[0].ports, std::vector<uint32_t>{9});
    const flare_header_t up = flare_header_of(last.sent[0].data);
    EXPECT_EQ(up.kind, FLARE_KIND_CONTRIB);
    EXPECT_EQ(up.sender_rank, 5u);
    EXPECT_EQ(up.block_id, 2u);
    EXPECT_EQ(up.allreduce_id, 7u);
    EXPECT_EQ(elems_from<int32_t>(last.sent[0].data), (std::vector<int32_t>{6, 300}));
    // The parent's result for the block comes back on port 9 and goes to every child.
    const Bytes result = flare_frame(2, FLARE_RANK_SWITCH, 9, FLARE_INT32, FLARE_OP_SUM, elems_of<int32_t>({60, 3000}), 7,
                                     FLARE_KIND_RESULT);
    const HandlerCall down = h.run(result, 9);
    ASSERT_EQ(down.outcome, FLARE_DENSE_RESULT_FORWARDED);
    ASSERT_EQ(down.sent.size(), 1u);
    EXPECT_EQ(down.sent[0].ports, (std::vector<uint32_t>{0, 1, 2}));
    EXPECT_EQ(down.sent[0].data, result);
    // A result from anywhere but the parent port is not accepted.
    EXPECT_EQ(h.run(result, 1).outcome, FLARE_DENSE_MALFORMED);
  }
  // At the root a result packet is malformed.
  HandlerHarness root(hosts_config(3, "single"), "flare_dense");
  EXPECT_EQ(root.run(flare_frame(2, FLARE_RANK_SWITCH, 9, FLARE_INT32, FLARE_OP_SUM, elems_of<int32_t>({1}), 7,
                                 FLARE_KIND_RESULT),
                     9)
                .outcome,
            FLARE_DENSE_MALFORMED);
}

TEST(BlocksFlareAlgorithms, SetupPicksTheAlgorithmBySizeAsFlareDoes) {
  // Flare 6.4: single above 512 KiB, 4 buffers above 256 KiB, 2 above 128 KiB, tree below, and
  // tree whenever reproducibility is asked for; an explicit algorithm overrides.
  struct Case {
    uint64_t bytes;
    bool reproducible;
    const char* algorithm;
    const char* want;
    unsigned buffers;
  } cases[] = {
      {64 << 10, false, "auto", "tree", 3},     {128 << 10, false, "auto", "tree", 3},
      {(128 << 10) + 1, false, "auto", "multi", 2}, {256 << 10, false, "auto", "multi", 2},
      {(256 << 10) + 1, false, "auto", "multi", 4}, {512 << 10, false, "auto", "multi", 4},
      {(512 << 10) + 1, false, "auto", "single", 1}, {0, false, "auto", "single", 1},
      {1 << 20, true, "auto", "tree", 3},       {64 << 10, false, "single", "single", 1},
      {1 << 20, true, "multi", "multi", 4},
  };
  for (const Case& c : cases) {
    fs::Config cfg = hosts_config(3, c.algorithm);
    fs::flare_config(cfg).buffers = 0;
    fs::flare_config(cfg).bytes = c.bytes;
    fs::flare_config(cfg).reproducible = c.reproducible;
    const auto all = fs::flare_allreduces(cfg, 1 << 20);
    EXPECT_EQ(all.at(0).algorithm, c.want) << c.bytes << " " << c.algorithm;
    EXPECT_EQ(all.at(0).buffers_per_block, c.buffers) << c.bytes << " " << c.algorithm;
  }
}

TEST(BlocksFlareAlgorithms, AllreduceEntriesAreChecked) {
  auto error = [](const std::string& list) -> std::string {
    fs::Config cfg = hosts_config(4, "single");
    fs::flare_config(cfg).allreduces = list;
    try {
      fs::flare_allreduces(cfg, 1 << 20);
    } catch (const fs::InputError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(error("id=1 ports=0-3; id=1 ports=4"), "'flare.allreduces': allreduce id 1 twice");
  EXPECT_EQ(error("id=1"), "flare.allreduces entry 1: needs id= and ports=");
  EXPECT_EQ(error("id=1 ports=0-3; id=2 ports=4 colour=red"),
            "flare.allreduces entry 2: unknown key 'colour' (id, ports, algorithm, multi_buffers, bytes, reproducible, "
            "parent, rank, max_payload, buffers)");
  EXPECT_EQ(error("id=1 ports=0-3 algorithm=fast"),
            "flare.allreduces entry 1: bad value 'fast' for 'flare.algorithm': expected one of auto, single, multi, tree");
  EXPECT_EQ(error("id=1 ports=0-30"),
            "bad value '0-30' for 'flare.allreduces entry 1: ports': port 20 does not exist (ports.count = 20)");
  EXPECT_EQ(error("id=1 ports=0-3 parent=2"),
            "bad value '2' for 'flare.allreduces entry 1: parent': port 2 is a child");
  EXPECT_EQ(error("id=1 ports=0-3 id=2"), "flare.allreduces entry 1: 'id' given twice");
  EXPECT_EQ(error("id=1 ports=0-3 algorithm=multi multi_buffers=1"),
            "bad value '1' for 'flare.allreduces entry 1: multi_buffers': 2 to 16 buffers per block");
  // 1000 single-buffer states of 1096 bytes and the 1176-byte allreduce table.
  EXPECT_EQ(error("id=1 ports=0-3 buffers=1000"),
            "the allreduces' flare.buffers need 1097176 bytes of L1 per cluster (1176 of them the allreduce table); "
            "the L1 state area has 1048576");
}

}  // namespace
}  // namespace fs_tb
