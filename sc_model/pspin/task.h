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
  // A timer of pkt->handler_set fired (pkt holds the fs_timer_event_t): the set's timer handler
  // runs; the packet is in no packet buffer and no packet scheduler counted the task.
  bool timer = false;
};

struct HandlerCommand {
  enum Kind { kSend, kMulticast, kHostWrite, kTimerArm, kTimerCancel } kind = kSend;
  std::vector<uint32_t> ports;  // one port for send and host writes
  uint64_t host_addr = 0;
  Bytes data;
  uint32_t timer_id = 0, delay_cycles = 0;  // timer commands
};

}  // namespace fs
