// Tests of the host-based ring allreduce (sc_model/network/ring_allreduce): every rank's result
// against a reduction computed here independently (64-bit integers cut to the type's width,
// doubles) for 2, 3, 4 and 8 hosts, uneven and empty segments, float32, min, max and the narrow
// integer types; the packet, ACK and byte counts from the segment geometry; the finish time on
// one switch against the hand-worked closed form of the pipelined schedule (latency-bound and
// bandwidth-bound, ACKs included), and the large-message limit 2(P-1)/P x S/B; recovery from
// drops by retransmission under an incast on a topology file's small queue.
//
// Several networks may share one simulation (one per process): each has its own switches,
// hosts and ring, and nothing in one reaches the other.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "blocks/sc_testbench.h"
#include "common/errors.h"
#include "common/fnv1a.h"
#include "common/splitmix64.h"
#include "network/network.h"
#include "network/ring_allreduce.h"
#include "network/traffic.h"
#include "network/fabric_timing.h"

namespace fs_tb {
namespace {

// Plain switches with fabric_timing()'s links (4 ns through a switch), the ring on every host.
fs::Config ring_config(uint64_t bytes, const std::string& dtype = "int32", const std::string& op = "sum") {
  fs::Config c = fabric_timing();
  c.hosts.model = "ring";
  c.hosts.bytes = bytes;
  c.hosts.elem_bytes = 1024;
  c.hosts.dtype = dtype;
  c.hosts.op = op;
  return c;
}

// One network of `hosts` hosts on a single plain switch with the ring on it.
struct Fabric {
  Fabric(const std::string& name, const fs::Config& cfg, unsigned hosts)
      : net(std::make_unique<fs::Network>(("net_" + name).c_str(), cfg,
                                          fs::leaf_spine(1, 0, hosts, fs::SwitchKind::kPlain))),
        ring(std::make_unique<fs::RingAllreduce>(("ring_" + name).c_str(), cfg, *net)) {}
  std::unique_ptr<fs::Network> net;
  std::unique_ptr<fs::RingAllreduce> ring;
};

unsigned dtype_size(const std::string& dtype) { return dtype == "int16" ? 2 : dtype == "int8" ? 1 : 4; }

// The reduction of every rank's input, computed apart from the model: in doubles (every partial
// sum is an integer below 2^53: 8 hosts of 32-bit values, or small float32 integers, so exact),
// integer sums then cut to the type's width (two's-complement wrapping).
fs::Bytes reduction(const fs::RingAllreduce& ring, const std::string& dtype, const std::string& op) {
  const unsigned size = dtype_size(dtype);
  const bool is_float = dtype == "float32";
  const uint64_t n = ring.elements();
  std::vector<double> acc(n);  // the values, integers exactly in a double's 53 bits
  for (unsigned r = 0; r < ring.ranks(); ++r) {
    const fs::Bytes in = ring.input(r);
    for (uint64_t i = 0; i < n; ++i) {
      uint32_t raw = 0;
      std::memcpy(&raw, in.data() + i * size, size);  // little-endian host
      float f;
      std::memcpy(&f, &raw, 4);
      const int32_t i32 = size == 4 ? int32_t(raw) : size == 2 ? int16_t(raw) : int8_t(raw);  // sign-extended
      const double x = is_float ? double(f) : double(i32);
      acc[i] = r == 0 ? x : op == "sum" ? acc[i] + x : op == "min" ? std::min(acc[i], x) : std::max(acc[i], x);
    }
  }
  fs::Bytes out(n * size);
  for (uint64_t i = 0; i < n; ++i) {
    const float f = float(acc[i]);
    uint64_t bits = uint64_t(int64_t(acc[i]));  // two's complement: its low bytes are the wrapped sum
    if (is_float) std::memcpy(&bits, &f, 4), bits &= 0xFFFFFFFFu;
    std::memcpy(out.data() + i * size, &bits, size);
  }
  return out;
}

// Every rank holds the reduction; the stats say so; the packet, ACK and byte counts follow from
// the segments: in each of the 2(P-1) steps every segment is sent once (by one rank or
// another), a packet of 42 + 16 header bytes and its elements, and every nonempty one is
// acknowledged once by a 58-byte frame.
void expect_exact(const fs::RingAllreduce& ring, const std::string& dtype, const std::string& op) {
  const fs::Bytes want = reduction(ring, dtype, op);
  for (unsigned r = 0; r < ring.ranks(); ++r) EXPECT_EQ(ring.result(r), want) << "rank " << r;
  uint64_t packets = 0, nonempty = 0;
  for (unsigned s = 0; s < ring.ranks(); ++s) packets += ring.segment_packets(s), nonempty += ring.segment_elements(s) > 0;
  const uint64_t steps = 2 * (ring.ranks() - 1);
  const fs::AllreduceStats st = ring.stats();
  EXPECT_TRUE(st.results_ok);
  EXPECT_EQ(st.unfinished_ranks, 0u);
  EXPECT_EQ(st.packets_sent, steps * packets);
  EXPECT_EQ(st.acks_sent, steps * nonempty);
  EXPECT_EQ(st.bytes_sent, steps * (packets * 58 + ring.elements() * dtype_size(dtype)) + st.acks_sent * 58);
  EXPECT_EQ(st.retransmissions, 0u);
  EXPECT_EQ(st.stray_packets, 0u);
  EXPECT_GT(ring.done_at(), 0u);
}

TEST(RingAllreduce, Int32SumsAreExactOnTwoThreeFourAndEightHosts) {
  quiet_systemc();
  // 2 hosts, 16 KiB: two segments of 8 packets. 3 hosts, 1000 elements: segments of 334, 333
  // and 333 elements, each 2 packets, the second short. 4 hosts, 64 KiB. 8 hosts, 3 elements:
  // segments 0-2 hold one element, 3-7 none (no packets, no ACKs).
  Fabric two("two", ring_config(16 << 10), 2), three("three", ring_config(4000), 3),
      four("four", ring_config(64 << 10), 4), eight("eight", ring_config(12), 8);
  EXPECT_EQ(three.ring->segment_elements(0), 334u);
  EXPECT_EQ(three.ring->segment_start(2), 667u);
  EXPECT_EQ(three.ring->packet_elements(1, 1), 333u - 256u);
  EXPECT_EQ(eight.ring->segment_packets(2), 1u);
  EXPECT_EQ(eight.ring->segment_packets(3), 0u);
  sc_core::sc_start();
  for (const Fabric* f : {&two, &three, &four, &eight}) expect_exact(*f->ring, "int32", "sum");
  // The inputs are the documented draws: host h's element i is the low 32 bits of
  // splitmix64_mix(component_seed(sim.seed, "ring/hosth") + (i + 1) x golden); sim.seed is 1.
  const fs::Bytes in = four.ring->input(3);
  for (uint64_t i : {uint64_t(0), uint64_t(16383)}) {
    const uint64_t x = fs::splitmix64_mix(fs::component_seed(1, "ring/host3") + (i + 1) * fs::kSplitmixGolden);
    uint32_t got;
    std::memcpy(&got, in.data() + 4 * i, 4);
    EXPECT_EQ(got, uint32_t(x)) << "element " << i;
  }
  EXPECT_NE(four.ring->input(0), four.ring->input(1));
}

TEST(RingAllreduce, Float32MinMaxAndNarrowTypesAreExact) {
  quiet_systemc();
  // float32 sums of 5 hosts (small integers: exact in any order), int32 min over 4, int16 max
  // over 3, int8 sums over 6 (which wrap), float32 max over 4; sizes that split unevenly.
  Fabric fsum("fsum", ring_config(40000, "float32", "sum"), 5), imin("imin", ring_config(20000, "int32", "min"), 4),
      smax("smax", ring_config(9998, "int16", "max"), 3), bsum("bsum", ring_config(7777, "int8", "sum"), 6),
      fmax("fmax", ring_config(4096, "float32", "max"), 4);
  sc_core::sc_start();
  expect_exact(*fsum.ring, "float32", "sum");
  expect_exact(*imin.ring, "int32", "min");
  expect_exact(*smax.ring, "int16", "max");
  expect_exact(*bsum.ring, "int8", "sum");
  expect_exact(*fmax.ring, "float32", "max");
  // float32 inputs are integers in -512..511.
  const fs::Bytes in = fsum.ring->input(2);
  for (size_t i = 0; i < in.size(); i += 4) {
    float x;
    std::memcpy(&x, in.data() + i, 4);
    ASSERT_EQ(x, float(int(x)));
    ASSERT_GE(x, -512.0f);
    ASSERT_LE(x, 511.0f);
  }
}

// The finish time on one switch, worked by hand. A data frame of 1024 element bytes is
// 42 + 16 + 1024 = 1082 bytes: w = (1082 + 24) x 8 / 100 = 88.48 ns on a link; an ACK is
// 58 bytes: a = (58 + 24) x 8 / 100 = 6.56 ns. From a frame's last bit leaving a NIC to its last
// bit at the next host: L' = 500 (link) + 4 (parser, router) + w (the switch sends it again) +
// 500 (link) = 1092.48 ns. Each segment is n packets of equal size. D(t, j): when the last bit
// of packet j of step t leaves its sender (the same for every rank, by symmetry); it arrives
// L' later, and packet j of step t + 1 goes to the NIC then.
//
// Without ACKs: D(0, j) = (j + 1) w, D(t + 1, j) = max(D(t, j) + L', D(t + 1, j - 1)) + w, so
// the last packet arrives at T = (2P - 3) max(n w, w + L') + n w + L'.
//
// The ACKs share the links. Rank r acknowledges step t when packet n - 1 of it arrives, right
// after handing packet n - 1 of step t + 1 to its NIC: the ACK leaves after that packet, before
// step t + 2's first (handed over later, when step t + 1's packet 0 arrives). On the switch,
// the ACK goes down to rank r - 1, whose link carries rank r - 2's data.
//
// Latency-bound (n w + a <= w + L'): the NIC sends step t + 1 from (t + 1)(w + L') to
// (t + 1)(w + L') + n w, the ACK then takes a, and step t + 2 starts (t + 2)(w + L'): after it.
// Down the link to r - 1, the ACK waits behind step t + 1's last frame and ends a after it, again
// before step t + 2's first frame. No data frame waits: T = (2P - 3)(w + L') + n w + L'.
//
// Bandwidth-bound (w + L' <= n w): the NIC never idles; it sends step 0, step 1, then
// ACK(0), step 2, ACK(1), ..., step 2P - 3 (the last two ACKs after the data). So
// D(t, j) = t n w + max(t - 1, 0) a + (j + 1) w. Down the link to r - 1 the ACK follows step t's
// last frame and ends exactly when step t + 1's first frame arrives (it left its NIC a + w after
// step t's last): no data frame waits there. T = D(2P - 3, n - 1) + L'
// = (2P - 3) n w + (2P - 4) a + n w + L': the ACK overhead is exactly (2P - 4) a.
constexpr fs::Picos kW = 88480, kA = 6560, kL = 1092480;

fs::Picos latency_bound(unsigned p, unsigned n) { return (2 * p - 3) * (kW + kL) + n * kW + kL; }
fs::Picos bandwidth_bound(unsigned p, unsigned n) { return (2 * p - 3) * n * kW + (2 * p - 4) * kA + n * kW + kL; }

TEST(RingAllreduce, LatencyBoundFinishTimeIsTheClosedForm) {
  quiet_systemc();
  // n = 4 packets a segment: n w + a = 360.48 ns <= w + L' = 1180.96 ns.
  Fabric three("three", ring_config(3 * 4 * 1024), 3), four("four", ring_config(4 * 4 * 1024), 4);
  sc_core::sc_start();
  EXPECT_EQ(three.ring->done_at(), latency_bound(3, 4));  // 4989.28 ns
  EXPECT_EQ(four.ring->done_at(), latency_bound(4, 4));   // 7351.2 ns
  EXPECT_EQ(latency_bound(4, 4), 7351200u);
  expect_exact(*four.ring, "int32", "sum");
}

TEST(RingAllreduce, BandwidthBoundFinishTimeIsTheClosedFormWithTheAcks) {
  quiet_systemc();
  // n = 16 packets a segment: w + L' = 1180.96 ns <= n w = 1415.68 ns.
  Fabric two("two", ring_config(2 * 16 * 1024), 2), four("four", ring_config(4 * 16 * 1024), 4),
      eight("eight", ring_config(8 * 16 * 1024), 8);
  sc_core::sc_start();
  EXPECT_EQ(two.ring->done_at(), bandwidth_bound(2, 16));  // 3923.84 ns: no ACK before data
  EXPECT_EQ(four.ring->done_at(), bandwidth_bound(4, 16));  // 9612.8 ns
  EXPECT_EQ(eight.ring->done_at(), bandwidth_bound(8, 16));  // 20990.72 ns
  EXPECT_EQ(bandwidth_bound(4, 16), 9612800u);
  EXPECT_EQ(bandwidth_bound(8, 16), 20990720u);
  expect_exact(*eight.ring, "int32", "sum");
  // allreduce_gbps: every member's bytes over the finish time, as the dense Flare hosts count.
  EXPECT_DOUBLE_EQ(four.ring->stats().allreduce_gbps, 4.0 * 65536 * 8 / 9612.8);
}

TEST(RingAllreduce, ConcurrentGroupsAreRingsOfTheirOwnAndReportAsOne) {
  quiet_systemc();
  // hosts.groups 3 on 8 hosts of one switch: ranks 0-1, 2-4 and 5-7 (g P / G), each a ring of
  // its own on links no other group uses, so each finishes at its own closed form. 96 KiB each:
  // P = 2 has 48 packets a segment, P = 3 has 32 (bandwidth-bound: n w >= w + L').
  fs::Config c = ring_config(96 << 10);
  c.hosts.groups = 3;
  fs::Network net("net", c, fs::leaf_spine(1, 0, 8, fs::SwitchKind::kPlain));
  std::vector<fs::RingAllreduce*> rings;
  std::vector<std::unique_ptr<fs::NetworkAllreduce>> groups;
  for (unsigned g = 0; g < 3; ++g) {
    auto ring = std::make_unique<fs::RingAllreduce>(("ring" + std::to_string(g)).c_str(), c, net, g);
    rings.push_back(ring.get());
    groups.push_back(std::move(ring));
  }
  const auto all = fs::grouped(std::move(groups));
  sc_core::sc_start();
  EXPECT_EQ(rings[0]->ranks(), 2u);
  EXPECT_EQ(rings[1]->ranks(), 3u);
  EXPECT_EQ(rings[2]->host_of(0), 5u);
  for (fs::RingAllreduce* ring : rings) expect_exact(*ring, "int32", "sum");
  const fs::Picos two = bandwidth_bound(2, 48), three = bandwidth_bound(3, 32);
  EXPECT_EQ(rings[0]->done_at(), two);    // 9586.56 ns
  EXPECT_EQ(rings[1]->done_at(), three);  // 12431.04 ns
  EXPECT_EQ(rings[2]->done_at(), three);
  EXPECT_EQ(two, 9586560u);
  EXPECT_EQ(three, 12431040u);
  // As one: the last group's time; every member's bytes over it; the groups' goodput averaged.
  const fs::AllreduceStats s = all->stats();
  EXPECT_EQ(s.groups, 3u);
  EXPECT_EQ(s.hosts, 8u);
  EXPECT_EQ(s.bytes, 96u << 10);
  EXPECT_DOUBLE_EQ(s.done_us, 12.43104);
  const double bits = 98304 * 8.0;
  EXPECT_NEAR(s.allreduce_gbps, 8 * bits / 12431.04, 1e-9);
  EXPECT_NEAR(s.goodput_gbps, (bits / 9586.56 + 2 * bits / 12431.04) / 3, 1e-9);
  EXPECT_EQ(s.packets_sent, rings[0]->stats().packets_sent + 2 * rings[1]->stats().packets_sent);
  EXPECT_EQ(s.acks_sent, 2u * 2 + 2 * 4 * 3);  // 2(P-1) steps of P acknowledged segments each
  EXPECT_TRUE(s.results_ok);
  EXPECT_EQ(all->failure(), "");
  // The link utilisation while the allreduces ran stops at the last member of any group.
  fs::StatsTree report;
  net.report(report, sc_core::sc_time_stamp().value());
  EXPECT_DOUBLE_EQ(report["during_allreduce"]["until_us"].double_value(), 12.43104);
}

TEST(RingAllreduce, GroupsAreConsecutiveRanksOfAtLeastTheModelsMinimum) {
  const std::vector<unsigned> members{9, 8, 7, 6, 5, 4, 3, 2};
  const auto cut = fs::member_groups(members, 3, 2, "ring");
  EXPECT_EQ(cut, (std::vector<std::vector<unsigned>>{{9, 8}, {7, 6, 5}, {4, 3, 2}}));
  EXPECT_EQ(fs::member_groups(members, 1, 2, "ring"), std::vector<std::vector<unsigned>>{members});
  try {
    fs::member_groups(members, 5, 2, "ring");
    ADD_FAILURE() << "5 rings of 2 on 8 members";
  } catch (const fs::InputError& e) {
    EXPECT_STREQ(e.what(), "hosts.groups: 5 ring allreduces of at least 2 hosts need 10 members; hosts.members has 8");
  }
}

TEST(RingAllreduce, LargeMessagesApproachTwoPMinusOneOverPTimesSizeOverBandwidth) {
  quiet_systemc();
  // 4 hosts, 4 MiB each, 8192 element bytes a packet: n = 128 packets a segment, frames of
  // 42 + 16 + 8192 = 8250 bytes, w = (8250 + 24) x 8 / 100 = 661.92 ns, L' = 1004 + w. The
  // bandwidth-bound form gives 510.04672 us, within 2% of 2(P-1)/P x S/B = 1.5 x 4 MiB x 8 /
  // 100 Gbit/s = 503.31648 us (the rest: 66 header and overhead bytes per 8192, the pipeline's
  // fill and drain, the ACKs). The timeout exceeds an ACK's way back (two segments, 170 us).
  fs::Config c = ring_config(4 << 20);
  c.hosts.elem_bytes = 8192;
  c.hosts.timeout_ns = 1000000;
  Fabric four("four", c, 4);
  sc_core::sc_start();
  const fs::Picos w = 661920, n = 128, l = 1004000 + w;
  const fs::Picos t = 5 * n * w + 4 * kA + n * w + l;
  EXPECT_EQ(t, 510046720u);
  EXPECT_EQ(four.ring->done_at(), t);
  const double limit_ps = 2.0 * 3 / 4 * double(4 << 20) * 8 / 100 * 1000;
  EXPECT_DOUBLE_EQ(limit_ps, 503316480.0);
  EXPECT_LT(double(four.ring->done_at()), 1.02 * limit_ps);
  EXPECT_GT(double(four.ring->done_at()), limit_ps);
  expect_exact(*four.ring, "int32", "sum");
}

TEST(RingAllreduce, RetransmissionsRecoverFromDrops) {
  quiet_systemc();
  // One switch, six hosts; the ring on hosts 0-3, host 1's link with a 4 KiB queue. Hosts 4 and
  // 5 send an incast to host 1 at full rate: with the ring's own data, three hosts' worth into
  // one link, so its queue overflows and drops ring packets and ACKs (and background packets).
  // The ring's timeouts send the segments again until every rank has the reduction.
  const fs::Topology topo = fs::parse_topology_text(
      "switch s0 ports=6 kind=plain\n"
      "host h0\nhost h1\nhost h2\nhost h3\nhost h4\nhost h5\n"
      "link s0:0 h0\nlink s0:1 h1 queue_bytes=4KiB\nlink s0:2 h2\nlink s0:3 h3\nlink s0:4 h4\nlink s0:5 h5\n",
      "incast.topo");
  fs::Config c = ring_config(64 << 10);
  c.hosts.members = "0-3";
  c.hosts.timeout_ns = 20000;
  c.traffic.pattern = "incast";
  c.traffic.hosts = "4,5";
  c.traffic.incast_target = 1;
  c.traffic.load = 1.0;
  c.traffic.messages = 8;
  c.traffic.message_bytes = 16 << 10;
  fs::Network net("net", c, topo);
  fs::BackgroundTraffic traffic("traffic", c, net);
  fs::RingAllreduce ring("ring", c, net);
  sc_core::sc_start();
  const fs::EgressPort& to_h1 = *net.switch_at(0).egress()[1];
  EXPECT_GT(to_h1.dropped, 0u);
  const fs::AllreduceStats st = ring.stats();
  EXPECT_GT(st.retransmissions, 0u);
  EXPECT_EQ(st.gave_up, 0u);
  EXPECT_EQ(st.unfinished_ranks, 0u);
  EXPECT_TRUE(st.results_ok);
  EXPECT_EQ(st.stray_packets, 0u);
  const fs::Bytes want = reduction(ring, "int32", "sum");
  for (unsigned r = 0; r < 4; ++r) EXPECT_EQ(ring.result(r), want) << "rank " << r;
  // More data packets than a loss-free run's 2(P-1) x 64 packets: the segments sent again.
  EXPECT_GT(st.packets_sent, 6u * 64);
  EXPECT_EQ(ring.host_of(1), 1u);
}

}  // namespace
}  // namespace fs_tb
