// Canary's switch handlers (handlers/canary/canary.c) run natively, packet by packet: what each
// kind of packet does to its block's descriptor and what the switch sends, checked field by field
// against values worked out here (sums of the packets' elements, the descriptor entry from the
// mapping's definition, the timers' ids and delays in cycles of the 1 GHz clock).
#include <gtest/gtest.h>

#include <map>

#include "blocks/handler_harness.h"
#include "canary/canary_switch.h"
#include "config/config.h"
#include "fs_packet.h"
#include "net/frame.h"
#include "protocols/canary/canary_config.h"
#include "protocols/canary/canary_frame.h"

namespace fs_tb {
namespace {

constexpr uint32_t kLeaderPort = 6, kOtherPort = 7;
constexpr unsigned kLeaderHost = 3, kAddress = 5;

// The switch's routes as fs_next_hop sees them: the leader's address out of port 6, another
// switch's (address 9) out of port 7; nothing else.
struct Routes : fs::NextHopIf {
  int next_hop_ipv4(uint32_t dst) const override {
    if (dst == fs_host_ipv4(kLeaderHost)) return kLeaderPort;
    if (dst == fs_fabric_switch_ipv4(9)) return kOtherPort;
    return -1;
  }
};

fs::Config switch_cfg(unsigned clusters, unsigned descriptors, const std::string& mapping = "hash", unsigned apps = 1) {
  fs::Config c;
  c.pspin.clusters = clusters;
  c.ports.count = 8;
  fs::CanaryConfig& k = fs::canary_config(c);
  k.switch_address = kAddress;
  k.descriptors = descriptors;
  k.mapping = mapping;
  k.apps = apps;
  k.timeout_ns = 1000;
  k.lifetime_ns = 50000;
  return c;
}

canary_header_t header(uint32_t id, uint16_t counter, uint16_t hosts, uint8_t flags = 0) {
  canary_header_t h{};
  h.destination = fs_host_ipv4(kLeaderHost), h.id = id, h.counter = counter, h.hosts = hosts, h.flags = flags;
  return h;
}

std::vector<int32_t> data(int32_t base, unsigned n = 8) {
  std::vector<int32_t> v(n);
  for (unsigned i = 0; i < n; ++i) v[i] = base * int32_t(i + 1) - 7;
  return v;
}

fs::CanaryPacket parsed(const fs::Bytes& frame) {
  fs::CanaryPacket p;
  std::string why;
  EXPECT_TRUE(fs::parse_canary_packet(frame.data(), frame.size(), &p, &why)) << why;
  return p;
}

uint32_t ipv4_src(const fs::Bytes& f) { return fs_be32(f.data() + FS_ETH_BYTES + 12); }

// The descriptor entry of `id` by the hash mapping's definition (canary_switch.h): cluster
// id mod C, slot MurmurHash3(id) mod S.
uint32_t hash_entry(uint32_t id, unsigned clusters, unsigned slots) {
  return (id % clusters) * slots + fs_hash(&id, 4, CANARY_HASH_SEED) % slots;
}

class CanaryHandler : public ::testing::Test {
 protected:
  void make(const fs::Config& cfg) {
    h_ = std::make_unique<HandlerHarness>(cfg, "canary");
    h_->set_routes(&routes_);
  }
  HandlerCall run(const canary_header_t& hd, const std::vector<int32_t>& elems, uint32_t port) {
    return h_->run(fs::build_canary_packet(hd, port, elems), port);
  }
  std::string name(const HandlerCall& c) const { return h_->outcome_name(c.outcome); }

