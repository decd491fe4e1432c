// Tests of a NetReduce ring's workers (sc_model/protocols/netreduce/netreduce_ring) on a plain
// switch, which aggregates nothing: each worker's result memory then holds its predecessor's
// messages, which the test draws itself from the documented formula; every message's INA header
// as it arrived; the flow control window reached and never passed; the packets and ACKs counted
// from the message geometry; the same results under 3% loss; shapes the ring refuses.
#include "protocols/netreduce/netreduce_ring.h"

#include <gtest/gtest.h>

#include "blocks/sc_testbench.h"
#include "common/errors.h"
#include "common/fnv1a.h"
#include "common/splitmix64.h"
#include "network/fabric_timing.h"
#include "network/network.h"

namespace fs_tb {
namespace {

// Rank r's element i: the low 32 bits of splitmix64_mix(state + (i + 1) golden), state =
// splitmix64_mix(component_seed(seed, "netreduce.ring<id>") ^ r) (netreduce_ring.cpp).
int32_t drawn(uint64_t seed, unsigned ring, unsigned r, uint64_t i) {
  const uint64_t state = fs::splitmix64_mix(fs::component_seed(seed, "netreduce.ring" + std::to_string(ring)) ^ r);
  return int32_t(uint32_t(fs::splitmix64_mix(state + (i + 1) * fs::kSplitmixGolden)));
}

fs::NetReduceRingShape shape(uint64_t bytes) {
  fs::NetReduceRingShape s;
  s.ring_id = 3;
  s.bytes = bytes;
  s.mtu = 1024;
  s.msg_packets = 4;
  s.window = 3;
  s.timeout = 50000000;  // 50 us
  s.seed = 11;
  return s;
}

// Every rank got message m of its predecessor, elements and INA header.
void expect_predecessors_messages(const fs::NetReduceRing& ring, const fs::NetReduceRingShape& s) {
  const uint64_t per = (uint64_t(s.mtu) * s.msg_packets - 8) / 4;
  for (unsigned r = 0; r < ring.ranks(); ++r) {
    const unsigned from = (r + ring.ranks() - 1) % ring.ranks();
    ASSERT_EQ(ring.results(r), ring.messages()) << r;
    EXPECT_GT(ring.done_at(r), 0u);
    for (uint64_t m = 0; m < ring.messages(); ++m) {
      const std::vector<int32_t> got = ring.received(r, m);
      ASSERT_EQ(got.size(), std::min<uint64_t>(per, s.bytes / 4 - m * per));
      for (uint64_t i = 0; i < got.size(); ++i)
        ASSERT_EQ(got[i], drawn(s.seed, s.ring_id, from, m * per + i)) << "rank " << r << " message " << m << " element " << i;
      const netreduce_ina_t h = ring.received_header(r, m);
      EXPECT_EQ(h.inet_tag, NETREDUCE_INET_TAG);
      EXPECT_EQ(h.ring_id, s.ring_id);
      EXPECT_EQ(h.msg_id, uint8_t(m));
      EXPECT_EQ(h.msg_len, (8 + 4 * got.size() + s.mtu - 1) / s.mtu);
      EXPECT_EQ(h.rank, from);
    }
  }
}

TEST(NetReduceRing, OnAPlainSwitchEachWorkerGetsItsPredecessorsMessagesWithinTheWindow) {
  quiet_systemc();
  // 40 KiB each: 10,240 elements, 1,022 in a message of 4 x 1024 bytes behind its 8-byte INA
  // header: 11 messages, the last of 20 elements (88 bytes, one packet). 41 packets per worker,
  // one ACK per message.
  const fs::NetReduceRingShape s = shape(40 << 10);
  fs::Network net("net", fabric_timing(), fs::leaf_spine(1, 0, 4, fs::SwitchKind::kPlain));
  fs::NetReduceRing ring("ring", net, {2, 0, 3, 1}, s);
  EXPECT_EQ(ring.messages(), 11u);
  EXPECT_EQ(ring.message_elements(10), 20u);
  sc_core::sc_start();
  expect_predecessors_messages(ring, s);
  for (unsigned r = 0; r < 4; ++r) {
    EXPECT_EQ(ring.most_in_flight(r), 3u) << r;
    EXPECT_EQ(ring.nic(r).counts().packets_sent, 41u);
    EXPECT_EQ(ring.nic(r).counts().acks_sent, 11u);
    EXPECT_EQ(ring.nic(r).counts().resent, 0u);
    EXPECT_EQ(ring.nic(r).host(), std::vector<unsigned>({2, 0, 3, 1})[r]);
  }
}

TEST(NetReduceRing, LossIsRecoveredAndEveryMessageArrivesWhole) {
  quiet_systemc();
  fs::Config cfg = fabric_timing();
  cfg.network.link_loss = 0.03;
  const fs::NetReduceRingShape s = shape(64 << 10);
  fs::Network net("net", cfg, fs::leaf_spine(2, 1, 2, fs::SwitchKind::kPlain));
  fs::NetReduceRing ring("ring", net, {0, 1, 2, 3}, s);
  sc_core::sc_start();
  expect_predecessors_messages(ring, s);
  uint64_t resent = 0;
  for (unsigned r = 0; r < 4; ++r) resent += ring.nic(r).counts().resent;
  EXPECT_GT(resent, 0u);
}

TEST(NetReduceRing, ShapesItRefuses) {
  quiet_systemc();
  fs::Network net("net", fabric_timing(), fs::leaf_spine(1, 0, 4, fs::SwitchKind::kPlain));
  auto error_of = [&](const std::vector<unsigned>& hosts, const fs::NetReduceRingShape& s) -> std::string {
    try {
      fs::NetReduceRing ring("bad", net, hosts, s);
    } catch (const fs::InputError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(error_of({0}, shape(4096)), "a NetReduce ring has 2 to 255 workers (the INA header's 8-bit rank), not 1");
  fs::NetReduceRingShape s = shape(4096);
  s.msg_packets = 256;
  EXPECT_EQ(error_of({0, 1}, s), "a NetReduce message has 1 to 255 packets (the INA header's 8-bit MsgLen), not 256");
  s = shape(4096);
  s.mtu = 8, s.msg_packets = 1;
  EXPECT_EQ(error_of({0, 1}, s), "a NetReduce message of 1 packets of 8 bytes has no room for an element behind the "
                                 "8-byte INA header");
  EXPECT_EQ(error_of({0, 1}, shape(4094)), "NetReduce gradients are whole int32 elements; 4094 bytes are not");
  s = shape(4096);
  s.window = 0;
  EXPECT_EQ(error_of({0, 1}, s), "a NetReduce window holds at least one message");
}

}  // namespace
}  // namespace fs_tb
