// The L2 packet memory (pspin/memory/ has the rest of the unit's memories): holds a matched
// packet from its arrival until its handler finishes.
// Tracks occupancy (max and time average); a packet that does not fit (in bytes, or past
// packet_buffer.max_packets) is dropped as "buffer_full", one larger than an HPU's L1 packet
// slot holds (kMaxSlotFrameBytes) as "oversize".
#pragma once
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

  // Configured by the packet_buffer.* keys.
  PacketBuffer(sc_core::sc_module_name name, const PacketBufferConfig& cfg, DropLedger& drops)
      : sc_core::sc_module(name), capacity_(cfg.bytes), max_packets_(cfg.max_packets), drops_(drops) {}

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
    occupancy_bytes.set(now_ps(), used_);
    occupancy_packets.set(now_ps(), packets_);
    ++accepted;
    to_scheduler->accept(std::move(p));
  }

  // The handler of this packet has finished: its slot is free again.
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
  uint64_t capacity_;
  uint64_t max_packets_;  // 0: no limit
  uint64_t used_ = 0, packets_ = 0;
  DropLedger& drops_;
};

}  // namespace fs
