// An ingress port: receives frames at line rate (store and forward: a frame is handed on once
// its last bit is in) and counts what came in. Frames come from the switch's trace replay
// (deliver) or from a link such as another switch's egress port (accept, a PacketSinkIf).
#pragma once
#include <vector>

#include "common/sc_time_util.h"
#include "common/stats_tree.h"
#include "config/config.h"
#include "net/packet_sink.h"
#include "switch/link.h"

namespace fs {

class IngressPort : public sc_core::sc_module, public PacketSinkIf {
 public:
  sc_core::sc_port<PacketSinkIf> out;

  // Its parameters: its link's (line rate, wire overhead).
  IngressPort(sc_core::sc_module_name name, unsigned index, const LinkParams& link)
      : sc_core::sc_module(name), index_(index), link_(link) {}

  // Time the port needs to receive a frame of `bytes`.
  Picos wire_time_of(uint64_t bytes) const { return link_.wire_time_of(bytes); }

  // A trace frame whose arrival and received times are already set; hands it on now.
  void deliver(PacketPtr p) {
    ++packets_in;
    bytes_in += p->data.size();
    out->accept(std::move(p));
  }

  // A frame from a link: its last bit arrives now.
  void accept(PacketPtr p) override {
    const Picos now = now_ps();
    const Picos wire = wire_time_of(p->data.size());
    p->ingress_port = uint16_t(index_);
    p->arrival = now >= wire ? now - wire : 0;
    p->received = now;
    p->handler_set = -1;
    deliver(std::move(p));
  }

  unsigned index() const { return index_; }
  // Its counters, into the port's entry of the stats.
  void report(StatsTree& port) const {
    port["packets_in"] = packets_in, port["bytes_in"] = bytes_in, port["late_starts"] = late_starts;
  }
  uint64_t packets_in = 0, bytes_in = 0;
  uint64_t late_starts = 0;  // trace frames delayed because the port was still receiving

 private:
  unsigned index_;
  LinkParams link_;
};

}  // namespace fs
