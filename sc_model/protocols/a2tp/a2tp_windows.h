// A training-job worker's sending windows for in-network aggregation over shared aggregators
// (A2TP §4.3, with ATP's single window as the baseline): how many gradients it may have in
// flight to the switch's aggregators and how many in all, updated once per round (one LCW of
// gradients, about one RTT) from what the round's ACKs said. Arithmetic only: the worker agent
// counts the signals of a round and asks the windows what it may send.
//
// A2TP (Eq. 1-6; w, g, H as A2tpParams):
//   alpha = (1 - w) alpha + w h         h: fraction of the round's gradients to the switch ACKed
//                                          with the Col bit (Eq. 1)
//   beta  = (1 - g) beta  + g e         e: fraction of the round's gradients ACKed with ECN CE
//                                          (Eq. 2, with beta on the right the previous round's)
//   gamma = min(1, n / LCW)             n: ACKs received in the round, LCW: the round's (Eq. 3)
//   p     = (alpha - H) / (1 - H) if alpha > H, else 0
//   ACW   = ACW (1 - d / 2), d = p^gamma, if p > 0; else ACW + 1      (Eq. 4, 5; AIMD)
//   LCW   = LCW (1 - beta / 2) if the round had an ECN mark; else LCW + 1   (Eq. 6, DCTCP's rule)
//   ACW   = min(ACW, LCW)
// A round is one LCW of data, so a round in which nothing was sent or lost changes nothing. One
// with no gradient to the switch leaves alpha as it was, one with no gradient sent leaves beta
// and gamma (there is no sample). A loss (a retransmission timeout) halves both windows, as TCP
// and DCTCP react to one. Neither window goes below min_window.
//
// ATP (the baseline, AtpWindow): one window for everything the worker sends to the switch,
// halved once in a round with an ECN mark or a loss, else one more per round (an idle round
// changes nothing). Collisions do not move it: ATP reacts to end-to-end signals only (A2TP §3.2).
#pragma once
#include <cstdint>

namespace fs {

// What one worker saw in one round: counts of its own gradients, by the ACK (the aggregated
// result) that came back for each.
struct A2tpRound {
  uint32_t to_switch = 0;   // gradients sent to the aggregators (within ACW)
  uint32_t collided = 0;    // of those, ACKed with the Col bit set
  uint32_t sent = 0;        // gradients sent in all, to the switch and straight to the PS
  uint32_t ecn_marked = 0;  // of those, ACKed with ECN CE
  uint32_t acked = 0;       // ACKs received in the round (gradients whose aggregation completed)
  uint32_t lost = 0;        // gradients resent after a timeout in the round
};

struct A2tpParams {
  double w = 1.0 / 16;        // weight of a round's collision fraction in alpha (A2TP §6.1)
  double g = 1.0 / 16;        // weight of a round's ECN fraction in beta (A2TP §6.1)
  double threshold = 0.15;    // H: alpha above it means the aggregators are congested (§4.4, §6.8)
  double initial_window = 8;  // ACW and LCW at the start, in gradients
  double min_window = 1;      // neither window goes below this
};

class A2tpWindows {
 public:
  explicit A2tpWindows(const A2tpParams& params);
  // Applies Eq. 1-6 to the round that just ended.
  void end_round(const A2tpRound& round);

  double acw() const { return acw_; }
  double lcw() const { return lcw_; }
  double alpha() const { return alpha_; }
  double beta() const { return beta_; }
  double gamma() const { return gamma_; }  // the last round's straggling estimate (1: none)
  double p() const { return p_; }          // the last round's aggregator congestion degree
  double d() const { return d_; }          // the last round's decrease factor (0 when p was 0)
  // Gradients that may be in flight to the aggregators, and in all (the windows, whole).
  uint32_t switch_slots() const;
  uint32_t link_slots() const;

 private:
  A2tpParams params_;
  double acw_, lcw_;
  double alpha_ = 0, beta_ = 0, gamma_ = 1, p_ = 0, d_ = 0;
};

struct AtpParams {
  double initial_window = 8;  // in gradients
  double min_window = 1;
};

class AtpWindow {
 public:
  explicit AtpWindow(const AtpParams& params);
  void end_round(const A2tpRound& round);
  double window() const { return window_; }
  uint32_t slots() const;

 private:
  AtpParams params_;
  double window_;
};

}  // namespace fs
