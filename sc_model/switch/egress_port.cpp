// Egress queue, ECN marking, line-rate transmission and propagation (see egress_port.h).
#include "switch/egress_port.h"

#include "common/splitmix64.h"
#include "net/ecn.h"

namespace fs {

EgressPort::EgressPort(sc_core::sc_module_name name, unsigned index, const LinkParams& link, DropLedger& drops)
    : sc_core::sc_module(name), index_(index), params_(link), drops_(drops) {
  if (params_.latency > 0)
    wire_ = std::make_unique<DelayLine<PacketPtr>>("wire", params_.latency, [this](PacketPtr p) { arrive(std::move(p)); });
  SC_THREAD(transmit);
}

void EgressPort::accept(PacketPtr p) {
  if (queued_ + p->data.size() > params_.queue_bytes) {
    ++dropped;
    drops_.count("egress_full");
    return;
  }
  // Marked on the queue it finds (RFC 3168's instantaneous queue, as DCTCP's switches mark).
  if (params_.ecn_bytes > 0 && queued_ > params_.ecn_bytes && mark_ce(p->data)) ++ecn_marked;
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
    const Picos wire = params_.wire_time_of(p->data.size());
    busy_ps += wire;
    wait(ps_time(wire));
    // The frame leaves the queue memory once its last bit is out.
    queued_ -= p->data.size();
    queue_bytes.set(now_ps(), queued_);
    if (!link_) continue;
    if (lose()) {
      ++lost;
      continue;
    }
    if (wire_) {
      wire_->push(std::move(p));
    } else {
      link_->accept(std::move(p));
    }
  }
}

void EgressPort::arrive(PacketPtr p) { link_->accept(std::move(p)); }

// Frame n (n = packets_out, counting from 1) is lost when it is one of network.lose's, or when
// draw n of the link direction's stream, mix(loss_seed + n x golden) as a fraction of 2^64, is
// below `loss`.
bool EgressPort::lose() {
  if (down_ || lose_frames_.count(packets_out)) return true;
  if (params_.loss <= 0) return false;
  const uint64_t draw = splitmix64_mix(params_.loss_seed + packets_out * kSplitmixGolden);
  return double(draw >> 11) * 0x1p-53 < params_.loss;
}

}  // namespace fs
