// The Flare sparse handler on the host harness, against a reference written here: randomised sparse
// vectors of 2 to 16 hosts at densities from 0.1% to 50%, cut into blocks and packets as a host
// does (blocks split over several packets, empty blocks as one header-only packet), sent in a
// shuffled order with duplicates; the result packets every host gets are merged and compared with
// the dense reduction of all hosts' vectors, for each storage x algorithm x dtype x operator. Also
// spills, the two-level tree (hash tables at the leaves, an array at the root) and malformed
// packets, which must change nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "blocks/handler_harness.h"
#include "flare/flare_sparse.h"
#include "protocols/flare_sparse/sparse_config.h"
#include "protocols/flare_sparse/sparse_frame.h"
#include "protocols/flare_sparse/sparse_setup.h"
#include "support/flare_sparse_reference.h"

namespace {

using fs_tb::HandlerHarness;
using namespace fs_tb::sparse;

struct RunCounts {
  std::map<std::string, uint64_t> outcomes;
  uint64_t duplicates_sent = 0;
  std::vector<std::pair<std::string, std::vector<fs::Bytes>>> spill_calls;  // outcome "spilled": what they sent
};

// Sends every host's packets for blocks two at a time (the two live in different clusters), in a
// shuffled order with duplicates; every result must go to all hosts.
RunCounts run_workload(HandlerHarness& sw, const Workload& w, const Params& p, Received& got) {
  std::mt19937_64 rng(p.seed * 7919 + 1);
  RunCounts counts;
  std::vector<uint32_t> all_ports;
  for (unsigned h = 0; h < p.hosts; ++h) all_ports.push_back(h);
  for (uint32_t b0 = 0; b0 < p.blocks; b0 += 2) {
    std::vector<std::pair<unsigned, fs::Bytes>> frames;
    for (uint32_t b = b0; b < std::min<uint32_t>(b0 + 2, p.blocks); ++b)
      for (unsigned h = 0; h < p.hosts; ++h)
        for (fs::Bytes& f : host_packets(p, h, b, w.v[h][b])) frames.emplace_back(h, std::move(f));
    std::shuffle(frames.begin(), frames.end(), rng);
    const size_t originals = frames.size();
    for (size_t i = 0; i < originals; ++i)
      if (double(rng() % 1000) < p.dup * 1000) {
        // A copy somewhere after the original (its block may be finished by then: still a duplicate).
        const size_t at = i + 1 + size_t(rng() % (frames.size() - i));
        frames.insert(frames.begin() + long(at), frames[i]);
        ++counts.duplicates_sent;
      }
    for (const auto& [host, frame] : frames) {
      const fs_tb::HandlerCall c = sw.run(frame, host, uint32_t(rng() % 2), uint32_t(rng() % 8));
      ++counts.outcomes[sw.outcome_name(c.outcome)];
      if (sw.outcome_name(c.outcome) == "spilled") {
        counts.spill_calls.emplace_back();
        for (const fs_tb::SentFrame& s : c.sent) counts.spill_calls.back().second.push_back(s.data);
      }
      for (const fs_tb::SentFrame& s : c.sent) {
        EXPECT_EQ(s.kind, fs_tb::SentFrame::kMulticast);
        EXPECT_EQ(s.ports, all_ports);
        got.take(s.data);
      }
    }
  }
  return counts;
}

void check_against_reference(const Params& p) {
  SCOPED_TRACE(p.storage + " " + p.algorithm + " dtype " + std::to_string(p.dtype) + " op " + std::to_string(p.op) +
               " hosts " + std::to_string(p.hosts) + " density " + std::to_string(p.density));
  const Workload w = make_workload(p);
  const fs::Config cfg = switch_config(p, w.span, "0-" + std::to_string(p.hosts - 1));
  // A tree of arrays keeps a span of 4-byte values per child: at low densities that can be more
  // than a cluster's L1 holds, which the installer says.
  const uint64_t l1 = fs::PspinMemory(cfg.pspin, cfg.hpu).l1_layout().state_bytes();
  if (p.algorithm == "tree" && p.storage == "array" && uint64_t(p.hosts) * w.span * 4 > l1) {
    try {
      HandlerHarness sw(cfg, "flare_sparse");
      ADD_FAILURE() << "a block state larger than L1 was installed";
    } catch (const fs::InputError& e) {
      EXPECT_NE(std::string(e.what()).find("array storage of " + std::to_string(w.span * 4) +
                                           " bytes per child) does not fit in its share of the " + std::to_string(l1) +
                                           "-byte L1 state area"),
                std::string::npos)
          << e.what();
    }
    return;
  }
  HandlerHarness sw(cfg, "flare_sparse");
  Received got;
  const RunCounts counts = run_workload(sw, w, p, got);
  EXPECT_EQ(got.problems, std::vector<std::string>{});
  for (uint32_t b = 0; b < p.blocks; ++b) {
    std::string problem;
    const Vec merged = got.block(b, p.op, p.dtype, &problem);
    EXPECT_EQ(problem, "") << "block " << b;
    const bool tree_order = p.algorithm == "tree" && p.storage == "array";
    EXPECT_EQ(without_zeros(merged), without_zeros(tree_order ? tree_reference(w, b, p) : reference(w, b, p)))
        << "block " << b;
  }
  // Every block completed once; every duplicate was refused, nothing else was.
  EXPECT_EQ(counts.outcomes.count("result_sent") ? counts.outcomes.at("result_sent") : 0, p.blocks);
  EXPECT_EQ(counts.outcomes.count("duplicate") ? counts.outcomes.at("duplicate") : 0, counts.duplicates_sent);
  for (const auto& [name, n] : counts.outcomes)
    EXPECT_TRUE(name == "ok" || name == "spilled" || name == "result_sent" || name == "duplicate") << name << " " << n;
}

TEST(BlocksFlareSparseHandler, EveryStorageAlgorithmDtypeAndOperatorMatchesTheDenseReference) {
  uint64_t seed = 1;
  for (const char* storage : {"hash", "array"})
    for (const char* algorithm : {"single", "tree"})
      for (uint8_t dtype : {FLARE_INT32, FLARE_INT16, FLARE_INT8, FLARE_FLOAT32})
        for (uint8_t op : {FLARE_OP_SUM, FLARE_OP_MIN, FLARE_OP_MAX}) {
          Params p;
          p.storage = storage, p.algorithm = algorithm, p.dtype = dtype, p.op = op, p.seed = seed++;
          check_against_reference(p);
        }
}

TEST(BlocksFlareSparseHandler, HostCountsAndDensitiesFromATenthOfAPercentToHalf) {
  uint64_t seed = 100;
  for (const char* storage : {"hash", "array"})
    for (const char* algorithm : {"single", "tree"})
      for (unsigned hosts : {2u, 3u, 8u, 16u})
        for (double density : {0.001, 0.01, 0.1, 0.2, 0.5}) {
          Params p;
          p.storage = storage, p.algorithm = algorithm, p.hosts = hosts, p.density = density, p.seed = seed++;
          p.dtype = seed % 2 ? FLARE_INT32 : FLARE_FLOAT32;
          p.blocks = 4;
          check_against_reference(p);
        }
}

TEST(BlocksFlareSparseHandler, TheTreeOverArraysGivesTheSameFloatBitsWhateverTheArrivalOrder) {
  for (uint64_t seed : {11u, 12u, 13u}) {
    Params p;
    p.storage = "array", p.algorithm = "tree", p.dtype = FLARE_FLOAT32, p.hosts = 5, p.exact_floats = false;
    p.seed = seed;
    check_against_reference(p);  // compares with the tree's order bit for bit
  }
}

// A small hash table makes pairs collide: spill packets go out in the middle of a block, before
// its last packet, and the merged result is still exact.
TEST(BlocksFlareSparseHandler, ASpillBufferFillingInTheMiddleOfABlockGoesOutAtOnce) {
  Params p;
  p.hosts = 4, p.pairs = 8, p.hash_slots = 8, p.density = 0.05, p.blocks = 2, p.dup = 0;
  const Workload w = make_workload(p);
  HandlerHarness sw(switch_config(p, w.span, "0-3"), "flare_sparse");
  Received got;
  const RunCounts counts = run_workload(sw, w, p, got);
  ASSERT_GT(counts.outcomes.count("spilled"), 0u);
  // The packet whose pair filled the spill buffer sent it at once: one full packet of 8 pairs, not
  // the block's last.
  for (const auto& [outcome, frames] : counts.spill_calls) {
    ASSERT_EQ(frames.size(), 1u);
    fs::SparsePacket pkt;
    std::string why;
    ASSERT_TRUE(fs::parse_sparse_packet(frames[0].data(), frames[0].size(), &pkt, &why)) << why;
    EXPECT_EQ(pkt.pairs.size(), 8u);
    EXPECT_EQ(pkt.h.flags, FLARE_FLAG_SPARSE);
    EXPECT_EQ(pkt.h.shards, 0u);
    EXPECT_EQ(pkt.h.kind, FLARE_KIND_RESULT);
  }
  for (const auto& [block, pkts] : got.by_block) {
    std::string problem;
    EXPECT_EQ(without_zeros(got.block(block, p.op, p.dtype, &problem)), without_zeros(reference(w, block, p)));
    EXPECT_EQ(problem, "");
  }
}

TEST(BlocksFlareSparseHandler, AnEmptyBlockFromEveryHostGivesOneHeaderOnlyResult) {
  Params p;
  p.hosts = 3;
  const Workload w{100, std::vector<std::vector<Vec>>(3, std::vector<Vec>(1))};
  for (const char* storage : {"hash", "array"}) {
    p.storage = storage;
    HandlerHarness sw(switch_config(p, w.span, "0-2"), "flare_sparse");
    std::vector<fs_tb::HandlerCall> calls;
    for (unsigned h = 0; h < 3; ++h) calls.push_back(sw.run(host_packets(p, h, 0, {})[0], h));
    EXPECT_EQ(sw.outcome_name(calls[2].outcome), "result_sent");
    ASSERT_EQ(calls[2].sent.size(), 1u);
    fs::SparsePacket pkt;
    std::string why;
    ASSERT_TRUE(fs::parse_sparse_packet(calls[2].sent[0].data.data(), calls[2].sent[0].data.size(), &pkt, &why)) << why;
    EXPECT_EQ(pkt.pairs.size(), 0u);
    EXPECT_EQ(pkt.h.flags, FLARE_FLAG_SPARSE | FLARE_FLAG_LAST);
    EXPECT_EQ(pkt.h.shard, 0u);
    EXPECT_EQ(pkt.h.shards, 1u);
  }
}

// Two leaves (hash tables with a small table, so they spill upwards) under a root (array), all
// three as handler harnesses joined by hand: leaf k sends on port 19 and is child k of the root;
// the root's results go back to the leaves, which pass them to their hosts.
TEST(BlocksFlareSparseHandler, HashTablesAtTheLeavesAndAnArrayAtTheRoot) {
  Params p;
  p.hosts = 6, p.pairs = 8, p.density = 0.05, p.blocks = 4, p.dup = 0;
  const Workload w = make_workload(p);
  Params leaf_p = p;
  leaf_p.storage = "auto", leaf_p.hash_slots = 8;
  fs::Config leaf_cfg = switch_config(leaf_p, w.span, "0-2");
  fs::sparse_config(leaf_cfg).parent = "19";
  std::vector<std::unique_ptr<HandlerHarness>> leaves;
  for (unsigned k = 0; k < 2; ++k) {
    fs::sparse_config(leaf_cfg).rank = k;
    leaves.push_back(std::make_unique<HandlerHarness>(leaf_cfg, "flare_sparse"));
  }
  Params root_p = p;
  root_p.storage = "auto";
  HandlerHarness root(switch_config(root_p, w.span, "0-1"), "flare_sparse");
  std::vector<Received> host_got(6);
  uint64_t spills_up = 0;
  std::mt19937_64 rng(5);
  for (uint32_t b = 0; b < p.blocks; ++b) {
    std::vector<std::pair<unsigned, fs::Bytes>> frames;  // (global host, frame with its leaf rank)
    for (unsigned g = 0; g < 6; ++g) {
      Params hp = p;
      for (fs::Bytes& f : host_packets(hp, g % 3, b, w.v[g][b])) frames.emplace_back(g, std::move(f));
    }
    std::shuffle(frames.begin(), frames.end(), rng);
    std::vector<std::pair<unsigned, fs::Bytes>> up;  // (leaf, frame) to the root
    for (const auto& [g, f] : frames) {
      const fs_tb::HandlerCall c = leaves[g / 3]->run(f, g % 3);
      for (const fs_tb::SentFrame& s : c.sent) {
        EXPECT_EQ(s.kind, fs_tb::SentFrame::kSend);
        EXPECT_EQ(s.ports, std::vector<uint32_t>{19});
        up.emplace_back(g / 3, s.data);
      }
      if (leaves[g / 3]->outcome_name(c.outcome) == "spilled") ++spills_up;
    }
    std::shuffle(up.begin(), up.end(), rng);
    for (const auto& [leaf, f] : up) {
      const fs_tb::HandlerCall c = root.run(f, leaf);
      EXPECT_NE(root.outcome_name(c.outcome), "malformed");
      for (const fs_tb::SentFrame& s : c.sent) {
        EXPECT_EQ(s.ports, (std::vector<uint32_t>{0, 1}));
        for (unsigned k = 0; k < 2; ++k) {
          const fs_tb::HandlerCall down = leaves[k]->run(s.data, 19);
          EXPECT_EQ(leaves[k]->outcome_name(down.outcome), "result_forwarded");
          ASSERT_EQ(down.sent.size(), 1u);
          EXPECT_EQ(down.sent[0].ports, (std::vector<uint32_t>{0, 1, 2}));
          for (unsigned h = 0; h < 3; ++h) host_got[k * 3 + h].take(down.sent[0].data);
        }
      }
    }
  }
  EXPECT_GT(spills_up, 0u);  // the leaves' small tables did spill upwards
  for (unsigned g = 0; g < 6; ++g)
    for (uint32_t b = 0; b < p.blocks; ++b) {
      std::string problem;
      EXPECT_EQ(without_zeros(host_got[g].block(b, p.op, p.dtype, &problem)), without_zeros(reference(w, b, p)))
          << "host " << g << " block " << b;
      EXPECT_EQ(problem, "") << "host " << g;
    }
}

// A malformed packet is dropped as malformed and changes nothing in the switch's memory.
TEST(BlocksFlareSparseHandler, MalformedPacketsAreDroppedAndChangeNothing) {
  Params p;
  p.hosts = 2;
  const uint32_t span = 100;
  HandlerHarness sw(switch_config(p, span, "0-1"), "flare_sparse");
  // Host 0's block 0 starts normally (packet 0 of 2).
  Vec v{{3, 30}, {50, 500}};
  std::vector<fs::Bytes> two;
  {
    Params q = p;
    q.pairs = 1;
    two = host_packets(q, 0, 0, v);
  }
  ASSERT_EQ(two.size(), 2u);
  ASSERT_EQ(sw.outcome_name(sw.run(two[0], 0).outcome), "ok");
  auto header_of = [](const fs::Bytes& f) {
    flare_sparse_header_t h;
    flare_sparse_decode(f.data() + FLARE_PAYLOAD_OFFSET, &h);
    return h;
  };
  auto rebuilt = [&](flare_sparse_header_t h, std::vector<fs::SparsePair> pairs) {
    return fs::build_sparse_packet(h, 0, pairs);
  };
  const flare_sparse_header_t last = header_of(two[1]);
  std::vector<std::pair<std::string, fs::Bytes>> bad;
  bad.emplace_back("index at the span", rebuilt(last, {{100, 5}}));
  bad.emplace_back("index far beyond the span", rebuilt(last, {{0xFFFFFFFFu, 5}}));
  {
    fs::Bytes f = rebuilt(last, {{50, 500}});
    f[FLARE_PAYLOAD_OFFSET + FLARE_OFF_COUNT + 1] = 2;  // 2 pairs claimed, 1 carried
    bad.emplace_back("pair count larger than the payload", f);
  }
  {
    flare_sparse_header_t h = last;
    h.shards = 0;  // flagged last with no count
    h.shard = 0;
    bad.emplace_back("last packet with a shard count of zero", rebuilt(h, {{50, 500}}));
  }
  {
    flare_sparse_header_t h = last;
    h.shard = 2;  // of 2: numbers are 0 and 1
    bad.emplace_back("last packet numbered past its count", rebuilt(h, {{50, 500}}));
  }
  {
    flare_sparse_header_t h = last;
    h.flags = 0;  // not last but with a count
    bad.emplace_back("a count on a packet that is not the last", rebuilt(h, {{50, 500}}));
  }
  {
    flare_sparse_header_t h = last;
    h.shard = FLARE_SPARSE_MAX_SHARDS;
    h.flags = 0;
    h.shards = 0;
    bad.emplace_back("packet number beyond the bitmap", rebuilt(h, {{50, 500}}));
  }
  {
    fs::Bytes f = rebuilt(last, {{50, 500}});
    f[FLARE_PAYLOAD_OFFSET + FLARE_OFF_KIND] = uint8_t(FLARE_FLAG_SPARSE | FLARE_FLAG_LAST | 0x10);
    bad.emplace_back("an unknown flag", f);
  }
  const std::vector<uint8_t> l1_0(sw.l1(0), sw.l1(0) + sw.l1_size()), l1_1(sw.l1(1), sw.l1(1) + sw.l1_size());
  for (const auto& [what, f] : bad) {
    const fs_tb::HandlerCall c = sw.run(f, 0);
    EXPECT_EQ(sw.outcome_name(c.outcome), "malformed") << what;
    EXPECT_TRUE(c.sent.empty()) << what;
    EXPECT_TRUE(std::equal(l1_0.begin(), l1_0.end(), sw.l1(0))) << what << ": cluster 0's L1 changed";
    EXPECT_TRUE(std::equal(l1_1.begin(), l1_1.end(), sw.l1(1))) << what << ": cluster 1's L1 changed";
  }
  // The block then completes as if nothing had happened.
  ASSERT_EQ(sw.outcome_name(sw.run(two[1], 0).outcome), "ok");
  const fs_tb::HandlerCall c = sw.run(host_packets(p, 1, 0, {{3, 1}})[0], 1);
  EXPECT_EQ(sw.outcome_name(c.outcome), "result_sent");
  Received got;
  for (const auto& s : c.sent) got.take(s.data);
  std::string problem;
  EXPECT_EQ(got.block(0, p.op, p.dtype, &problem), (Vec{{3, 31}, {50, 500}}));
  EXPECT_EQ(problem, "");
}

}  // namespace

