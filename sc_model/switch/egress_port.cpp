// Egress queue and line-rate transmission (see egress_port.h).
#include "switch/egress_port.h"

namespace fs {

EgressPort::EgressPort(sc_core::sc_module_name name, unsigned index, const PortsConfig& ports, DropLedger& drops)
    : sc_core::sc_module(name),
      index_(index),
      gbps_(ports.gbps),
      wire_overhead_(ports.wire_overhead),
      capacity_(ports.egress_queue_bytes),
      drops_(drops) {
  SC_THREAD(transmit);
}

void EgressPort::accept(PacketPtr p) {
  if (queued_ + p->data.size() > capacity_) {
    drops_.count("egress_full");
    return;
  }
  queued_ += p->data.size();
  queue_bytes.set(now_ps(), queued_);
  queue_.push_back(std::move(p));
  wake_.notify(sc_core::SC_ZERO_TIME);
}

void EgressPort::transmit() {
  for (;;) {
    while (queue_.empty()) wait(wake_);
    PacketPtr p = std::move(queue_.front());
    queue_.pop_front();
    const Picos start = now_ps();
    if (hook_) hook_(index_, start, *p);
    ++packets_out;
    bytes_out += p->data.size();
    latency_ps.add(start - p->arrival);
    wait(ps_time(wire_time(p->data.size(), wire_overhead_, gbps_)));
    // The frame leaves the queue memory once its last bit is out.
    queued_ -= p->data.size();
    queue_bytes.set(now_ps(), queued_);
    if (link_) link_->accept(std::move(p));
  }
}

}  // namespace fs
