// Tests of sc_model/protocols/flare_sparse/sparse_verify: result packets made by hand (spills
// merged with the final packets, out of order, duplicates, a missing last or middle shard, wrong
// values and headers, unexpected blocks and ports, traffic that is not a sparse result) with
// exact counts and messages; the traffic counts; the expected file's round trip and its errors.
#include "protocols/flare_sparse/sparse_verify.h"

#include <gtest/gtest.h>

#include <cstring>
#include <sstream>

#include "common/errors.h"
#include "flare/flare_proto.h"
#include "protocols/flare_dense/flare_frame.h"

namespace fs {
namespace {

// Ports 0 and 2; 25 int16 elements in blocks of 10 (block 2 has 5); allreduce 4, sum.
// Block 0: 1 -> 5, 7 -> -3. Block 1: nothing. Block 2: 4 -> 100.
SparseExpected make_expected(uint8_t dtype = FLARE_INT16, uint8_t op = FLARE_OP_SUM) {
  SparseExpected e;
  e.ports = {0, 2};
  e.span = 10;
  e.elements = 25;
  const std::vector<SparsePairs> pairs = {{{1, 5}, {7, 0xFFFD}}, {}, {{4, 100}}};
  for (uint32_t b = 0; b < 3; ++b) {
    SparseExpectedBlock x;
    x.allreduce_id = 4;
    x.block_id = b;
    x.dtype = dtype;
    x.op = op;
    x.length = b == 2 ? 5 : 10;
    x.pairs = pairs[b];
    e.blocks.push_back(x);
  }
  return e;
}

struct Pkt {
  uint16_t port;
  uint32_t block;
  uint16_t shard;
  bool last;
  uint16_t shards;
  SparsePairs pairs;
  Picos t = 1000;
  uint16_t rank = FLARE_RANK_SWITCH;
  uint8_t dtype = FLARE_INT16, op = FLARE_OP_SUM;
};

EgressRecord result(const Pkt& p) {
  flare_sparse_header_t h{};
  h.version = FLARE_VERSION;
  h.kind = FLARE_KIND_RESULT;
  h.flags = p.last ? FLARE_FLAG_LAST : 0;
  h.dtype = p.dtype;
  h.op = p.op;
  h.allreduce_id = 4;
  h.block_id = p.block;
  h.sender_rank = p.rank;
  h.shard = p.shard;
  h.shards = p.shards;
  return EgressRecord{p.port, p.t, build_sparse_packet(h, p.port, p.pairs)};
}

// Every block to every port as one final packet.
std::vector<EgressRecord> perfect(const SparseExpected& e) {
  std::vector<EgressRecord> out;
  for (const SparseExpectedBlock& b : e.blocks)
    for (uint16_t p : e.ports) out.push_back(result({p, b.block_id, 0, true, 1, b.pairs}));
  return out;
}

TEST(SparseVerify, OneFinalPacketPerBlockPasses) {
  const SparseExpected e = make_expected();
  const VerifyReport r = verify_sparse_egress(e, perfect(e));
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.expected_packets, 6u);
  EXPECT_EQ(r.matched, 6u);
  EXPECT_EQ(r.missing + r.wrong + r.duplicate + r.unexpected, 0u);
  EXPECT_TRUE(r.problems.empty());
}

TEST(SparseVerify, SpillsMergeWithTheFinalPacketsInAnyOrder) {
  const SparseExpected e = make_expected();
  std::vector<EgressRecord> eg = perfect(e);
  // Port 0, block 0: a spill with index 1 = 7, then index 1 = -2 and 7 = -3, then an empty last
  // packet announcing 3: 7 - 2 = 5. Delivered last packet first.
  eg[0] = result({0, 0, 2, true, 3, {}});
  eg.push_back(result({0, 0, 1, false, 0, {{7, 0xFFFD}, {1, 0xFFFE}}}));
  eg.push_back(result({0, 0, 0, false, 0, {{1, 7}}}));
  // Port 2, block 1 (all zero): a spill whose values cancel with the last packet's, and an index
  // sent with value 0: both compare as absent.
  eg[3] = result({2, 1, 0, false, 0, {{3, 9}}});
  eg.push_back(result({2, 1, 1, true, 2, {{3, 0xFFF7}, {6, 0}}}));
  const VerifyReport r = verify_sparse_egress(e, eg);
  EXPECT_TRUE(r.ok) << (r.problems.empty() ? "" : r.problems[0]);
  EXPECT_EQ(r.matched, 6u);
}

TEST(SparseVerify, MinAndMaxMergeSpillsWithTheOp) {
  for (uint8_t op : {uint8_t(FLARE_OP_MIN), uint8_t(FLARE_OP_MAX)}) {
    SparseExpected e = make_expected(FLARE_INT16, op);
    e.blocks[2].pairs = {{4, op == FLARE_OP_MIN ? 0xFFF0u : 30u}};  // min -16, max 30
    std::vector<EgressRecord> eg;
    for (const SparseExpectedBlock& b : e.blocks)
      for (uint16_t p : e.ports) {
        if (b.block_id != 2) {
          Pkt k{p, b.block_id, 0, true, 1, b.pairs};
          k.op = op;
          eg.push_back(result(k));
          continue;
        }
        Pkt spill{p, 2, 0, false, 0, {{4, 30}}}, last{p, 2, 1, true, 2, {{4, 0xFFF0}}};
        spill.op = last.op = op;
        eg.push_back(result(spill));
        eg.push_back(result(last));
      }
    const VerifyReport r = verify_sparse_egress(e, eg);
    EXPECT_TRUE(r.ok) << int(op) << (r.problems.empty() ? "" : r.problems[0]);
  }
}

TEST(SparseVerify, DuplicateShardIsCountedAndIgnored) {
  const SparseExpected e = make_expected();
  std::vector<EgressRecord> eg = perfect(e);
  // Port 2 gets block 2's packet again, with other values: ignored as a duplicate.
  eg.push_back(result({2, 2, 0, true, 1, {{4, 1}}, 2500}));
  const VerifyReport r = verify_sparse_egress(e, eg);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.matched, 6u);
  EXPECT_EQ(r.duplicate, 1u);
  EXPECT_EQ(r.problems, std::vector<std::string>({"port 2 at 2.5ns: result ar=4 block=2 shard=0: duplicate"}));
}

