// Tests of egress serialisation (sc_model/switch/egress_port and fs::wire_time in
// common/units.h): departure times at line rate, byte-bounded queue with "egress_full" drops,
// the departure hook's arguments, the onward link, and wire_time's rounding up to whole ps.
#include "switch/egress_port.h"

#include <gtest/gtest.h>

#include "blocks/sc_testbench.h"

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

// The ports section with a line rate and queue capacity (wire overhead 24 bytes, the default).
fs::PortsConfig ports_section(double gbps, uint64_t queue_bytes) {
  fs::PortsConfig p;
  p.gbps = gbps;
  p.egress_queue_bytes = queue_bytes;
  return p;
}

struct EgressBench {
  fs::DropLedger drops;
  Script script{"script"};
  RecordingSink link{"link"};
  fs::EgressPort port;
  std::vector<Departure> departed;
  EgressBench(double gbps, uint64_t queue_bytes, unsigned index = 3)
      : port("egress", index, ports_section(gbps, queue_bytes), drops) {
    port.link(&link);
    port.on_departure([this](unsigned i, Picos t, const fs::Packet& p) {
      departed.push_back(Departure{i, t, p.data.size()});
    });
  }
  void send(Picos t, size_t bytes, Picos arrival = 0) {
    script.at(t, [this, bytes, arrival]() { port.accept(make_packet(Bytes(bytes, 0x55), arrival)); });
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

}  // namespace
}  // namespace fs_tb
