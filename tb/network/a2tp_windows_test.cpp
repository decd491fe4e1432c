// A2TP's two worker windows (Eq. 1-6) and ATP's one, round by round on a scripted sequence of
// signals. Each round's values are worked from the equations below; the decimals were computed
// by a separate Python implementation of the same rules (not by this code).
#include <gtest/gtest.h>

#include <cmath>

#include "protocols/a2tp/a2tp_windows.h"

namespace fs {
namespace {

A2tpRound round_of(uint32_t to_switch, uint32_t collided, uint32_t sent, uint32_t ecn, uint32_t acked,
                      uint32_t lost) {
  A2tpRound r;
  r.to_switch = to_switch, r.collided = collided, r.sent = sent, r.ecn_marked = ecn, r.acked = acked, r.lost = lost;
  return r;
}

struct Expected {
  double alpha, beta, gamma, p, d, acw, lcw;
  uint32_t switch_slots, link_slots;
};

void expect_state(const A2tpWindows& win, const Expected& e, int round) {
  SCOPED_TRACE("after round " + std::to_string(round));
  EXPECT_NEAR(win.alpha(), e.alpha, 1e-12);
  EXPECT_NEAR(win.beta(), e.beta, 1e-12);
  EXPECT_NEAR(win.gamma(), e.gamma, 1e-12);
  EXPECT_NEAR(win.p(), e.p, 1e-12);
  EXPECT_NEAR(win.d(), e.d, 1e-12);
  EXPECT_NEAR(win.acw(), e.acw, 1e-12);
  EXPECT_NEAR(win.lcw(), e.lcw, 1e-12);
  EXPECT_EQ(win.switch_slots(), e.switch_slots);
  EXPECT_EQ(win.link_slots(), e.link_slots);
}

TEST(A2tpWindows, FollowEquationsOneToSixOnAScriptedSequenceOfSignals) {
  A2tpParams params;  // w = g = 1/16 as A2TP §6.1 sets them
  params.threshold = 1.0 / 32;
  params.initial_window = 8;
  A2tpWindows win(params);
  EXPECT_EQ(win.switch_slots(), 8u);
  EXPECT_EQ(win.link_slots(), 8u);
  // Round 1: all 8 gradients to the switch collide, no ECN, 4 ACKs.
  //   alpha = 1/16; gamma = 4/8; p = (1/16 - 1/32) / (31/32) = 1/31; d = (1/31)^(1/2);
  //   ACW = 8 (1 - d/2) = 7.2816; LCW = 8 + 1 (no mark).
  win.end_round(round_of(8, 8, 8, 0, 4, 0));
  expect_state(win, {0.0625, 0, 0.5, 1.0 / 31, std::sqrt(1.0 / 31), 7.2815787918929, 9, 7, 9}, 1);
  // Round 2: 7 to the switch, none collide; 3 of 9 ECN-marked; 9 ACKs.
  //   alpha = 15/16 x 1/16; beta = 1/16 x 3/9; gamma = 9/9; p = (alpha - 1/32) / (31/32); d = p^1;
  //   LCW = 9 (1 - beta/2) = 8.90625 (a mark).
  win.end_round(round_of(7, 0, 9, 3, 9, 0));
  expect_state(win, {0.05859375, 1.0 / 48, 1, 0.028225806451612902, 0.028225806451612902, 7.178814575071831,
                     8.90625, 7, 8},
               2);
  // Round 3: no collision, no mark, 8 ACKs of LCW 8.90625, one loss: both windows halve after
  // the update (ACW 7.05081 / 2, LCW (8.90625 + 1) / 2).
  win.end_round(round_of(7, 0, 8, 0, 8, 1));
  expect_state(win, {0.054931640625, 0.01953125, 8 / 8.90625, 0.02444556451612903, 0.0356621713911426,
                     3.5254042585955543, 4.953125, 3, 4},
               3);
  // Round 4: nothing sent or lost (an idle round): nothing changes.
  win.end_round(round_of(0, 0, 0, 0, 0, 0));
  expect_state(win, {0.054931640625, 0.01953125, 8 / 8.90625, 0.02444556451612903, 0.0356621713911426,
                     3.5254042585955543, 4.953125, 3, 4},
               4);
  // Round 5: no ACK at all (gamma = 0, so d = p^0 = 1: ACW halves), every gradient collided and
  // marked, and a loss: ACW 3.5254 / 2 / 2 goes to the minimum window 1; LCW 4.953125 (1 - beta/2) / 2.
  win.end_round(round_of(3, 3, 4, 4, 0, 1));
  expect_state(win, {0.1139984130859375, 0.080810546875, 0, 0.08541771673387097, 1, 1, 2.3764963150024414, 1, 2},
               5);
  // Round 6: the same again: LCW 2.3765 (1 - beta/2) / 2; ACW stays at the minimum.
  win.end_round(round_of(1, 1, 1, 1, 0, 1));
  expect_state(win, {0.1693735122680664, 0.1382598876953125, 0, 0.14257910943800403, 1, 1, 1.1061046290960803, 1, 1},
               6);
}

TEST(A2tpWindows, AcwIsCappedByLcwAndBothGrowByOneWithoutSignals) {
  A2tpParams params;
  params.initial_window = 4;
  A2tpWindows win(params);
  for (int i = 1; i <= 3; ++i) {
    win.end_round(round_of(4, 0, 4, 0, 4, 0));
    EXPECT_EQ(win.acw(), 4.0 + i);
    EXPECT_EQ(win.lcw(), 4.0 + i);
  }
  // Every gradient ECN-marked: beta = 1/16, LCW = 7 (1 - 1/32); ACW would grow to 8 (no
  // collision) but is capped at LCW.
  win.end_round(round_of(7, 0, 7, 7, 7, 0));
  EXPECT_DOUBLE_EQ(win.lcw(), 7 * (1 - 1.0 / 32));
  EXPECT_DOUBLE_EQ(win.acw(), win.lcw());
  EXPECT_EQ(win.switch_slots(), 6u);
}

TEST(AtpWindow, HalvesOnAMarkOrALossAndIgnoresCollisions) {
  AtpParams params;
  params.initial_window = 8;
  AtpWindow win(params);
  const A2tpRound rounds[] = {round_of(8, 0, 8, 0, 8, 0), round_of(9, 0, 9, 1, 9, 0), round_of(4, 4, 4, 0, 4, 0),
                                 round_of(5, 0, 5, 0, 5, 1), round_of(2, 0, 2, 0, 2, 1), round_of(1, 0, 1, 1, 1, 1)};
  const double windows[] = {9, 4.5, 5.5, 2.75, 1.375, 1};
  const uint32_t slots[] = {9, 4, 5, 2, 1, 1};
  for (size_t i = 0; i < std::size(rounds); ++i) {
    win.end_round(rounds[i]);
    EXPECT_EQ(win.window(), windows[i]) << "round " << i + 1;
    EXPECT_EQ(win.slots(), slots[i]) << "round " << i + 1;
  }
}

}  // namespace
}  // namespace fs
