// Tests of sc_model/workload/verify: a perfect egress passes; missing, wrong, duplicate and
// unexpected results are each detected and described; non-Flare traffic is ignored.
#include "protocols/flare_dense/verify.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "flare/flare_proto.h"
#include "protocols/flare_dense/flare_frame.h"
#include "net/frame.h"

namespace fs {
namespace {

// Hand-made expectation: ports 0, 2, 5; two int16 blocks of allreduce 4.
Expected make_expected() {
  Expected e;
  e.ports = {0, 2, 5};
  for (uint32_t b = 0; b < 2; ++b) {
    ExpectedBlock x;
    x.allreduce_id = 4;
    x.block_id = b;
    x.dtype = FLARE_INT16;
    x.op = FLARE_OP_SUM;
    x.count = 3;
    x.payload = {uint8_t(b), 0, 0xff, 0xff, 0x34, 0x12};  // b, -1, 0x1234
    e.blocks.push_back(x);
  }
  return e;
}

EgressRecord result(uint16_t port, const ExpectedBlock& b, Picos t = 1000) {
  flare_header_t h{};
  h.version = FLARE_VERSION;
  h.kind = FLARE_KIND_RESULT;
  h.dtype = b.dtype;
  h.op = b.op;
  h.allreduce_id = b.allreduce_id;
  h.block_id = b.block_id;
  h.sender_rank = FLARE_RANK_SWITCH;
  h.elem_count = b.count;
  return EgressRecord{port, t, build_flare_packet(h, port, b.payload.data(), b.payload.size())};
}

std::vector<EgressRecord> perfect(const Expected& e) {
  std::vector<EgressRecord> out;
  for (const ExpectedBlock& b : e.blocks)
    for (uint16_t p : e.ports) out.push_back(result(p, b));
  return out;
}

TEST(Verify, PerfectEgressPasses) {
  const Expected e = make_expected();
  const VerifyReport r = verify_egress(e, perfect(e));
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.expected_packets, 6u);
  EXPECT_EQ(r.matched, 6u);
  EXPECT_EQ(r.missing + r.wrong + r.duplicate + r.unexpected, 0u);
  EXPECT_TRUE(r.problems.empty());
}

TEST(Verify, DetectsMissing) {
  const Expected e = make_expected();
  auto eg = perfect(e);
  eg.erase(eg.begin() + 4);  // block 1, port 2
  const VerifyReport r = verify_egress(e, eg);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.matched, 5u);
  EXPECT_EQ(r.missing, 1u);
  EXPECT_EQ(r.problems, std::vector<std::string>({"port 2: missing result ar=4 block=1"}));
  EXPECT_FALSE(verify_egress(e, {}).ok);
  EXPECT_EQ(verify_egress(e, {}).missing, 6u);
}

TEST(Verify, DetectsWrongPayloadAndHeader) {
  const Expected e = make_expected();
  auto eg = perfect(e);
  eg[1].data[eg[1].data.size() - 1] ^= 0x01;  // block 0 port 2: element 2 0x1234 -> 0x1334
  const VerifyReport r = verify_egress(e, eg);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.wrong, 1u);
  EXPECT_EQ(r.matched, 5u);
  EXPECT_EQ(r.missing, 0u);
  EXPECT_EQ(r.problems,
            std::vector<std::string>(
                {"port 2 at 1ns: result ar=4 block=0: wrong: element 2 is 4916, expected 4660"}));

  auto check_header = [&](auto edit, const std::string& why) {
    auto g = perfect(e);
    edit(g[0].data.data() + 42);
    const VerifyReport v = verify_egress(e, g);
    EXPECT_EQ(v.wrong, 1u) << why;
    ASSERT_EQ(v.problems.size(), 1u);
    EXPECT_EQ(v.problems[0], "port 0 at 1ns: result ar=4 block=0: wrong: " + why);
  };
  check_header([](uint8_t* h) { h[FLARE_OFF_RANK + 1] = 0; }, "rank 65280, expected 65535");
  check_header([](uint8_t* h) { h[FLARE_OFF_DTYPE] = FLARE_INT8; },
               "dtype int8(2), expected int16");
  check_header([](uint8_t* h) { h[FLARE_OFF_OP] = 9; }, "op ?(9), expected sum");
  check_header([](uint8_t* h) { h[FLARE_OFF_COUNT + 1] = 2; }, "count 2, expected 3");
  // A payload shorter than count elements.
  const ExpectedBlock& b0 = e.blocks[0];
  ExpectedBlock shorter = b0;
  shorter.payload.resize(4);
  auto g = perfect(e);
  g[0] = result(0, shorter);  // header still says count 3
  const VerifyReport v = verify_egress(e, g);
  ASSERT_EQ(v.problems.size(), 1u);
  EXPECT_EQ(v.problems[0],
            "port 0 at 1ns: result ar=4 block=0: wrong: 4 element bytes, expected 6");
}

TEST(Verify, DetectsDuplicate) {
  const Expected e = make_expected();
  auto eg = perfect(e);
  eg.push_back(result(5, e.blocks[1], 2500));
  const VerifyReport r = verify_egress(e, eg);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.duplicate, 1u);
  EXPECT_EQ(r.matched, 6u);
  EXPECT_EQ(r.problems,
            std::vector<std::string>({"port 5 at 2.5ns: result ar=4 block=1: duplicate"}));
}