namespace {

// Once a child's last packet has said how many it sent, a packet numbered at or past that count,
// or a last packet whose count is below a number already taken, is malformed.
TEST(BlocksFlareSparseHandler, PacketNumbersMustAgreeWithTheAnnouncedCount) {
  Params p;
  p.hosts = 2;
  HandlerHarness sw(switch_config(p, 100, "0-1"), "flare_sparse");
  auto packet = [&](uint16_t shard, uint16_t shards, uint32_t index) {
    flare_sparse_header_t h{};
    h.version = FLARE_VERSION, h.kind = FLARE_KIND_CONTRIB, h.flags = shards ? FLARE_FLAG_LAST : 0;
    h.dtype = FLARE_INT32, h.op = FLARE_OP_SUM, h.allreduce_id = 7, h.block_id = 0, h.sender_rank = 0;
    h.shard = shard, h.shards = shards;
    return fs::build_sparse_packet(h, 0, {{index, 1}});
  };
  EXPECT_EQ(sw.outcome_name(sw.run(packet(1, 2, 10), 0).outcome), "ok");   // the last of 2 first
  EXPECT_EQ(sw.outcome_name(sw.run(packet(2, 0, 11), 0).outcome), "malformed");  // number 2 of 2
  EXPECT_EQ(sw.outcome_name(sw.run(packet(0, 0, 12), 0).outcome), "ok");   // host 0 done
  // Host 1: number 3 first, then a last packet saying 2 (numbers 0 and 1): contradicts number 3.
  HandlerHarness sw2(switch_config(p, 100, "0-1"), "flare_sparse");
  auto packet1 = [&](uint16_t shard, uint16_t shards) {
    fs::Bytes f = packet(shard, shards, 20 + shard);
    f[FLARE_PAYLOAD_OFFSET + FLARE_OFF_RANK + 1] = 1;
    return f;
  };
  EXPECT_EQ(sw2.outcome_name(sw2.run(packet1(3, 0), 1).outcome), "ok");
  EXPECT_EQ(sw2.outcome_name(sw2.run(packet1(1, 2), 1).outcome), "malformed");
}

}  // namespace

