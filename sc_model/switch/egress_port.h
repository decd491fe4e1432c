// An egress port: a byte-bounded queue (frames that do not fit are dropped as "egress_full")
// drained at line rate. Each departing frame is counted, logged for the egress capture and
// verification, and handed to whatever the port is linked to (a host agent or another switch).
#pragma once
#include <deque>
#include <functional>

#include "common/sc_time_util.h"
#include "common/stats.h"
#include "config/config.h"
#include "net/packet_sink.h"

namespace fs {

// Called for every departing frame: port, departure time (first bit on the wire), the frame.
using DepartureHook = std::function<void(unsigned port, Picos time, const Packet& p)>;

class EgressPort : public sc_core::sc_module, public PacketSinkIf {
 public:
  SC_HAS_PROCESS(EgressPort);
  // Its parameters: the ports section (line rate, wire overhead, queue capacity).
  EgressPort(sc_core::sc_module_name name, unsigned index, const PortsConfig& ports, DropLedger& drops);

  void accept(PacketPtr p) override;
  void on_departure(DepartureHook hook) { hook_ = std::move(hook); }
  // Optional onward link (another switch's ingress, a host agent).
  void link(PacketSinkIf* next) { link_ = next; }

  unsigned index() const { return index_; }
  // Its counters, into the port's entry of the stats.
  void report(StatsTree& port) const {
    port["packets_out"] = packets_out, port["bytes_out"] = bytes_out;
    port["egress_queue_max_bytes"] = queue_bytes.max();
  }
  uint64_t packets_out = 0, bytes_out = 0;
  TimeWeighted queue_bytes;
  Distribution latency_ps;  // from arrival at the switch to departure

 private:
  void transmit();

  unsigned index_;
  double gbps_;
  unsigned wire_overhead_;
  uint64_t capacity_;
  uint64_t queued_ = 0;
  DropLedger& drops_;
  std::deque<PacketPtr> queue_;
  sc_core::sc_event wake_;
  DepartureHook hook_;
  PacketSinkIf* link_ = nullptr;
};

}  // namespace fs
