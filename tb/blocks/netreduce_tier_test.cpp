// NetReduce's switch handler across racks (NetReduce 3.3; handlers/netreduce/netreduce.c) run
// natively, packet by packet: a ring of 4 workers (rank r on host r writes to host r + 1 mod 4)
// whose ranks 0 and 1 hang off leaf 0 and ranks 2 and 3 off leaf 1, both under a root. At a leaf:
// the slots (its ranks', and headers only for the connection 3 -> 0 coming in), its rack's sum
// sent up, the notices of the connection 1 -> 2 leaving it, the root's result sent into the
// connections ending in the rack (0 -> 1 with rank 0's headers, 3 -> 0 with the headers rank 3's
// leaf announced, and a middle packet's made from the first's), resends and pass-through
// traffic. At the root: the leaves' sums summed and sent down to each. The frames the tests
// build here (the hosts' packets with the project's RoCE frame code, the switches' by hand from
// netreduce_switch.h's format), and the sums, are worked out independently of the handler.
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

constexpr unsigned kRanks = 4, kWindow = 2, kMsgPackets = 3, kMtu = 64;
constexpr NetReduceRingShape kRing{kRanks, kMsgPackets, kMtu, 5};
constexpr unsigned kLeaf0 = 1, kLeaf1 = 2, kRoot = 3;  // fabric addresses
constexpr uint32_t kUplink = 4;                        // leaf 0's port to the root

fs::Bytes frame(unsigned rank, unsigned msg, unsigned k) { return kRing.frame(rank, msg, k); }

// Bytes of headers in front of the elements of packet k (a first packet's INA header included).
size_t header_bytes(unsigned k) {
  return ROCE_BTH_OFFSET + ROCE_BTH_BYTES + (k == 0 ? ROCE_RETH_BYTES + NETREDUCE_INA_BYTES : 0) +
         (k + 1 == kMsgPackets ? ROCE_IMM_BYTES : 0);
}

// The elements packet k of message msg carries, summed over `ranks`.
std::vector<int32_t> sums(unsigned msg, unsigned k, std::initializer_list<unsigned> ranks) {
  return kRing.sums(msg, k, ranks);
}
fs::Bytes le_bytes(const std::vector<int32_t>& v) {
  fs::Bytes b(4 * v.size());
  for (size_t i = 0; i < v.size(); ++i) fs_put_le32(&b[4 * i], uint32_t(v[i]));
  return b;
}

// A packet on a virtual switch-to-switch connection (netreduce_switch.h): from and to the
// switches' MAC address, RDMA write only to the fabric queue pair, PSN msg << 8 | k, the INA
// header, then `payload`.
fs::Bytes fabric_frame(unsigned from, unsigned to, uint32_t tag, unsigned rank, unsigned msg, unsigned k,
                       const fs::Bytes& payload, uint32_t dma_length) {
  fs::RocePacket p;
  p.bth.opcode = ROCE_RC_WRITE_ONLY;
  p.bth.pkey = ROCE_DEFAULT_PKEY;
  p.bth.dest_qp = NETREDUCE_FABRIC_QP;
  p.bth.psn = msg << 8 | k;
  p.reth = {uint64_t(k) * kMtu, 0, dma_length};
  p.payload.resize(NETREDUCE_INA_BYTES);
  const netreduce_ina_t ina{tag, 5, uint8_t(msg), kMsgPackets, uint8_t(rank)};
  netreduce_ina_encode(&ina, p.payload.data());
  p.payload.insert(p.payload.end(), payload.begin(), payload.end());
  fs::Bytes f = fs::build_roce_frame(p, 0, fs_fabric_switch_ipv4(to), uint16_t(0xC000 | 5));
  fs_switch_mac(&f[0]);
  fs_switch_mac(&f[6]);
  fs_put_be32(&f[FS_ETH_BYTES + 12], fs_fabric_switch_ipv4(from));
  fs_put_be16(&f[FS_ETH_BYTES + 10], 0);
  fs_put_be16(&f[FS_ETH_BYTES + 10], fs_ipv4_checksum(&f[FS_ETH_BYTES], FS_IPV4_BYTES));
  return f;
}

