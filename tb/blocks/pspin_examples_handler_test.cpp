// Tests of PsPIN's example handlers (handlers/pspin_examples/) on the host, through
// HandlerHarness: pingpong's reply byte for byte, the per-cluster state the data examples keep
// (L2 sums, L1 vectors and histograms), the completion step's result frames, and what the
// handlers refuse. Frames are built here from the documented layout (pspin_examples.h), not by
// the generator, and every expected value is worked out by hand or by a loop of its own.
#include "pspin_examples/pspin_examples.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "blocks/handler_harness.h"
#include "net/frame.h"

namespace fs_tb {
namespace {

using fs::Bytes;

// 2 clusters of 2 HPUs, 4 switch ports.
fs::Config small_switch() {
  fs::Config cfg;
  cfg.pspin.clusters = 2;
  cfg.pspin.hpus_per_cluster = 2;
  cfg.ports.count = 4;
  return cfg;
}

// A packet of `example` from the host on `port`: the 12-byte message header, then the words.
Bytes msg_frame(uint32_t example, uint16_t port, uint32_t msg, uint16_t index, uint16_t packets, uint16_t result_port,
                const std::vector<uint32_t>& words) {
  Bytes p(12 + 4 * words.size(), 0);
  fs_put_be32(p.data(), msg);
  fs_put_be16(p.data() + 4, index);
  fs_put_be16(p.data() + 6, packets);
  fs_put_be16(p.data() + 8, result_port);
  for (size_t i = 0; i < words.size(); ++i) std::memcpy(p.data() + 12 + 4 * i, &words[i], 4);  // little-endian host
  uint8_t host[6], sw[6];
  fs_host_mac(port, host);
  fs_switch_mac(sw);
  const uint16_t udp = uint16_t(9100 + example);
  return fs::build_udp_frame(host, sw, fs_host_ipv4(port), FS_SWITCH_IPV4, udp, udp, p.data(), p.size());
}

// A result frame the handler sent, taken apart.
struct Result {
  uint32_t port, msg, cluster, clusters;
  std::vector<uint32_t> words;
};
Result result_of(const SentFrame& s, uint32_t example) {
  EXPECT_EQ(s.kind, SentFrame::kSend);
  const fs::FrameInfo f = fs::parse_frame(s.data.data(), s.data.size());
  EXPECT_TRUE(f.ok && f.udp) << f.error;  // IPv4 header checksum and lengths included
  EXPECT_EQ(f.udp_sport, 9100 + example);
  EXPECT_EQ(f.udp_dport, 9100 + example);
  EXPECT_EQ(f.src_ip, FS_SWITCH_IPV4);
  EXPECT_EQ(f.dst_ip, fs_host_ipv4(s.ports[0]));
  Result r{s.ports[0], 0, 0, 0, {}};
  if (f.l4_len < 12) return r;
  const uint8_t* p = s.data.data() + f.l4_offset;
  r.msg = fs_be32(p), r.cluster = fs_be32(p + 4), r.clusters = fs_be32(p + 8);
  r.words.resize((f.l4_len - 12) / 4);
  std::memcpy(r.words.data(), p + 12, 4 * r.words.size());
  return r;
}

uint32_t l1_word(HandlerHarness& h, uint32_t cluster, size_t offset) {
  uint32_t v;
  std::memcpy(&v, h.l1(cluster) + offset, 4);
  return v;
}
uint32_t l2_word(HandlerHarness& h, size_t offset) {
  uint32_t v;
  std::memcpy(&v, h.handler_memory().data() + offset, 4);
  return v;
}

TEST(BlocksPspinExamples, EmptyDoesNothing) {
  HandlerHarness h(small_switch(), "pspin_empty");
  const Bytes f = msg_frame(PSPIN_EX_EMPTY, 1, 0, 0, 1, 1, {1, 2, 3});
  const HandlerCall c = h.run(f, 1);
  EXPECT_EQ(h.outcome_name(c.outcome), "ok");
  EXPECT_TRUE(c.sent.empty());
  EXPECT_EQ(c.packet, f);
  EXPECT_EQ(h.set().block_id_offset, -1);
}

TEST(BlocksPspinExamples, PingpongSendsThePacketBackSwapped) {
  HandlerHarness h(small_switch(), "pspin_pingpong");
  const Bytes f = msg_frame(PSPIN_EX_PINGPONG, 3, 7, 2, 4, 0, {0xdeadbeef, 42});
  const HandlerCall c = h.run(f, 3);
  EXPECT_EQ(h.outcome_name(c.outcome), "ok");
  ASSERT_EQ(c.sent.size(), 1u);
  EXPECT_EQ(c.sent[0].kind, SentFrame::kSend);
  EXPECT_EQ(c.sent[0].ports, std::vector<uint32_t>{3});
  // By hand: destination and source MAC (bytes 0-5, 6-11), IPv4 source and destination (26-29,
  // 30-33) and UDP ports (34-35, 36-37) change places; nothing else changes.
  Bytes want = f;
  for (int i = 0; i < 6; ++i) std::swap(want[size_t(i)], want[size_t(6 + i)]);
  for (int i = 0; i < 4; ++i) std::swap(want[size_t(26 + i)], want[size_t(30 + i)]);
  for (int i = 0; i < 2; ++i) std::swap(want[size_t(34 + i)], want[size_t(36 + i)]);
  EXPECT_EQ(c.sent[0].data, want);
  const fs::FrameInfo info = fs::parse_frame(c.sent[0].data.data(), c.sent[0].data.size());
  EXPECT_TRUE(info.ok) << info.error;  // the IPv4 checksum still holds
  EXPECT_EQ(info.src_ip, FS_SWITCH_IPV4);
  EXPECT_EQ(info.dst_ip, fs_host_ipv4(3));

  // Frames it refuses: not UDP, and an IPv4 length beyond the frame.
  Bytes arp(60, 0);
  arp[12] = 0x08, arp[13] = 0x06;
  EXPECT_EQ(h.outcome_name(h.run(arp, 0).outcome), "malformed");
  Bytes cut = f;
  fs_put_be16(cut.data() + 14 + 2, uint32_t(cut.size()));  // 14 bytes more than the frame holds
  const HandlerCall bad = h.run(cut, 0);
  EXPECT_EQ(h.outcome_name(bad.outcome), "malformed");
  EXPECT_TRUE(bad.sent.empty());
}

TEST(BlocksPspinExamples, AggregateSumsPerClusterInL2AndTheLastPacketSendsTheTotal) {
  HandlerHarness h(small_switch(), "pspin_aggregate_global");
  EXPECT_EQ(l2_word(h, 0), 1024u);  // message states: every id the L2 counters have room for
  // Message 5, 3 packets, results to port 2: 1+2+3 on cluster 0, 10+20 on cluster 1, then
  // 0xFFFFFFFF + 5 on cluster 1 (wraps: +4).
  HandlerCall c = h.run(msg_frame(PSPIN_EX_AGGREGATE_GLOBAL, 0, 5, 0, 3, 2, {1, 2, 3}), 0, 0, 0);
  EXPECT_EQ(h.outcome_name(c.outcome), "ok");
  EXPECT_TRUE(c.sent.empty());
  c = h.run(msg_frame(PSPIN_EX_AGGREGATE_GLOBAL, 1, 5, 1, 3, 2, {10, 20}), 1, 1, 1);
  EXPECT_EQ(h.outcome_name(c.outcome), "ok");
  // L2: the states word, 1024 counters, then sums[message][cluster].
  const size_t sums = 8 + 4 * 1024 + 4 * (5 * 2);
  EXPECT_EQ(l2_word(h, sums), 6u);
  EXPECT_EQ(l2_word(h, sums + 4), 30u);
  EXPECT_EQ(l2_word(h, 8 + 4 * 5), 2u);  // packets of message 5 counted
  c = h.run(msg_frame(PSPIN_EX_AGGREGATE_GLOBAL, 3, 5, 2, 3, 2, {0xFFFFFFFFu, 5}), 3, 1, 0);
  EXPECT_EQ(h.outcome_name(c.outcome), "message_done");
  ASSERT_EQ(c.sent.size(), 1u);
  const Result r = result_of(c.sent[0], PSPIN_EX_AGGREGATE_GLOBAL);
  EXPECT_EQ(r.port, 2u);
  EXPECT_EQ(r.msg, 5u);
  EXPECT_EQ(r.cluster, 0u);
  EXPECT_EQ(r.clusters, 1u);
  EXPECT_EQ(r.words, std::vector<uint32_t>{6 + 30 + 4});
  // A fourth packet of a 3-packet message adds to nothing that is still reported.
  EXPECT_EQ(h.outcome_name(h.run(msg_frame(PSPIN_EX_AGGREGATE_GLOBAL, 0, 5, 3, 3, 2, {9}), 0).outcome), "after_done");
}

TEST(BlocksPspinExamples, ReduceAddsElementWiseInItsClusterAndSendsEveryClustersVector) {
  fs::Config cfg = small_switch();
  HandlerHarness h(cfg, "pspin_reduce_l1");
  // Message states: as many 8192-byte L1 states (64 bytes of headers, 8128 of data) as fit.
  const uint32_t states = h.l1_size() / 8192;
  EXPECT_EQ(l2_word(h, 0), states);
  // Message 1 (state at 8192 in each cluster's L1, vector at +64), 3 packets of 3 words, results
  // to port 1.
  EXPECT_EQ(h.outcome_name(h.run(msg_frame(PSPIN_EX_REDUCE_L1, 0, 1, 0, 3, 1, {1, 2, 3}), 0, 0, 0).outcome), "ok");
  EXPECT_EQ(h.outcome_name(h.run(msg_frame(PSPIN_EX_REDUCE_L1, 2, 1, 1, 3, 1, {10, 20, 30}), 2, 0, 1).outcome), "ok");
  EXPECT_EQ(l1_word(h, 0, 8192 + 64), 11u);
  EXPECT_EQ(l1_word(h, 0, 8192 + 64 + 8), 33u);
  EXPECT_EQ(l1_word(h, 1, 8192 + 64), 0u);
  const HandlerCall c = h.run(msg_frame(PSPIN_EX_REDUCE_L1, 3, 1, 2, 3, 1, {100, 200, 0xFFFFFFFFu}), 3, 1, 1);
  EXPECT_EQ(h.outcome_name(c.outcome), "message_done");
  ASSERT_EQ(c.sent.size(), 2u);  // one frame per cluster, in cluster order
  const Result r0 = result_of(c.sent[0], PSPIN_EX_REDUCE_L1), r1 = result_of(c.sent[1], PSPIN_EX_REDUCE_L1);
  EXPECT_EQ(r0.port, 1u);
  EXPECT_EQ(r1.port, 1u);
  EXPECT_EQ(r0.msg, 1u);
  EXPECT_EQ(r0.cluster, 0u);
  EXPECT_EQ(r1.cluster, 1u);
  EXPECT_EQ(r0.clusters, 2u);
  EXPECT_EQ(r1.clusters, 2u);
  EXPECT_EQ(r0.words, (std::vector<uint32_t>{11, 22, 33}));
  EXPECT_EQ(r1.words, (std::vector<uint32_t>{100, 200, 0xFFFFFFFFu}));
  // Message states-1 has a state; message `states` has none.
  EXPECT_EQ(h.outcome_name(h.run(msg_frame(PSPIN_EX_REDUCE_L1, 0, states - 1, 0, 2, 0, {1}), 0).outcome), "ok");
  EXPECT_EQ(h.outcome_name(h.run(msg_frame(PSPIN_EX_REDUCE_L1, 0, states, 0, 2, 0, {1}), 0).outcome), "no_state");
  // 8128 data bytes fit a state, 8132 do not.
  EXPECT_EQ(h.outcome_name(h.run(msg_frame(PSPIN_EX_REDUCE_L1, 0, 2, 0, 2, 0, std::vector<uint32_t>(2032, 1)), 0).outcome), "ok");
  EXPECT_EQ(h.outcome_name(h.run(msg_frame(PSPIN_EX_REDUCE_L1, 0, 3, 0, 2, 0, std::vector<uint32_t>(2033, 1)), 0).outcome),
            "too_long");
}

TEST(BlocksPspinExamples, HistogramCountsEveryIndexOfEveryPacketPerCluster) {
  HandlerHarness h(small_switch(), "pspin_histogram_l1");
  EXPECT_EQ(l2_word(h, 0), h.l1_size() / 4160);  // 64 bytes of headers, 1024 bins
  // Message 0, 2 packets, results to port 3. Cluster 0: 5, 5, 7 (the last index counts too:
  // PsPIN's loop stops before it). Cluster 1: 1023, 2047 (= 1023 modulo the 1024 bins), 5.
  const std::vector<uint32_t> a{5, 5, 7}, b{1023, 2047, 5};
  EXPECT_EQ(h.outcome_name(h.run(msg_frame(PSPIN_EX_HISTOGRAM_L1, 0, 0, 0, 2, 3, a), 0, 0, 0).outcome), "ok");
  EXPECT_EQ(l1_word(h, 0, 64 + 4 * 5), 2u);
  EXPECT_EQ(l1_word(h, 0, 64 + 4 * 7), 1u);
  const HandlerCall c = h.run(msg_frame(PSPIN_EX_HISTOGRAM_L1, 1, 0, 1, 2, 3, b), 1, 1, 0);
  EXPECT_EQ(h.outcome_name(c.outcome), "message_done");
  ASSERT_EQ(c.sent.size(), 2u);
  std::vector<uint32_t> want0(1024, 0), want1(1024, 0);
  for (uint32_t i : a) ++want0[i % 1024];
  for (uint32_t i : b) ++want1[i % 1024];
  const Result r0 = result_of(c.sent[0], PSPIN_EX_HISTOGRAM_L1), r1 = result_of(c.sent[1], PSPIN_EX_HISTOGRAM_L1);
  EXPECT_EQ(r0.cluster, 0u);
  EXPECT_EQ(r1.cluster, 1u);
  EXPECT_EQ(r0.port, 3u);
  EXPECT_EQ(r0.words, want0);
  EXPECT_EQ(r1.words, want1);
  EXPECT_EQ(want1[1023], 2u);
  EXPECT_EQ(c.sent[0].data.size(), 54u + 4096u);
}

TEST(BlocksPspinExamples, MessageHeadersTheyRefuse) {
  fs::Config cfg = small_switch();
  HandlerHarness h(cfg, "pspin_histogram_l1");
  // A zero packet count, no data word, and a UDP payload shorter than the header.
  EXPECT_EQ(h.outcome_name(h.run(msg_frame(PSPIN_EX_HISTOGRAM_L1, 0, 0, 0, 0, 0, {1}), 0).outcome), "malformed");
  EXPECT_EQ(h.outcome_name(h.run(msg_frame(PSPIN_EX_HISTOGRAM_L1, 0, 0, 0, 1, 0, {}), 0).outcome), "malformed");
  Bytes cut = msg_frame(PSPIN_EX_HISTOGRAM_L1, 0, 0, 0, 1, 0, {1});
  cut.resize(42 + 8);
  fs_put_be16(cut.data() + 16, 20 + 8 + 8);
  fs_put_be16(cut.data() + 38, 8 + 8);
  EXPECT_EQ(h.outcome_name(h.run(cut, 0).outcome), "malformed");
  // A result port beyond the switch's 4 ports: the message completes, its results cannot leave.
  const HandlerCall c = h.run(msg_frame(PSPIN_EX_HISTOGRAM_L1, 0, 9, 0, 1, 4, {1}), 0);
  EXPECT_EQ(h.outcome_name(c.outcome), "result_not_sent");
  EXPECT_TRUE(c.sent.empty());
  // Not installed: no message states.
  HandlerHarness bare(cfg, "pspin_reduce_l1", /*install=*/false);
  EXPECT_EQ(bare.outcome_name(bare.run(msg_frame(PSPIN_EX_REDUCE_L1, 0, 0, 0, 1, 0, {1}), 0).outcome), "no_state");
}

TEST(BlocksPspinExamples, OutcomesAndBlockIds) {
  for (const char* name : {"pspin_aggregate_global", "pspin_reduce_l1", "pspin_histogram_l1"}) {
    const fs::HandlerSet& set = fs::handler_sets()[size_t(fs::find_handler_set(name))];
    EXPECT_EQ(set.block_id_offset, 0) << name;  // the message id
    EXPECT_EQ(set.block_group_offset, -1) << name;
    std::vector<std::string> names;
    for (const fs::HandlerOutcome& o : set.outcomes) names.push_back(o.name);
    EXPECT_EQ(names, (std::vector<std::string>{"ok", "message_done", "after_done", "malformed", "too_long", "no_state",
                                               "result_not_sent"}))
        << name;
    EXPECT_TRUE(set.outcomes[PSPIN_EX_MESSAGE_DONE].completes_block);
    EXPECT_TRUE(set.outcomes[PSPIN_EX_AFTER_DONE].no_block);
    EXPECT_TRUE(set.outcomes[PSPIN_EX_NO_STATE].drop);
  }
}

}  // namespace
}  // namespace fs_tb