TEST(SparseVerify, MissingLastOrMiddleShardOrWholeBlock) {
  const SparseExpected e = make_expected();
  std::vector<EgressRecord> eg = perfect(e);
  eg[0] = result({0, 0, 0, false, 0, {{1, 5}}});  // port 0, block 0: a spill, no last packet
  eg[1] = result({2, 0, 2, true, 3, {{7, 0xFFFD}}});  // port 2, block 0: shards 0 and 1 never come
  eg.push_back(result({2, 0, 0, false, 0, {{1, 5}}}));
  eg.erase(eg.begin() + 5);  // port 2, block 2: nothing
  const VerifyReport r = verify_sparse_egress(e, eg);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.matched, 3u);
  EXPECT_EQ(r.missing, 3u);
  EXPECT_EQ(r.wrong + r.duplicate + r.unexpected, 0u);
  EXPECT_EQ(r.problems, std::vector<std::string>({"port 0: missing result ar=4 block=0: no last packet (got shards 0)",
                                                  "port 2: missing result ar=4 block=0: shards 1 of 0..2 not received",
                                                  "port 2: missing result ar=4 block=2"}));
  EXPECT_EQ(verify_sparse_egress(e, {}).missing, 6u);
}

TEST(SparseVerify, WrongValuesAndHeaders) {
  const SparseExpected e = make_expected();
  std::vector<EgressRecord> eg = perfect(e);
  eg[4] = result({0, 2, 0, true, 1, {{4, 99}}});             // block 2, port 0: a wrong value
  eg[5] = result({2, 2, 0, true, 1, {{4, 100}, {2, 1}}});    // block 2, port 2: an extra index
  eg[2] = result({0, 1, 0, true, 1, {{6, 1}}, 3000});        // block 1, port 0: a value where it has none
  eg[3] = result({2, 1, 0, true, 1, {{10, 1}}, 3000});       // block 1, port 2: index 10 beyond 10
  Pkt rank{0, 0, 0, true, 1, e.blocks[0].pairs};
  rank.rank = 3;
  eg[0] = result(rank);
  Pkt dtype{2, 0, 0, true, 1, {}};
  dtype.dtype = FLARE_INT32;
  eg[1] = result(dtype);
  const VerifyReport r = verify_sparse_egress(e, eg);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.matched, 0u);
  EXPECT_EQ(r.wrong, 6u);
  EXPECT_EQ(r.problems, std::vector<std::string>({
                            "port 0 at 1ns: result ar=4 block=0 shard=0: wrong: rank 3, expected 65535",
                            "port 2 at 1ns: result ar=4 block=0 shard=0: wrong: dtype int32(0), expected int16",
                            "port 2 at 3ns: result ar=4 block=1 shard=0: wrong: index 10 beyond the block's 10 elements",
                            "port 0: wrong result ar=4 block=1: index 6 is 1, expected 0",
                            "port 0: wrong result ar=4 block=2: index 4 is 99, expected 100",
                            "port 2: wrong result ar=4 block=2: index 2 is 1, expected 0",
                        }));
}

