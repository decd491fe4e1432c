// Tests of the PsPIN examples' workload module (sc_model/protocols/pspin_examples/pspin_workload):
// the data words against the formula handlers/pspin_examples/README.md documents, the
// expected-results file written and read back, its errors (each naming the line), and the
// verifier's verdicts on egress made by hand: matched, missing, wrong, duplicate, unexpected.
#include "protocols/pspin_examples/pspin_workload.h"

#include <gtest/gtest.h>

#include <sstream>

#include "common/errors.h"
#include "net/frame.h"

namespace fs {
namespace {

uint64_t doc_mix(uint64_t z) {
  z ^= z >> 30;
  z *= 0xBF58476D1CE4E5B9ull;
  z ^= z >> 27;
  z *= 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

TEST(WorkloadPspinExamples, DataWordsFollowTheDocumentedFormula) {
  // Word i of packet k: mix(s + (i + 1) x golden) with s = mix(mix(seed ^ "pspnvals") + k); its
  // low 32 bits, or for histogram_l1 the value modulo 1024.
  const uint64_t seed = 42, k = 7;
  const uint64_t s = doc_mix(doc_mix(seed ^ 0x7073706e76616c73ull) + k);
  const std::vector<uint32_t> w = pspin_packet_words(PSPIN_EX_REDUCE_L1, seed, k, 3);
  const std::vector<uint32_t> h = pspin_packet_words(PSPIN_EX_HISTOGRAM_L1, seed, k, 3);
  for (uint64_t i = 0; i < 3; ++i) {
    const uint64_t z = doc_mix(s + (i + 1) * 0x9E3779B97F4A7C15ull);
    EXPECT_EQ(w[i], uint32_t(z));
    EXPECT_EQ(h[i], uint32_t(z % 1024));
  }
}

TEST(WorkloadPspinExamples, ExpectedFileRoundTrips) {
  for (uint32_t example = 0; example < PSPIN_EX_COUNT; ++example) {
    PspinGenOptions o;
    o.example = example;
    o.messages = 2;
    o.packets = 3;
    o.size = 64;
    const PspinWorkload w = generate_pspin_workload(o);
    std::ostringstream out;
    write_pspin_expected(out, w.expected);
    const PspinExpected e = parse_pspin_expected("e", out.str());
    EXPECT_EQ(e.example, example);
    ASSERT_EQ(e.results.size(), w.expected.results.size());
    for (size_t i = 0; i < e.results.size(); ++i) {
      EXPECT_EQ(e.results[i].msg, w.expected.results[i].msg);
      EXPECT_EQ(e.results[i].port, w.expected.results[i].port);
      EXPECT_EQ(e.results[i].words, w.expected.results[i].words);
    }
    ASSERT_EQ(e.replies.size(), w.expected.replies.size());
    for (size_t i = 0; i < e.replies.size(); ++i) {
      EXPECT_EQ(e.replies[i].port, w.expected.replies[i].port);
      EXPECT_EQ(e.replies[i].frame, w.expected.replies[i].frame);
    }
    // Results: 2 messages (aggregate 1 word, reduce 6 = (64 - 40) / 4, histogram 1024); replies: 6.
    const size_t results = example >= PSPIN_EX_AGGREGATE_GLOBAL ? 2 : 0;
    EXPECT_EQ(e.results.size(), results);
    EXPECT_EQ(e.replies.size(), example == PSPIN_EX_PINGPONG ? 6u : 0u);
    if (example == PSPIN_EX_REDUCE_L1) {
      EXPECT_EQ(e.results[0].words.size(), 6u);
    }
    if (example == PSPIN_EX_HISTOGRAM_L1) {
      EXPECT_EQ(e.results[0].words.size(), 1024u);
    }
  }
}

TEST(WorkloadPspinExamples, ExpectedFileErrorsNameTheLine) {
  const std::string head = "pspin-examples-expected 1\nexample pspin_reduce_l1\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "f: empty: expected 'pspin-examples-expected 1'"},
      {"flaresim-expected 1\n", "f:1: expected 'pspin-examples-expected 1'"},
      {"pspin-examples-expected 1\n", "f: no example line"},
      {"pspin-examples-expected 1\nexample reduce\n",
       "f:2: expected 'example NAME', NAME one of pspin_empty, pspin_pingpong, pspin_aggregate_global, pspin_reduce_l1, "
       "pspin_histogram_l1"},
      {"pspin-examples-expected 1\nresult msg=0 port=0 words=1 hex=00000000\n", "f:2: a result line before the example line"},
      {head + "reply msg=0 index=0 port=0 hex=00\n", "f:3: pspin_reduce_l1 has no reply lines"},
      {head + "result msg=0 port=0 words=2 hex=00000000\n", "f:3: result: 4 hex bytes for 2 words (4 bytes each, at least one)"},
      {head + "result msg=0 port=0 hex=00000000\n", "f:3: result: missing key words"},
      {head + "result msg=0 port=0 words=1 words=1 hex=00000000\n", "f:3: result: duplicate key words"},
      {head + "result msg=0 port=x words=1 hex=00000000\n", "f:3: result: bad value 'x' for key port (0 to 65535)"},
      {head + "result msg=0 port=0 words=1 hex=0000000\n", "f:3: result: hex: odd number of hex digits (7)"},
      {head + "result msg=0 port=0 words=1 hex=00000000\nresult msg=0 port=1 words=1 hex=00000000\n",
       "f:4: result: a second result for message 0"},
      {head + "sum msg=0\n", "f:3: unknown line 'sum' (expected example, result or reply)"},
  };
  for (const auto& [text, message] : cases) {
    try {
      parse_pspin_expected("f", text);
      ADD_FAILURE() << "no error for: " << text;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), message);
    }
  }
}

