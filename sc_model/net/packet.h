// The packet as it travels through the switch model: its bytes plus the metadata each block
// attaches (ingress port and time, the handler set the parser matched, the block id or flow hash
// used by the scheduler). Shared by pointer so that queues and buffers hold no copies.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "common/units.h"

namespace fs {

using Bytes = std::vector<uint8_t>;

struct Packet {
  uint64_t id = 0;            // arrival sequence number, unique within a run
  Bytes data;                 // the frame from the Ethernet destination MAC on, without FCS
  uint16_t ingress_port = 0;
  Picos arrival = 0;          // first bit seen at the ingress port
  Picos received = 0;         // last bit received (store and forward)
  int handler_set = -1;       // set by the parser when a rule matches; -1 = routed
  uint32_t block_id = 0;      // set by the parser for handler sets that name a block
  uint32_t block_group = 0;   // and, for those that name one, the block's group (allreduce id)
  uint32_t flow_hash = 0;     // set by the parser under the flow policy: the hash of its flow key
  uint32_t payload_offset = 0;  // where the handler's payload (after the UDP header) starts
  // Its way through the PsPIN unit (0: not yet): the NIC inbound engine takes it and starts
  // writing it into L2 packet memory; the write is done and its handler execution request goes
  // to the packet scheduler; its handler's feedback reaches the NIC and frees its L2 slot.
  Picos unit_in = 0, written = 0, fed_back = 0;
};

using PacketPtr = std::shared_ptr<Packet>;

}  // namespace fs
