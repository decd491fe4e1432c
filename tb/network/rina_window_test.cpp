// A Rina sender's window (sc_model/protocols/rina/rina_window.h) over a scripted sequence of ACKs,
// worked by hand: +1/W an ACK, no growth past full speed's packets in the least round trip (100
// Gbit/s for 10 us in 1000-byte packets: 125) but no shrinking either, halved by ECE at most
// once a round trip, never below 1; unbounded before the first round trip is measured.
#include <gtest/gtest.h>

#include "protocols/rina/rina_window.h"

namespace fs {
namespace {

constexpr Picos kRtt = 10 * kPicosPerUs;

TEST(RinaWindow, GrowsByOneOverWAnAckUpToFullSpeed) {
  RinaWindow w(4, 100, 1000);
  EXPECT_EQ(w.packets(), 4u);
  EXPECT_GT(w.ceiling(), 1e100);  // no round trip yet
  w.acked(kRtt, kRtt, false);
  EXPECT_DOUBLE_EQ(w.ceiling(), 125.0);
  EXPECT_DOUBLE_EQ(w.window(), 4.25);
  w.acked(kRtt + 1, kRtt, false);
  EXPECT_DOUBLE_EQ(w.window(), 4.25 + 1 / 4.25);
  RinaWindow near(124.995, 100, 1000);
  near.acked(kRtt, kRtt, false);
  EXPECT_DOUBLE_EQ(near.window(), 125.0);  // 124.995 + 1/124.995 = 125.003, capped at full speed
  near.acked(kRtt, kRtt, false);
  EXPECT_DOUBLE_EQ(near.window(), 125.0);
  RinaWindow above(200, 100, 1000);
  above.acked(kRtt, kRtt, false);
  EXPECT_DOUBLE_EQ(above.window(), 200.0);  // stops growing, not cut
}

TEST(RinaWindow, EceHalvesItOnceARoundTripDownToOne) {
  RinaWindow w(64, 100, 1000);
  w.acked(kRtt, kRtt, false);  // 64 + 1/64
  const double before = w.window();
  w.acked(2 * kRtt, kRtt, true);
  EXPECT_DOUBLE_EQ(w.window(), before / 2);
  w.acked(2 * kRtt + kRtt / 2, kRtt, true);  // within the round trip: not again
  EXPECT_DOUBLE_EQ(w.window(), before / 2);
  EXPECT_EQ(w.cuts(), 1u);
  w.acked(3 * kRtt, kRtt, true);
  EXPECT_DOUBLE_EQ(w.window(), before / 4);
  for (int k = 0; k < 20; ++k) w.acked(Picos(4 + k) * kRtt, kRtt, true);
  EXPECT_DOUBLE_EQ(w.window(), 1.0);
  EXPECT_EQ(w.packets(), 1u);
  EXPECT_EQ(w.cuts(), 22u);
  RinaWindow one(0, 100, 1000);  // a window starts at one packet at least
  EXPECT_EQ(one.packets(), 1u);
}

}  // namespace
}  // namespace fs
