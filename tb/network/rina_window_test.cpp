// A Rina sender's window (sc_model/protocols/rina/rina_window.h) over a scripted sequence of ACKs,
// worked by hand: +1 an ACK below its threshold and +1/W from it on, but only after the window
// held the sender back (a sender at full speed with room in its window does not grow it); halved
// by ECE at most once a round trip (the least seen), the threshold set there, never below 1.
#include <gtest/gtest.h>

#include "protocols/rina/rina_window.h"

namespace fs {
namespace {

constexpr Picos kRtt = 10 * kPicosPerUs;

TEST(RinaWindow, GrowsOnlyWhileItHoldsTheSenderBack) {
  RinaWindow w(4, 4);
  EXPECT_EQ(w.packets(), 4u);
  w.acked(kRtt, kRtt, false);  // the sender was never held back: full speed, no growth
  EXPECT_DOUBLE_EQ(w.window(), 4.0);
  w.held_back();
  w.acked(kRtt, kRtt, false);
  EXPECT_DOUBLE_EQ(w.window(), 4.25);  // at its threshold: 1/W
  w.acked(kRtt, kRtt, false);          // not held back since
  EXPECT_DOUBLE_EQ(w.window(), 4.25);
  w.held_back();
  w.acked(kRtt, kRtt, false);
  EXPECT_DOUBLE_EQ(w.window(), 4.25 + 1 / 4.25);
}

TEST(RinaWindow, BelowItsThresholdItGrowsByOneAnAck) {
  RinaWindow w(1, 8);  // an AllGather window: from one packet, threshold 8
  for (int k = 0; k < 7; ++k) w.held_back(), w.acked(kRtt, kRtt, false);
  EXPECT_DOUBLE_EQ(w.window(), 8.0);  // 1 + 7
  w.held_back();
  w.acked(kRtt, kRtt, false);
  EXPECT_DOUBLE_EQ(w.window(), 8.125);
}

TEST(RinaWindow, EceHalvesItOnceARoundTripDownToOneAndSetsTheThreshold) {
  RinaWindow w(64, 64);
  w.acked(kRtt, kRtt, false);  // the least round trip: 10 us
  w.acked(2 * kRtt, kRtt, true);
  EXPECT_DOUBLE_EQ(w.window(), 32.0);
  EXPECT_DOUBLE_EQ(w.threshold(), 32.0);
  w.acked(2 * kRtt + kRtt / 2, kRtt, true);  // within the round trip: not again
  EXPECT_DOUBLE_EQ(w.window(), 32.0);
  EXPECT_EQ(w.cuts(), 1u);
  w.acked(3 * kRtt, kRtt, true);
  EXPECT_DOUBLE_EQ(w.window(), 16.0);
  for (int k = 0; k < 20; ++k) w.acked(Picos(4 + k) * kRtt, kRtt, true);
  EXPECT_DOUBLE_EQ(w.window(), 1.0);
  EXPECT_EQ(w.packets(), 1u);
  EXPECT_EQ(w.cuts(), 22u);
  w.held_back();
  w.acked(30 * kRtt, kRtt, false);
  EXPECT_DOUBLE_EQ(w.window(), 2.0);  // 1 + 1/1: at its threshold (1) now
  RinaWindow one(0, 0);  // a window starts at one packet at least
  EXPECT_EQ(one.packets(), 1u);
}

}  // namespace
}  // namespace fs
