// NetReduce's switch handler (handlers/netreduce/netreduce.c) run natively, packet by packet, on
// a ring of 3 workers (rank r on host r writes to host r + 1 mod 3, through port = host): the
// connection lookup table after the first packets, the aggregator each packet lands in by
// (MsgID mod 2N) x MsgLen + (PSN - PSN0), the results (each rank's own headers, the sum worked
// out here from the elements), duplicates and resends, the release one window back, a window
// that wraps the aggregator array, a lost first packet, and malformed frames.
#include <gtest/gtest.h>

#include <algorithm>

#include "blocks/handler_harness.h"
#include "config/config.h"
#include "fs_packet.h"
#include "netreduce/netreduce_switch.h"
#include "protocols/netreduce/netreduce_config.h"
#include "protocols/netreduce/roce_frame.h"
#include "blocks/netreduce_ring_frames.h"

namespace fs_tb {
namespace {

constexpr unsigned kRanks = 3, kWindow = 2, kMsgPackets = 3, kMtu = 64;
constexpr NetReduceRingShape kRing{kRanks, kMsgPackets, kMtu, 5};
uint32_t first_psn(unsigned rank) { return NetReduceRingShape::first_psn(rank); }

fs::Config switch_cfg() {
  fs::Config c;
  c.pspin.clusters = 2;
  c.ports.count = 8;
  fs::NetReduceConfig& n = fs::netreduce_config(c);
  n.ring_id = 5, n.ranks = kRanks, n.window = kWindow, n.msg_packets = kMsgPackets, n.mtu = kMtu;
  n.clt_entries = 16, n.order_spins = 4;
  n.in_order = false;  // each aggregator's results as it completes: what these tests follow packet by packet
  return c;
}

fs::Bytes message(unsigned rank, unsigned msg, uint8_t ring = 5) { return kRing.message(rank, msg, ring); }
fs::RocePacket packet(unsigned rank, unsigned msg, unsigned k, const fs::Bytes& m) { return kRing.packet(rank, msg, k, m); }
fs::Bytes frame(unsigned rank, unsigned msg, unsigned k) { return kRing.frame(rank, msg, k); }
// What a result of packet k of message msg carries behind its headers: the ring's sums.
std::vector<int32_t> sums(unsigned msg, unsigned k) { return kRing.sums(msg, k, {0, 1, 2}); }

class NetReduceHandler : public ::testing::Test {
 protected:
  NetReduceHandler() : h_(switch_cfg(), "netreduce") { h_.set_routes(&routes_); }
  HandlerCall run(const fs::Bytes& f, unsigned port) { return h_.run(f, port); }
  std::string name(const HandlerCall& c) const { return h_.outcome_name(c.outcome); }
  const netreduce_switch_config_t& config() { return netreduce_config_in(h_); }
  const netreduce_aggregator_t& aggregator(uint32_t index) { return netreduce_aggregator_in(h_, index); }
  std::vector<netreduce_clt_entry_t> clt_entries() {
    std::vector<netreduce_clt_entry_t> out;
    const auto* e = reinterpret_cast<const netreduce_clt_entry_t*>(h_.handler_memory().data() + config().clt_offset);
    for (uint32_t i = 0; i < config().clt_entries; ++i)
      if (e[i].used) out.push_back(e[i]);
    return out;
  }
  // Runs the three packets of message msg from every rank in `ranks`, in order; the last call's.
  HandlerCall message_from(std::initializer_list<unsigned> ranks, unsigned msg) {
    HandlerCall last;
    for (unsigned r : ranks)
      for (unsigned k = 0; k < kMsgPackets; ++k) last = run(frame(r, msg, k), r);
    return last;
  }