TEST(SparseVerify, InconsistentShardFieldsAreWrong) {
  const SparseExpected e = make_expected();
  const std::vector<std::pair<std::vector<Pkt>, std::string>> cases = {
      {{{0, 1, 0, true, 0, {}}}, "port 0 at 1ns: result ar=4 block=1 shard=0: wrong: last packet with shard 0 of shards 0"},
      {{{0, 1, 3, true, 2, {}}}, "port 0 at 1ns: result ar=4 block=1 shard=3: wrong: last packet with shard 3 of shards 2"},
      {{{0, 1, 0, false, 2, {}}}, "port 0 at 1ns: result ar=4 block=1 shard=0: wrong: shards 2 without the last flag"},
      {{{0, 1, 0, true, 2, {}}, {0, 1, 1, true, 2, {}}},
       "port 0 at 1ns: result ar=4 block=1 shard=1: wrong: a second last packet (shard 1)"},
      {{{0, 1, 4, false, 0, {}}, {0, 1, 0, true, 2, {}}, {0, 1, 1, false, 0, {}}},
       "port 0: wrong result ar=4 block=1: shard 4 beyond the 2 shards of the last packet"},
  };
  for (const auto& [pkts, message] : cases) {
    std::vector<EgressRecord> eg = perfect(e);
    eg.erase(eg.begin() + 2);  // port 0, block 1: the case's packets instead
    for (const Pkt& p : pkts) eg.push_back(result(p));
    const VerifyReport r = verify_sparse_egress(e, eg);
    EXPECT_EQ(r.wrong, 1u) << message;
    EXPECT_EQ(r.matched, 5u) << message;
    EXPECT_EQ(r.problems, std::vector<std::string>({message}));
  }
  // A pair count that disagrees with the packet's length.
  std::vector<EgressRecord> eg = perfect(e);
  eg[2].data[42 + 15] = 1;  // port 0, block 1: count 1, no pair bytes
  const VerifyReport r = verify_sparse_egress(e, eg);
  EXPECT_EQ(r.wrong, 1u);
  EXPECT_EQ(r.problems, std::vector<std::string>({"port 0 at 1ns: result ar=4 block=1 shard=0: wrong: 1 pairs need 26 "
                                                  "UDP payload bytes, the packet has 20"}));
}

TEST(SparseVerify, UnexpectedBlocksAndPortsAndIgnoredTraffic) {
  const SparseExpected e = make_expected();
  std::vector<EgressRecord> eg = perfect(e);
  eg.push_back(result({0, 9, 0, true, 1, {}}));  // no such block
  eg.push_back(result({1, 0, 0, true, 1, {}}));  // not a host port
  // Ignored: a contribution, a dense result, a sparse result to another UDP port.
  flare_sparse_header_t c{};
  c.version = FLARE_VERSION;
  c.kind = FLARE_KIND_CONTRIB;
  c.dtype = FLARE_INT16;
  c.allreduce_id = 4;
  eg.push_back(EgressRecord{0, 0, build_sparse_packet(c, 0, {{1, 1}})});
  flare_header_t d{};
  d.version = FLARE_VERSION;
  d.kind = FLARE_KIND_RESULT;
  d.dtype = FLARE_INT16;
  d.allreduce_id = 4;
  d.elem_count = 1;
  const uint8_t elem[2] = {1, 0};
  eg.push_back(EgressRecord{0, 0, build_flare_packet(d, 0, elem, 2)});
  c.kind = FLARE_KIND_RESULT;
  c.sender_rank = FLARE_RANK_SWITCH;
  c.block_id = 9;
  c.flags = FLARE_FLAG_LAST;
  c.shards = 1;
  eg.push_back(EgressRecord{0, 0, build_sparse_packet(c, 0, {}, 5000)});
  const VerifyReport r = verify_sparse_egress(e, eg);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.matched, 6u);
  EXPECT_EQ(r.unexpected, 2u);
  EXPECT_EQ(r.problems, std::vector<std::string>({"port 0 at 1ns: result ar=4 block=9 shard=0: unexpected (block not expected)",
                                                  "port 1 at 1ns: result ar=4 block=0 shard=0: unexpected (port is not a host port)"}));
}

