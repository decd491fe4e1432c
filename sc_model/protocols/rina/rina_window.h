// A Rina sender's window (Rina §IV-C1): how many packets it may have unacknowledged, grown and
// cut by AIMD on the ACKs its packets get. It grows by one packet a round trip (1 / W an ACK)
// until it holds the link's full speed for a round trip (the speed the INA switch aggregates at,
// rina.rate_gbps: Rina's "full speed", past which it stops growing), and is halved by an ACK
// flagged ECE, at most once a round trip (as DCQCN and DCTCP react once per window). It never
// goes below one packet. The ScatterReduce window starts at rina.window; an AllGather window
// starts at one packet ("the sending rate starts from zero"). Arithmetic only: the job's
// members keep one for each phase and ask it what they may send.
#pragma once
#include <algorithm>
#include <cstdint>

#include "common/units.h"

namespace fs {

class RinaWindow {
 public:
  RinaWindow(double initial, double full_speed_gbps, uint64_t packet_bytes)
      : window_(std::max(1.0, initial)), gbps_(full_speed_gbps), packet_bytes_(packet_bytes) {}

  // Packets that may be unacknowledged now.
  uint64_t packets() const { return uint64_t(window_); }
  double window() const { return window_; }
  uint64_t cuts() const { return cuts_; }
  // The most the window grows to: the full speed's packets in the least round trip seen
  // (unbounded before the first sample).
  double ceiling() const {
    if (!min_rtt_) return 1e300;
    return std::max(1.0, gbps_ * 1e-3 * double(min_rtt_) / (8.0 * double(packet_bytes_)));
  }

  // An ACK at `now` of a packet sent `rtt` ago; `ece`: the packet was marked on its way.
  void acked(Picos now, Picos rtt, bool ece) {
    if (rtt && (!min_rtt_ || rtt < min_rtt_)) min_rtt_ = rtt;
    if (ece) {
      if (!cut_at_ || now >= cut_at_ + min_rtt_) {
        window_ = std::max(1.0, window_ / 2);
        cut_at_ = now;
        ++cuts_;
      }
      return;
    }
    if (window_ < ceiling()) window_ = std::min(ceiling(), window_ + 1.0 / window_);
  }

 private:
  double window_;
  double gbps_;
  uint64_t packet_bytes_;
  Picos min_rtt_ = 0, cut_at_ = 0;
  uint64_t cuts_ = 0;
};

}  // namespace fs