  HostsOnTheirPorts routes_{kRanks};
  HandlerHarness h_;
};

// A result frame: rank r's headers and `expect` behind them (and, on a first packet, rank r's
// INA header first).
void expect_result(const SentFrame& s, unsigned rank, unsigned msg, unsigned k) {
  ASSERT_EQ(s.kind, SentFrame::kSend);
  ASSERT_EQ(s.ports, std::vector<uint32_t>{(rank + 1) % kRanks});
  const fs::Bytes original = frame(rank, msg, k);
  ASSERT_EQ(s.data.size(), original.size());
  const size_t header = ROCE_BTH_OFFSET + ROCE_BTH_BYTES + roce_extension_bytes(original[ROCE_BTH_OFFSET]) +
                        (k == 0 ? NETREDUCE_INA_BYTES : 0);
  EXPECT_TRUE(std::equal(original.begin(), original.begin() + long(header), s.data.begin())) << "rank " << rank;
  const std::vector<int32_t> want = sums(msg, k);
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(int32_t(fs_le32(s.data.data() + header + 4 * i)), want[i]) << "rank " << rank << " element " << i;
}

TEST_F(NetReduceHandler, FirstPacketsFillTheCltAndTheLastRankSendsTheSumIntoEveryConnection) {
  for (unsigned r : {0u, 1u}) {
    const HandlerCall c = run(frame(r, 0, 0), r);
    EXPECT_EQ(name(c), "aggregated");
    EXPECT_TRUE(c.sent.empty());
  }
  const std::vector<netreduce_clt_entry_t> clt = clt_entries();
  ASSERT_EQ(clt.size(), 2u);
  for (const netreduce_clt_entry_t& e : clt) {
    const unsigned r = netreduce_clt_rank(&e);
    ASSERT_LT(r, 2u);
    EXPECT_EQ(e.src_ip, fs_host_ipv4(r));
    EXPECT_EQ(e.dst_ip, fs_host_ipv4(r + 1));
    EXPECT_EQ(e.dst_qp, NetReduceRingShape::kRecvQp);
    EXPECT_EQ(e.anchored, 1u);
    EXPECT_EQ(netreduce_clt_msg_id(&e), 0u);
    EXPECT_EQ(netreduce_clt_msg_len(&e), kMsgPackets);
    EXPECT_EQ(netreduce_clt_psn0(&e), first_psn(r));
  }
  // Aggregator (0 mod 4) x 3 + 0 holds ranks 0 and 1.
  EXPECT_EQ(aggregator(0).state, uint32_t(NETREDUCE_FILLING));
  EXPECT_EQ(aggregator(0).bitmap[0], 0b011u);
  const HandlerCall last = run(frame(2, 0, 0), 2);
  EXPECT_EQ(name(last), "completed");
  ASSERT_EQ(last.sent.size(), kRanks);
  for (unsigned r = 0; r < kRanks; ++r) expect_result(last.sent[r], r, 0, 0);
  EXPECT_EQ(aggregator(0).state, uint32_t(NETREDUCE_COMPLETE));
  EXPECT_EQ(aggregator(0).bitmap[0], 0b111u);
}

TEST_F(NetReduceHandler, LaterPacketsFindTheirAggregatorByPsnPastTheFirst) {
  message_from({1, 2}, 1);  // message 1: aggregators (1 mod 4) x 3 + k = 3, 4, 5
  for (uint32_t a : {3u, 4u, 5u}) {
    EXPECT_EQ(aggregator(a).msg_id, 1u) << a;
    EXPECT_EQ(aggregator(a).bitmap[0], 0b110u) << a;
  }
  EXPECT_EQ(aggregator(0).state, uint32_t(NETREDUCE_FREE));
  for (unsigned k = 0; k < kMsgPackets; ++k) {  // rank 0 completes them
    const HandlerCall c = run(frame(0, 1, k), 0);
    EXPECT_EQ(name(c), "completed") << k;
    ASSERT_EQ(c.sent.size(), kRanks);
    for (unsigned r = 0; r < kRanks; ++r) expect_result(c.sent[r], r, 1, k);
  }
}

TEST_F(NetReduceHandler, ResendsAreKeptAgainOrAnsweredWithTheResult) {
  run(frame(0, 0, 1), 0);  // before its first packet: no connection yet, passed as it is
  message_from({0, 1}, 0);
  const HandlerCall dup = run(frame(0, 0, 1), 0);
  EXPECT_EQ(name(dup), "duplicate");
  EXPECT_TRUE(dup.sent.empty());
  message_from({2}, 0);
  const HandlerCall again = run(frame(1, 0, 2), 1);
  EXPECT_EQ(name(again), "result_resent");
  ASSERT_EQ(again.sent.size(), 1u);
  expect_result(again.sent[0], 1, 0, 2);
}

TEST_F(NetReduceHandler, AWindowWrapsTheAggregatorArrayAndReleasesOneWindowBack) {
  // 2N = 4 message slots: messages 0, 4 and 8 share aggregators 0-2.
  for (unsigned m = 0; m < 9; ++m) {
    for (unsigned r : {0u, 1u}) message_from({r}, m);
    for (unsigned k = 0; k < kMsgPackets; ++k) {
      const HandlerCall c = run(frame(2, m, k), 2);
      ASSERT_EQ(name(c), "completed") << m << " " << k;
      ASSERT_EQ(c.sent.size(), kRanks);
      for (unsigned r = 0; r < kRanks; ++r) expect_result(c.sent[r], r, m, k);
    }
    if (m >= kWindow) {  // message m - N's aggregators released, m's complete
      for (unsigned k = 0; k < kMsgPackets; ++k) {
        EXPECT_EQ(aggregator(((m - kWindow) % 4) * 3 + k).state, uint32_t(NETREDUCE_RELEASED)) << m;
        EXPECT_EQ(aggregator((m % 4) * 3 + k).state, uint32_t(NETREDUCE_COMPLETE)) << m;
      }
    }
  }
  // A resend of message 6 (released) is forwarded as it is: its receiver has it.
  const fs::Bytes old = frame(0, 6, 1);
  const HandlerCall stale = run(old, 0);
  EXPECT_EQ(name(stale), "stale");
  ASSERT_EQ(stale.sent.size(), 1u);
  EXPECT_EQ(stale.sent[0].data, old);
  EXPECT_EQ(stale.sent[0].ports, std::vector<uint32_t>{1});
  // So is one of message 4, older than any aggregator holds (8 is in its slot).
  EXPECT_EQ(name(run(frame(0, 4, 2), 0)), "stale");
}

TEST_F(NetReduceHandler, APacketPastItsMessageIsDroppedWhenTheFirstWasLost) {
  message_from({0}, 0);
  // Message 1's first packet lost: its second is 4 PSNs past message 0's first (MsgLen 3).
  const HandlerCall c = run(frame(0, 1, 1), 0);
  EXPECT_EQ(name(c), "first_lost");
  EXPECT_TRUE(c.sent.empty());
  // Once the first arrives, the entry moves on and the resend lands in its aggregator.
  EXPECT_EQ(name(run(frame(0, 1, 0), 0)), "aggregated");
  EXPECT_EQ(name(run(frame(0, 1, 1), 0)), "aggregated");
  EXPECT_EQ(aggregator(4).bitmap[0], 0b001u);
}

TEST_F(NetReduceHandler, AnEarlierMessagesPacketAfterTheNextFirstFindsItsOwnAggregator) {
  run(frame(0, 0, 0), 0);
  run(frame(0, 0, 1), 0);
  run(frame(0, 1, 0), 0);  // the entry moves on to message 1
  const HandlerCall c = run(frame(0, 0, 2), 0);  // PSN0 - 1: message 0, packet 2
  EXPECT_EQ(name(c), "aggregated");
  EXPECT_EQ(aggregator(2).msg_id, 0u);
  EXPECT_EQ(aggregator(2).bitmap[0], 0b001u);
}

TEST_F(NetReduceHandler, MalformedFramesAreDroppedAndOtherTrafficPasses) {
  fs::Bytes cut = frame(0, 0, 0);
  cut.resize(cut.size() - 10);  // the IPv4 length says more
  EXPECT_EQ(name(run(cut, 0)), "malformed");

  fs::Bytes bad_rank = message(0, 0);
  bad_rank[7] = 3;  // rank 3 of a 3-worker ring
  EXPECT_EQ(name(run(fs::build_roce_frame(packet(0, 0, 0, bad_rank), 0, fs_host_ipv4(1), 0xC000), 0)), "malformed");
  fs::Bytes long_msg = message(0, 0);
  long_msg[6] = 4;  // MsgLen 4, more than the switch's 3
  EXPECT_EQ(name(run(fs::build_roce_frame(packet(0, 0, 0, long_msg), 0, fs_host_ipv4(1), 0xC000), 0)), "malformed");

  // Another ring's message, an RDMA write that is no NetReduce message and its later packets,
  // an ACK: forwarded unchanged.
  const fs::Bytes other_ring = fs::build_roce_frame(packet(0, 0, 0, message(0, 0, 6)), 0, fs_host_ipv4(1), 0xC000);
  const HandlerCall o = run(other_ring, 0);
  EXPECT_EQ(name(o), "passed");
  ASSERT_EQ(o.sent.size(), 1u);
  EXPECT_EQ(o.sent[0].data, other_ring);
  fs::Bytes plain = message(1, 0);
  plain[0] ^= 0xFF;  // no InetTag
  EXPECT_EQ(name(run(fs::build_roce_frame(packet(1, 0, 0, plain), 1, fs_host_ipv4(2), 0xC001), 1)), "passed");
  EXPECT_EQ(name(run(fs::build_roce_frame(packet(1, 0, 1, plain), 1, fs_host_ipv4(2), 0xC001), 1)), "passed");
  fs::RocePacket ack;
  ack.bth.opcode = ROCE_RC_ACK, ack.bth.dest_qp = 1, ack.aeth = {ROCE_AETH_ACK, 0};
  EXPECT_EQ(name(run(fs::build_roce_frame(ack, 2, fs_host_ipv4(1), 0xC002), 2)), "passed");
  // None of it touched an aggregator.
  for (uint32_t a = 0; a < 2 * kWindow * kMsgPackets; ++a) EXPECT_EQ(aggregator(a).state, uint32_t(NETREDUCE_FREE)) << a;
}

TEST_F(NetReduceHandler, StrangePacketsAreCountedAndLeaveTheRingAlone) {
  message_from({0, 1}, 0);
  // On rank 0's connection: a middle packet 5000 PSNs past its message (no first packet of its
  // own ever came: dropped once it has waited for one), and one 5000 PSNs before it (older than
  // any aggregator holds: sent on for its receiver to drop as a duplicate).
  fs::RocePacket ahead = packet(0, 0, 1, message(0, 0));
  ahead.bth.psn = (first_psn(0) + 5000) & ROCE_PSN_MASK;
  EXPECT_EQ(name(run(fs::build_roce_frame(ahead, 0, fs_host_ipv4(1), 0xC000), 0)), "first_lost");
  fs::RocePacket behind = ahead;
  behind.bth.psn = (first_psn(0) - 5000) & ROCE_PSN_MASK;
  EXPECT_EQ(name(run(fs::build_roce_frame(behind, 0, fs_host_ipv4(1), 0xC000), 0)), "stale");
  // A middle packet to a queue pair no connection here has: not this ring's, sent on (the receiver's
  // NIC drops it).
  fs::RocePacket stranger = packet(0, 0, 1, message(0, 0));
  stranger.bth.dest_qp = 77;
  const HandlerCall s = run(fs::build_roce_frame(stranger, 0, fs_host_ipv4(1), 0xC000), 0);
  EXPECT_EQ(name(s), "passed");
  ASSERT_EQ(s.sent.size(), 1u);
  EXPECT_EQ(s.sent[0].ports, std::vector<uint32_t>{1});
  // The ring goes on as if none had come: rank 2 completes every aggregator with the exact sums.
  for (unsigned k = 0; k < kMsgPackets; ++k) {
    const HandlerCall c = run(frame(2, 0, k), 2);
    ASSERT_EQ(name(c), "completed") << k;
    ASSERT_EQ(c.sent.size(), kRanks);
    for (unsigned r = 0; r < kRanks; ++r) expect_result(c.sent[r], r, 0, k);
  }
}

TEST(NetReduceHandlerSetup, AHandlerWithoutItsConfigurationDropsEverything) {
  HandlerHarness h(switch_cfg(), "netreduce", /*install=*/false);
  EXPECT_EQ(h.outcome_name(h.run(frame(0, 0, 0), 0).outcome), "not_installed");
}

TEST(NetReduceHandlerSetup, TheLayoutIsTheOneTheHeaderDescribes) {
  HandlerHarness h(switch_cfg(), "netreduce");
  const auto& c = netreduce_config_in(h);
  EXPECT_EQ(c.magic, NETREDUCE_SWITCH_MAGIC);
  // The configuration: 19 words, 64 bytes of slots by rank, 64 of receivers' leaves by rank, 32
  // leaves' addresses and 64 connections' emission points, 588 bytes, rounded up to a multiple of
  // 64; then 16 CLT entries of 12 words.
  EXPECT_EQ(c.clt_offset, 640u);
  EXPECT_EQ(c.aggregators_offset, 640u + 16 * 48);
  // An aggregator: its 12-word head, the result area (84 + 64 + 4) and 3 slots of 84 + 64.
  EXPECT_EQ(c.aggregator_bytes, 48u + (84 + 64 + 4) + 3 * (84 + 64));
  EXPECT_EQ(netreduce_ring_bytes(3, 64, 2, 3, 16), c.aggregators_offset + 12ull * c.aggregator_bytes);
}

}  // namespace
}  // namespace fs_tb