TEST(SparseVerify, Float32WithinTheDenseTolerance) {
  SparseExpected e = make_expected(FLARE_FLOAT32);
  auto bits = [](float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
  };
  e.blocks[0].pairs = {{1, bits(1.0f)}, {7, bits(-0.5f)}};
  e.blocks[2].pairs = {{4, bits(1e-7f)}};
  std::vector<EgressRecord> eg;
  auto add = [&](uint16_t port, uint32_t block, SparsePairs pairs) {
    Pkt p{port, block, 0, true, 1, std::move(pairs)};
    p.dtype = FLARE_FLOAT32;
    eg.push_back(result(p));
  };
  add(0, 0, {{1, bits(1.000009f)}, {7, bits(-0.5f)}});  // within 1e-5 relative
  add(2, 0, {{1, bits(1.0f)}, {7, bits(-0.50002f)}});    // 2e-5 off: wrong
  add(0, 1, {{3, bits(4e-7f)}});                          // absent = 0, within 1e-6 absolute
  add(2, 1, {});
  add(0, 2, {});                                          // 1e-7 left out: within 1e-6
  add(2, 2, {{4, bits(2e-6f)}});                          // 1.9e-6 off: wrong
  const VerifyReport r = verify_sparse_egress(e, eg);
  EXPECT_EQ(r.matched, 4u);
  EXPECT_EQ(r.wrong, 2u);
  EXPECT_EQ(r.problems, std::vector<std::string>({"port 2: wrong result ar=4 block=0: index 7 is -0.50002, expected -0.5",
                                                  "port 2: wrong result ar=4 block=2: index 4 is 2e-06, expected 1e-07"}));
}

TEST(SparseVerify, TrafficCountsPacketsBytesAndPairsPerPort) {
  const SparseExpected e = make_expected();
  std::vector<EgressRecord> eg = perfect(e);
  eg.push_back(result({0, 0, 1, false, 0, {{1, 1}, {2, 2}}}));  // a spill: 2 more pairs on port 0
  eg.push_back(result({0, 9, 0, true, 1, {{1, 1}}}));           // not an expected block: not counted
  const SparseTraffic t = sparse_result_traffic(e, eg);
  EXPECT_EQ(t.reference_pairs, 3u);
  ASSERT_EQ(t.ports.size(), 2u);
  EXPECT_EQ(t.ports[0].port, 0);
  EXPECT_EQ(t.ports[0].packets, 4u);
  EXPECT_EQ(t.ports[0].pairs, 5u);
  // Frames: 62 header bytes + 6 per int16 pair: 2 + 0 + 1 pairs, then 2.
  EXPECT_EQ(t.ports[0].bytes, 4 * 62 + 6 * 5u);
  EXPECT_EQ(t.ports[1].port, 2);
  EXPECT_EQ(t.ports[1].packets, 3u);
  EXPECT_EQ(t.ports[1].pairs, 3u);
  EXPECT_EQ(t.ports[1].bytes, 3 * 62 + 6 * 3u);
}

TEST(SparseExpectedFile, RoundTrip) {
  SparseExpected e = make_expected(FLARE_FLOAT32, FLARE_OP_MAX);
  const float values[] = {0.1f, -1e-7f, 3.4028235e38f};
  uint32_t b[3];
  std::memcpy(b, values, sizeof b);
  e.blocks[0].pairs = {{0, b[0]}, {9, b[1]}};
  e.blocks[2].pairs = {{4, b[2]}};
  e.udp_port = 5000;
  std::ostringstream out;
  write_sparse_expected(out, e);
  EXPECT_NE(out.str().find("result ar=4 block=0 dtype=float32 op=max count=2 pairs=0:0.1,9:-1e-07\n"), std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("result ar=4 block=1 dtype=float32 op=max count=0 pairs=-\n"), std::string::npos);
  const SparseExpected back = parse_sparse_expected("x.expected", out.str());
  EXPECT_EQ(back.ports, e.ports);
  EXPECT_EQ(back.udp_port, 5000);
  EXPECT_EQ(back.span, 10u);
  EXPECT_EQ(back.elements, 25u);
  ASSERT_EQ(back.blocks.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(back.blocks[i].block_id, e.blocks[i].block_id);
    EXPECT_EQ(back.blocks[i].length, e.blocks[i].length);
    EXPECT_EQ(back.blocks[i].dtype, FLARE_FLOAT32);
    EXPECT_EQ(back.blocks[i].op, FLARE_OP_MAX);
    EXPECT_EQ(back.blocks[i].pairs, e.blocks[i].pairs) << i;  // the same bits
  }
  // Integers, negative ones included.
  std::ostringstream ints;
  write_sparse_expected(ints, make_expected());
  EXPECT_NE(ints.str().find("pairs=1:5,7:-3\n"), std::string::npos) << ints.str();
  EXPECT_EQ(parse_sparse_expected("i", ints.str()).blocks[0].pairs, make_expected().blocks[0].pairs);
}

