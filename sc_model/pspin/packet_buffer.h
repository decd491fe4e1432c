// The L2 packet memory and the NIC inbound engine that fills it (pspin/memory/ has the rest of the
// unit's memories): holds a matched packet from its arrival until its handler's feedback reaches
// the NIC (the retire block times that, pspin/retire.h).
// Each ingress port has its own engine (PsPIN's NIC has one port, so one engine), which writes
// one packet at a time, `nic.write_bytes_per_cycle` a cycle, from its arrival (or when the write
// before it is done), and hands it to the packet scheduler `nic.write_latency_cycles` after its
// last bytes: PsPIN's NIC hands a packet's handler execution request on only once its write into
// L2 is acknowledged. Packets leave in the order their writes are done (arrival order among a
// port's).
// Tracks occupancy (max and time average); a packet that does not fit (in bytes, or past
// packet_buffer.max_packets) is dropped as "buffer_full", one larger than an HPU's L1 packet
// slot holds (kMaxSlotFrameBytes) as "oversize".
#pragma once
#include <algorithm>

#include <vector>

#include "common/timed_queue.h"
#include "common/sc_time_util.h"
#include "common/stats.h"
#include "config/config.h"
#include "pspin/channels.h"
#include "net/packet_sink.h"
#include "pspin/memory/l1_memory.h"

namespace fs {

class PacketBuffer : public sc_core::sc_module, public PacketSinkIf, public BufferReleaseIf {
 public:
  sc_core::sc_port<PacketSinkIf> to_scheduler;

  // Configured by the packet_buffer.* and nic.* keys; `clock`: the PsPIN clock.
  PacketBuffer(sc_core::sc_module_name name, const PacketBufferConfig& cfg, const NicConfig& nic, Clock clock,
               DropLedger& drops)
      : sc_core::sc_module(name),
        capacity_(cfg.bytes),
        max_packets_(cfg.max_packets),
        clock_(clock),
        write_bw_(nic.write_bytes_per_cycle),
        write_latency_(nic.write_latency_cycles),
        drops_(drops),
        written_("written", [this](PacketPtr p) { to_scheduler->accept(std::move(p)); }) {}

  void accept(PacketPtr p) override {
    const uint64_t size = p->data.size();
    if (size > kMaxSlotFrameBytes) {
      drops_.count("oversize");
      return;
    }
    if (used_ + size > capacity_ || (max_packets_ && packets_ == max_packets_)) {
      drops_.count("buffer_full");
      return;
    }
    used_ += size;
    ++packets_;
    const Picos now = now_ps();
    occupancy_bytes.set(now, used_);
    occupancy_packets.set(now, packets_);
    ++accepted;
    p->unit_in = now;
    p->written = write(p->ingress_port, now, size);
    written_.push_at(p, p->written);
  }

  // The feedback of this packet's handler reached the NIC: its slot is free again.
  void release(const Packet& p) override {
    used_ -= p.data.size();
    --packets_;
    occupancy_bytes.set(now_ps(), used_);
    occupancy_packets.set(now_ps(), packets_);
  }

  void report(StatsTree& out, Picos end) const {
    out["capacity_bytes"] = capacity_, out["accepted"] = accepted;
    out["max_bytes"] = occupancy_bytes.max(), out["avg_bytes"] = occupancy_bytes.average(end);
    out["max_packets"] = occupancy_packets.max(), out["avg_packets"] = occupancy_packets.average(end);
  }
  uint64_t capacity() const { return capacity_; }
  uint64_t used() const { return used_; }
  uint64_t accepted = 0;
  TimeWeighted occupancy_bytes, occupancy_packets;

 private:
  // Reserves port `port`'s engine for a write of `bytes` that arrived at `now`; returns when it
  // is done.
  Picos write(unsigned port, Picos now, uint64_t bytes) {
    if (port >= write_free_.size()) write_free_.resize(port + 1, 0);
    const Picos start = std::max(now, write_free_[port]);
    write_free_[port] = start + clock_.cycles_ps((bytes + write_bw_ - 1) / write_bw_);
    return write_free_[port] + clock_.cycles_ps(write_latency_);
  }

  uint64_t capacity_;
  uint64_t max_packets_;  // 0: no limit
  Clock clock_;
  unsigned write_bw_, write_latency_;
  uint64_t used_ = 0, packets_ = 0;
  std::vector<Picos> write_free_;  // per port: when its engine's last write has moved its last bytes
  DropLedger& drops_;
  TimedQueue<PacketPtr> written_;  // writes in progress
};

}  // namespace fs