// Rank `rank`'s notice of packet k of message msg: its headers at the end of 84 bytes.
fs::Bytes notice(unsigned from, unsigned to, unsigned rank, unsigned msg, unsigned k) {
  const fs::Bytes f = frame(rank, msg, k);
  const size_t hb = header_bytes(k);
  fs::Bytes payload(NETREDUCE_HEADER_MAX - hb, 0);
  payload.insert(payload.end(), f.begin(), f.begin() + long(hb));
  return fabric_frame(from, to, NETREDUCE_NOTICE_TAG, rank, msg, k, payload, uint32_t(hb));
}

// Hosts 0 and 1 are out of ports 0 and 1; everything else (hosts 2 and 3, the other switches) up.
struct Routes : fs::NextHopIf {
  int next_hop_ipv4(uint32_t dst) const override {
    for (unsigned h = 0; h < 2; ++h)
      if (dst == fs_host_ipv4(h)) return int(h);
    return int(kUplink);
  }
};

fs::Config switch_cfg(unsigned role) {
  fs::Config c;
  c.pspin.clusters = 2;
  c.ports.count = 8;
  fs::NetReduceConfig& n = fs::netreduce_config(c);
  n.ring_id = 5, n.ranks = kRanks, n.window = kWindow, n.msg_packets = kMsgPackets, n.mtu = kMtu;
  n.clt_entries = 16, n.order_spins = 4;
  n.in_order = false;  // each aggregator's results as it completes: what these tests follow packet by packet
  n.tier.role = role;
  n.tier.leaves = {kLeaf0, kLeaf1};
  if (role == NETREDUCE_ROLE_LEAF) {
    n.tier.address = kLeaf0, n.tier.parent = kRoot, n.tier.leaf = 0;
    n.tier.leaf_of_rank = {0, 0, 1, 1};
  } else {
    n.tier.address = kRoot;
  }
  return c;
}

uint32_t ipv4_dst(const fs::Bytes& f) { return fs_be32(&f[FS_ETH_BYTES + 16]); }

// A frame the handler sent is `want` but for its last 4 bytes (the ICRC, the command unit's).
void expect_frame(const SentFrame& s, const fs::Bytes& want, uint32_t port) {
  ASSERT_EQ(s.kind, SentFrame::kSend);
  EXPECT_EQ(s.ports, std::vector<uint32_t>{port});
  ASSERT_EQ(s.data.size(), want.size());
  for (size_t i = 0; i + ROCE_ICRC_BYTES < want.size(); ++i)
    ASSERT_EQ(int(s.data[i]), int(want[i])) << "byte " << i << " of " << want.size();
}

// Rank r's packet k of message msg with `elements` in place of its own.
fs::Bytes with_elements(unsigned rank, unsigned msg, unsigned k, const std::vector<int32_t>& elements) {
  fs::Bytes f = frame(rank, msg, k);
  const fs::Bytes e = le_bytes(elements);
  EXPECT_EQ(f.size(), header_bytes(k) + e.size() + ROCE_ICRC_BYTES);
  std::copy(e.begin(), e.end(), f.begin() + long(header_bytes(k)));
  return f;
}

class NetReduceLeaf : public ::testing::Test {
 protected:
  NetReduceLeaf() : h_(switch_cfg(NETREDUCE_ROLE_LEAF), "netreduce") { h_.set_routes(&routes_); }
  HandlerCall run(const fs::Bytes& f, unsigned port) { return h_.run(f, port); }
  std::string name(const HandlerCall& c) const { return h_.outcome_name(c.outcome); }
  const netreduce_switch_config_t& config() { return netreduce_config_in(h_); }
  const netreduce_aggregator_t& aggregator(uint32_t index) { return netreduce_aggregator_in(h_, index); }
  // Ranks 0 and 1's packets of message msg; the calls of rank 1's (which complete the rack).
  std::vector<HandlerCall> rack_sends(unsigned msg) {
    std::vector<HandlerCall> out;
    for (unsigned k = 0; k < kMsgPackets; ++k) EXPECT_EQ(name(run(frame(0, msg, k), 0)), "aggregated") << k;
    for (unsigned k = 0; k < kMsgPackets; ++k) out.push_back(run(frame(1, msg, k), 1));
    return out;
  }
  // The sum leaf 0 sends up for packet k of message msg.
  static fs::Bytes sum_up(unsigned msg, unsigned k) {
    const fs::Bytes e = le_bytes(sums(msg, k, {0, 1}));
    return fabric_frame(kLeaf0, kRoot, NETREDUCE_INET_TAG, 0, msg, k, e, uint32_t(e.size()));
  }
  static fs::Bytes result_down(unsigned msg, unsigned k) {
    const fs::Bytes e = le_bytes(sums(msg, k, {0, 1, 2, 3}));
    return fabric_frame(kRoot, kLeaf0, NETREDUCE_INET_TAG, 0, msg, k, e, uint32_t(e.size()));
  }