TEST(SparseExpectedFile, MalformedLinesNameTheLine) {
  const std::string head = "flaresim-expected-sparse 1\nports 0 1\nspan 10\nelements 25\n";
  const std::string ok = "result ar=0 block=1 dtype=int8 op=sum count=2 pairs=3:-128,9:127\n";
  EXPECT_EQ(parse_sparse_expected("f", head + ok).blocks[0].pairs, (SparsePairs{{3, 0x80}, {9, 0x7F}}));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "f: empty file (no 'flaresim-expected-sparse 1' header)"},
      {"flaresim-expected 1\n", "f:1: expected the header line 'flaresim-expected-sparse 1'"},
      {"flaresim-expected-sparse 1\nspan 10\nelements 25\n" + ok, "f: missing ports line"},
      {head, "f: no result lines"},
      {head + "ports 3\n", "f:5: second ports line (first on line 2)"},
      {head + "span 11\n", "f:5: second span line (first on line 3)"},
      {"flaresim-expected-sparse 1\nports 0\nspan 0\n", "f:3: span: expected one number from 1 to 4294967295"},
      {"flaresim-expected-sparse 1\nports 0\n" + ok, "f:3: result: before the span and elements lines"},
      {head + "udp_port 0\n", "f:5: udp_port: expected one port from 1 to 65535"},
      {head + "ports_x 1\n", "f:5: unknown line type 'ports_x' (expected ports, udp_port, span, elements or result)"},
      {head + "result ar=0 block=1 dtype=int8 op=sum count=1\n", "f:5: result: missing key pairs"},
      {head + "result ar=0 block=1 dtype=int8 op=sum count=1 pairs=1:1 x=2\n",
       "f:5: result: unknown item 'x=2' (keys: ar block dtype op count pairs)"},
      {head + "result ar=0 block=3 dtype=int8 op=sum count=0 pairs=-\n",
       "f:5: result: bad value '3' for key block (expected 0..2: 25 elements in blocks of 10)"},
      {head + "result ar=0 block=2 dtype=int8 op=sum count=1 pairs=5:1\n",
       "f:5: result: pairs: item 1 '5:1': index 5 beyond the block's 5 elements"},
      {head + "result ar=0 block=1 dtype=int8 op=sum count=2 pairs=5:1,5:2\n",
       "f:5: result: pairs: item 2 '5:2': index 5 not above the previous 5"},
      {head + "result ar=0 block=1 dtype=int8 op=sum count=1 pairs=5:128\n",
       "f:5: result: pairs: item 1 '5:128': bad int8 value '128'"},
      {head + "result ar=0 block=1 dtype=int8 op=sum count=1 pairs=5\n", "f:5: result: pairs: item 1 '5' is not index:value"},
      {head + "result ar=0 block=1 dtype=int8 op=sum count=3 pairs=5:1\n", "f:5: result: count=3 but pairs= lists 1"},
      {head + "result ar=0 block=1 dtype=int64 op=sum count=0 pairs=-\n",
       "f:5: result: bad value 'int64' for key dtype (expected int32, int16, int8 or float32)"},
      {head + ok + ok, "f:6: result: ar=0 block=1 already given on line 5"},
  };
  for (const auto& [text, message] : cases) {
    try {
      parse_sparse_expected("f", text);
      ADD_FAILURE() << "no error for:\n" << text;
    } catch (const InputError& err) {
      EXPECT_EQ(std::string(err.what()), message);
    }
  }
}

}  // namespace
}  // namespace fs
