// Tests of egress serialisation (sc_model/switch/egress_port and fs::wire_time in
// common/units.h): departure times at line rate, byte-bounded queue with "egress_full" drops,
// the departure hook's arguments, the onward link and its propagation latency, ECN marking at a
// known queue depth, the busy time a link's utilisation comes from, and wire_time's rounding up
// to whole ps.
#include "switch/egress_port.h"

#include <gtest/gtest.h>

#include "blocks/sc_testbench.h"
#include "net/ecn.h"
#include "net/frame.h"
#include "net/headers.h"

namespace fs_tb {
namespace {

using fs::Bytes;
using fs::wire_time;

TEST(BlocksEgress, WireTimeExactAndRoundedUp) {
  // ps = 8 * (bytes + overhead) * 1000 / gbps
  EXPECT_EQ(wire_time(1000, 24, 100.0), 81920u);    // 8192 bits / 100 = 81.92 ns
  EXPECT_EQ(wire_time(64, 24, 40.0), 17600u);       // 704 bits / 40 = 17.6 ns
  EXPECT_EQ(wire_time(1500, 24, 25.0), 487680u);    // 12192 bits * 40 ps
  EXPECT_EQ(wire_time(9000, 24, 400.0), 180480u);   // 72192 bits * 2.5 ps
  EXPECT_EQ(wire_time(1, 0, 3.0), 2667u);           // 8000 / 3 = 2666.67 -> 2667
  EXPECT_EQ(wire_time(0, 1, 7.0), 1143u);           // 8000 / 7 = 1142.86 -> 1143
  EXPECT_EQ(wire_time(1, 0, 3000.0), 3u);           // 8 / 3 = 2.67 -> 3
  EXPECT_EQ(wire_time(1, 0, 1000.0), 8u);           // exact
  EXPECT_EQ(wire_time(1, 0, 0.1), 80000u);          // 0.1 is not exact in binary; still 80000
  EXPECT_EQ(wire_time(100, 0, 0.3), 2666667u);      // 800000 / 0.3 = 2666666.67 -> 2666667
  EXPECT_EQ(wire_time(0, 0, 100.0), 0u);
}

struct Departure {
  unsigned port;
  Picos time;
  size_t bytes;
};

// The link of a port of the ports section with a line rate and queue capacity (wire overhead 24
// bytes, the default).
fs::LinkParams ports_section(double gbps, uint64_t queue_bytes) {
  fs::PortsConfig p;
  p.gbps = gbps;
  p.egress_queue_bytes = queue_bytes;
  return fs::LinkParams::of(p);
}

struct EgressBench {
  fs::DropLedger drops;
  Script script{"script"};
  RecordingSink link{"link"};
  fs::EgressPort port;
  std::vector<Departure> departed;
  EgressBench(double gbps, uint64_t queue_bytes, unsigned index = 3)
      : EgressBench(ports_section(gbps, queue_bytes), index) {}
  EgressBench(const fs::LinkParams& params, unsigned index = 3) : port("egress", index, params, drops) {
    port.link(&link);
    port.on_departure([this](unsigned i, Picos t, const fs::Packet& p) {
      departed.push_back(Departure{i, t, p.data.size()});
    });
  }
  void send(Picos t, size_t bytes, Picos arrival = 0) { send(t, Bytes(bytes, 0x55), arrival); }
  void send(Picos t, Bytes frame, Picos arrival = 0) {
    script.at(t, [this, frame, arrival]() { port.accept(make_packet(frame, arrival)); });
  }
};

TEST(BlocksEgress, TwoFramesAt100G) {
  quiet_systemc();
  // 100 Gbit/s, overhead 24: a 1000-byte frame occupies 81920 ps. Both frames queued at 0:
  // first bits leave at 0 and 81920 ps; the link gets each when its last bit is out
  // (81920 and 163840 ps).
  EgressBench b(100.0, 1 << 20);
  b.send(0, 1000);
  b.send(0, 1000);
  sc_core::sc_start();
  ASSERT_EQ(b.departed.size(), 2u);
  EXPECT_EQ(b.departed[0].port, 3u);
  EXPECT_EQ(b.departed[0].time, 0u);
  EXPECT_EQ(b.departed[0].bytes, 1000u);
  EXPECT_EQ(b.departed[1].port, 3u);
  EXPECT_EQ(b.departed[1].time, 81920u);
  EXPECT_EQ(b.departed[1].bytes, 1000u);
  ASSERT_EQ(b.link.got.size(), 2u);
  EXPECT_EQ(b.link.got[0].time, 81920u);
  EXPECT_EQ(b.link.got[1].time, 163840u);
  EXPECT_EQ(b.port.packets_out, 2u);
  EXPECT_EQ(b.port.bytes_out, 2000u);
  // Latency from arrival (0) to departure: 0 and 81920.
  EXPECT_EQ(b.port.latency_ps.min(), 0u);
  EXPECT_EQ(b.port.latency_ps.max(), 81920u);
  EXPECT_EQ(b.port.queue_bytes.max(), 2000u);
  EXPECT_EQ(b.port.queue_bytes.level(), 0u);
  EXPECT_EQ(b.drops.total(), 0u);
}

TEST(BlocksEgress, SmallFramesAt40GAndIdleLink) {
  quiet_systemc();
  // 40 Gbit/s: a 64-byte frame takes (64+24)*8/40 = 17.6 ns. Two at 0 leave at 0 and 17600 ps;
  // one at 200 ns finds the link idle and leaves at once.
  EgressBench b(40.0, 1 << 20, 0);
  b.send(0, 64);
  b.send(0, 64);
  b.send(200000, 64, 150000);
  sc_core::sc_start();
  ASSERT_EQ(b.departed.size(), 3u);
  EXPECT_EQ(b.departed[0].time, 0u);
  EXPECT_EQ(b.departed[1].time, 17600u);
  EXPECT_EQ(b.departed[2].time, 200000u);
  EXPECT_EQ(b.departed[2].port, 0u);
  ASSERT_EQ(b.link.got.size(), 3u);
  EXPECT_EQ(b.link.got[2].time, 217600u);
  EXPECT_EQ(b.port.latency_ps.max(), 50000u);  // 200000 - 150000
}

TEST(BlocksEgress, QueueCapacityDropsEgressFull) {
  quiet_systemc();
  // Queue of 2500 bytes at 100 Gbit/s; a frame holds queue memory until its last bit is out.
  //   0 ns:   F1, F2 (1000 B each) queued: 2000 B; F3 would make 3000 > 2500 -> egress_full.
  //   F1 on the wire 0..81.92 ns, F2 81.92..163.84 ns.
  //   100 ns: only F2 left (1000 B): F4 fits (2000 B), F5 would make 3000 -> egress_full.
  //   F4 leaves at 163.84 ns.
  EgressBench b(100.0, 2500);
  b.send(0, 1000);
  b.send(0, 1000);
  b.send(0, 1000);
  b.send(100000, 1000);
  b.send(100000, 1000);
  sc_core::sc_start();
  EXPECT_EQ(b.drops.by_cause.size(), 1u);
  EXPECT_EQ(b.drops.by_cause["egress_full"], 2u);
  ASSERT_EQ(b.departed.size(), 3u);
  EXPECT_EQ(b.departed[0].time, 0u);
  EXPECT_EQ(b.departed[1].time, 81920u);
  EXPECT_EQ(b.departed[2].time, 163840u);
  EXPECT_EQ(b.port.packets_out, 3u);
  EXPECT_EQ(b.port.queue_bytes.max(), 2000u);
}

TEST(BlocksEgress, FrameExactlyFillingQueueIsKept) {
  quiet_systemc();
  // Queue of 1000 bytes: a 1000-byte frame fits exactly; a second at the same time does not,
  // nor does a 1001-byte frame on an empty queue later.
  EgressBench b(100.0, 1000);
  b.send(0, 1000);
  b.send(0, 1);
  b.send(500000, 1001);
  sc_core::sc_start();
  EXPECT_EQ(b.departed.size(), 1u);
  EXPECT_EQ(b.drops.by_cause["egress_full"], 2u);
}

TEST(BlocksEgress, PropagationLatencyDelaysTheFarEndOnly) {
  quiet_systemc();
  // 100 Gbit/s and 1 us of propagation: two 1000-byte frames queued at 0 leave at 0 and 81.92 ns
  // as without latency (the departure hook sees the first bit leave), and reach the far end
  // 1 us after their last bits: 1081.92 and 1163.84 ns, the second while the first is still on
  // the fibre. The link was busy 163.84 ns.
  fs::LinkParams link = ports_section(100.0, 1 << 20);
  link.latency = 1000000;
  EgressBench b(link);
  b.send(0, 1000);
  b.send(0, 1000);
  sc_core::sc_start();
  ASSERT_EQ(b.departed.size(), 2u);
  EXPECT_EQ(b.departed[0].time, 0u);
  EXPECT_EQ(b.departed[1].time, 81920u);
  ASSERT_EQ(b.link.got.size(), 2u);
  EXPECT_EQ(b.link.got[0].time, 1081920u);
  EXPECT_EQ(b.link.got[1].time, 1163840u);
  EXPECT_EQ(b.port.busy_ps, 163840u);
}

// A UDP/IPv4 frame of `bytes` bytes (payload padded) whose TOS byte says ECT(0).
Bytes ect0_frame(size_t bytes) {
  uint8_t src[6] = {2, 0, 0, 0, 0, 1}, dst[6] = {2, 0, 0, 0, 0, 2};
  const Bytes payload(bytes - 42, 0);
  Bytes f = fs::build_udp_frame(src, dst, 0x0A010001, 0x0A010002, 1000, 2000, payload.data(), payload.size());
  EXPECT_TRUE(fs::set_ecn(f, fs::Ecn::kEct0));
  return f;
}

TEST(BlocksEgress, EcnMarksFramesQueuedBehindMoreThanTheThreshold) {
  quiet_systemc();
  // Threshold 1500 bytes, queue 4000, 100 Gbit/s; five ECN-capable 1000-byte frames at 0 and a
  // sixth at 200 ns. At 0 each finds 0, 1000, 2000, 3000 queued bytes: the first two pass, the
  // third and fourth are marked (2000 and 3000 > 1500), the fifth (4000 + 1000 > 4000) is
  // dropped. At 200 ns frames 1 and 2 have left (81.92, 163.84 ns), 3 is on the wire: 2000
  // bytes queued, so the sixth is marked too. A frame that is not ECN-capable (the 0x55 filler,
  // no IP header) behind 3000 bytes at 200 ns is queued unmarked.
  fs::LinkParams link = ports_section(100.0, 4000);
  link.ecn_bytes = 1500;
  EgressBench b(link);
  for (int i = 0; i < 5; ++i) b.send(0, ect0_frame(1000));
  b.send(200000, ect0_frame(1000));
  b.send(200000, 1000);
  sc_core::sc_start();
  ASSERT_EQ(b.link.got.size(), 6u);
  const fs::Ecn expected[6] = {fs::Ecn::kEct0, fs::Ecn::kEct0, fs::Ecn::kCe,
                               fs::Ecn::kCe,   fs::Ecn::kCe,   fs::Ecn::kNotEct};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(fs::ecn_of(b.link.got[i].pkt->data), expected[i]) << i;
  EXPECT_TRUE(fs::walk_headers(b.link.got[2].pkt->data.data(), b.link.got[2].pkt->data.size()).ok);
  EXPECT_EQ(b.port.ecn_marked, 3u);
  EXPECT_EQ(b.port.dropped, 1u);
  EXPECT_EQ(b.drops.by_cause["egress_full"], 1u);
  fs::StatsTree stats;
  b.port.report(stats);
  EXPECT_EQ(stats["ecn_marked"].uint_value(), 3u);
  EXPECT_EQ(stats["egress_full"].uint_value(), 1u);
}

TEST(BlocksEgress, EcnOffByDefault) {
  quiet_systemc();
  // ecn_bytes 0: nothing is marked however deep the queue.
  EgressBench b(100.0, 1 << 20);
  for (int i = 0; i < 4; ++i) b.send(0, ect0_frame(1500));
  sc_core::sc_start();
  ASSERT_EQ(b.link.got.size(), 4u);
  for (const auto& g : b.link.got) EXPECT_EQ(fs::ecn_of(g.pkt->data), fs::Ecn::kEct0);
  EXPECT_EQ(b.port.ecn_marked, 0u);
}

TEST(BlocksEgress, ALossyLinkLosesTheFramesItsDrawsPick) {
  quiet_systemc();
  // loss 0.3 with seed 77: frame n (1, 2, ...) is lost when mix(77 + n x golden) / 2^64 < 0.3
  // (link.h), mix being splitmix64's finalizer: the frames lost are those, worked out here, and
  // they still took the wire.
  fs::LinkParams params = ports_section(100.0, 1 << 20);
  params.loss = 0.3;
  params.loss_seed = 77;
  EgressBench b(params);
  for (unsigned i = 0; i < 400; ++i) b.send(0, Bytes(100, uint8_t(i)));
  sc_core::sc_start();
  std::vector<uint8_t> want;
  for (uint64_t n = 1; n <= 400; ++n) {
    uint64_t z = 77 + n * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    if (double(z >> 11) / 9007199254740992.0 >= 0.3) want.push_back(uint8_t(n - 1));
  }
  std::vector<uint8_t> got;
  for (const auto& g : b.link.got) got.push_back(g.pkt->data[0]);
  EXPECT_EQ(got, want);
  EXPECT_EQ(b.port.lost, 400u - want.size());
  EXPECT_NEAR(double(b.port.lost), 120.0, 30.0);  // about 30% of 400
  EXPECT_EQ(b.departed.size(), 400u);  // a lost frame still took the wire
}

TEST(BlocksEgress, ALinkThatGoesDownLosesEverythingAfter) {
  quiet_systemc();
  // 1000-byte frames at 100G, one every 81920 ps; the link goes down at 200 ns: frames 0 and 1
  // were delivered (81920, 163840 ps), frame 2 was on the wire (163840 to 245760) and is lost,
  // as are the two after.
  EgressBench b(100.0, 1 << 20);
  for (unsigned i = 0; i < 5; ++i) b.send(0, 1000);
  b.script.at(200000, [&b]() { b.port.set_down(); });
  sc_core::sc_start();
  EXPECT_EQ(b.link.got.size(), 2u);
  EXPECT_EQ(b.port.lost, 3u);
  EXPECT_TRUE(b.port.down());
}

}  // namespace
}  // namespace fs_tb
