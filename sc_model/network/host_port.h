// A host's attachment to a network: its NIC, an egress queue drained at its link's rate with
// the link's latency to the switch port it is cabled to (the same EgressPort a switch port is),
// and the demultiplexer of what the switch sends it, by UDP destination port, to whatever runs
// on the host (a protocol's host agent, the background traffic). Host h has address
// fs_host_ipv4(h) and MAC fs_host_mac(h) (fs_packet.h), which the network's routes lead to.
#pragma once
#include <cstdint>
#include <functional>
#include <map>

#include "common/stats_tree.h"
#include "net/packet_sink.h"
#include "switch/egress_port.h"

namespace fs {

class HostPort : public sc_core::sc_module, public PacketSinkIf {
 public:
  // The NIC's queue holds what the host gives it (a host does not drop its own sends).
  static constexpr uint64_t kNicQueueBytes = uint64_t(1) << 40;

  HostPort(sc_core::sc_module_name name, unsigned host, const LinkParams& link, DropLedger& drops);

  unsigned host() const { return host_; }
  // Puts a frame on the host's link (queued behind what the NIC is still sending).
  void send(PacketPtr p) { nic_.accept(std::move(p)); }
  EgressPort& nic() { return nic_; }
  const EgressPort& nic() const { return nic_; }
  // Frames to UDP destination port `port` go to `sink`.
  void bind_udp(uint16_t port, PacketSinkIf* sink) { by_udp_port_[port] = sink; }
  // A frame from the switch, its last bit in now.
  void accept(PacketPtr p) override;
  // Called with every frame the host receives (the host, now, the frame), before it is handed on.
  using ArrivalObserver = std::function<void(unsigned, Picos, const Packet&)>;
  void observe_arrivals(ArrivalObserver f) { observer_ = std::move(f); }

  void report(StatsTree& out) const;
  uint64_t packets_in = 0, bytes_in = 0;
  uint64_t unclaimed = 0;  // frames for a UDP port nothing on the host listens to (or not UDP)

 private:
  unsigned host_;
  EgressPort nic_;
  std::map<uint16_t, PacketSinkIf*> by_udp_port_;
  ArrivalObserver observer_;
};

}  // namespace fs
