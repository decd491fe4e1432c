// Tests of the allreduce generator's send-schedule options (sc_model/workload/allreduce_timing):
// staggered block orders, exponential gaps, losses with retransmission, duplicates. Expected
// orders, times and random decisions are recomputed here from the formulas of
// traces/FORMAT.md (not with the generator's helpers), and statistical checks use bounds of
// five standard deviations around the expectation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <vector>

#include "common/errors.h"
#include "flare/flare_proto.h"
#include "protocols/flare_dense/allreduce_gen.h"
#include "protocols/flare_dense/allreduce_timing.h"

namespace fs {
namespace {

// The documented draws: mix is splitmix64's finalizer; draw n of stream `tag` of host h is
// mix(mix(mix(seed ^ tag) + h) + n * golden).
uint64_t doc_mix(uint64_t z) {
  z ^= z >> 30;
  z *= 0xBF58476D1CE4E5B9ull;
  z ^= z >> 27;
  z *= 0x94D049BB133111EBull;
  z ^= z >> 31;
  return z;
}
uint64_t doc_draw(uint64_t seed, uint64_t tag, unsigned h, uint64_t n) {
  return doc_mix(doc_mix(doc_mix(seed ^ tag) + h) + n * 0x9E3779B97F4A7C15ull);
}
constexpr uint64_t kGaps = 0x67617073, kLoss = 0x6c6f7373, kDups = 0x64757073;  // "gaps" "loss" "dups"
bool doc_hit(uint64_t x, double p) { return double(x >> 11) < p * 9007199254740992.0; }
bool doc_lost(uint64_t seed, unsigned h, uint64_t b, unsigned a, double p) {
  return a < 15 && doc_hit(doc_draw(seed, kLoss, h, b * 16 + a + 1), p);
}
bool doc_dup(uint64_t seed, unsigned h, uint64_t b, double p) { return doc_hit(doc_draw(seed, kDups, h, b + 1), p); }

AllreduceGenOptions opts(unsigned hosts, uint64_t bytes, uint32_t elem_bytes) {
  AllreduceGenOptions o;
  o.hosts = hosts;
  o.bytes = bytes;
  o.elem_bytes = elem_bytes;
  return o;
}

struct Pkt {
  uint32_t block = 0;
  uint16_t rank = 0;
};
Pkt pkt(const TraceRecord& r) {
  flare_header_t h;
  flare_decode(r.data.data() + FLARE_PAYLOAD_OFFSET, &h);
  return Pkt{h.block_id, h.sender_rank};
}

// Records of each port, in trace order.
std::map<uint16_t, std::vector<const TraceRecord*>> by_port(const AllreduceWorkload& w) {
  std::map<uint16_t, std::vector<const TraceRecord*>> m;
  for (const TraceRecord& r : w.records) m[r.port].push_back(&r);
  return m;
}

// The properties every schedule has: records sorted by (time, port); on each port a frame starts
// no earlier than the previous one (record or lost send) has left the wire; every (block, rank)
// arrives; the expected results are those of the default schedule.
void check_schedule_invariants(const AllreduceGenOptions& o, const AllreduceWorkload& w) {
  for (size_t i = 1; i < w.records.size(); ++i) {
    const TraceRecord &a = w.records[i - 1], &b = w.records[i];
    ASSERT_TRUE(a.time < b.time || (a.time == b.time && a.port < b.port)) << i;
  }
  for (const auto& [port, recs] : by_port(w))
    for (size_t i = 1; i < recs.size(); ++i)
      ASSERT_GE(recs[i]->time, recs[i - 1]->time + wire_time(recs[i - 1]->data.size(), o.wire_overhead, o.gbps))
          << "port " << port << " record " << i;
  std::map<unsigned, Picos> host_free;
  for (const SendEvent& ev : w.sends) {
    ASSERT_GE(ev.time, host_free[ev.host]) << "host " << ev.host << " block " << ev.block;
    host_free[ev.host] = ev.time + ev.wire;
  }
  std::set<std::pair<uint32_t, uint16_t>> seen;
  for (const TraceRecord& r : w.records) {
    const Pkt p = pkt(r);
    EXPECT_EQ(p.rank, r.port);
    seen.insert({p.block, p.rank});
  }
  EXPECT_EQ(seen.size(), size_t(o.hosts) * w.expected.size());
  AllreduceGenOptions plain = o;
  plain.stagger = false;
  plain.mean_gap = 0;
  plain.loss = plain.duplicate = 0;
  const AllreduceWorkload d = generate_allreduce(plain);
  ASSERT_EQ(w.expected.size(), d.expected.size());
  for (size_t i = 0; i < d.expected.size(); ++i) EXPECT_EQ(w.expected[i].payload, d.expected[i].payload) << i;
}

TEST(AllreduceGenOptions, StaggerFourHostsEightBlocks) {
  // Host h starts at block h * 8 / 4 = 2h and wraps around.
  const std::vector<std::vector<uint32_t>> want = {
      {0, 1, 2, 3, 4, 5, 6, 7}, {2, 3, 4, 5, 6, 7, 0, 1}, {4, 5, 6, 7, 0, 1, 2, 3}, {6, 7, 0, 1, 2, 3, 4, 5}};
  AllreduceGenOptions o = opts(4, 8 * 16, 16);  // 8 blocks of 4 int32
  o.stagger = true;
  const AllreduceWorkload w = generate_allreduce(o);
  ASSERT_EQ(w.records.size(), 32u);
  const Picos W = 7840;  // 74-byte frames + 24 bytes overhead = 784 bits at 100 Gbit/s
  for (const auto& [port, recs] : by_port(w)) {
    ASSERT_EQ(recs.size(), 8u);
    for (size_t k = 0; k < 8; ++k) {
      EXPECT_EQ(pkt(*recs[k]).block, want[port][k]) << "host " << port << " k " << k;
      EXPECT_EQ(recs[k]->time, k * W) << "host " << port << " k " << k;  // still back to back
    }
  }
  for (unsigned h = 0; h < 4; ++h)
    for (uint64_t k = 0; k < 8; ++k) EXPECT_EQ(block_sent_at(true, h, 4, 8, k), want[h][k]);
  check_schedule_invariants(o, w);
  // Three hosts: starts 0, 8/3 = 2, 16/3 = 5.
  const std::vector<std::vector<uint32_t>> want3 = {
      {0, 1, 2, 3, 4, 5, 6, 7}, {2, 3, 4, 5, 6, 7, 0, 1}, {5, 6, 7, 0, 1, 2, 3, 4}};
  o.hosts = 3;
  const AllreduceWorkload w3 = generate_allreduce(o);
  for (const auto& [port, recs] : by_port(w3))
    for (size_t k = 0; k < 8; ++k) EXPECT_EQ(pkt(*recs[k]).block, want3[port][k]) << port << " " << k;
  // Off (the default): every host sends 0, 1, 2, ...
  o.stagger = false;
  const AllreduceWorkload plain = generate_allreduce(o);
  for (const auto& [port, recs] : by_port(plain))
    for (size_t k = 0; k < 8; ++k) EXPECT_EQ(pkt(*recs[k]).block, k) << port;
}

TEST(AllreduceGenOptions, ExponentialGapFromFirstPrinciples) {
  const Picos mean = 1000000;  // 1 us
  EXPECT_EQ(exponential_gap(0, mean), 0u);                  // -ln 1
  EXPECT_EQ(exponential_gap(1ull << 63, mean), 693147u);     // 1e6 ln 2 = 693147.18
  EXPECT_EQ(exponential_gap(3ull << 62, mean), 1386294u);    // 1e6 ln 4 = 1386294.36
  EXPECT_EQ(exponential_gap(~0ull, mean), 44361420u);        // 1e6 * 64 ln 2 = 44361419.56
  EXPECT_EQ(exponential_gap(12345, 0), 0u);
  EXPECT_EQ(exponential_gap(~0ull, ~0ull), std::numeric_limits<Picos>::max());  // saturates
}

TEST(AllreduceGenOptions, ExponentialGapsMeanSpreadAndSeeds) {
  const Picos mean = 200000;  // 200 ns
  const unsigned n = 20000;
  auto gaps = [&](uint64_t seed, unsigned host) {
    std::vector<Picos> g;
    for (uint64_t k = 1; k <= n; ++k) g.push_back(host_gap(seed, host, k, mean));
    return g;
  };
  const std::vector<Picos> a = gaps(1, 0);
  double sum = 0;
  for (uint64_t k = 1; k <= n; ++k) {
    const Picos g = a[k - 1];
    // Inverse CDF of the documented draw, in floating point: within a picosecond of the
    // generator's fixed-point value.
    const uint64_t x = doc_draw(1, kGaps, 0, k);
    const double ref = -double(mean) * std::log(double((long double)(~x) + 1.0L) / 18446744073709551616.0);
    ASSERT_LE(std::fabs(double(g) - ref), 1.0) << "k " << k << " x " << x;
    ASSERT_GE(g, 0u);
    sum += double(g);
  }
  // The sample mean of 20000 exponentials has a standard deviation of mean / sqrt(20000) = 0.71%.
  EXPECT_NEAR(sum / n, double(mean), 0.02 * double(mean));
  EXPECT_EQ(gaps(1, 0), a);
  const std::vector<Picos> b = gaps(2, 0), c = gaps(1, 1);
  EXPECT_NE(b, a);
  EXPECT_NE(c, a);
  size_t same = 0;
  for (unsigned i = 0; i < n; ++i) same += a[i] == b[i];
  EXPECT_LT(same, 20u);
}

TEST(AllreduceGenOptions, MeanGapSpacesEachHostsPackets) {
  AllreduceGenOptions o = opts(2, 64 * 16, 16);  // 64 blocks of 74-byte frames
  o.mean_gap = 200000;
  o.seed = 9;
  const AllreduceWorkload w = generate_allreduce(o);
  ASSERT_EQ(w.records.size(), 128u);
  for (const auto& [port, recs] : by_port(w)) {
    EXPECT_EQ(recs[0]->time, 0u);
    for (size_t k = 1; k < recs.size(); ++k) {
      // After the previous packet has left the wire (7840 ps), the gap of the documented draw.
      const uint64_t x = doc_draw(9, kGaps, port, k);
      const double gap = -200000.0 * std::log(double((long double)(~x) + 1.0L) / 18446744073709551616.0);
      EXPECT_NEAR(double(recs[k]->time - recs[k - 1]->time), 7840.0 + gap, 1.0) << port << " " << k;
      EXPECT_EQ(pkt(*recs[k]).block, k);
    }
  }
  check_schedule_invariants(o, w);
  const AllreduceWorkload again = generate_allreduce(o);
  for (size_t i = 0; i < w.records.size(); ++i) EXPECT_EQ(again.records[i].time, w.records[i].time);
  o.seed = 10;
  const AllreduceWorkload other = generate_allreduce(o);
  size_t same = 0;
  for (size_t i = 1; i < w.records.size(); ++i) same += other.records[i].time == w.records[i].time;
  EXPECT_LT(same, 5u);
}

TEST(AllreduceGenOptions, LossRetransmitsAfterTheTimeout) {
  // 8 hosts x 1024 blocks of 16 int32 = 8192 contributions; 122-byte frames, 146 bytes on the
  // wire = 11680 ps. A timeout of 100 wire times keeps every send on the wire-time grid, so each
  // retransmission finds the wire free when its timer expires.
  AllreduceGenOptions o = opts(8, 1024 * 64, 64);
  o.loss = 0.1;
  const Picos W = 11680;
  o.timeout = 100 * W;
  const AllreduceWorkload w = generate_allreduce(o);
  check_schedule_invariants(o, w);
  ASSERT_EQ(w.records.size(), 8192u);  // each contribution arrives exactly once
  // The documented loss draws say which sends are lost and how often each block is sent.
  uint64_t first_losses = 0, losses = 0;
  std::map<std::pair<unsigned, uint32_t>, std::vector<const SendEvent*>> sends;
  for (const SendEvent& ev : w.sends) {
    ASSERT_NE(ev.kind, SendKind::kDuplicate);
    ASSERT_EQ(ev.wire, W);
    sends[{ev.host, ev.block}].push_back(&ev);
  }
  std::map<std::pair<uint16_t, uint32_t>, Picos> arrival;
  for (const TraceRecord& r : w.records) arrival[{r.port, pkt(r).block}] = r.time;
  for (unsigned h = 0; h < 8; ++h) {
    for (uint32_t b = 0; b < 1024; ++b) {
      unsigned tries = 1;
      while (doc_lost(1, h, b, tries - 1, 0.1)) ++tries;
      first_losses += tries > 1;
      losses += tries - 1;
      const auto& s = sends[{h, b}];
      ASSERT_EQ(s.size(), tries) << h << " " << b;
      for (unsigned a = 0; a < tries; ++a) {
        EXPECT_EQ(s[a]->attempt, a);
        EXPECT_EQ(s[a]->kind, a ? SendKind::kRetransmission : SendKind::kOriginal);
        EXPECT_EQ(s[a]->lost, a + 1 < tries);
        if (a) {
          EXPECT_EQ(s[a]->time, s[a - 1]->time + W + o.timeout) << h << " " << b << " " << a;
        }
      }
      // The trace holds the delivered send only.
      EXPECT_EQ(arrival.at({uint16_t(h), b}), s.back()->time);
    }
  }
  EXPECT_EQ(w.lost, losses);
  // First sends lost ~ Binomial(8192, 0.1): mean 819.2, sd 27.2. Sends lost in all: per block
  // a geometric count, mean p/(1-p) and variance p/(1-p)^2: mean 910.2, sd 31.8.
  EXPECT_NEAR(double(first_losses), 819.2, 5 * 27.2);
  EXPECT_NEAR(double(losses), 910.2, 5 * 31.8);
  EXPECT_GT(first_losses, 0u);
}

TEST(AllreduceGenOptions, CertainLossSendsSixteenTimes) {
  // Every send but the 16th is lost. One host, two blocks, W = 7840 ps, T = 1 us: block 0's sends
  // start at n (W + T), block 1's at W + n (W + T) (each goes out when its timer expires).
  AllreduceGenOptions o = opts(1, 32, 16);
  o.loss = 1;
  o.timeout = 1000000;
  const AllreduceWorkload w = generate_allreduce(o);
  ASSERT_EQ(w.sends.size(), 32u);
  EXPECT_EQ(w.lost, 30u);
  ASSERT_EQ(w.records.size(), 2u);
  EXPECT_EQ(w.records[0].time, 15 * 1007840u);
  EXPECT_EQ(w.records[1].time, 7840 + 15 * 1007840u);
  EXPECT_EQ(pkt(w.records[0]).block, 0u);
  EXPECT_EQ(pkt(w.records[1]).block, 1u);
  check_schedule_invariants(o, w);
}

TEST(AllreduceGenOptions, DuplicatesFollowTheirOriginal) {
  AllreduceGenOptions o = opts(8, 1024 * 64, 64);
  o.duplicate = 0.05;
  o.seed = 3;
  const Picos W = 11680;
  const AllreduceWorkload w = generate_allreduce(o);
  check_schedule_invariants(o, w);
  uint64_t want = 0;
  for (unsigned h = 0; h < 8; ++h)
    for (uint32_t b = 0; b < 1024; ++b) want += doc_dup(3, h, b, 0.05);
  EXPECT_EQ(w.duplicates, want);
  EXPECT_EQ(w.records.size(), 8192u + want);
  // Duplicates ~ Binomial(8192, 0.05): mean 409.6, sd 19.7.
  EXPECT_NEAR(double(want), 409.6, 5 * 19.7);
  uint64_t found = 0;
  for (const auto& [port, recs] : by_port(w)) {
    for (size_t i = 1; i < recs.size(); ++i) {
      const Pkt p = pkt(*recs[i]);
      if (p.block != pkt(*recs[i - 1]).block) continue;
      ++found;  // the copy: right after its original, byte for byte
      EXPECT_EQ(recs[i]->data, recs[i - 1]->data);
      EXPECT_EQ(recs[i]->time, recs[i - 1]->time + W);
      EXPECT_TRUE(doc_dup(3, port, p.block, 0.05)) << port << " " << p.block;
    }
  }
  EXPECT_EQ(found, want);
}

TEST(AllreduceGenOptions, DuplicateOfARetransmission) {
  // Loss and duplicates together: the copy follows the send that arrives.
  AllreduceGenOptions o = opts(4, 256 * 64, 64);
  o.loss = 0.2;
  o.duplicate = 0.3;
  o.timeout = 5000000;
  const AllreduceWorkload w = generate_allreduce(o);
  check_schedule_invariants(o, w);
  size_t dup_of_retx = 0;
  for (size_t i = 1; i < w.sends.size(); ++i) {
    const SendEvent &d = w.sends[i], &prev = w.sends[i - 1];
    if (d.kind != SendKind::kDuplicate) continue;
    EXPECT_FALSE(d.lost);
    EXPECT_FALSE(prev.lost);
    EXPECT_EQ(prev.block, d.block);
    EXPECT_EQ(prev.attempt, d.attempt);
    EXPECT_EQ(d.time, prev.time + prev.wire);
    dup_of_retx += prev.kind == SendKind::kRetransmission;
  }
  EXPECT_GT(dup_of_retx, 0u);
}

TEST(AllreduceGenOptions, EveryModeKeepsPortsFreeOfOverlaps) {
  for (int mode = 0; mode < 16; ++mode) {
    AllreduceGenOptions o = opts(5, 100 * 40 + 12, 40);  // 101 blocks, the last one shorter
    o.stagger = mode & 1;
    o.mean_gap = (mode & 2) ? 3000 : 0;
    o.loss = (mode & 4) ? 0.3 : 0;
    o.duplicate = (mode & 8) ? 0.3 : 0;
    o.timeout = 20000;  // not a multiple of the wire time: retransmissions wait for the wire
    o.gbps = 40;
    o.seed = 100 + uint64_t(mode);
    SCOPED_TRACE("mode " + std::to_string(mode));
    const AllreduceWorkload w = generate_allreduce(o);
    check_schedule_invariants(o, w);
    EXPECT_EQ(w.records.size(), 5 * 101 + w.duplicates);
    // Same options, same workload.
    const AllreduceWorkload again = generate_allreduce(o);
    ASSERT_EQ(again.records.size(), w.records.size());
    for (size_t i = 0; i < w.records.size(); ++i) {
      EXPECT_EQ(again.records[i].time, w.records[i].time);
      EXPECT_EQ(again.records[i].data, w.records[i].data);
    }
  }
}

std::string gen_error(const AllreduceGenOptions& o) {
  try {
    generate_allreduce(o);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(AllreduceGenOptions, OptionErrors) {
  const AllreduceGenOptions base = opts(2, 16, 16);
  auto with = [&](auto edit) {
    AllreduceGenOptions c = base;
    edit(c);
    return gen_error(c);
  };
  const std::string p = "allreduce generator: ";
  EXPECT_EQ(with([](auto& c) { c.loss = 1.5; }), p + "loss: 1.5 not in 0..1");
  EXPECT_EQ(with([](auto& c) { c.loss = -0.1; }), p + "loss: -0.1 not in 0..1");
  EXPECT_EQ(with([](auto& c) { c.loss = std::nan(""); }), p + "loss: nan not in 0..1");
  EXPECT_EQ(with([](auto& c) { c.duplicate = 1.25; }), p + "duplicate: 1.25 not in 0..1");
  EXPECT_EQ(with([](auto& c) { c.duplicate = -0.5; }), p + "duplicate: -0.5 not in 0..1");
  EXPECT_EQ(with([](auto& c) { c.duplicate = std::numeric_limits<double>::infinity(); }),
            p + "duplicate: inf not in 0..1");
  EXPECT_EQ(with([](auto& c) { c.loss = 1; c.duplicate = 1; c.timeout = 0; }), "");
  EXPECT_EQ(with([](auto& c) { c.loss = 0; c.duplicate = 0; }), "");
  const std::string overflow =
      p + "send times overflow 64-bit picoseconds (reduce bytes, mean_gap or timeout, or raise gbps)";
  EXPECT_EQ(with([](auto& c) { c.mean_gap = ~0ull; c.bytes = 1024; }), overflow);
  EXPECT_EQ(with([](auto& c) { c.loss = 1; c.timeout = ~0ull / 2; }), overflow);
}

}  // namespace
}  // namespace fs

namespace fs {
namespace {

TEST(AllreduceGenOptions, WindowHoldsTheNextBlockUntilAResultIsBack) {
  // 2 hosts, 8 KiB of int32: 8 blocks of 1082-byte frames, (1082 + 24) * 8 / 100 = 88.48 ns on
  // the wire. Window 2, results 1 us after the last contribution arrived: blocks 0 and 1 go back
  // to back; block 0 is complete at 88.48 ns, its result back at 1088.48 ns, when block 2 goes;
  // block 3 follows it on the wire (1176.96 ns), which is also when block 1's result is back.
  // So block 2j leaves at j * 1088.48 ns and block 2j + 1 88.48 ns later, on both hosts.
  AllreduceGenOptions o = opts(2, 8 << 10, 1024);
  o.window = 2;
  o.result_latency = 1000000;
  const AllreduceWorkload w = generate_allreduce(o);
  ASSERT_EQ(w.records.size(), 16u);
  for (const TraceRecord& r : w.records) {
    const Pkt p = pkt(r);
    const Picos want = Picos(p.block / 2) * 1088480 + (p.block % 2) * 88480;
    EXPECT_EQ(r.time, want) << "block " << p.block << " port " << r.port;
  }
}

TEST(AllreduceGenOptions, WindowAndStatesHoldEachOriginalExactlyAsLongAsNeeded) {
  // With staggering, gaps, losses and duplicates: recompute from the sends when each block's
  // result is back (result_latency after the last host's first delivered send of it has left the
  // wire). Each original leaves exactly when the last of these allows it: the host's wire is
  // free (the end of its previous transmission of any kind, plus the gap drawn for this
  // original); fewer than W of the host's blocks are in flight; block b - T's result is back
  // (T = states, or W). Also the staggered order within groups of min(W, max(1, T / 2)) blocks.
  const std::vector<std::pair<unsigned, unsigned>> cases = {{1, 0}, {3, 0}, {6, 0}, {8, 0}, {3, 12}, {8, 16}, {0, 6}};
  for (const auto& [window, states] : cases) {
    AllreduceGenOptions o = opts(5, 40 << 10, 1024);  // 40 blocks: groups of G, the last shorter
    o.window = window;
    o.states = states;
    o.stagger = true;
    o.mean_gap = 50000;
    o.loss = 0.1;
    o.timeout = 3000000;
    o.duplicate = 0.1;
    o.result_latency = 2000000;
    o.seed = 9 + window + states;
    const std::string where = "window " + std::to_string(window) + " states " + std::to_string(states);
    const AllreduceWorkload w = generate_allreduce(o);
    const uint64_t nb = 40, T = states ? states : window;
    const uint64_t G = window ? std::min<uint64_t>(window, std::max<uint64_t>(1, T / 2)) : std::max<uint64_t>(1, T / 2);
    std::map<std::pair<unsigned, uint32_t>, Picos> first_arrival;  // (host, block) -> end of first delivered send
    for (const SendEvent& s : w.sends)
      if (!s.lost && s.kind != SendKind::kDuplicate && !first_arrival.count({s.host, s.block}))
        first_arrival[{s.host, s.block}] = s.time + s.wire;
    std::vector<Picos> result(nb, 0);
    for (const auto& [key, t] : first_arrival) result[key.second] = std::max(result[key.second], t + o.result_latency);
    ASSERT_EQ(first_arrival.size(), size_t(5 * nb)) << where;
    for (unsigned h = 0; h < 5; ++h) {
      Picos free = 0;
      std::vector<uint32_t> sent;  // originals so far, in order
      for (const SendEvent& s : w.sends) {
        if (s.host != h) continue;
        if (s.kind == SendKind::kOriginal) {
          const uint64_t k = sent.size();
          const Picos gap = k ? host_gap(o.seed, h, k, o.mean_gap) : 0;
          Picos count_ok = 0;  // fewer than W in flight from the (k - W + 1)-th earliest result on
          if (window && k >= window) {
            std::vector<Picos> r;
            for (uint32_t b : sent) r.push_back(result[b]);
            std::sort(r.begin(), r.end());
            count_ok = r[k - window];
          }
          const Picos state_ok = s.block >= T ? result[s.block - T] : 0;
          EXPECT_EQ(s.time, std::max({free + gap, count_ok, state_ok})) << where << " host " << h << " block " << s.block;
          unsigned open = 0;
          for (uint32_t b : sent)
            if (result[b] > s.time) ++open;
          if (window) {
            EXPECT_LT(open, window) << where << " host " << h << " block " << s.block;
          }
          // k-th original: group g = k / G of n = min(G, 40 - g G) blocks, rotated by h G / 5.
          const uint64_t g = k / G * G, n = std::min<uint64_t>(G, nb - g);
          EXPECT_EQ(s.block, g + (uint64_t(h) * G / 5 + k % G) % n) << where << " host " << h << " k " << k;
          sent.push_back(s.block);
        }
        free = s.time + s.wire;
      }
      EXPECT_EQ(sent.size(), nb) << where;
    }
  }
}

TEST(AllreduceGenOptions, StaggerGroups) {
  EXPECT_EQ(stagger_group(0, 0), 0u);     // one group: the whole allreduce
  EXPECT_EQ(stagger_group(8, 0), 8u);     // the window
  EXPECT_EQ(stagger_group(8, 8), 4u);     // half the states
  EXPECT_EQ(stagger_group(8, 64), 8u);
  EXPECT_EQ(stagger_group(0, 10), 5u);
  EXPECT_EQ(stagger_group(1, 1), 1u);
  EXPECT_EQ(stagger_group(0, 1), 1u);
}

}  // namespace
}  // namespace fs