  Routes routes_;
  HandlerHarness h_;
};

TEST_F(NetReduceLeaf, ItsSlotsAreItsRanksThenTheConnectionComingIn) {
  const netreduce_switch_config_t& c = config();
  EXPECT_EQ(c.role, uint32_t(NETREDUCE_ROLE_LEAF));
  EXPECT_EQ(c.switch_ipv4, fs_fabric_switch_ipv4(kLeaf0));
  EXPECT_EQ(c.parent_ipv4, fs_fabric_switch_ipv4(kRoot));
  EXPECT_EQ(c.leaf_ipv4[0], fs_fabric_switch_ipv4(kLeaf0));
  EXPECT_EQ(c.leaf_ipv4[1], fs_fabric_switch_ipv4(kLeaf1));
  EXPECT_EQ(c.sources, 2u);
  EXPECT_EQ(c.slots, 3u);
  EXPECT_EQ(std::vector<uint8_t>(c.slot_of_rank, c.slot_of_rank + 4), (std::vector<uint8_t>{0, 1, NETREDUCE_NO_SLOT, 2}));
  // 0 -> 1 ends here, 1 -> 2 and 2 -> 3 in leaf 1's rack, 3 -> 0 here.
  EXPECT_EQ(std::vector<uint8_t>(c.receiver_leaf, c.receiver_leaf + 4), (std::vector<uint8_t>{0, 1, 1, 0}));
  // An aggregator: its head, the result area and 3 slots of 84 + 64 bytes.
  EXPECT_EQ(c.aggregator_bytes, NETREDUCE_AGGREGATOR_HEAD + (84 + 64 + 4) + 3 * (84 + 64));
}

TEST_F(NetReduceLeaf, TheRacksSumGoesUpAndTheConnectionLeavingItIsAnnounced) {
  const std::vector<HandlerCall> calls = rack_sends(0);
  for (unsigned k = 0; k < kMsgPackets; ++k) {
    EXPECT_EQ(name(calls[k]), "sent_up") << k;
    EXPECT_EQ(aggregator(k).state, uint32_t(NETREDUCE_WAITING)) << k;
    // The first and the last of 1 -> 2's packets send a notice to leaf 1 before the sum goes up.
    const bool noticed = k == 0 || k + 1 == kMsgPackets;
    ASSERT_EQ(calls[k].sent.size(), noticed ? 2u : 1u) << k;
    if (noticed) expect_frame(calls[k].sent[0], notice(kLeaf0, kLeaf1, 1, 0, k), kUplink);
    expect_frame(calls[k].sent.back(), sum_up(0, k), kUplink);
  }
  // Rank 0's connection ends in the rack: no notice of it.
  EXPECT_TRUE(run(frame(0, 1, 0), 0).sent.empty());
}

TEST_F(NetReduceLeaf, TheRootsResultGoesIntoTheConnectionsEndingInTheRack) {
  rack_sends(0);
  for (unsigned k : {0u, kMsgPackets - 1}) EXPECT_EQ(name(run(notice(kLeaf1, kLeaf0, 3, 0, k), kUplink)), "notice");
  for (unsigned k = 0; k < kMsgPackets; ++k) {
    const HandlerCall c = run(result_down(0, k), kUplink);
    EXPECT_EQ(name(c), "result_down") << k;
    ASSERT_EQ(c.sent.size(), 2u) << k;
    const std::vector<int32_t> total = sums(0, k, {0, 1, 2, 3});
    expect_frame(c.sent[0], with_elements(0, 0, k, total), 1);  // into 0 -> 1
    // Into 3 -> 0, with rank 3's headers: announced for packets 0 and 2, made from packet 0's
    // for packet 1 (opcode, PSN, lengths and checksum as rank 3's NIC made them).
    expect_frame(c.sent[1], with_elements(3, 0, k, total), 0);
    EXPECT_EQ(aggregator(k).state, uint32_t(NETREDUCE_COMPLETE)) << k;
  }
}

