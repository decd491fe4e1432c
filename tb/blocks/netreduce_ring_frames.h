// The hosts' packets of a NetReduce ring as the handler tests build them, with the project's RoCE
// frame code: rank r on host r writes message m to host r + 1 (mod the ring's ranks) in messages
// of `msg_packets` full packets of `mtu` bytes, the INA header in front; element i of rank r's
// message m is r x 100000 + m x 1000 + i - 500; each connection starts at PSN 1000 r + 7, its
// receiver's queue pair is 2. And the sums a result carries, worked out here from the elements;
// and the switch's configuration and aggregators as a handler harness holds them.
#pragma once
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "blocks/handler_harness.h"
#include "fs_packet.h"
#include "netreduce/netreduce_proto.h"
#include "netreduce/netreduce_switch.h"
#include "protocols/netreduce/roce_frame.h"

namespace fs_tb {

struct NetReduceRingShape {
  unsigned ranks, msg_packets, mtu;
  uint8_t ring_id;
  static constexpr uint32_t kRecvQp = 2;
  // Elements of a message.
  unsigned elements() const { return (msg_packets * mtu - NETREDUCE_INA_BYTES) / 4; }
  static uint32_t first_psn(unsigned rank) { return 1000 * rank + 7; }
  static int32_t element(unsigned rank, unsigned msg, unsigned i) {
    return int32_t(rank * 100000 + msg * 1000 + i) - 500;
  }

  // Message `msg` of rank `rank`: the INA header (ring `ring`) and its elements.
  fs::Bytes message(unsigned rank, unsigned msg, uint8_t ring) const {
    fs::Bytes b(NETREDUCE_INA_BYTES + 4 * elements());
    const netreduce_ina_t ina{NETREDUCE_INET_TAG, ring, uint8_t(msg), uint8_t(msg_packets), uint8_t(rank)};
    netreduce_ina_encode(&ina, b.data());
    for (unsigned i = 0; i < elements(); ++i)
      fs_put_le32(&b[NETREDUCE_INA_BYTES + 4 * i], uint32_t(element(rank, msg, i)));
    return b;
  }

  // Packet k of message `m` (msg) from rank `rank`, as its NIC sends it.
  fs::RocePacket packet(unsigned rank, unsigned msg, unsigned k, const fs::Bytes& m) const {
    fs::RocePacket p;
    p.bth.opcode = k == 0 ? ROCE_RC_WRITE_FIRST : k + 1 == msg_packets ? ROCE_RC_WRITE_LAST_IMM : ROCE_RC_WRITE_MIDDLE;
    p.bth.pkey = ROCE_DEFAULT_PKEY;
    p.bth.dest_qp = kRecvQp;
    p.bth.ack_request = k + 1 == msg_packets;
    p.bth.psn = (first_psn(rank) + msg * msg_packets + k) & ROCE_PSN_MASK;
    if (k == 0) p.reth = {uint64_t(msg) * m.size(), 0, uint32_t(m.size())};
    if (k + 1 == msg_packets) p.imm = msg;
    p.payload.assign(m.begin() + k * mtu, m.begin() + (k + 1) * mtu);
    return p;
  }

  fs::Bytes frame(unsigned rank, unsigned msg, unsigned k) const {
    return fs::build_roce_frame(packet(rank, msg, k, message(rank, msg, ring_id)), rank,
                                fs_host_ipv4((rank + 1) % ranks), uint16_t(0xC000 | rank));
  }

  // The elements packet k of message msg carries, summed over `over` (after a first packet's INA
  // header).
  std::vector<int32_t> sums(unsigned msg, unsigned k, const std::vector<unsigned>& over) const {
    std::vector<int32_t> out;
    const unsigned from = k == 0 ? 0 : (k * mtu - NETREDUCE_INA_BYTES) / 4;
    const unsigned to = std::min(elements(), ((k + 1) * mtu - NETREDUCE_INA_BYTES) / 4);
    for (unsigned i = from; i < to; ++i) {
      uint32_t s = 0;
      for (unsigned r : over) s += uint32_t(element(r, msg, i));
      out.push_back(int32_t(s));
    }
    return out;
  }
};

// The configuration the netreduce handler set installed in `h`'s L2 handler memory, and its
// aggregator `index`.
inline const netreduce_switch_config_t& netreduce_config_in(HandlerHarness& h) {
  return *reinterpret_cast<const netreduce_switch_config_t*>(h.handler_memory().data());
}
inline const netreduce_aggregator_t& netreduce_aggregator_in(HandlerHarness& h, uint32_t index) {
  const netreduce_switch_config_t& c = netreduce_config_in(h);
  return *reinterpret_cast<const netreduce_aggregator_t*>(h.handler_memory().data() + c.aggregators_offset +
                                                        index * c.aggregator_bytes);
}

}  // namespace fs_tb
