// A Rina sender's window (Rina §IV-C1): how many packets it may have unacknowledged, grown and
// cut by AIMD on the ACKs its packets get. Below its threshold it grows by one packet an ACK
// (doubling a round trip: a window that starts from nothing ramps up), from it on by one packet a
// round trip (1 / W an ACK); but only while the window holds the sender back: once it sends at
// full speed (its pacing, at the rate the INA switches aggregate at: Rina's "full speed") with
// room in the window, the window stops growing (as RFC 7661 keeps a window that is not used from
// growing). An ACK flagged ECE halves it, at most once a round trip (as DCQCN and DCTCP react
// once per window), and sets the threshold there. It never goes below one packet. The
// ScatterReduce window starts at rina.window, its threshold; an AllGather window starts at one
// packet ("the sending rate starts from zero") with the same threshold. Arithmetic only: the
// job's members keep one for each phase, say when it held them back, and ask it what they may
// send.
#pragma once
#include <algorithm>
#include <cstdint>

#include "common/units.h"

namespace fs {

class RinaWindow {
 public:
  RinaWindow(double initial, double threshold) : window_(std::max(1.0, initial)), threshold_(threshold) {}

  // Packets that may be unacknowledged now.
  uint64_t packets() const { return uint64_t(window_); }
  double window() const { return window_; }
  double threshold() const { return threshold_; }
  uint64_t cuts() const { return cuts_; }
  // The sender had a packet to send and the window full.
  void held_back() { limited_ = true; }

  // An ACK at `now` of a packet sent `rtt` ago; `ece`: the packet was marked on its way.
  void acked(Picos now, Picos rtt, bool ece) {
    if (rtt && (!min_rtt_ || rtt < min_rtt_)) min_rtt_ = rtt;
    if (ece) {
      if (!cut_at_ || now >= cut_at_ + min_rtt_) {
        window_ = std::max(1.0, window_ / 2);
        threshold_ = window_;
        cut_at_ = now;
        ++cuts_;
      }
      return;
    }
    if (!limited_) return;  // at full speed with room to spare: no growth
    window_ += window_ < threshold_ ? 1.0 : 1.0 / window_;
    limited_ = false;
  }

 private:
  double window_, threshold_;
  Picos min_rtt_ = 0, cut_at_ = 0;
  uint64_t cuts_ = 0;
  bool limited_ = false;
};

}  // namespace fs
