// A host's NIC and receive demultiplexer (see host_port.h).
#include "network/host_port.h"

#include "net/headers.h"

namespace fs {
namespace {

LinkParams nic_link(LinkParams link) {
  link.queue_bytes = HostPort::kNicQueueBytes;
  link.ecn_bytes = 0;  // a host's own queue marks nothing
  return link;
}

}  // namespace

HostPort::HostPort(sc_core::sc_module_name name, unsigned host, const LinkParams& link, DropLedger& drops)
    : sc_core::sc_module(name), host_(host), nic_("nic", 0, nic_link(link), drops) {}

void HostPort::accept(PacketPtr p) {
  ++packets_in;
  bytes_in += p->data.size();
  p->received = now_ps();
  if (observer_) observer_(host_, p->received, *p);
  const Headers h = walk_headers(p->data.data(), p->data.size());
  const auto it = h.ok && h.udp ? by_udp_port_.find(h.dst_port) : by_udp_port_.end();
  if (it == by_udp_port_.end()) {
    ++unclaimed;
    return;
  }
  it->second->accept(std::move(p));
}

void HostPort::report(StatsTree& out) const {
  out["host"] = host_;
  out["packets_out"] = nic_.packets_out, out["bytes_out"] = nic_.bytes_out;
  out["packets_in"] = packets_in, out["bytes_in"] = bytes_in, out["unclaimed"] = unclaimed;
}

}  // namespace fs
