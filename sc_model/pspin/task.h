// A unit of work inside the PsPIN unit: one matched packet on its way from the packet buffer
// through the schedulers to an HPU, and the commands a handler issues.
#pragma once
#include <cstdint>
#include <vector>

#include "net/packet.h"

namespace fs {

struct Task {
  PacketPtr pkt;
  unsigned cluster = 0;
  int subset = -1;  // hier-fcfs: the subset of HPUs in the cluster; -1: any HPU
};

struct HandlerCommand {
  enum Kind { kSend, kMulticast, kHostWrite } kind = kSend;
  std::vector<uint32_t> ports;  // one port for send and host writes
  uint64_t host_addr = 0;
  Bytes data;
};

}  // namespace fs
