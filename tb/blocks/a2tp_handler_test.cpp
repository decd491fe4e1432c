// The a2tp switch handler (handlers/a2tp/a2tp.c) run natively, packet by packet, on a switch of 2
// clusters with 6 aggregators (aggregator i in cluster i mod 2, slot i / 2) and hosts on the
// ports of their number: gradients taken, summed and completed into a result to their job's PS
// (sums worked out here by hand, wrapping) and the aggregator held until the PS's result passes;
// collisions sent on to the PS and, in A2TP mode only, remembered as the holder's Col bit;
// duplicates dropped; a CE mark carried as ECE; a RESEND flushing the partial sum to the PS; a
// PS result freeing an aggregation left behind; later gradients of a fragment that collided or
// was resent following it to the PS; a result to a job's group address copied to its workers; static
// shares that never touch another job's aggregators; malformed packets dropped; the installer's
// refusals.
#include <gtest/gtest.h>

#include <cstring>

#include "a2tp/a2tp_switch.h"
#include "blocks/handler_harness.h"
#include "config/config.h"
#include "fs_packet.h"
#include "net/ecn.h"
#include "protocols/a2tp/a2tp_config.h"
#include "protocols/a2tp/a2tp_frame.h"

namespace fs_tb {
namespace {

constexpr unsigned kAggregators = 6, kPs1 = 4, kPs2 = 5;

fs::Config switch_cfg(const std::string& mode = "a2tp", unsigned jobs = 1) {
  fs::Config c;
  c.pspin.clusters = 2;
  c.ports.count = 8;
  fs::A2tpConfig& a = fs::a2tp_config(c);
  a.mode = mode, a.aggregators = kAggregators, a.jobs = jobs;
  return c;
}

struct Gradient {
  uint32_t job, sequence;
  uint16_t aggregator;
  uint8_t worker, workers;
  std::vector<int32_t> values;
  unsigned ps = kPs1;
  uint8_t flags = 0;
  bool ce = false;
};

fs::Bytes frame_of(const Gradient& g) {
  a2tp_header_t h{};
  h.job = g.job, h.sequence = g.sequence, h.aggregator = g.aggregator, h.worker = g.worker, h.workers = g.workers;
  a2tp_bitmap_set(h.bitmap, g.worker), h.flags = g.flags;
  fs::Bytes f = fs::build_a2tp_packet(h, g.worker, fs_host_ipv4(g.ps), g.values);
  if (g.ce) fs::set_ecn(f, fs::Ecn::kCe);
  return f;
}

fs::A2tpPacket read(const fs::Bytes& f) {
  fs::A2tpPacket p;
  std::string why;
  EXPECT_TRUE(fs::parse_a2tp_packet(f.data(), f.size(), &p, &why)) << why;
  return p;
}

class A2tpHandler : public ::testing::Test {
 protected:
  explicit A2tpHandler(const fs::Config& cfg = switch_cfg()) : h_(cfg, "a2tp") { h_.set_routes(&routes_); }
  std::string run(const Gradient& g) {
    last_ = h_.run(frame_of(g), g.worker % 8u);
    return h_.outcome_name(last_.outcome);
  }
  std::string run_frame(const fs::Bytes& f, uint32_t ingress_port = 0) {
    last_ = h_.run(f, ingress_port);
    return h_.outcome_name(last_.outcome);
  }
  // The PS's result for (job, sequence) on its way to worker 0, which frees its aggregator.
  std::string release(uint32_t job, uint32_t sequence, uint16_t aggregator, uint8_t workers) {
    a2tp_header_t r{};
    r.job = job, r.sequence = sequence, r.aggregator = aggregator, r.workers = workers;
    a2tp_full_bitmap(r.bitmap, workers), r.flags = A2TP_FLAG_RESULT;
    return run_frame(fs::build_a2tp_packet(r, kPs1, fs_host_ipv4(0), {0}), kPs1);
  }
  const a2tp_aggregator_t& aggregator(uint32_t index) {
    const auto* c = reinterpret_cast<const a2tp_switch_config_t*>(h_.l1(0));
    return *reinterpret_cast<const a2tp_aggregator_t*>(h_.l1(index % 2) + c->aggregators_offset +
                                                        (index / 2) * A2TP_AGGREGATOR_BYTES);
  }
  HandlerHarness h_;
  HostsOnTheirPorts routes_{8};
  HandlerCall last_;
};

TEST_F(A2tpHandler, EveryWorkersGradientSummedAndTheResultSentToThePs) {
  EXPECT_EQ(run({1, 10, 3, 0, 2, {1, 2, 3}}), "taken");
  EXPECT_TRUE(last_.sent.empty());
  EXPECT_EQ(aggregator(3).busy, 1u);
  EXPECT_EQ(aggregator(3).bitmap[0], 1u);
  EXPECT_EQ(run({1, 10, 3, 1, 2, {10, -20, 0x7FFFFFFF}}), "completed");
  ASSERT_EQ(last_.sent.size(), 1u);
  EXPECT_EQ(last_.sent[0].ports, std::vector<uint32_t>{kPs1});
  const fs::A2tpPacket r = read(last_.sent[0].data);
  EXPECT_EQ(r.h.flags, A2TP_FLAG_RESULT);
  EXPECT_EQ(r.h.job, 1u);
  EXPECT_EQ(r.h.sequence, 10u);
  EXPECT_EQ(r.h.bitmap[0], 3u);
  // 1 + 10, 2 - 20, 3 + 0x7fffffff wrapping to -0x7ffffffe.
  EXPECT_EQ(r.values, (std::vector<int32_t>{11, -18, -0x7FFFFFFE}));
  EXPECT_EQ(fs_be32(last_.sent[0].data.data() + FS_ETH_BYTES + 12), FS_SWITCH_IPV4);
  EXPECT_EQ(fs_be32(last_.sent[0].data.data() + FS_ETH_BYTES + 16), fs_host_ipv4(kPs1));
  EXPECT_EQ(fs::ecn_of(last_.sent[0].data), fs::Ecn::kEct0);
  // The aggregator keeps the result until the PS's result passes: a late copy is a duplicate,
  // another fragment (index 9 mod 6 = 3) collides.
  EXPECT_EQ(aggregator(3).busy, 1u);
  EXPECT_EQ(run({1, 10, 3, 1, 2, {10, -20, 0x7FFFFFFF}}), "duplicate");
  EXPECT_EQ(run({2, 4, 9, 0, 2, {7}, kPs2}), "collision");
  EXPECT_EQ(release(1, 10, 3, 2), "released");
  EXPECT_EQ(aggregator(3).busy, 0u);
  // Then it is free for another job's fragment.
  EXPECT_EQ(run({2, 5, 9, 0, 2, {7}, kPs2}), "taken");
  EXPECT_EQ(aggregator(3).job, 2u);
  // One worker's job completes at once.
  EXPECT_EQ(run({3, 1, 4, 0, 1, {-5}, kPs2}), "completed");
  ASSERT_EQ(last_.sent.size(), 1u);
  EXPECT_EQ(read(last_.sent[0].data).values, std::vector<int32_t>{-5});
}

TEST_F(A2tpHandler, ACollisionGoesOnToThePsAndSetsTheHoldersColBit) {
  EXPECT_EQ(run({1, 10, 3, 0, 2, {1}}), "taken");
  EXPECT_EQ(run({2, 7, 9, 0, 2, {5, 6}, kPs2}), "collision");
  ASSERT_EQ(last_.sent.size(), 1u);
  EXPECT_EQ(last_.sent[0].ports, std::vector<uint32_t>{kPs2});
  const fs::A2tpPacket c = read(last_.sent[0].data);
  EXPECT_EQ(c.h.flags, A2TP_FLAG_COLLISION);
  EXPECT_EQ(c.h.job, 2u);
  EXPECT_EQ(c.values, (std::vector<int32_t>{5, 6}));
  EXPECT_EQ(aggregator(3).col, 1u);
  EXPECT_EQ(run({1, 10, 3, 1, 2, {2}}), "completed");
  ASSERT_EQ(last_.sent.size(), 1u);
  EXPECT_EQ(read(last_.sent[0].data).h.flags, A2TP_FLAG_RESULT | A2TP_FLAG_COL);
  // The next aggregation there, once the result has passed, starts without it.
  EXPECT_EQ(release(1, 10, 3, 2), "released");
  EXPECT_EQ(run({1, 11, 3, 0, 2, {1}}), "taken");
  EXPECT_EQ(aggregator(3).col, 0u);
  // A gradient already flagged COLLISION (by a switch before this one) goes on untouched.
  EXPECT_EQ(run({2, 8, 0, 1, 2, {4}, kPs2, A2TP_FLAG_COLLISION}), "collision");
  EXPECT_EQ(aggregator(0).busy, 0u);
}

TEST_F(A2tpHandler, ACollisionWhileTheResultIsHeldReachesTheHoldersWorkersInThePsResult) {
  EXPECT_EQ(run({1, 10, 3, 0, 2, {1}}), "taken");
  EXPECT_EQ(run({1, 10, 3, 1, 2, {2}}), "completed");
  EXPECT_EQ(read(last_.sent[0].data).h.flags, A2TP_FLAG_RESULT);  // nothing had collided yet
  EXPECT_EQ(run({2, 7, 9, 0, 2, {5}, kPs2}), "collision");
  EXPECT_EQ(release(1, 10, 3, 2), "released");
  ASSERT_EQ(last_.sent.size(), 1u);
  EXPECT_EQ(read(last_.sent[0].data).h.flags, A2TP_FLAG_RESULT | A2TP_FLAG_COL);
  // A result of another fragment passing frees nothing and is left as it is.
  EXPECT_EQ(release(1, 11, 3, 2), "forwarded");
  EXPECT_EQ(read(last_.sent[0].data).h.flags, A2TP_FLAG_RESULT);
}

class A2tpHandlerAtp : public A2tpHandler {
 protected:
  A2tpHandlerAtp() : A2tpHandler(switch_cfg("atp")) {}
};

TEST_F(A2tpHandlerAtp, ACollisionLeavesNoMarkOnTheHolder) {
  EXPECT_EQ(run({1, 10, 3, 0, 2, {1}}), "taken");
  EXPECT_EQ(run({2, 7, 9, 0, 2, {5}, kPs2}), "collision");
  EXPECT_EQ(read(last_.sent[0].data).h.flags, A2TP_FLAG_COLLISION);
  EXPECT_EQ(run({1, 10, 3, 1, 2, {2}}), "completed");
  EXPECT_EQ(read(last_.sent[0].data).h.flags, A2TP_FLAG_RESULT);
}

TEST_F(A2tpHandler, ADuplicateIsDroppedAndACeMarkComesBackAsEce) {
  EXPECT_EQ(run({1, 10, 0, 0, 2, {1, 1}, kPs1, 0, true}), "taken");
  EXPECT_EQ(aggregator(0).ece, 1u);
  EXPECT_EQ(run({1, 10, 0, 0, 2, {100, 100}}), "duplicate");
  EXPECT_TRUE(last_.sent.empty());
  EXPECT_EQ(run({1, 10, 0, 1, 2, {2, 3}}), "completed");
  const fs::A2tpPacket r = read(last_.sent[0].data);
  EXPECT_EQ(r.h.flags, A2TP_FLAG_RESULT | A2TP_FLAG_ECE);
  EXPECT_EQ(r.values, (std::vector<int32_t>{3, 4}));
  EXPECT_EQ(fs::ecn_of(last_.sent[0].data), fs::Ecn::kEct0);  // the mark is in ECE now
}

TEST_F(A2tpHandler, AResendFlushesItsFragmentsPartialSumToThePs) {
  EXPECT_EQ(run({1, 10, 5, 0, 3, {1, 2}}), "taken");
  EXPECT_EQ(run({1, 10, 5, 1, 3, {10, 20}}), "aggregated");
  EXPECT_EQ(run({1, 10, 5, 2, 3, {100, 200}, kPs1, A2TP_FLAG_RESEND}), "flushed");
  ASSERT_EQ(last_.sent.size(), 2u);
  const fs::A2tpPacket resent = read(last_.sent[0].data), partial = read(last_.sent[1].data);
  EXPECT_EQ(last_.sent[0].ports, std::vector<uint32_t>{kPs1});
  EXPECT_EQ(resent.h.flags, A2TP_FLAG_RESEND);
  EXPECT_EQ(resent.values, (std::vector<int32_t>{100, 200}));
  EXPECT_EQ(last_.sent[1].ports, std::vector<uint32_t>{kPs1});
  // A sum flagged RESEND, not a result: a switch above takes it for a flush too (a2tp.c).
  EXPECT_EQ(partial.h.flags, A2TP_FLAG_RESEND | A2TP_FLAG_SUM);
  EXPECT_EQ(partial.h.worker, 0u);  // the lowest of the sum's workers
  EXPECT_EQ(partial.h.bitmap[0], 3u);
  EXPECT_EQ(partial.values, (std::vector<int32_t>{11, 22}));
  EXPECT_EQ(aggregator(5).busy, 0u);
  // A resend whose fragment the switch does not hold (here the aggregator is free, then held by
  // another fragment) only goes on.
  EXPECT_EQ(run({1, 10, 5, 0, 3, {1, 2}, kPs1, A2TP_FLAG_RESEND}), "resent");
  EXPECT_EQ(last_.sent.size(), 1u);
  EXPECT_EQ(run({1, 11, 5, 0, 3, {1, 2}}), "taken");
  EXPECT_EQ(run({1, 10, 5, 1, 3, {1, 2}, kPs1, A2TP_FLAG_RESEND}), "resent");
  EXPECT_EQ(last_.sent.size(), 1u);
  EXPECT_EQ(aggregator(5).sequence, 11u);
}

class A2tpHandlerStatic : public A2tpHandler {
 protected:
  A2tpHandlerStatic() : A2tpHandler(switch_cfg("static", 2)) {}
};

TEST_F(A2tpHandlerStatic, AJobOnlyEverUsesItsOwnShare) {
  // 2 jobs share 6 aggregators: job 0 owns 0-2, job 1 owns 3-5; a header's index is taken mod 3
  // in the job's share. Every index 0-11 of either job lands in its own share, at (index mod 3).
  for (uint32_t job = 0; job < 2; ++job)
    for (uint16_t index = 0; index < 12; ++index) {
      SCOPED_TRACE("job " + std::to_string(job) + " index " + std::to_string(index));
      ASSERT_EQ(run({job, index, index, 0, 2, {1}, kPs1}), "taken");
      for (uint32_t a = 0; a < kAggregators; ++a) EXPECT_EQ(aggregator(a).busy, a == job * 3 + index % 3 ? 1u : 0u);
      ASSERT_EQ(run({job, index, index, 1, 2, {1}, kPs1}), "completed");
      ASSERT_EQ(release(job, index, index, 2), "released");
    }
  // The same index of the two jobs: no collision, each in its share.
  EXPECT_EQ(run({0, 1, 4, 0, 2, {1}}), "taken");
  EXPECT_EQ(run({1, 1, 4, 0, 2, {1}}), "taken");
  EXPECT_EQ(aggregator(1).job, 0u);
  EXPECT_EQ(aggregator(4).job, 1u);
  // A job with no share sends its gradients on to its PS.
  EXPECT_EQ(run({2, 1, 4, 0, 2, {1}, kPs2}), "no_share");
  ASSERT_EQ(last_.sent.size(), 1u);
  EXPECT_EQ(last_.sent[0].ports, std::vector<uint32_t>{kPs2});
  EXPECT_EQ(read(last_.sent[0].data).h.flags, 0);
}

class A2tpHandlerUnevenShares : public A2tpHandler {
 protected:
  A2tpHandlerUnevenShares() : A2tpHandler([] {
    fs::Config c = switch_cfg("static", 2);
    fs::a2tp_config(c).aggregators = 7;  // shares of 3: aggregator 6 stays unused
    return c;
  }()) {}
};

TEST_F(A2tpHandlerUnevenShares, TheAggregatorsBeyondWholeSharesStayUnused) {
  for (uint16_t index = 0; index < 7; ++index) {
    SCOPED_TRACE("index " + std::to_string(index));
    ASSERT_EQ(run({1, index, index, 0, 2, {1}}), "taken");
    EXPECT_EQ(aggregator(3 + index % 3).busy, 1u);
    EXPECT_EQ(aggregator(6).busy, 0u);
    ASSERT_EQ(run({1, index, index, 1, 2, {1}}), "completed");
    ASSERT_EQ(release(1, index, index, 2), "released");
  }
}

TEST_F(A2tpHandler, AResendOfAWorkerAlreadyInFlushesAPartialThatHoldsIt) {
  // Worker 0's gradient is in aggregator 1; its result is late and it resends: the PS gets the
  // resend and the partial with worker 0 in it (it counts worker 0 once: a2tp_ps.h).
  EXPECT_EQ(run({1, 3, 1, 0, 2, {4}}), "taken");
  EXPECT_EQ(run({1, 3, 1, 0, 2, {4}, kPs1, A2TP_FLAG_RESEND}), "flushed");
  ASSERT_EQ(last_.sent.size(), 2u);
  EXPECT_EQ(read(last_.sent[0].data).h.bitmap[0], 1u);
  EXPECT_EQ(read(last_.sent[1].data).h.bitmap[0], 1u);
  EXPECT_EQ(read(last_.sent[1].data).h.flags, A2TP_FLAG_RESEND | A2TP_FLAG_SUM);
  EXPECT_EQ(read(last_.sent[1].data).values, std::vector<int32_t>{4});
}

TEST_F(A2tpHandler, APsResultOnItsWayFreesAnAggregationLeftBehind) {
  // Worker 0's first copy of fragment 10 arrives after the PS completed the fragment (from its
  // resend): it takes aggregator 3, where no other gradient of fragment 10 will come.
  EXPECT_EQ(run({1, 10, 3, 0, 2, {1}}), "taken");
  a2tp_header_t r{};
  r.job = 1, r.sequence = 10, r.aggregator = 3, r.workers = 2, r.bitmap[0] = 3, r.flags = A2TP_FLAG_RESULT;
  // The PS's result to worker 1 passes through: the aggregation is freed, the result goes on.
  EXPECT_EQ(run_frame(fs::build_a2tp_packet(r, kPs1, fs_host_ipv4(1), {5})), "released");
  ASSERT_EQ(last_.sent.size(), 1u);
  EXPECT_EQ(last_.sent[0].ports, std::vector<uint32_t>{1});
  EXPECT_EQ(aggregator(3).busy, 0u);
  // The next result of the fragment finds nothing to free; one of another fragment frees nothing.
  EXPECT_EQ(run_frame(fs::build_a2tp_packet(r, kPs1, fs_host_ipv4(0), {5})), "forwarded");
  EXPECT_EQ(run({1, 11, 3, 0, 2, {1}}), "taken");
  EXPECT_EQ(run_frame(fs::build_a2tp_packet(r, kPs1, fs_host_ipv4(0), {5})), "forwarded");
  EXPECT_EQ(aggregator(3).busy, 1u);
}

TEST_F(A2tpHandler, AFragmentThatCollidedOrWasResentHasItsLaterGradientsFollowToThePs) {
  // Job 2's fragment 7 collides with job 1's fragment 10 in aggregator 3; once fragment 10 is
  // done the aggregator is free, but fragment 7's next gradient goes on to the PS flagged as a
  // collision (its first worker's is there) instead of starting an aggregation here.
  EXPECT_EQ(run({1, 10, 3, 0, 2, {1}}), "taken");
  EXPECT_EQ(run({2, 7, 9, 0, 2, {5}, kPs2}), "collision");
  EXPECT_EQ(run({1, 10, 3, 1, 2, {2}}), "completed");
  EXPECT_EQ(release(1, 10, 3, 2), "released");
  EXPECT_EQ(run({2, 7, 9, 1, 2, {6}, kPs2}), "bypassed");
  ASSERT_EQ(last_.sent.size(), 1u);
  EXPECT_EQ(last_.sent[0].ports, std::vector<uint32_t>{kPs2});
  EXPECT_EQ(read(last_.sent[0].data).h.flags, A2TP_FLAG_COLLISION);
  EXPECT_EQ(read(last_.sent[0].data).values, std::vector<int32_t>{6});
  EXPECT_EQ(aggregator(3).busy, 0u);
  // Its result passing through ends that: the fragment could be aggregated here again.
  a2tp_header_t r{};
  r.job = 2, r.sequence = 7, r.aggregator = 9, r.workers = 2, r.bitmap[0] = 3, r.flags = A2TP_FLAG_RESULT;
  EXPECT_EQ(run_frame(fs::build_a2tp_packet(r, kPs2, fs_host_ipv4(1), {11})), "forwarded");
  EXPECT_EQ(run({2, 7, 9, 1, 2, {6}, kPs2}), "taken");
  // A RESEND that passes before its fragment's other gradients (nothing to flush) sends them on
  // after it, flagged RESEND.
  EXPECT_EQ(run({1, 20, 2, 0, 3, {1}, kPs1, A2TP_FLAG_RESEND}), "resent");
  EXPECT_EQ(run({1, 20, 2, 1, 3, {2}}), "bypassed");
  EXPECT_EQ(read(last_.sent[0].data).h.flags, A2TP_FLAG_RESEND);
  EXPECT_EQ(aggregator(2).busy, 0u);
  // Another fragment takes the aggregator; the bypass stays for fragment 20 alone.
  EXPECT_EQ(run({1, 21, 2, 0, 3, {1}}), "taken");
  EXPECT_EQ(run({1, 20, 2, 2, 3, {3}}), "bypassed");
  EXPECT_EQ(aggregator(2).sequence, 21u);
}

TEST_F(A2tpHandler, AResultToAJobsGroupAddressGoesToEachWorkerOnce) {
  // Job 1's workers are hosts 1, 2 and 3 (the group address names the first); the PS on host 4
  // sends the result once, and it frees the fragment's aggregation left here on its way.
  EXPECT_EQ(run({1, 10, 3, 0, 3, {1}}), "taken");
  a2tp_header_t r{};
  r.job = 1, r.sequence = 10, r.aggregator = 3, r.workers = 3, r.bitmap[0] = 7, r.flags = A2TP_FLAG_RESULT;
  const fs::Bytes result = fs::build_a2tp_packet(r, kPs1, a2tp_group_ipv4(1), {5, 6});
  EXPECT_EQ(run_frame(result, kPs1), "released");
  ASSERT_EQ(last_.sent.size(), 1u);
  EXPECT_EQ(last_.sent[0].ports, (std::vector<uint32_t>{1, 2, 3}));
  EXPECT_EQ(read(last_.sent[0].data).values, (std::vector<int32_t>{5, 6}));
  EXPECT_EQ(aggregator(3).busy, 0u);
  // Never back out of the port it came in by; a worker with no route drops it.
  EXPECT_EQ(run_frame(result, 2), "forwarded");
  EXPECT_EQ(last_.sent[0].ports, (std::vector<uint32_t>{1, 3}));
  EXPECT_EQ(run_frame(fs::build_a2tp_packet(r, kPs1, a2tp_group_ipv4(6), {5, 6}), kPs1), "no_route");
  EXPECT_TRUE(last_.sent.empty());
}

TEST_F(A2tpHandler, MalformedPacketsAreDroppedAndResultsForwarded) {
  Gradient g{1, 10, 3, 0, 2, std::vector<int32_t>(A2TP_ELEMENTS + 1, 1)};
  EXPECT_EQ(run(g), "malformed");  // more values than an aggregator holds
  EXPECT_EQ(run({1, 10, 3, 0, 2, {}}), "malformed");  // no values
  fs::Bytes f = frame_of({1, 10, 3, 0, 2, {1, 2}});
  fs::Bytes bad = f;
  bad[A2TP_PAYLOAD_OFFSET + A2TP_OFF_FLAGS] = A2TP_FLAG_COL;  // a gradient with a result's flag
  EXPECT_EQ(run_frame(bad), "malformed");
  bad = f;
  bad[A2TP_PAYLOAD_OFFSET + A2TP_OFF_RESERVED] = 1;
  EXPECT_EQ(run_frame(bad), "malformed");
  bad = f;
  fs_put_be16(&bad[A2TP_PAYLOAD_OFFSET + A2TP_OFF_ELEMENTS], 3);  // says 3 values, carries 2
  EXPECT_EQ(run_frame(bad), "malformed");
  EXPECT_EQ(run_frame(fs::Bytes(f.begin(), f.begin() + 50)), "malformed");
  EXPECT_TRUE(last_.sent.empty());
  // The same fragment with another length or fan-in than its aggregation's.
  EXPECT_EQ(run({1, 10, 3, 0, 2, {1, 2}}), "taken");
  EXPECT_EQ(run({1, 10, 3, 1, 2, {1, 2, 3}}), "malformed");
  EXPECT_EQ(run({1, 10, 3, 1, 3, {1, 2}}), "malformed");
  EXPECT_EQ(aggregator(3).bitmap[0], 1u);
  // A result passes through towards its destination; one to nowhere is dropped.
  a2tp_header_t r{};
  r.job = 1, r.sequence = 10, r.workers = 2, r.bitmap[0] = 3, r.flags = A2TP_FLAG_RESULT;
  EXPECT_EQ(run_frame(fs::build_a2tp_packet(r, kPs1, fs_host_ipv4(1), {5})), "forwarded");
  ASSERT_EQ(last_.sent.size(), 1u);
  EXPECT_EQ(last_.sent[0].ports, std::vector<uint32_t>{1});
  EXPECT_EQ(run_frame(fs::build_a2tp_packet(r, kPs1, fs_host_ipv4(40), {5})), "no_route");
}

// A job of 40 workers: its bitmaps take a second word, after the 22 bytes (a2tp_proto.h), and
// the values start 4 bytes later. Worker w sends {w, 1}: the sum is {0 + 1 + ... + 39, 40}.
TEST_F(A2tpHandler, AJobOfMoreThan32WorkersCompletesWithEveryWordOfItsBitmap) {
  for (uint8_t w = 0; w < 39; ++w) EXPECT_EQ(run({1, 10, 3, w, 40, {w, 1}}), w ? "aggregated" : "taken") << int(w);
  EXPECT_EQ(run({1, 10, 3, 35, 40, {35, 1}}), "duplicate");
  EXPECT_EQ(aggregator(3).bitmap[0], 0xFFFFFFFFu);
  EXPECT_EQ(aggregator(3).bitmap[1], 0x7Fu);
  EXPECT_EQ(run({1, 10, 3, 39, 40, {39, 1}}), "completed");
  ASSERT_EQ(last_.sent.size(), 1u);
  const fs::Bytes& f = last_.sent[0].data;
  EXPECT_EQ(f.size(), A2TP_PAYLOAD_OFFSET + 26u + 8u);
  EXPECT_EQ(fs_be16(f.data() + FS_ETH_BYTES + FS_IPV4_BYTES + 4), FS_UDP_BYTES + 26u + 8u);
  EXPECT_EQ(fs_be32(f.data() + A2TP_PAYLOAD_OFFSET + 12), 0xFFFFFFFFu);  // workers 0-31
  EXPECT_EQ(fs_be32(f.data() + A2TP_PAYLOAD_OFFSET + 22), 0xFFu);        // workers 32-39
  const fs::A2tpPacket r = read(f);
  EXPECT_EQ(r.h.flags, A2TP_FLAG_RESULT);
  EXPECT_EQ(r.values, (std::vector<int32_t>{780, 40}));
  // Freed, the aggregator serves a job of 2 workers: the 40's second word left in it is not its.
  EXPECT_EQ(release(1, 10, 3, 40), "released");
  EXPECT_EQ(run({2, 7, 3, 0, 2, {1}}), "taken");
  EXPECT_EQ(run({2, 7, 3, 1, 2, {2}}), "completed");
  const fs::A2tpPacket small = read(last_.sent[0].data);
  EXPECT_EQ(small.h.bitmap[0], 3u);
  EXPECT_EQ(small.values, (std::vector<int32_t>{3}));
  EXPECT_EQ(last_.sent[0].data.size(), A2TP_PAYLOAD_OFFSET + A2TP_HEADER_BYTES + 4u);
}

// On a tree, a switch whose mask is workers 32-39 of the 40 sends their sum on as one gradient
// flagged SUM, its worker the lowest of them, and frees the aggregator.
class A2tpHandlerWideTree : public A2tpHandler {
 protected:
  static fs::Config cfg() {
    fs::Config c = switch_cfg("atp");
    fs::A2tpTreeJob part;
    for (unsigned w = 32; w < 40; ++w) part.mask.set(w);
    part.passes_on = true, part.down = {0, 1};
    fs::a2tp_config(c).tree = {fs::A2tpTreeJob{}, part};
    return c;
  }
  A2tpHandlerWideTree() : A2tpHandler(cfg()) {}
};

TEST_F(A2tpHandlerWideTree, TheSumOfItsMaskGoesOnAsOneGradient) {
  for (uint8_t w = 32; w < 39; ++w) EXPECT_EQ(run({1, 10, 3, w, 40, {w}}), w > 32 ? "aggregated" : "taken");
  EXPECT_EQ(run({1, 10, 3, 39, 40, {39}}), "passed_on");
  ASSERT_EQ(last_.sent.size(), 1u);
  EXPECT_EQ(last_.sent[0].ports, std::vector<uint32_t>{kPs1});
  const fs::A2tpPacket s = read(last_.sent[0].data);
  EXPECT_EQ(s.h.flags, A2TP_FLAG_SUM);
  EXPECT_EQ(s.h.worker, 32u);
  EXPECT_EQ(s.h.bitmap[0], 0u);
  EXPECT_EQ(s.h.bitmap[1], 0xFFu);
  EXPECT_EQ(s.values, (std::vector<int32_t>{32 + 33 + 34 + 35 + 36 + 37 + 38 + 39}));
  EXPECT_EQ(aggregator(3).busy, 0u);
  // Its result to the job's group goes out of the children ports, the ingress aside.
  a2tp_header_t r{};
  r.job = 1, r.sequence = 10, r.aggregator = 3, r.workers = 40, r.flags = A2TP_FLAG_RESULT;
  a2tp_full_bitmap(r.bitmap, 40);
  EXPECT_EQ(run_frame(fs::build_a2tp_packet(r, kPs1, a2tp_group_ipv4(0), {1}), kPs1), "forwarded");
  ASSERT_EQ(last_.sent.size(), 1u);
  EXPECT_EQ(last_.sent[0].ports, (std::vector<uint32_t>{0, 1}));
}

TEST(A2tpHandlerSetup, WithoutItsConfigurationTheHandlerDropsEverything) {
  HandlerHarness h(switch_cfg(), "a2tp", /*install=*/false);
  EXPECT_EQ(h.outcome_name(h.run(frame_of({1, 10, 3, 0, 2, {1}})).outcome), "not_installed");
}

TEST(A2tpHandlerSetup, AggregatorsThatDoNotFitAreRefusedNamingTheKey) {
  fs::Config cfg = switch_cfg();
  fs::a2tp_config(cfg).aggregators = 65536;
  try {
    HandlerHarness h(cfg, "a2tp");
    FAIL() << "installed";
  } catch (const fs::InputError& e) {
    // 65536 aggregators over 2 clusters: 32768 each, of 308 bytes (15 words, 4 of them the bitmap,
    // and 62 values), after the configuration (6 words, 3 divisors of 4 words and 3 more: 84 bytes,
    // 128 in whole 64-byte lines): 10092672 bytes.
    EXPECT_EQ(std::string(e.what()).rfind("a2tp.aggregators: 65536 aggregators need 32768 of 308 bytes in each of "
                                          "the 2 clusters' L1, 10092672 bytes with the configuration; the L1 state "
                                          "area has ",
                                          0),
              0u)
        << e.what();
  }
  cfg = switch_cfg("static", 7);
  try {
    HandlerHarness h(cfg, "a2tp");
    FAIL() << "installed";
  } catch (const fs::InputError& e) {
    EXPECT_STREQ(e.what(), "a2tp.jobs: 7 jobs cannot share 6 aggregators (a2tp.aggregators) statically");
  }
}

}  // namespace
}  // namespace fs_tb