  Routes routes_;
  std::unique_ptr<HandlerHarness> h_;
};

TEST_F(CanaryHandler, AggregatesUntilEveryHostButTheLeaderIsInThenSendsOnTowardsIt) {
  make(switch_cfg(2, 4));
  const uint32_t id = canary_id(1, 7), entry = hash_entry(id, 2, 4);
  const HandlerCall a = run(header(id, 1, 5), data(3), 0);
  EXPECT_EQ(name(a), "allocated");
  EXPECT_TRUE(a.sent.empty());
  ASSERT_EQ(a.timers.size(), 1u);  // the aggregation timeout: 1000 ns at 1 GHz
  EXPECT_TRUE(a.timers[0].arm);
  EXPECT_EQ(a.timers[0].id, entry * 2);
  EXPECT_EQ(a.timers[0].delay_cycles, 1000u);

  const HandlerCall b = run(header(id, 2, 5), data(-11), 1);  // an aggregate of 2 from below
  EXPECT_EQ(name(b), "aggregated");
  EXPECT_TRUE(b.sent.empty());
  EXPECT_TRUE(b.timers.empty());

  const HandlerCall c = run(header(id, 1, 5), data(1000000), 2);  // 1 + 2 + 1 = 4 = hosts - 1
  EXPECT_EQ(name(c), "sent_on");
  ASSERT_EQ(c.sent.size(), 1u);
  EXPECT_EQ(c.sent[0].kind, SentFrame::kSend);
  EXPECT_EQ(c.sent[0].ports, std::vector<uint32_t>{kLeaderPort});
  const fs::CanaryPacket up = parsed(c.sent[0].data);
  EXPECT_EQ(up.h.id, id);
  EXPECT_EQ(up.h.counter, 4);
  EXPECT_EQ(up.h.hosts, 5);
  EXPECT_EQ(up.h.flags, 0);
  EXPECT_EQ(up.h.destination, fs_host_ipv4(kLeaderHost));
  std::vector<int32_t> sum(8);
  for (unsigned i = 0; i < 8; ++i) sum[i] = int32_t(uint32_t(data(3)[i]) + uint32_t(data(-11)[i]) + uint32_t(data(1000000)[i]));
  EXPECT_EQ(up.elements, sum);
  EXPECT_EQ(ipv4_src(c.sent[0].data), fs_fabric_switch_ipv4(kAddress));  // from this switch
  EXPECT_EQ(fs_ipv4_checksum(c.sent[0].data.data() + FS_ETH_BYTES, FS_IPV4_BYTES), 0);
  ASSERT_EQ(c.timers.size(), 1u);  // the descriptor's lifetime: 50000 ns
  EXPECT_EQ(c.timers[0].id, entry * 2 + 1);
  EXPECT_EQ(c.timers[0].delay_cycles, 50000u);

  // The result comes down: out of the three ports the block came in on, the descriptor freed.
  const fs::Bytes result = fs::build_canary_packet(header(id, 4, 5, CANARY_FLAG_MULTICAST), kLeaderHost, sum);
  const HandlerCall d = h_->run(result, kLeaderPort);
  EXPECT_EQ(name(d), "broadcast");
  ASSERT_EQ(d.sent.size(), 1u);
  EXPECT_EQ(d.sent[0].kind, SentFrame::kMulticast);
  EXPECT_EQ(d.sent[0].ports, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(d.sent[0].data, result);
  const HandlerCall e = h_->run(result, kLeaderPort);  // a second copy (another path down)
  EXPECT_EQ(name(e), "orphan");
  EXPECT_TRUE(e.sent.empty());
}

TEST_F(CanaryHandler, TheTimeoutSendsWhatArrivedAndLaterPacketsAreStragglers) {
  make(switch_cfg(2, 4));
  const uint32_t id = canary_id(2, 100), entry = hash_entry(id, 2, 4);
  EXPECT_EQ(name(run(header(id, 1, 4), data(5), 1)), "allocated");
  const HandlerCall t = h_->run_timer(entry * 2, id % 2);
  EXPECT_EQ(name(t), "timeout_sent");
  ASSERT_EQ(t.sent.size(), 1u);
  EXPECT_EQ(t.sent[0].ports, std::vector<uint32_t>{kLeaderPort});
  EXPECT_EQ(parsed(t.sent[0].data).h.counter, 1);
  EXPECT_EQ(parsed(t.sent[0].data).elements, data(5));
  ASSERT_EQ(t.timers.size(), 1u);
  EXPECT_EQ(t.timers[0].id, entry * 2 + 1);

  const fs::Bytes late = fs::build_canary_packet(header(id, 1, 4), 3, data(9));
  const HandlerCall s = h_->run(late, 3);
  EXPECT_EQ(name(s), "straggler");
  ASSERT_EQ(s.sent.size(), 1u);
  EXPECT_EQ(s.sent[0].ports, std::vector<uint32_t>{kLeaderPort});
  EXPECT_EQ(s.sent[0].data, late);  // forwarded as it came

  EXPECT_EQ(name(h_->run_timer(entry * 2, id % 2)), "idle_timer");  // a timeout that moved on
  const fs::Bytes result = fs::build_canary_packet(header(id, 3, 4, CANARY_FLAG_MULTICAST), kLeaderHost, data(1));
  const HandlerCall d = h_->run(result, kLeaderPort);
  EXPECT_EQ(name(d), "broadcast");
  ASSERT_EQ(d.sent.size(), 1u);
  EXPECT_EQ(d.sent[0].ports, (std::vector<uint32_t>{1, 3}));  // the straggler's port too
}

TEST_F(CanaryHandler, ACollisionIsMarkedAndBypassedAndARestorationReachesItsPort) {
  make(switch_cfg(1, 1));  // one descriptor: any two blocks collide
  EXPECT_EQ(name(run(header(canary_id(1, 0), 1, 4), data(1), 0)), "allocated");
  const fs::Bytes other = fs::build_canary_packet(header(canary_id(1, 1), 1, 4), 2, data(2));
  const HandlerCall c = h_->run(other, 2);
  EXPECT_EQ(name(c), "collision");
  ASSERT_EQ(c.sent.size(), 1u);
  EXPECT_EQ(c.sent[0].ports, std::vector<uint32_t>{kLeaderPort});
  const fs::CanaryPacket bypassed = parsed(c.sent[0].data);
  EXPECT_EQ(bypassed.h.flags, CANARY_FLAG_BYPASS);
  EXPECT_EQ(bypassed.h.switch_address, kAddress);
  EXPECT_EQ(bypassed.h.children, 2u);  // the port it came in on
  EXPECT_EQ(bypassed.h.counter, 1);
  EXPECT_EQ(bypassed.elements, data(2));
  fs::Bytes unchanged = c.sent[0].data;  // everything else as it came
  fs_put_be32(unchanged.data() + CANARY_PAYLOAD_OFFSET + CANARY_OFF_CHILDREN, 0);
  fs_put_be16(unchanged.data() + CANARY_PAYLOAD_OFFSET + CANARY_OFF_SWITCH, 0);
  unchanged[CANARY_PAYLOAD_OFFSET + CANARY_OFF_FLAGS] = 0;
  EXPECT_EQ(unchanged, other);

  // The leader's restoration for this switch: the result out of port 2, as a broadcast.
  canary_header_t r = header(canary_id(1, 1), 3, 4, CANARY_FLAG_BYPASS | CANARY_FLAG_MULTICAST);
  r.destination = fs_fabric_switch_ipv4(kAddress), r.children = 2, r.switch_address = kAddress;
  const HandlerCall restored = h_->run(fs::build_canary_packet(r, kLeaderHost, data(4)), kLeaderPort);
  EXPECT_EQ(name(restored), "restored");
  ASSERT_EQ(restored.sent.size(), 1u);
  EXPECT_EQ(restored.sent[0].kind, SentFrame::kSend);
  EXPECT_EQ(restored.sent[0].ports, std::vector<uint32_t>{2});
  EXPECT_EQ(parsed(restored.sent[0].data).h.flags, CANARY_FLAG_MULTICAST);
  EXPECT_EQ(parsed(restored.sent[0].data).elements, data(4));

  // A restoration for another switch, and a host's request to the leader, only pass through.
  r.destination = fs_fabric_switch_ipv4(9);
  const fs::Bytes through = fs::build_canary_packet(r, kLeaderHost, data(4));
  const HandlerCall p = h_->run(through, kLeaderPort);
  EXPECT_EQ(name(p), "bypassed");
  ASSERT_EQ(p.sent.size(), 1u);
  EXPECT_EQ(p.sent[0].ports, std::vector<uint32_t>{kOtherPort});
  EXPECT_EQ(p.sent[0].data, through);
  const fs::Bytes request = fs::build_canary_packet(header(canary_id(1, 0), 0, 4, CANARY_FLAG_BYPASS), 1, {});
  const HandlerCall q = h_->run(request, 1);
  EXPECT_EQ(name(q), "bypassed");
  ASSERT_EQ(q.sent.size(), 1u);
  EXPECT_EQ(q.sent[0].data, request);
}

TEST_F(CanaryHandler, TheLifetimeFreesADescriptorWhoseBroadcastNeverCame) {
  make(switch_cfg(1, 1));
  EXPECT_EQ(name(run(header(canary_id(1, 0), 1, 4), data(1), 0)), "allocated");
  EXPECT_EQ(name(h_->run_timer(0)), "timeout_sent");
  EXPECT_EQ(name(h_->run_timer(1)), "expired");
  EXPECT_EQ(name(h_->run_timer(1)), "idle_timer");
  EXPECT_EQ(name(run(header(canary_id(1, 1), 1, 4), data(1), 0)), "allocated");  // free again: no collision
  EXPECT_EQ(name(h_->run(fs::build_canary_packet(header(canary_id(1, 0), 3, 4, CANARY_FLAG_MULTICAST), kLeaderHost,
                                                 data(1)),
                         kLeaderPort)),
            "orphan");
}

TEST_F(CanaryHandler, TheStaticMappingGivesEachApplicationItsShareOfConsecutiveSlots) {
  // 2 clusters x 4 slots, 2 applications: application a's block s is in cluster s mod 2, slot
  // 2a + (s / 2) mod 2 (canary_switch.h): 4 blocks of each fit without a collision.
  make(switch_cfg(2, 4, "static", 2));
  for (unsigned app : {4u, 7u})  // shares 0 and 1
    for (uint32_t s = 0; s < 4; ++s) {
      SCOPED_TRACE(std::to_string(app) + "/" + std::to_string(s));
      const HandlerCall a = run(header(canary_id(app, s), 1, 4), data(int32_t(s)), 0);
      EXPECT_EQ(name(a), "allocated");
      ASSERT_EQ(a.timers.size(), 1u);
      EXPECT_EQ(a.timers[0].id, 2 * ((s % 2) * 4 + (app % 2) * 2 + (s / 2) % 2));
    }
  EXPECT_EQ(name(run(header(canary_id(4, 4), 1, 4), data(1), 0)), "collision");  // block 4 takes block 0's slot
}

TEST_F(CanaryHandler, MalformedPacketsAreDroppedWithNothingSent) {
  make(switch_cfg(1, 4));
  const uint32_t id = canary_id(1, 3);
  auto expect_malformed = [&](const fs::Bytes& frame, const std::string& what) {
    const HandlerCall c = h_->run(frame, 0);
    EXPECT_EQ(name(c), "malformed") << what;
    EXPECT_TRUE(c.sent.empty()) << what;
    EXPECT_TRUE(c.timers.empty()) << what;
  };
  fs::Bytes padding = fs::build_canary_packet(header(id, 1, 4), 0, data(1));
  padding[CANARY_PAYLOAD_OFFSET + CANARY_OFF_FLAGS] = 0x01;
  expect_malformed(padding, "padding bits");
  expect_malformed(fs::build_canary_packet(header(id, 0, 4), 0, data(1)), "a reduce packet with counter 0");
  expect_malformed(fs::build_canary_packet(header(id, 4, 4), 0, data(1)), "counter = hosts");
  expect_malformed(fs::build_canary_packet(header(id, 1, 1), 0, data(1)), "one host");
  expect_malformed(fs::build_canary_packet(header(id, 1, 4), 0, {}), "no data");
  expect_malformed(fs::build_canary_packet(header(id, 1, 4), 0, data(1, CANARY_ELEMENTS + 1)), "too many elements");
  {
    uint8_t payload[CANARY_HEADER_BYTES + 6] = {};
    const canary_header_t hd = header(id, 1, 4);
    canary_encode(&hd, payload);
    uint8_t src[6], dst[6];
    fs_host_mac(0, src);
    fs_switch_mac(dst);
    expect_malformed(fs::build_udp_frame(src, dst, fs_host_ipv4(0), hd.destination, CANARY_UDP_PORT_DEFAULT,
                                         CANARY_UDP_PORT_DEFAULT, payload, sizeof payload),
                     "6 data bytes: not whole elements");
  }
  fs::Bytes cut = fs::build_canary_packet(header(id, 1, 4), 0, data(1));
  cut.resize(CANARY_PAYLOAD_OFFSET + 10);
  expect_malformed(cut, "cut inside the header");
  // Elements that disagree with the block's first packet.
  EXPECT_EQ(name(run(header(id, 1, 4), data(1, 8), 0)), "allocated");
  expect_malformed(fs::build_canary_packet(header(id, 1, 4), 1, data(1, 4)), "4 elements after 8");
  // No route towards the destination.
  canary_header_t nowhere = header(canary_id(1, 9), 1, 4);
  nowhere.destination = fs_host_ipv4(40);
  nowhere.flags = CANARY_FLAG_BYPASS;
  EXPECT_EQ(name(h_->run(fs::build_canary_packet(nowhere, 0, data(1)), 0)), "no_route");
}

TEST(CanaryHandlerMemory, WithoutItsConfigurationEveryPacketIsDropped) {
  fs::Config cfg = switch_cfg(1, 4);
  HandlerHarness h(cfg, "canary", /*install=*/false);
  canary_header_t hd = header(canary_id(1, 0), 1, 4);
  EXPECT_EQ(h.outcome_name(h.run(fs::build_canary_packet(hd, 0, data(1)), 0).outcome), "not_installed");
  EXPECT_EQ(h.outcome_name(h.run_timer(0).outcome), "not_installed");
}

}  // namespace
}  // namespace fs_tb
