// Tests of the L2 packet buffer (sc_model/pspin/packet_buffer.h): capacity in bytes, exact
// "buffer_full" and "oversize" drop counts, release freeing space, the occupancy statistics
// (max and time average) on a hand-computed timeline, and the NIC inbound engine's write of each
// packet into L2 before it goes on to the scheduler.
#include "pspin/packet_buffer.h"

#include <gtest/gtest.h>

#include "blocks/sc_testbench.h"

namespace fs_tb {
namespace {

using fs::Bytes;
using fs::PacketPtr;

struct BufferBench {
  fs::DropLedger drops;
  Script script{"script"};
  RecordingSink sched{"scheduler"};
  fs::PacketBuffer buf;
  // The NIC's defaults (nic.*: 64 bytes a cycle, 3 cycles after the last) at 1 GHz.
  explicit BufferBench(uint64_t capacity, unsigned max_packets = 0, fs::NicConfig nic = {})
      : buf("packet_buffer", fs::PacketBufferConfig{capacity, max_packets}, nic, fs::Clock::from_ghz(1.0), drops) {
    buf.to_scheduler.bind(sched);
  }
  // Offers a packet of `bytes` bytes at time t; returns it so the test can release it later.
  PacketPtr offer(Picos t, size_t bytes) {
    PacketPtr p = make_packet(Bytes(bytes, 0xAB), t);
    script.at(t, [this, p]() { buf.accept(p); });
    return p;
  }
  void release(Picos t, PacketPtr p) {
    script.at(t, [this, p]() { buf.release(*p); });
  }
};

TEST(BlocksPacketBuffer, AtMostMaxPacketsWhateverTheirSize) {
  quiet_systemc();
  // Room for 1 MB but at most 2 packets: of three 64-byte packets at t=0 the third is dropped as
  // buffer_full; once the first is released at 5 ns, a fourth fits again and a fifth does not.
  BufferBench b(1 << 20, 2);
  PacketPtr a = b.offer(0, 64);
  b.offer(0, 64);
  b.offer(0, 64);
  b.release(5000, a);
  PacketPtr d = b.offer(5000, 64);
  b.offer(5000, 64);
  sc_core::sc_start();

  EXPECT_EQ(b.drops.by_cause.size(), 1u);
  EXPECT_EQ(b.drops.by_cause["buffer_full"], 2u);
  EXPECT_EQ(b.buf.accepted, 3u);
  EXPECT_EQ(b.buf.used(), 128u);
  ASSERT_EQ(b.sched.got.size(), 3u);
  EXPECT_EQ(b.sched.got[2].pkt, d);
  EXPECT_EQ(b.buf.occupancy_packets.max(), 2u);
}

TEST(BlocksPacketBuffer, CapacityInBytesDropsAndRelease) {
  quiet_systemc();
  // Capacity 3000 bytes. At t=0: three 1000-byte packets fill it exactly (3000 <= 3000); a
  // 1-byte and a 1000-byte packet then do not fit: 2 x buffer_full. At 10 ns the first is
  // released (2000 used), so a 1000-byte packet fits again (3000) and a 1-byte one does not.
  // The NIC writes the accepted ones one after another, ceil(1000 / 64) = 16 cycles each, and
  // each goes on 3 cycles after its write: 0..16 -> 19 ns, 16..32 -> 35 ns, 32..48 -> 51 ns; the
  // fourth, accepted at 10 ns, waits for the engine: 48..64 -> 67 ns. (Dropped packets are not
  // written.)
  BufferBench b(3000);
  PacketPtr a = b.offer(0, 1000);
  b.offer(0, 1000);
  b.offer(0, 1000);
  b.offer(0, 1);
  b.offer(0, 1000);
  b.release(10000, a);
  PacketPtr f = b.offer(10000, 1000);
  b.offer(10000, 1);
  sc_core::sc_start();

  EXPECT_EQ(b.buf.capacity(), 3000u);
  EXPECT_EQ(b.drops.by_cause.size(), 1u);
  EXPECT_EQ(b.drops.by_cause["buffer_full"], 3u);
  EXPECT_EQ(b.buf.accepted, 4u);
  EXPECT_EQ(b.buf.used(), 3000u);
  ASSERT_EQ(b.sched.got.size(), 4u);  // accepted packets go on to the scheduler once written
  EXPECT_EQ(b.sched.got[0].time, 19000u);
  EXPECT_EQ(b.sched.got[1].time, 35000u);
  EXPECT_EQ(b.sched.got[2].time, 51000u);
  EXPECT_EQ(b.sched.got[3].time, 67000u);
  EXPECT_EQ(b.sched.got[3].pkt, f);
  EXPECT_EQ(b.buf.occupancy_bytes.max(), 3000u);
  EXPECT_EQ(b.buf.occupancy_packets.max(), 3u);
}

TEST(BlocksPacketBuffer, OccupancyMaxAndTimeAverage) {
  quiet_systemc();
  // Timeline (capacity 10000):
  //   0 ns  A (1000 B) in   -> 1000 B, 1 packet
  //   10 ns B (2000 B) in   -> 3000 B, 2 packets
  //   30 ns A released      -> 2000 B, 1 packet
  //   40 ns B released      ->    0 B, 0 packets
  //   average over 50 ns: bytes   (1000*10 + 3000*20 + 2000*10 + 0*10) / 50 = 90000 / 50 = 1800
  //                       packets (1*10 + 2*20 + 1*10 + 0*10) / 50 = 60 / 50 = 1.2
  BufferBench b(10000);
  PacketPtr a = b.offer(0, 1000);
  PacketPtr bb = b.offer(10000, 2000);
  b.release(30000, a);
  b.release(40000, bb);
  sc_core::sc_start();

  EXPECT_EQ(b.buf.used(), 0u);
  EXPECT_EQ(b.buf.occupancy_bytes.max(), 3000u);
  EXPECT_EQ(b.buf.occupancy_packets.max(), 2u);
  EXPECT_EQ(b.buf.occupancy_bytes.level(), 0u);
  EXPECT_DOUBLE_EQ(b.buf.occupancy_bytes.average(50000), 1800.0);
  EXPECT_DOUBLE_EQ(b.buf.occupancy_packets.average(50000), 1.2);
  // Up to 40 ns only: (10000 + 60000 + 20000) / 40 = 2250 bytes.
  EXPECT_DOUBLE_EQ(b.buf.occupancy_bytes.average(40000), 2250.0);
  EXPECT_EQ(b.drops.total(), 0u);
}

TEST(BlocksPacketBuffer, OversizeBeforeBufferFull) {
  quiet_systemc();
  // kMaxSlotFrameBytes = 9216 - 2 = 9214 (the L1 slot less the 2 bytes before the frame that
  // align its IPv4 header): a 9214-byte packet is accepted, a 9215-byte one is "oversize".
  // Capacity 2 * 9214 = 18428: after two 9214-byte packets the buffer is full; a 10000-byte
  // packet still counts as oversize (checked first), a 1-byte one as buffer_full.
  ASSERT_EQ(fs::kL1PacketSlotBytes, 9216u);
  ASSERT_EQ(fs::kMaxSlotFrameBytes, 9214u);
  BufferBench b(18428);
  b.offer(0, 9214);
  b.offer(0, 9215);
  b.offer(0, 9214);
  b.offer(0, 10000);
  b.offer(0, 1);
  sc_core::sc_start();

  EXPECT_EQ(b.buf.accepted, 2u);
  EXPECT_EQ(b.buf.used(), 18428u);
  EXPECT_EQ(b.drops.by_cause.size(), 2u);
  EXPECT_EQ(b.drops.by_cause["oversize"], 2u);
  EXPECT_EQ(b.drops.by_cause["buffer_full"], 1u);
  EXPECT_EQ(b.sched.got.size(), 2u);
}

TEST(BlocksPacketBuffer, NicWritesOnePacketAtATimePerPortThenHandsItOn) {
  quiet_systemc();
  // nic.write_bytes_per_cycle 32, nic.write_latency_cycles 5, 1 GHz. Packets arrive at
  //   0 ns   P (100 B, port 0): ceil(100 / 32) = 4 cycles, written 0..4, handed on at 4 + 5 = 9 ns
  //   1 ns   Q (64 B, port 0):  2 cycles, waits for P's bytes: 4..6, handed on at 11 ns
  //   1 ns   S (64 B, port 1):  its port's own engine is idle: 1..3, handed on at 8 ns
  //   20 ns  R (1 B, port 0):   1 cycle, the engine is idle again: 20..21, handed on at 26 ns
  // Each packet records when it entered (unit_in) and when its write was done (written).
  BufferBench b(1 << 20, 0, fs::NicConfig{32, 5, 2});
  PacketPtr p = b.offer(0, 100), q = b.offer(1000, 64), r = b.offer(20000, 1);
  PacketPtr s = make_packet(Bytes(64, 0xCD), 1000, 1);
  b.script.at(1000, [&b, s]() { b.buf.accept(s); });
  sc_core::sc_start();

  ASSERT_EQ(b.sched.got.size(), 4u);
  EXPECT_EQ(b.sched.got[0].pkt, s);
  EXPECT_EQ(b.sched.got[0].time, 8000u);
  EXPECT_EQ(b.sched.got[1].pkt, p);
  EXPECT_EQ(b.sched.got[1].time, 9000u);
  EXPECT_EQ(b.sched.got[2].pkt, q);
  EXPECT_EQ(b.sched.got[2].time, 11000u);
  EXPECT_EQ(b.sched.got[3].pkt, r);
  EXPECT_EQ(b.sched.got[3].time, 26000u);
  EXPECT_EQ(p->unit_in, 0u);
  EXPECT_EQ(q->unit_in, 1000u);
  EXPECT_EQ(s->unit_in, 1000u);
  EXPECT_EQ(r->unit_in, 20000u);
  EXPECT_EQ(p->written, 9000u);
  EXPECT_EQ(q->written, 11000u);
  EXPECT_EQ(s->written, 8000u);
  EXPECT_EQ(r->written, 26000u);
  EXPECT_EQ(b.buf.used(), 229u);  // held until their feedback releases them
}

}  // namespace
}  // namespace fs_tb
