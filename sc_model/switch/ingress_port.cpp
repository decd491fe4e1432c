// Ingress port replay (see ingress_port.h).
#include "switch/ingress_port.h"

namespace fs {

IngressPort::IngressPort(sc_core::sc_module_name name, unsigned index, double gbps, unsigned wire_overhead)
    : sc_core::sc_module(name), index_(index), gbps_(gbps), wire_overhead_(wire_overhead) {
  SC_THREAD(replay);
}

void IngressPort::replay() {
  Picos free_at = 0;
  for (PacketPtr& p : packets_) {
    Picos start = p->arrival;
    if (start < free_at) {
      start = free_at;
      ++late_starts;
    }
    const Picos done = start + wire_time(p->data.size(), wire_overhead_, gbps_);
    free_at = done;
    wait(ps_time(done - now_ps()));
    p->received = done;
    ++packets_in;
    bytes_in += p->data.size();
    out->accept(std::move(p));
  }
  packets_.clear();
  packets_.shrink_to_fit();
}

void IngressPort::accept(PacketPtr p) {
  const Picos now = now_ps();
  const Picos wire = wire_time(p->data.size(), wire_overhead_, gbps_);
  p->ingress_port = uint16_t(index_);
  p->arrival = now >= wire ? now - wire : 0;
  p->received = now;
  p->handler_set = -1;
  ++packets_in;
  bytes_in += p->data.size();
  out->accept(std::move(p));
}

}  // namespace fs