TEST_F(NetReduceLeaf, AResultBeforeItsNoticeWaitsForIt) {
  rack_sends(0);
  const HandlerCall early = run(result_down(0, 0), kUplink);
  EXPECT_EQ(name(early), "result_partly");
  ASSERT_EQ(early.sent.size(), 1u);
  EXPECT_EQ(ipv4_dst(early.sent[0].data), fs_host_ipv4(1));
  // Without packet 0's notice, packet 1's headers cannot be made either.
  EXPECT_EQ(name(run(result_down(0, 1), kUplink)), "result_partly");
  const HandlerCall late = run(notice(kLeaf1, kLeaf0, 3, 0, 0), kUplink);
  EXPECT_EQ(name(late), "notice");
  ASSERT_EQ(late.sent.size(), 1u);
  expect_frame(late.sent[0], with_elements(3, 0, 0, sums(0, 0, {0, 1, 2, 3})), 0);
}

TEST_F(NetReduceLeaf, ResendsSendTheSumUpAgainOrTheResultEndToEnd) {
  rack_sends(0);
  const HandlerCall up = run(frame(0, 0, 1), 0);  // waiting for the root
  EXPECT_EQ(name(up), "up_resent");
  ASSERT_EQ(up.sent.size(), 1u);
  expect_frame(up.sent[0], sum_up(0, 1), kUplink);
  run(result_down(0, 1), kUplink);
  // Rank 1's resend once the result is down: its own result, into its connection to host 2.
  const HandlerCall again = run(frame(1, 0, 1), 1);
  EXPECT_EQ(name(again), "result_resent");
  ASSERT_EQ(again.sent.size(), 1u);
  expect_frame(again.sent[0], with_elements(1, 0, 1, sums(0, 1, {0, 1, 2, 3})), kUplink);
}

TEST_F(NetReduceLeaf, ConnectionsOfOtherRacksPassThrough) {
  // 3 -> 0's and 2 -> 3's packets here are results another leaf sent end to end: as they are.
  for (unsigned rank : {3u, 2u})
    for (unsigned k = 0; k < kMsgPackets; ++k) {
      const fs::Bytes f = frame(rank, 0, k);
      const HandlerCall c = run(f, kUplink);
      EXPECT_EQ(name(c), "passed") << rank << " " << k;
      ASSERT_EQ(c.sent.size(), 1u);
      EXPECT_EQ(c.sent[0].data, f);
    }
  for (uint32_t a = 0; a < 2 * kWindow * kMsgPackets; ++a) EXPECT_EQ(aggregator(a).state, uint32_t(NETREDUCE_FREE)) << a;
}

TEST_F(NetReduceLeaf, MalformedFabricPacketsAreDropped) {
  rack_sends(0);
  fs::Bytes wrong_psn = result_down(0, 1);
  wrong_psn[ROCE_BTH_OFFSET + 10] ^= 1;  // PSN's MsgID byte says message 1, the INA header 0
  EXPECT_EQ(name(run(wrong_psn, kUplink)), "malformed");
  const fs::Bytes e = le_bytes(sums(0, 1, {0, 1, 2, 3}));
  const fs::Bytes from_leaf = fabric_frame(kLeaf1, kLeaf0, NETREDUCE_INET_TAG, 0, 0, 1, e, uint32_t(e.size()));
  EXPECT_EQ(name(run(from_leaf, kUplink)), "malformed");  // a result not from the root
  // A notice of a connection that does not end here (2 -> 3), and one whose headers are cut.
  EXPECT_EQ(name(run(notice(kLeaf1, kLeaf0, 2, 0, 0), kUplink)), "malformed");
  fs::Bytes cut = notice(kLeaf1, kLeaf0, 3, 0, 0);
  fs_put_be32(&cut[ROCE_BTH_OFFSET + ROCE_BTH_BYTES + 12], 60);  // DMA length: 60 header bytes
  EXPECT_EQ(name(run(cut, kUplink)), "malformed");
  const fs::Bytes short_sum = fabric_frame(kRoot, kLeaf0, NETREDUCE_INET_TAG, 0, 0, 1, fs::Bytes(8), 8);
  EXPECT_EQ(name(run(short_sum, kUplink)), "malformed");  // not the aggregator's length
  EXPECT_EQ(aggregator(1).state, uint32_t(NETREDUCE_WAITING));
}