// A frame from the switch to the host on `port`, UDP port of `example`, with `payload`.
Bytes to_host(uint32_t example, uint16_t port, const Bytes& payload) {
  uint8_t host[6], sw[6];
  fs_host_mac(port, host);
  fs_switch_mac(sw);
  const uint16_t udp = uint16_t(9100 + example);
  return build_udp_frame(sw, host, FS_SWITCH_IPV4, fs_host_ipv4(port), udp, udp, payload.data(), payload.size());
}
Bytes result_payload(uint32_t msg, uint32_t cluster, uint32_t clusters, const std::vector<uint32_t>& words) {
  Bytes p(12 + 4 * words.size(), 0);
  fs_put_be32(p.data(), msg);
  fs_put_be32(p.data() + 4, cluster);
  fs_put_be32(p.data() + 8, clusters);
  for (size_t i = 0; i < words.size(); ++i)
    for (int b = 0; b < 4; ++b) p[12 + 4 * i + size_t(b)] = uint8_t(words[i] >> (8 * b));
  return p;
}

TEST(WorkloadPspinExamples, VerifierOnResults) {
  PspinExpected e;
  e.example = PSPIN_EX_REDUCE_L1;
  e.results = {{0, 1, {5, 7}}, {1, 2, {1, 1}}, {2, 3, {0, 0}}, {3, 0, {9, 9}}};
  const uint32_t R = PSPIN_EX_REDUCE_L1;
  std::vector<EgressRecord> eg = {
      // message 0: 2 clusters' frames adding up to 5, 7 (wrapping): matched, then cluster 1 again.
      {1, 10, to_host(R, 1, result_payload(0, 0, 2, {6, 0xFFFFFFFFu}))},
      {1, 11, to_host(R, 1, result_payload(0, 1, 2, {0xFFFFFFFFu, 8}))},
      {1, 12, to_host(R, 1, result_payload(0, 1, 2, {0, 0}))},
      // message 1: one of its two clusters' frames, the other on a wrong port.
      {2, 13, to_host(R, 2, result_payload(1, 0, 2, {1, 1}))},
      {3, 14, to_host(R, 3, result_payload(1, 1, 2, {0, 0}))},
      // message 2: a wrong sum. message 3: nothing. message 9: nobody expects it.
      {3, 15, to_host(R, 3, result_payload(2, 0, 1, {0, 1}))},
      {0, 16, to_host(R, 0, result_payload(9, 0, 1, {0, 0}))},
      // Another UDP port: not looked at.
      {0, 17, to_host(PSPIN_EX_HISTOGRAM_L1, 0, result_payload(3, 0, 1, {9, 9}))},
  };
  const VerifyReport r = verify_pspin_egress(e, eg);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.expected_packets, 4u);
  EXPECT_EQ(r.matched, 1u);
  EXPECT_EQ(r.duplicate, 1u);
  EXPECT_EQ(r.wrong, 2u);
  EXPECT_EQ(r.missing, 1u);
  EXPECT_EQ(r.unexpected, 1u);
  EXPECT_EQ(r.problems, (std::vector<std::string>{
                            "port 0 at 0.016ns: a result for message 9, which is not expected",
                            "message 0: cluster 1's result again, on port 1",
                            "message 1: cluster 1's result on port 3, expected 2",
                            "message 2: word 1 adds up to 1, expected 0",
                            "message 3: no result on port 0",
                        }));
  eg.erase(eg.begin() + 2, eg.end());
  e.results.resize(1);
  const VerifyReport ok = verify_pspin_egress(e, eg);
  EXPECT_TRUE(ok.ok);
  EXPECT_EQ(ok.matched, 1u);
}

TEST(WorkloadPspinExamples, VerifierOnReplies) {
  PspinGenOptions o;
  o.example = PSPIN_EX_PINGPONG;
  o.packets = 3;
  o.size = 48;
  const PspinWorkload w = generate_pspin_workload(o);
  ASSERT_EQ(w.expected.replies.size(), 3u);
  const PspinExpected& e = w.expected;
  Bytes changed = e.replies[1].frame;
  changed.back() ^= 1;
  const std::vector<EgressRecord> eg = {
      {e.replies[0].port, 1, e.replies[0].frame},
      {e.replies[0].port, 2, e.replies[0].frame},  // again
      {e.replies[1].port, 3, changed},             // a byte differs
      {uint16_t(e.replies[2].port + 1), 4, e.replies[2].frame},  // on the wrong port
  };
  const VerifyReport r = verify_pspin_egress(e, eg);
  EXPECT_EQ(r.matched, 1u);
  EXPECT_EQ(r.duplicate, 1u);
  EXPECT_EQ(r.wrong, 1u);
  EXPECT_EQ(r.unexpected, 1u);
  EXPECT_EQ(r.missing, 1u);
  EXPECT_EQ(r.problems[1], "port " + std::to_string(e.replies[1].port) +
                               " at 0.003ns: the reply to message 0 packet 1 has 62 bytes, expected 62; first difference at byte 61");
}

}  // namespace
}  // namespace fs
