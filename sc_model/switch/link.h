// What a port's link is: its line rate and per-frame wire overhead, the egress queue's capacity
// and ECN marking threshold in front of it, and its propagation latency. A switch's ports take
// theirs from the ports section (LinkParams::of); a network gives each link its own (the
// topology's links, network/topology.h). Both ends of a link use the same parameters (each
// direction its own loss draws).
#pragma once
#include <cstdint>

#include "common/units.h"
#include "config/config.h"

namespace fs {

struct LinkParams {
  double gbps = 100.0;
  unsigned wire_overhead = 24;  // bytes a frame costs on the wire beyond its own
  uint64_t queue_bytes = 1 << 20;  // egress queue capacity; a frame that does not fit is dropped
  uint64_t ecn_bytes = 0;  // a frame queued behind more than this is ECN-marked (0: never)
  Picos latency = 0;       // propagation: the far end has the last bit this long after it left
  double loss = 0;         // probability that a frame sent is lost on the way (a network's links)
  uint64_t loss_seed = 0;  // the seed of the link direction's loss draws

  static LinkParams of(const PortsConfig& ports) {
    LinkParams l;
    l.gbps = ports.gbps;
    l.wire_overhead = ports.wire_overhead;
    l.queue_bytes = ports.egress_queue_bytes;
    l.ecn_bytes = ports.ecn_bytes;
    l.latency = ports.latency_ns * kPicosPerNs;
    return l;
  }
  Picos wire_time_of(uint64_t bytes) const { return wire_time(bytes, wire_overhead, gbps); }
};

}  // namespace fs
