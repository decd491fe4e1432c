// A2TP's two windows and ATP's one, round by round (see a2tp_windows.h for the rules).
#include "protocols/a2tp/a2tp_windows.h"

#include <algorithm>
#include <cmath>

namespace fs {

namespace {

uint32_t whole(double window) { return uint32_t(std::floor(window)); }

}  // namespace

A2tpWindows::A2tpWindows(const A2tpParams& params)
    : params_(params), acw_(params.initial_window), lcw_(params.initial_window) {}

void A2tpWindows::end_round(const A2tpRound& round) {
  if (!round.sent && !round.lost) return;  // an idle round: no data, no signal
  const double w = params_.w, g = params_.g, H = params_.threshold;
  if (round.to_switch) alpha_ = (1 - w) * alpha_ + w * double(round.collided) / round.to_switch;  // Eq. 1
  if (round.sent) {
    beta_ = (1 - g) * beta_ + g * double(round.ecn_marked) / round.sent;  // Eq. 2
    gamma_ = std::min(1.0, round.acked / lcw_);                          // Eq. 3
  }
  p_ = alpha_ > H ? (alpha_ - H) / (1 - H) : 0;
  d_ = p_ > 0 ? std::pow(p_, gamma_) : 0;                    // Eq. 5
  acw_ = p_ > 0 ? acw_ * (1 - d_ / 2) : acw_ + 1;            // Eq. 4, or additive increase
  lcw_ = round.ecn_marked ? lcw_ * (1 - beta_ / 2) : lcw_ + 1;  // Eq. 6, or additive increase
  if (round.lost) acw_ /= 2, lcw_ /= 2;
  lcw_ = std::max(lcw_, params_.min_window);
  acw_ = std::max(std::min(acw_, lcw_), params_.min_window);
}

uint32_t A2tpWindows::switch_slots() const { return whole(acw_); }
uint32_t A2tpWindows::link_slots() const { return whole(lcw_); }

AtpWindow::AtpWindow(const AtpParams& params) : params_(params), window_(params.initial_window) {}

void AtpWindow::end_round(const A2tpRound& round) {
  if (!round.sent && !round.lost) return;  // an idle round
  window_ = round.ecn_marked || round.lost ? window_ / 2 : window_ + 1;
  window_ = std::max(window_, params_.min_window);
}

uint32_t AtpWindow::slots() const { return whole(window_); }

}  // namespace fs
