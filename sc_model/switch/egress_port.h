// An egress port: a byte-bounded queue (frames that do not fit are dropped as "egress_full")
// drained at the link's rate, with ECN marking above the link's threshold, and the link's
// propagation latency to whatever the port is linked to (a host, another switch). Each departing
// frame is counted, logged for the egress capture and verification, and handed on.
#pragma once
#include <deque>
#include <functional>
#include <memory>
#include <set>

#include "common/delay_line.h"
#include "common/sc_time_util.h"
#include "common/stats.h"
#include "config/config.h"
#include "net/packet_sink.h"
#include "switch/link.h"

namespace fs {

// Called for every departing frame: port, departure time (first bit on the wire), the frame.
using DepartureHook = std::function<void(unsigned port, Picos time, const Packet& p)>;

class EgressPort : public sc_core::sc_module, public PacketSinkIf {
 public:
  SC_HAS_PROCESS(EgressPort);
  EgressPort(sc_core::sc_module_name name, unsigned index, const LinkParams& link, DropLedger& drops);

  void accept(PacketPtr p) override;
  void on_departure(DepartureHook hook) { hook_ = std::move(hook); }
  // The onward link's far end (another switch's ingress, a host), which gets each frame the
  // link's latency after its last bit left.
  void link(PacketSinkIf* next) { link_ = next; }

  unsigned index() const { return index_; }
  const LinkParams& params() const { return params_; }
  // Bytes queued now (the frame on the wire included), what adaptive routing compares.
  uint64_t queued_bytes() const { return queued_; }
  // The link is down from now on (its far end failed): every frame sent on it is lost.
  void set_down() { down_ = true; }
  // Frame n sent from now on (n counting from 1, as packets_out does) is lost on the link.
  void lose_frame(uint64_t n) { lose_frames_.insert(n); }
  bool down() const { return down_; }
  // Its counters, into the port's entry of the stats.
  void report(StatsTree& port) const {
    port["packets_out"] = packets_out, port["bytes_out"] = bytes_out;
    port["egress_queue_max_bytes"] = queue_bytes.max();
    port["ecn_marked"] = ecn_marked, port["egress_full"] = dropped;
  }
  uint64_t packets_out = 0, bytes_out = 0;
  uint64_t ecn_marked = 0;  // frames marked CE as they were queued
  uint64_t dropped = 0;     // frames that did not fit ("egress_full")
  uint64_t lost = 0;        // frames sent but lost on the link (its loss draws, or the link down)
  Picos busy_ps = 0;        // time frames were on the wire: the link's utilisation
  TimeWeighted queue_bytes;
  Distribution latency_ps;  // from arrival at the switch to departure

 private:
  void transmit();
  void arrive(PacketPtr p);  // at the link's far end

  bool lose();  // whether the frame just sent is lost on the link

  unsigned index_;
  LinkParams params_;
  bool down_ = false;
  std::set<uint64_t> lose_frames_;  // network.lose
  uint64_t queued_ = 0;
  DropLedger& drops_;
  std::deque<PacketPtr> queue_;
  sc_core::sc_event wake_;
  DepartureHook hook_;
  PacketSinkIf* link_ = nullptr;
  std::unique_ptr<DelayLine<PacketPtr>> wire_;  // the propagation latency, if any
};

}  // namespace fs