TEST(Verify, DetectsUnexpected) {
  const Expected e = make_expected();
  auto eg = perfect(e);
  ExpectedBlock other = e.blocks[0];
  other.block_id = 9;
  eg.push_back(result(0, other));
  eg.push_back(result(3, e.blocks[0]));
  ExpectedBlock other_ar = e.blocks[0];
  other_ar.allreduce_id = 5;
  eg.push_back(result(2, other_ar));
  const VerifyReport r = verify_egress(e, eg);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.unexpected, 3u);
  EXPECT_EQ(r.matched, 6u);
  EXPECT_EQ(r.problems,
            std::vector<std::string>(
                {"port 0 at 1ns: result ar=4 block=9: unexpected (block not expected)",
                 "port 3 at 1ns: result ar=4 block=0: unexpected (port is not a host port)",
                 "port 2 at 1ns: result ar=5 block=0: unexpected (block not expected)"}));
}

TEST(Verify, IgnoresNonFlareTraffic) {
  const Expected e = make_expected();
  auto eg = perfect(e);
  // A contribution, the same result on another UDP port, a frame with a broken IPv4 checksum,
  // a short UDP payload, a non-IPv4 frame and a Flare header of another version.
  flare_header_t h{};
  h.version = 1;
  h.kind = FLARE_KIND_CONTRIB;
  h.allreduce_id = 4;
  h.elem_count = 3;
  eg.push_back({0, 0, build_flare_packet(h, 0, e.blocks[0].payload.data(), 6)});
  EgressRecord other_port = result(0, e.blocks[0]);
  other_port.data = build_flare_packet(h, 0, e.blocks[0].payload.data(), 6, 4951);
  eg.push_back(other_port);
  EgressRecord broken = result(0, e.blocks[0]);
  broken.data[24] ^= 0xff;
  eg.push_back(broken);
  uint8_t mac[6] = {};
  const uint8_t tiny[3] = {1, 2, 3};
  eg.push_back({2, 0, build_udp_frame(mac, mac, 1, 2, 4950, 4950, tiny, 3)});
  eg.push_back({2, 0, Bytes(60, 0)});
  EgressRecord v2 = result(5, e.blocks[1]);
  v2.data[42] = 2;
  eg.push_back(v2);
  const VerifyReport r = verify_egress(e, eg);
  EXPECT_TRUE(r.ok) << (r.problems.empty() ? "" : r.problems[0]);
  EXPECT_EQ(r.matched, 6u);
  // Results are looked for on the expected file's UDP port only.
  Expected other = e;
  other.udp_port = 4951;
  EXPECT_EQ(verify_egress(other, perfect(e)).missing, 6u);
}

ExpectedBlock float_block(std::vector<float> v) {
  ExpectedBlock b;
  b.dtype = FLARE_FLOAT32;
  b.op = FLARE_OP_SUM;
  b.count = uint16_t(v.size());
  b.payload.resize(4 * v.size());
  std::memcpy(b.payload.data(), v.data(), b.payload.size());
  return b;
}

TEST(Verify, Float32Tolerance) {
  Expected e;
  e.ports = {1};
  e.blocks.push_back(float_block({1000.0f, 0.0f, -2.0f, std::nanf("")}));
  auto verdict = [&](std::vector<float> got) {
    ExpectedBlock g = float_block(got);
    const VerifyReport r = verify_egress(e, {result(1, g)});
    return r.ok ? std::string("ok") : r.problems.at(0);
  };
  EXPECT_EQ(verdict({1000.0f, 0.0f, -2.0f, std::nanf("")}), "ok");
  EXPECT_EQ(verdict({1000.009f, 9e-7f, -2.00001f, std::nanf("")}), "ok");  // rel / abs / rel
  EXPECT_EQ(verdict({1000.02f, 0.0f, -2.0f, std::nanf("")}),
            "port 1 at 1ns: result ar=0 block=0: wrong: element 0 is 1000.02002, expected 1000");
  EXPECT_EQ(verdict({1000.0f, 2e-6f, -2.0f, std::nanf("")}),
            "port 1 at 1ns: result ar=0 block=0: wrong: element 1 is 1.99999999e-06, expected 0");
  EXPECT_EQ(verdict({1000.0f, 0.0f, -2.0f, 1.0f}),
            "port 1 at 1ns: result ar=0 block=0: wrong: element 3 is 1, expected nan");
}

TEST(Verify, ProblemsAreCappedAtTwenty) {
  Expected e;
  for (uint16_t p = 0; p < 30; ++p) e.ports.push_back(p);
  e.blocks.push_back(make_expected().blocks[0]);
  const VerifyReport r = verify_egress(e, {});
  EXPECT_EQ(r.missing, 30u);
  ASSERT_EQ(r.problems.size(), 20u);
  EXPECT_EQ(r.problems[19], "port 19: missing result ar=4 block=0");
}

}  // namespace
}  // namespace fs
