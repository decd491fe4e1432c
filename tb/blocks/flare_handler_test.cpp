// Tests of the native Flare dense handler (handlers/flare/flare_dense.c) on the host, without
// SystemC, through HandlerHarness (handler_harness.h): the installer's handler memory, int32
// wrap-around sums, int16/int8/float32 min/max/sum, duplicates, bad ranks, exceeded windows,
// malformed and oversized packets, mismatches, and the result frame's headers.
#include "protocols/flare_dense/flare_setup.h"
#include "flare/flare_dense.h"

#include <gtest/gtest.h>

#include <climits>

#include "blocks/handler_harness.h"
#include "blocks/sc_testbench.h"
#include "common/errors.h"

namespace fs_tb {
namespace {

using fs::Bytes;

// 2 clusters of 2 HPUs, default 1 MiB L1: state area 1048576 - 2 * 9216 = 1030144 bytes.
// 3 hosts on ports 0, 1, 2 (ranks 0..2), 4 switch ports, 1024-byte block buffers.
fs::Config three_hosts() {
  fs::Config cfg;
  cfg.pspin.clusters = 2;
  cfg.pspin.hpus_per_cluster = 2;
  cfg.pspin.l2_handler_bytes = 64 << 10;
  cfg.ports.count = 4;
  fs::flare_config(cfg).ports = "0-2";
  fs::flare_config(cfg).allreduce_id = 7;  // flare_frame's default
  return cfg;
}

// Feeds one contribution per rank (rank r from port r) and returns the last call.
template <typename T>
HandlerCall contribute_all(HandlerHarness& h, uint32_t block, uint8_t dtype, uint8_t op,
                           const std::vector<std::vector<T>>& per_rank, std::vector<int>* outcomes = nullptr) {
  HandlerCall last;
  for (size_t r = 0; r < per_rank.size(); ++r) {
    last = h.run(flare_frame(block, uint16_t(r), uint16_t(r), dtype, op, elems_of(per_rank[r])), uint32_t(r));
    if (outcomes) outcomes->push_back(last.outcome);
  }
  return last;
}

// The state of block state `index` of the single-buffer allreduce (the only one installed, so at
// L1 offset 0): a 64-byte header and one buffer of 8 + 1024 bytes.
const flare_block_state_t* slot_at(HandlerHarness& h, uint32_t cluster, uint32_t index) {
  // After the allreduce table; single-buffer block states of 1096 bytes.
  return reinterpret_cast<const flare_block_state_t*>(h.l1(cluster) + FLARE_TABLE_L1_BYTES + size_t(index) * 1096);
}

TEST(BlocksFlareHandler, OutcomeTableAndInstaller) {
  const int idx = fs::find_handler_set("flare_dense");
  ASSERT_GE(idx, 0);
  const fs::HandlerSet& set = fs::handler_sets()[size_t(idx)];
  EXPECT_EQ(set.block_id_offset, 8);     // FLARE_OFF_BLOCK in the UDP payload
  EXPECT_EQ(set.block_group_offset, 4);  // FLARE_OFF_ALLREDUCE
  const char* names[] = {"ok",       "result_sent",       "sent_up",  "result_forwarded", "malformed",
                         "unknown_allreduce", "bad_rank", "duplicate", "window_exceeded", "too_large",
                         "mismatch", "not_installed"};
  ASSERT_EQ(set.outcomes.size(), size_t(FLARE_DENSE_OUTCOME_COUNT));
  for (int c = 0; c < FLARE_DENSE_OUTCOME_COUNT; ++c) {
    EXPECT_EQ(set.outcomes[size_t(c)].name, names[c]);
    EXPECT_EQ(set.outcomes[size_t(c)].drop, c >= FLARE_DENSE_MALFORMED) << names[c];
  }
  // Block state header: lock, busy, completed, allreduce_id, block_id (5 x 4) + received,
  // elem_count (2 x 2) + dtype, op, pad[2] (4) + folded (4) + bitmap of 256 ranks (8 x 4) = 64;
  // a buffer: lock, filled (8) + 1024 bytes = 1032; a single-buffer block state 64 + 1032 = 1096.
  EXPECT_EQ(sizeof(flare_block_state_t), 64u);
  EXPECT_EQ(flare_block_state_bytes(FLARE_ALGO_SINGLE, 1, 3, 1024), 1096u);
  fs::Config cfg = three_hosts();
  fs::flare_config(cfg).ports = "3,1,0";
  HandlerHarness h(cfg, "flare_dense");
  const auto* c = reinterpret_cast<const flare_dense_config_t*>(h.handler_memory().data());
  EXPECT_EQ(c->table.magic, FLARE_DENSE_MAGIC);
  ASSERT_EQ(c->table.n_allreduces, 1u);
  const flare_allreduce_config_t& a = c->table.allreduces[0];
  EXPECT_EQ(a.allreduce_id, 7u);
  EXPECT_EQ(a.algorithm, uint32_t(FLARE_ALGO_SINGLE));  // auto without flare.bytes
  EXPECT_EQ(a.buffers, 1u);
  EXPECT_EQ(a.n_children, 3u);
  EXPECT_EQ(a.parent_port, FLARE_NO_PARENT);
  EXPECT_EQ(a.slot_payload, 1024u);
  EXPECT_EQ(a.state_bytes, 1096u);
  // The table comes first in L1: magic, count (8 bytes), the divisor by the clusters (4 words:
  // 16), 16 allreduces of 10 words and two divisors (18 words: 72 bytes each, 1152).
  EXPECT_EQ(FLARE_TABLE_L1_BYTES, 1176u);
  EXPECT_EQ(a.l1_offset, 1176u);
  EXPECT_EQ(a.states_per_cluster, 938u);  // floor((1030144 - 1176) / 1096)
  EXPECT_EQ(a.by_states.d, 938u);
  EXPECT_EQ(a.by_buffers.d, 1u);
  EXPECT_EQ(c->table.by_clusters.d, cfg.pspin.clusters);
  EXPECT_EQ(c->ports[0][0], 3u);
  EXPECT_EQ(c->ports[0][1], 1u);
  EXPECT_EQ(c->ports[0][2], 0u);
  // Every cluster's L1 state area starts with a copy of the table.
  for (uint32_t cl = 0; cl < cfg.pspin.clusters; ++cl)
    EXPECT_EQ(std::memcmp(h.l1(cl), &c->table, sizeof(c->table)), 0) << "cluster " << cl;
  // Too many block states for the L1 state area: 1176 + 940 x 1096 = 1031416 bytes.
  fs::flare_config(cfg).buffers = 940;
  try {
    HandlerHarness bad(cfg, "flare_dense");
    FAIL() << "no error";
  } catch (const fs::InputError& e) {
    EXPECT_STREQ(e.what(), "the allreduces' flare.buffers need 1031416 bytes of L1 per cluster (1176 of them the allreduce table); the L1 state area has 1030144");
  }
}

TEST(BlocksFlareHandler, Int32SumOfThreeHostsWraps) {
  HandlerHarness h(three_hosts(), "flare_dense");
  std::vector<int> outcomes;
  // Element-wise: INT32_MAX + 1 + 0 wraps to INT32_MIN; INT32_MIN + (-1) + 0 wraps to INT32_MAX;
  // -5 + 7 + 3 = 5; 100 - 300 + 200 = 0; 0 + 0 - 1 = -1.
  const HandlerCall last = contribute_all<int32_t>(
      h, 5, FLARE_INT32, FLARE_OP_SUM,
      {{INT32_MAX, INT32_MIN, -5, 100, 0}, {1, -1, 7, -300, 0}, {0, 0, 3, 200, -1}}, &outcomes);
  EXPECT_EQ(outcomes, (std::vector<int>{FS_OK, FS_OK, FLARE_DENSE_RESULT_SENT}));
  EXPECT_EQ(h.outcome_name(outcomes[2]), "result_sent");
  ASSERT_EQ(last.sent.size(), 1u);
  const SentFrame& s = last.sent[0];
  EXPECT_EQ(s.kind, SentFrame::kMulticast);
  EXPECT_EQ(s.ports, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(s.data.size(), 42u + 16u + 20u);
  EXPECT_EQ(elems_from<int32_t>(s.data), (std::vector<int32_t>{INT32_MIN, INT32_MAX, 5, 0, -1}));
  EXPECT_EQ(last.packet, s.data);  // the contribution was rewritten in place into the result
  // Block 5 lives in cluster 5 % 2 = 1, state (5 / 2) % 939 = 2; it is free again.
  EXPECT_EQ(slot_at(h, 1, 2)->block_id, 5u);
  EXPECT_EQ(slot_at(h, 1, 2)->busy, 0u);
}

TEST(BlocksFlareHandler, ResultFrameHeaders) {
  HandlerHarness h(three_hosts(), "flare_dense");
  const HandlerCall last = contribute_all<int32_t>(h, 0x00A1B2C3, FLARE_INT32, FLARE_OP_MAX,
                                                   {{1, 2, 3, 4}, {4, 3, 2, 1}, {0, 9, 0, 0}});
  ASSERT_EQ(last.sent.size(), 1u);
  const Bytes& f = last.sent[0].data;
  // 4 int32 elements: IPv4 total 20 + 8 + 16 + 16 = 60, UDP length 40, frame 74 bytes.
  ASSERT_EQ(f.size(), 74u);
  const fs::FrameInfo info = fs::parse_frame(f.data(), f.size());
  ASSERT_TRUE(info.ok) << info.error;
  EXPECT_EQ(fs_ipv4_checksum(f.data() + FS_ETH_BYTES, FS_IPV4_BYTES), 0u);  // valid header checksum
  EXPECT_EQ(fs_be16(f.data() + FS_ETH_BYTES + 2), 60u);
  EXPECT_EQ(f[FS_ETH_BYTES + 8], 64u);  // TTL
  EXPECT_EQ(info.src_ip, FS_SWITCH_IPV4);
  EXPECT_EQ(info.dst_ip, FS_HOSTS_BROADCAST_IPV4);
  EXPECT_EQ(info.udp_sport, FLARE_UDP_PORT_DEFAULT);
  EXPECT_EQ(info.udp_dport, FLARE_UDP_PORT_DEFAULT);
  EXPECT_EQ(info.l4_len, 32u);
  EXPECT_EQ(fs_be16(f.data() + FS_ETH_BYTES + FS_IPV4_BYTES + 6), 0u);  // no UDP checksum
  const Bytes bcast(6, 0xFF);
  EXPECT_TRUE(std::equal(f.begin(), f.begin() + 6, bcast.begin()));
  uint8_t sw[6];
  fs_switch_mac(sw);
  EXPECT_TRUE(std::equal(f.begin() + 6, f.begin() + 12, sw));
  const flare_header_t hd = flare_header_of(f);
  EXPECT_EQ(hd.version, FLARE_VERSION);
  EXPECT_EQ(hd.kind, 1u);
  EXPECT_EQ(hd.dtype, FLARE_INT32);
  EXPECT_EQ(hd.op, FLARE_OP_MAX);
  EXPECT_EQ(hd.allreduce_id, 7u);
  EXPECT_EQ(hd.block_id, 0x00A1B2C3u);
  EXPECT_EQ(hd.sender_rank, 0xFFFFu);
  EXPECT_EQ(hd.elem_count, 4u);
  EXPECT_EQ(elems_from<int32_t>(f), (std::vector<int32_t>{4, 9, 3, 4}));
}

TEST(BlocksFlareHandler, Int16AndInt8MinMaxSum) {
  HandlerHarness h(three_hosts(), "flare_dense");
  const std::vector<std::vector<int16_t>> i16 = {{-32768, 5, 300, 7}, {7, -2, 300, 32767}, {0, 0, -1, 8}};
  EXPECT_EQ(elems_from<int16_t>(contribute_all(h, 1, FLARE_INT16, FLARE_OP_MIN, i16).sent.at(0).data),
            (std::vector<int16_t>{-32768, -2, -1, 7}));
  EXPECT_EQ(elems_from<int16_t>(contribute_all(h, 2, FLARE_INT16, FLARE_OP_MAX, i16).sent.at(0).data),
            (std::vector<int16_t>{7, 5, 300, 32767}));
  // int16 sum wraps: 32767 + 1 + 0 = -32768.
  EXPECT_EQ(elems_from<int16_t>(
                contribute_all<int16_t>(h, 3, FLARE_INT16, FLARE_OP_SUM, {{32767}, {1}, {0}}).sent.at(0).data),
            (std::vector<int16_t>{-32768}));
  const std::vector<std::vector<int8_t>> i8 = {{-128, 127, 0, -1}, {5, -5, 0, -2}, {127, 0, 1, -128}};
  EXPECT_EQ(elems_from<int8_t>(contribute_all(h, 4, FLARE_INT8, FLARE_OP_MIN, i8).sent.at(0).data),
            (std::vector<int8_t>{-128, -5, 0, -128}));
  EXPECT_EQ(elems_from<int8_t>(contribute_all(h, 6, FLARE_INT8, FLARE_OP_MAX, i8).sent.at(0).data),
            (std::vector<int8_t>{127, 127, 1, -1}));
  // int8 sum wraps: 127 + 1 + 0 = -128; -128 - 1 + 0 = 127; 10 + 20 + 30 = 60.
  EXPECT_EQ(elems_from<int8_t>(contribute_all<int8_t>(h, 8, FLARE_INT8, FLARE_OP_SUM,
                                                      {{127, -128, 10}, {1, -1, 20}, {0, 0, 30}})
                                   .sent.at(0)
                                   .data),
            (std::vector<int8_t>{-128, 127, 60}));
}

TEST(BlocksFlareHandler, Float32SumMinMax) {
  HandlerHarness h(three_hosts(), "flare_dense");
  // Values exactly representable, so every order of addition gives the same float:
  // 1.5 + 2.25 - 0.75 = 3; 0.25 + 0.5 + 0.125 = 0.875; -8 + 4 + 4 = 0; 1024 + 0.125 + 2048 = 3072.125.
  const std::vector<std::vector<float>> v = {{1.5f, 0.25f, -8.f, 1024.f}, {2.25f, 0.5f, 4.f, 0.125f},
                                             {-0.75f, 0.125f, 4.f, 2048.f}};
  EXPECT_EQ(elems_from<float>(contribute_all(h, 10, FLARE_FLOAT32, FLARE_OP_SUM, v).sent.at(0).data),
            (std::vector<float>{3.f, 0.875f, 0.f, 3072.125f}));
  EXPECT_EQ(elems_from<float>(contribute_all(h, 11, FLARE_FLOAT32, FLARE_OP_MIN, v).sent.at(0).data),
            (std::vector<float>{-0.75f, 0.125f, -8.f, 0.125f}));
  EXPECT_EQ(elems_from<float>(contribute_all(h, 12, FLARE_FLOAT32, FLARE_OP_MAX, v).sent.at(0).data),
            (std::vector<float>{2.25f, 0.5f, 4.f, 2048.f}));
}

TEST(BlocksFlareHandler, DuplicateIsIgnored) {
  HandlerHarness h(three_hosts(), "flare_dense");
  auto send = [&](uint16_t rank, std::vector<int32_t> v) {
    return h.run(flare_frame(9, rank, rank, FLARE_INT32, FLARE_OP_SUM, elems_of(v)), rank);
  };
  EXPECT_EQ(send(0, {1, 2}).outcome, FS_OK);
  const HandlerCall dup = send(0, {100, 200});
  EXPECT_EQ(dup.outcome, FLARE_DENSE_DUPLICATE);
  EXPECT_EQ(h.outcome_name(dup.outcome), "duplicate");
  EXPECT_TRUE(dup.sent.empty());
  EXPECT_EQ(send(1, {10, 20}).outcome, FS_OK);
  EXPECT_EQ(send(1, {10, 20}).outcome, FLARE_DENSE_DUPLICATE);
  const HandlerCall last = send(2, {1000, 2000});
  EXPECT_EQ(last.outcome, FLARE_DENSE_RESULT_SENT);
  // 1 + 10 + 1000, 2 + 20 + 2000: the duplicates added nothing.
  EXPECT_EQ(elems_from<int32_t>(last.sent.at(0).data), (std::vector<int32_t>{1011, 2022}));
}

TEST(BlocksFlareHandler, LateDuplicateAfterTheResultDoesNotRestartTheBlock) {
  // 2 clusters, 2 buffers each: blocks 0 and 4 share cluster 0, buffer 0.
  fs::Config cfg = three_hosts();
  fs::flare_config(cfg).buffers = 2;
  HandlerHarness h(cfg, "flare_dense");
  const Bytes v = elems_of<int32_t>({5});
  auto run = [&](uint32_t block, uint16_t rank) {
    return h.run(flare_frame(block, rank, rank, FLARE_INT32, FLARE_OP_SUM, v), rank);
  };
  EXPECT_EQ(run(0, 0).outcome, FS_OK);
  EXPECT_EQ(run(0, 1).outcome, FS_OK);
  EXPECT_EQ(run(0, 2).outcome, FLARE_DENSE_RESULT_SENT);
  const HandlerCall late = run(0, 0);  // rank 0 retransmits after the result went out
  EXPECT_EQ(late.outcome, FLARE_DENSE_DUPLICATE);
  EXPECT_TRUE(late.sent.empty());
  EXPECT_EQ(slot_at(h, 0, 0)->busy, 0u);
  EXPECT_EQ(run(4, 0).outcome, FS_OK);  // the buffer is free for the next block
  EXPECT_EQ(slot_at(h, 0, 0)->block_id, 4u);
}

TEST(BlocksFlareHandler, CountMustMatchTheUdpPayload) {
  // One int32 on the wire, but the header claims 3 and 8 bytes of Ethernet padding follow the IP
  // packet: folding 3 elements would aggregate the padding.
  HandlerHarness h(three_hosts(), "flare_dense");
  Bytes f = flare_frame(0, 0, 0, FLARE_INT32, FLARE_OP_SUM, elems_of<int32_t>({7}));
  fs_put_be16(&f[FLARE_PAYLOAD_OFFSET + FLARE_OFF_COUNT], 3);
  f.insert(f.end(), 8, 0x41);
  EXPECT_EQ(h.run(f, 0).outcome, FLARE_DENSE_MALFORMED);
  // The same frame with an honest count, padding and all, is accepted.
  fs_put_be16(&f[FLARE_PAYLOAD_OFFSET + FLARE_OFF_COUNT], 1);
  EXPECT_EQ(h.run(f, 0).outcome, FS_OK);
  EXPECT_EQ(slot_at(h, 0, 0)->elem_count, 1u);
}

TEST(BlocksFlareHandler, IpOptionsAreMalformed) {
  // The wire format has no IPv4 options: with a 4-byte option the Flare header is not at byte 42
  // and must not be read there. Insert a NOP option word and fix IHL, lengths and checksum.
  HandlerHarness h(three_hosts(), "flare_dense");
  Bytes f = flare_frame(3, 0, 0, FLARE_INT32, FLARE_OP_SUM, elems_of<int32_t>({1, 2, 3, 4}));
  f.insert(f.begin() + 34, {1, 1, 1, 1});
  f[14] = 0x46;
  const uint32_t total = fs_be16(&f[16]) + 4;
  fs_put_be16(&f[16], total);
  fs_put_be16(&f[24], 0);
  fs_put_be16(&f[24], fs_ipv4_checksum(&f[14], 24));
  const HandlerCall c = h.run(f, 0);
  EXPECT_EQ(c.outcome, FLARE_DENSE_MALFORMED);
  for (unsigned cl = 0; cl < 2; ++cl)
    for (unsigned b = 0; b < 4; ++b) EXPECT_EQ(slot_at(h, cl, b)->busy, 0u);
}

TEST(BlocksFlareHandler, BadRank) {
  HandlerHarness h(three_hosts(), "flare_dense");
  const Bytes v = elems_of<int32_t>({1});
  for (uint16_t rank : {uint16_t(3), uint16_t(0xFFFF)}) {
    const HandlerCall c = h.run(flare_frame(0, rank, 3, FLARE_INT32, FLARE_OP_SUM, v), 3);
    EXPECT_EQ(c.outcome, FLARE_DENSE_BAD_RANK) << rank;
    EXPECT_TRUE(c.sent.empty());
  }
  EXPECT_EQ(slot_at(h, 0, 0)->busy, 0u);  // block 0's buffer was not touched
}

TEST(BlocksFlareHandler, WindowExceededWhileTheStateHoldsAnotherBlock) {
  // 2 block states per cluster, 2 clusters (a window of 4 blocks): block b -> cluster b % 2,
  // state (b / 2) % 2. Blocks 0 and 4 share cluster 0 state 0; block 2 uses cluster 0 state 1;
  // block 1 cluster 1.
  fs::Config cfg = three_hosts();
  fs::flare_config(cfg).buffers = 2;
  HandlerHarness h(cfg, "flare_dense");
  const Bytes v = elems_of<int32_t>({1, 1});
  auto run = [&](uint32_t block, uint16_t rank, uint32_t allreduce = 7) {
    return h.run(flare_frame(block, rank, rank, FLARE_INT32, FLARE_OP_SUM, v, allreduce), rank).outcome;
  };
  EXPECT_EQ(run(0, 0), FS_OK);
  EXPECT_EQ(run(4, 0), FLARE_DENSE_WINDOW_EXCEEDED);
  EXPECT_EQ(run(0, 1, 8), FLARE_DENSE_UNKNOWN_ALLREDUCE);  // allreduce 8 is not installed
  EXPECT_EQ(run(2, 0), FS_OK);
  EXPECT_EQ(run(1, 0), FS_OK);
  EXPECT_EQ(slot_at(h, 0, 0)->block_id, 0u);
  EXPECT_EQ(slot_at(h, 0, 0)->received, 1u);
  EXPECT_EQ(slot_at(h, 0, 1)->block_id, 2u);
  EXPECT_EQ(slot_at(h, 1, 0)->block_id, 1u);
  EXPECT_EQ(run(0, 1), FS_OK);
  EXPECT_EQ(run(0, 2), FLARE_DENSE_RESULT_SENT);
  EXPECT_EQ(run(4, 0), FS_OK);  // buffer free again
  EXPECT_EQ(slot_at(h, 0, 0)->block_id, 4u);
}

TEST(BlocksFlareHandler, MalformedAndTooLarge) {
  HandlerHarness h(three_hosts(), "flare_dense");
  const Bytes good = flare_frame(0, 0, 0, FLARE_INT32, FLARE_OP_SUM, elems_of<int32_t>({1, 2, 3, 4}));
  auto outcome = [&](const Bytes& f) {
    const HandlerCall c = h.run(f);
    EXPECT_TRUE(c.sent.empty());
    return c.outcome;
  };
  // Shorter than the 42 + 16 header bytes.
  EXPECT_EQ(outcome(Bytes(good.begin(), good.begin() + 57)), FLARE_DENSE_MALFORMED);
  EXPECT_EQ(outcome(Bytes(good.begin(), good.begin() + 20)), FLARE_DENSE_MALFORMED);
  // Header says 4 elements (16 bytes) but only 12 are present.
  EXPECT_EQ(outcome(Bytes(good.begin(), good.end() - 4)), FLARE_DENSE_MALFORMED);
  auto patched = [&](unsigned off, uint8_t value) {
    Bytes f = good;
    f[FLARE_PAYLOAD_OFFSET + off] = value;
    return f;
  };
  EXPECT_EQ(outcome(patched(FLARE_OFF_KIND, FLARE_KIND_RESULT)), FLARE_DENSE_MALFORMED);
  EXPECT_EQ(outcome(patched(FLARE_OFF_VERSION, 2)), FLARE_DENSE_MALFORMED);
  EXPECT_EQ(outcome(patched(FLARE_OFF_DTYPE, 4)), FLARE_DENSE_MALFORMED);
  EXPECT_EQ(outcome(patched(FLARE_OFF_OP, 3)), FLARE_DENSE_MALFORMED);
  Bytes zero = good;
  fs_put_be16(zero.data() + FLARE_PAYLOAD_OFFSET + FLARE_OFF_COUNT, 0);
  EXPECT_EQ(outcome(zero), FLARE_DENSE_MALFORMED);
  EXPECT_EQ(h.outcome_name(FLARE_DENSE_MALFORMED), "malformed");
  // 1024-byte buffers: 256 int32 fit, 257 (1028 bytes) are too large.
  EXPECT_EQ(outcome(flare_frame(1, 0, 0, FLARE_INT32, FLARE_OP_SUM, Bytes(1028, 0))), FLARE_DENSE_TOO_LARGE);
  EXPECT_EQ(h.run(flare_frame(1, 0, 0, FLARE_INT32, FLARE_OP_SUM, Bytes(1024, 0))).outcome, FS_OK);
  EXPECT_EQ(slot_at(h, 0, 0)->busy, 0u);  // block 0 never started
}

TEST(BlocksFlareHandler, MismatchAndNotInstalled) {
  HandlerHarness h(three_hosts(), "flare_dense");
  EXPECT_EQ(h.run(flare_frame(0, 0, 0, FLARE_INT32, FLARE_OP_SUM, elems_of<int32_t>({1, 2, 3, 4}))).outcome, FS_OK);
  EXPECT_EQ(h.run(flare_frame(0, 1, 1, FLARE_INT32, FLARE_OP_SUM, elems_of<int32_t>({1, 2, 3}))).outcome,
            FLARE_DENSE_MISMATCH);
  EXPECT_EQ(h.run(flare_frame(0, 1, 1, FLARE_FLOAT32, FLARE_OP_SUM, elems_of<float>({1, 2, 3, 4}))).outcome,
            FLARE_DENSE_MISMATCH);
  EXPECT_EQ(h.run(flare_frame(0, 1, 1, FLARE_INT32, FLARE_OP_MIN, elems_of<int32_t>({1, 2, 3, 4}))).outcome,
            FLARE_DENSE_MISMATCH);
  EXPECT_EQ(slot_at(h, 0, 0)->received, 1u);
  HandlerHarness bare(three_hosts(), "flare_dense", /*install=*/false);
  const HandlerCall c = bare.run(flare_frame(0, 0, 0, FLARE_INT32, FLARE_OP_SUM, elems_of<int32_t>({1})));
  EXPECT_EQ(c.outcome, FLARE_DENSE_NOT_INSTALLED);
  EXPECT_EQ(bare.outcome_name(c.outcome), "not_installed");
}

TEST(BlocksFlareHandler, StateLivesInHomeClusterWhateverRunsIt) {
  HandlerHarness h(three_hosts(), "flare_dense");
  // Block 3's home is cluster 3 % 2 = 1, buffer (3 / 2) % 953 = 1, even when cluster 0 runs it.
  EXPECT_EQ(h.run(flare_frame(3, 2, 2, FLARE_INT32, FLARE_OP_SUM, elems_of<int32_t>({42})), 2, 0, 1).outcome,
            FS_OK);
  EXPECT_EQ(slot_at(h, 1, 1)->busy, 1u);
  EXPECT_EQ(slot_at(h, 1, 1)->block_id, 3u);
  EXPECT_EQ(slot_at(h, 1, 1)->children[0], 1u << 2);  // rank 2's bit
  EXPECT_EQ(slot_at(h, 0, 1)->busy, 0u);
}

}  // namespace
}  // namespace fs_tb