namespace {

// Two sparse allreduces on one switch (flare_sparse.allreduces), each with its own children,
// algorithm, storage and share of L1, run interleaved: both give their references, their block
// states do not overlap, and an id that is not installed is refused.
TEST(BlocksFlareSparseHandler, TwoAllreducesShareTheSwitchWithPartitionedMemory) {
  Params a, b;
  a.hosts = 3, a.storage = "hash", a.seed = 21, a.blocks = 4, a.dup = 0;
  b.hosts = 2, b.storage = "array", b.algorithm = "tree", b.seed = 22, b.blocks = 4, b.dup = 0;
  const Workload wa = make_workload(a), wb = make_workload(b);
  fs::Config cfg = switch_config(a, wa.span, "0-2");
  fs::sparse_config(cfg).allreduces = "id=7 ports=0-2 storage=hash buffers=3 span=" + std::to_string(wa.span) +
                                      "; id=8 ports=3-4 storage=array algorithm=tree span=" + std::to_string(wb.span);
  const std::vector<fs::SparseAllreduce> ars = fs::sparse_allreduces(cfg, fs::PspinMemory(cfg.pspin, cfg.hpu).l1_layout().state_bytes());
  ASSERT_EQ(ars.size(), 2u);
  EXPECT_EQ(ars[0].table.states_per_cluster, 3u);
  EXPECT_EQ(ars[1].table.l1_offset, ars[0].table.l1_offset + 3 * ars[0].table.state_bytes);
  EXPECT_EQ(ars[1].table.storage_bytes, wb.span * 4);
  HandlerHarness sw(cfg, "flare_sparse");
  // Allreduce 8's packets carry id 8 and come from ports 3 and 4 (ranks 0 and 1).
  std::vector<std::pair<unsigned, fs::Bytes>> frames;
  for (uint32_t blk = 0; blk < 4; ++blk) {
    for (unsigned h = 0; h < 3; ++h)
      for (fs::Bytes& f : host_packets(a, h, blk, wa.v[h][blk])) frames.emplace_back(h, std::move(f));
    for (unsigned h = 0; h < 2; ++h)
      for (fs::Bytes& f : host_packets(b, h, blk, wb.v[h][blk])) {
        f[FLARE_PAYLOAD_OFFSET + FLARE_OFF_ALLREDUCE + 3] = 8;
        frames.emplace_back(3 + h, std::move(f));
      }
  }
  std::mt19937_64 rng(3);
  std::shuffle(frames.begin(), frames.end(), rng);
  Received got_a, got_b;
  for (const auto& [port, f] : frames) {
    const fs_tb::HandlerCall c = sw.run(f, port);
    ASSERT_NE(sw.outcome_name(c.outcome), "window_exceeded");
    for (const fs_tb::SentFrame& s : c.sent) (s.ports == std::vector<uint32_t>{0, 1, 2} ? got_a : got_b).take(s.data);
  }
  for (uint32_t blk = 0; blk < 4; ++blk) {
    std::string pa, pb;
    EXPECT_EQ(without_zeros(got_a.block(blk, a.op, a.dtype, &pa)), without_zeros(reference(wa, blk, a))) << blk;
    Vec mb;
    for (const auto& [shard, pkt] : got_b.by_block[blk]) {
      EXPECT_EQ(pkt.h.allreduce_id, 8u);
      for (const fs::SparsePair& e : pkt.pairs) merge(mb, Vec{{e.index, e.bits}}, b.op, b.dtype);
    }
    EXPECT_EQ(without_zeros(mb), without_zeros(tree_reference(wb, blk, b))) << blk;
    EXPECT_EQ(pa, "");
  }
  fs::Bytes stray = host_packets(a, 0, 0, {{1, 1}})[0];
  stray[FLARE_PAYLOAD_OFFSET + FLARE_OFF_ALLREDUCE + 3] = 9;
  EXPECT_EQ(sw.outcome_name(sw.run(stray, 0).outcome), "unknown_allreduce");
}

}  // namespace
