// The netreduce configuration section (see netreduce_config.h).
#include "protocols/netreduce/netreduce_config.h"

#include "common/errors.h"
#include "config/config_keys.h"
#include "netreduce/netreduce_switch.h"

namespace fs {

#define NETREDUCE(field) FS_SECTION_FIELD(NetReduceConfig, kNetReduceSection, field)

std::vector<ConfigKey> netreduce_config_keys() {
  std::vector<ConfigKey> s;
  s.push_back(uint_key("netreduce.ring_id", "the ring's RingID in its INA headers; a switch aggregates this ring only", 0, 255,
                       NETREDUCE(ring_id)));
  s.push_back(uint_key("netreduce.window", "N: messages a worker has in flight, whose results have not come back (NetReduce 3.2: at least the bandwidth-delay product over MsgLen x MTU); a power of two up to 32, as the switch finds an aggregator by the 8-bit MsgID mod 2N", 1, NETREDUCE_MAX_WINDOW,
                       NETREDUCE(window)));
  s.push_back(uint_key("netreduce.msg_packets", "MsgLen: packets of a full message (the last may have fewer); the switch's aggregator array holds 2N x MsgLen packets of every rank", 1, 255,
                       NETREDUCE(msg_packets)));
  s.push_back(uint_key("netreduce.mtu", "RDMA payload bytes of a full packet, a multiple of 4 (the INA header's 8 and int32 elements)", 12, 8192,
                       NETREDUCE(mtu)));
  s.push_back(uint_key("netreduce.ranks", "the switch: workers of the ring it aggregates (0 = none: the netreduce handler set then takes no memory); a network run with hosts.model netreduce sets it from hosts.members", 0, NETREDUCE_MAX_RANKS,
                       NETREDUCE(ranks)));
  s.push_back(uint_key("netreduce.clt_entries", "the switch: entries of its connection lookup table (a power of two; one per ring connection through it)", 1, 1u << 16,
                       NETREDUCE(clt_entries)));
  s.push_back(bool_key("netreduce.in_order", "the switch: each connection's results leave in its PSN order, message by message and packet by packet, as a pipeline sends them: an aggregator's completer waits for its turn on each connection (HPUs finish packets in any order, and a receiver NAKs a gap: its sender then goes back N); false: each aggregator's results leave as soon as it completes",
                       NETREDUCE(in_order)));
  s.push_back(uint_key("netreduce.order_spins", "the switch: turns (a read of the connection lookup table entry each) a packet waits for its message's first packet, which another HPU may still be handling, to take its step in the connection lookup table (a pipeline takes them in order); after that the first packet counts as lost and the packet is dropped", 0, 1u << 20,
                       NETREDUCE(order_spins)));
  return s;
}

#undef NETREDUCE

void check_netreduce_shape(const NetReduceConfig& c) {
  if (c.window & (c.window - 1))
    throw InputError("netreduce.window: " + std::to_string(c.window) +
                     " is not a power of two (the switch finds message MsgID's aggregators at MsgID mod 2N, and "
                     "MsgID counts mod 256)");
  if (c.mtu % 4) throw InputError("netreduce.mtu: " + std::to_string(c.mtu) + " is not a multiple of 4");
  if (c.clt_entries & (c.clt_entries - 1))
    throw InputError("netreduce.clt_entries: " + std::to_string(c.clt_entries) + " is not a power of two");
}

}  // namespace fs
