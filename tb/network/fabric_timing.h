// The link and switch timing the network tests work their timelines out with: 100 Gbit/s links
// with 500 ns of propagation and 24 bytes of wire overhead, parser and router 2 cycles each at
// 1 GHz (4 ns through a switch).
#pragma once
#include "config/config.h"

namespace fs_tb {

inline fs::Config fabric_timing() {
  fs::Config c;
  c.ports.gbps = 100;
  c.ports.wire_overhead = 24;
  c.ports.latency_ns = 500;
  c.parser.latency_cycles = 2;
  c.routing.latency_cycles = 2;
  c.pspin.clock_ghz = 1.0;
  return c;
}

}  // namespace fs_tb