class NetReduceRoot : public ::testing::Test {
 protected:
  NetReduceRoot() : h_(switch_cfg(NETREDUCE_ROLE_ROOT), "netreduce") { h_.set_routes(&routes_); }
  std::string name(const HandlerCall& c) const { return h_.outcome_name(c.outcome); }
  // Leaf `leaf`'s sum of packet k of message msg (its ranks: 2 x leaf and 2 x leaf + 1).
  static fs::Bytes leaf_sum(unsigned leaf, unsigned msg, unsigned k) {
    const fs::Bytes e = le_bytes(sums(msg, k, {2 * leaf, 2 * leaf + 1}));
    return fabric_frame(leaf + 1, kRoot, NETREDUCE_INET_TAG, leaf, msg, k, e, uint32_t(e.size()));
  }
  static fs::Bytes down(unsigned leaf, unsigned msg, unsigned k) {
    const fs::Bytes e = le_bytes(sums(msg, k, {0, 1, 2, 3}));
    return fabric_frame(kRoot, leaf + 1, NETREDUCE_INET_TAG, leaf, msg, k, e, uint32_t(e.size()));
  }
  // Leaf addresses 1 and 2 are out of ports 1 and 2, hosts out of port 0.
  struct LeafRoutes : fs::NextHopIf {
    int next_hop_ipv4(uint32_t dst) const override {
      for (unsigned l : {kLeaf0, kLeaf1})
        if (dst == fs_fabric_switch_ipv4(l)) return int(l);
      return (dst >> 16) == (fs_host_ipv4(0) >> 16) ? 0 : -1;
    }
  } routes_;
  HandlerHarness h_;
};

TEST_F(NetReduceRoot, TheLeavesSumsAreSummedAndSentDownToEach) {
  for (unsigned m = 0; m < 6; ++m)  // 2N = 4 message slots: messages 4 and 5 reuse 0 and 1's
    for (unsigned k = 0; k < kMsgPackets; ++k) {
      EXPECT_EQ(name(h_.run(leaf_sum(1, m, k), 2)), "aggregated");
      const HandlerCall c = h_.run(leaf_sum(0, m, k), 1);
      ASSERT_EQ(name(c), "completed") << m << " " << k;
      ASSERT_EQ(c.sent.size(), 2u);
      for (unsigned leaf : {0u, 1u}) expect_frame(c.sent[leaf], down(leaf, m, k), leaf + 1);
    }
  // A leaf's sum again (its result was lost): the result again, to that leaf alone.
  const HandlerCall again = h_.run(leaf_sum(1, 5, 2), 2);
  EXPECT_EQ(name(again), "result_resent");
  ASSERT_EQ(again.sent.size(), 1u);
  expect_frame(again.sent[0], down(1, 5, 2), 2);
  // Message 3 was released when 5 completed: a sum of it is late.
  EXPECT_EQ(name(h_.run(leaf_sum(0, 3, 0), 1)), "late");
}

TEST_F(NetReduceRoot, HostTrafficPassesAndStrangersAreDropped) {
  const fs::Bytes host = frame(1, 0, 0);  // the leaves take the hosts' packets: it passes
  const HandlerCall passed = h_.run(host, 1);
  EXPECT_EQ(name(passed), "passed");
  ASSERT_EQ(passed.sent.size(), 1u);
  EXPECT_EQ(passed.sent[0].data, host);
  const fs::Bytes e = le_bytes(sums(0, 0, {0, 1}));
  EXPECT_EQ(name(h_.run(fabric_frame(9, kRoot, NETREDUCE_INET_TAG, 0, 0, 0, e, uint32_t(e.size())), 1)), "malformed");
  EXPECT_EQ(name(h_.run(fabric_frame(kLeaf0, kRoot, NETREDUCE_INET_TAG, 2, 0, 0, e, uint32_t(e.size())), 1)),
            "malformed");  // a third leaf's slot
  EXPECT_EQ(name(h_.run(notice(kLeaf0, kRoot, 1, 0, 0), 1)), "malformed");  // notices go to leaves
}

}  // namespace
}  // namespace fs_tb
