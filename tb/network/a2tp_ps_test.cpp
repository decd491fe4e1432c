// A job's parameter server (sc_model/protocols/a2tp/a2tp_ps.h) on hand-made packets: whole and
// partial switch results, collided and resent gradients, each worker counted once (sums worked
// out by hand), COL and ECE carried into the result, a lost result sent again, refusals.
#include <gtest/gtest.h>

#include "common/errors.h"
#include "protocols/a2tp/a2tp_ps.h"

namespace fs {
namespace {

A2tpPacket single(unsigned worker, uint32_t seq, std::vector<int32_t> v, uint8_t flags = 0, unsigned workers = 3) {
  A2tpPacket p;
  p.h.job = 1, p.h.sequence = seq, p.h.aggregator = uint16_t(seq + 100), p.h.worker = uint8_t(worker);
  p.h.workers = uint8_t(workers);
  a2tp_bitmap_set(p.h.bitmap, worker), p.h.flags = flags, p.h.elements = uint16_t(v.size());
  p.values = std::move(v);
  return p;
}

A2tpPacket from_switch(uint32_t bitmap, uint32_t seq, std::vector<int32_t> v, uint8_t flags = 0, unsigned workers = 3) {
  A2tpPacket p = single(0, seq, std::move(v), uint8_t(A2TP_FLAG_RESULT | flags), workers);
  p.h.bitmap[0] = bitmap;
  return p;
}

using Kind = A2tpParameterServer::Action::Kind;

TEST(A2tpParameterServer, AWholeSwitchResultGoesToEveryWorkerAtOnce) {
  A2tpParameterServer ps(3);
  const auto a = ps.take(from_switch(7, 4, {6, -6}), false);
  EXPECT_EQ(a.kind, Kind::kMulticast);
  EXPECT_EQ(a.sequence, 4u);
  EXPECT_EQ(a.aggregator, 104u);  // as the packets named it
  EXPECT_EQ(a.flags, A2TP_FLAG_RESULT);
  EXPECT_EQ(a.values, (std::vector<int32_t>{6, -6}));
  EXPECT_EQ(ps.completed(), 1u);
  EXPECT_EQ(ps.pending(), 0u);
}

TEST(A2tpParameterServer, APartialAndACollidedGradientMakeTheResultWithCol) {
  A2tpParameterServer ps(3);
  // The switch summed workers 0 and 1 ([1, 2] + [10, 20]); worker 2's gradient collided.
  EXPECT_EQ(ps.take(from_switch(3, 9, {11, 22}), false).kind, Kind::kNone);
  EXPECT_EQ(ps.pending(), 1u);
  const auto a = ps.take(single(2, 9, {100, 200}, A2TP_FLAG_COLLISION), false);
  EXPECT_EQ(a.kind, Kind::kMulticast);
  EXPECT_EQ(a.values, (std::vector<int32_t>{111, 222}));
  EXPECT_EQ(a.flags, A2TP_FLAG_RESULT | A2TP_FLAG_COL);
}

TEST(A2tpParameterServer, AWorkerInBothAResendAndAPartialIsCountedOnce) {
  A2tpParameterServer ps(3);
  // Worker 0 resent [1, 2] straight to the PS; its first copy reached the switch after all,
  // which summed it with worker 1's [10, 20] and flushed [11, 22]: 1 + 2 workers, 11, 22.
  EXPECT_EQ(ps.take(single(0, 2, {1, 2}, A2TP_FLAG_RESEND), false).why, "");
  EXPECT_EQ(ps.take(from_switch(3, 2, {11, 22}), false).why, "");
  const auto a = ps.take(single(2, 2, {100, -200}, A2TP_FLAG_RESEND), false);
  EXPECT_EQ(a.kind, Kind::kMulticast);
  EXPECT_EQ(a.values, (std::vector<int32_t>{111, -178}));
  EXPECT_EQ(a.flags, A2TP_FLAG_RESULT);
  EXPECT_EQ(ps.duplicates(), 0u);
}

TEST(A2tpParameterServer, DuplicatesAreDroppedAndALostResultIsSentAgain) {
  A2tpParameterServer ps(2);
  EXPECT_EQ(ps.take(single(0, 1, {5}, 0, 2), false).why, "");
  EXPECT_EQ(ps.take(single(0, 1, {5}, A2TP_FLAG_RESEND, 2), false).why, "duplicate");
  EXPECT_EQ(ps.take(from_switch(1, 1, {5}, 0, 2), false).why, "duplicate");
  EXPECT_EQ(ps.take(single(1, 1, {-7}, 0, 2), false).kind, Kind::kMulticast);
  // Worker 1 never got it and sends again: the result, to it alone.
  const auto again = ps.take(single(1, 1, {-7}, A2TP_FLAG_RESEND, 2), false);
  EXPECT_EQ(again.kind, Kind::kResend);
  EXPECT_EQ(again.worker, 1u);
  EXPECT_EQ(again.values, std::vector<int32_t>{-2});
  // A late switch result of a complete fragment is only a duplicate.
  EXPECT_EQ(ps.take(from_switch(3, 1, {-2}, 0, 2), false).kind, Kind::kNone);
  EXPECT_EQ(ps.duplicates(), 4u);
}

TEST(A2tpParameterServer, EceFromACeMarkOrAFlaggedResult) {
  A2tpParameterServer ps(2);
  ps.take(single(0, 1, {1}, 0, 2), /*ce=*/true);
  EXPECT_EQ(ps.take(single(1, 1, {1}, 0, 2), false).flags, A2TP_FLAG_RESULT | A2TP_FLAG_ECE);
  EXPECT_EQ(ps.take(from_switch(3, 2, {1}, A2TP_FLAG_ECE | A2TP_FLAG_COL, 2), false).flags,
            A2TP_FLAG_RESULT | A2TP_FLAG_ECE | A2TP_FLAG_COL);
}

TEST(A2tpParameterServer, InconsistentPacketsAreRefused) {
  A2tpParameterServer ps(3);
  EXPECT_EQ(ps.take(single(0, 1, {1}, 0, 4), false).why, "a fan-in of 4 for a job of 3");
  EXPECT_EQ(ps.take(single(0, 1, {1, 2}), false).why, "");
  EXPECT_EQ(ps.take(single(1, 1, {1}), false).why, "1 values for a fragment of 2");
  // Two switch sums that share a worker cannot both be right.
  EXPECT_EQ(ps.take(from_switch(6, 5, {1}), false).why, "");
  EXPECT_EQ(ps.take(from_switch(3, 5, {1}), false).why, "worker 1 is in two sums");
  EXPECT_EQ(ps.refused(), 3u);
  EXPECT_THROW(A2tpParameterServer(0), InputError);
  EXPECT_NO_THROW(A2tpParameterServer(128));
  EXPECT_THROW(A2tpParameterServer(129), InputError);
}

// A job of 72 workers: worker 70's own gradient, then a flushed partial of workers 0-63 and 70
// (it holds 70's 100 too, taken out again), then the other singles 64-69 and 71:
// 1100 + 64 + 65 + 66 + 67 + 68 + 69 + 71 = 1570.
TEST(A2tpParameterServer, AJobOfMoreThan32WorkersCountsEveryWordOfItsBitmaps) {
  A2tpParameterServer ps(72);
  EXPECT_EQ(ps.take(single(70, 1, {100}, 0, 72), false).kind, Kind::kNone);
  A2tpPacket partial = single(0, 1, {1100}, A2TP_FLAG_SUM | A2TP_FLAG_RESEND, 72);
  partial.h.bitmap[0] = partial.h.bitmap[1] = 0xFFFFFFFFu, partial.h.bitmap[2] = 0x40;
  EXPECT_EQ(ps.take(partial, false).why, "");
  for (unsigned w : {64u, 65u, 66u, 67u, 68u, 69u}) EXPECT_EQ(ps.take(single(w, 1, {int32_t(w)}, 0, 72), false).kind, Kind::kNone);
  EXPECT_EQ(ps.take(single(69, 1, {69}, 0, 72), false).why, "duplicate");
  const auto a = ps.take(single(71, 1, {71}, 0, 72), false);
  EXPECT_EQ(a.kind, Kind::kMulticast);
  EXPECT_EQ(a.values, (std::vector<int32_t>{1570}));
  EXPECT_EQ(ps.completed(), 1u);
  EXPECT_EQ(ps.duplicates(), 1u);
}

TEST(A2tpParameterServer, ForgottenFragmentsAreNoLongerResent) {
  A2tpParameterServer ps(1);
  EXPECT_EQ(ps.take(single(0, 1, {1}, 0, 1), false).kind, Kind::kMulticast);
  EXPECT_EQ(ps.take(single(0, 5, {5}, 0, 1), false).kind, Kind::kMulticast);
  ps.forget_before(4);
  EXPECT_EQ(ps.take(single(0, 5, {5}, 0, 1), false).kind, Kind::kResend);
  // Fragment 1 is new again: a one-worker job completes it at once.
  EXPECT_EQ(ps.take(single(0, 1, {2}, 0, 1), false).kind, Kind::kMulticast);
  EXPECT_EQ(ps.completed(), 3u);
}

}  // namespace
}  // namespace fs
