// An ingress port: replays the trace packets of one port, receiving each at line rate (store
// and forward: a packet is handed on once its last bit is in), and counts what came in. A packet
// whose trace time falls while the previous one is still arriving starts when the port is free.
// It is also a PacketSinkIf, so a link (another switch's egress port, a host agent) can deliver
// frames whose last bit arrives now.
#pragma once
#include <vector>

#include "common/sc_time_util.h"
#include "switch/packet_sink.h"

namespace fs {

class IngressPort : public sc_core::sc_module, public PacketSinkIf {
 public:
  sc_core::sc_port<PacketSinkIf> out;

  SC_HAS_PROCESS(IngressPort);
  IngressPort(sc_core::sc_module_name name, unsigned index, double gbps, unsigned wire_overhead);

  // Packets to replay, in time order. Called before the simulation starts.
  void load(std::vector<PacketPtr> packets) { packets_ = std::move(packets); }

  // A frame from a link: its last bit arrives now.
  void accept(PacketPtr p) override;

  unsigned index() const { return index_; }
  uint64_t packets_in = 0, bytes_in = 0;
  uint64_t late_starts = 0;  // packets delayed because the port was still receiving

 private:
  void replay();

  unsigned index_;
  double gbps_;
  unsigned wire_overhead_;
  std::vector<PacketPtr> packets_;
};

}  // namespace fs
