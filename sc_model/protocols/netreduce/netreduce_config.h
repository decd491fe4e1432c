// The netreduce protocol's configuration section ("netreduce"): the ring's shape, which the
// workers and the switch's handlers share (ring id, window N, MsgLen, the packets' MTU), and the
// switch's part (its ring's ranks, the connection lookup table's size, and, set by a network
// run, where it sits in a ring across racks).
#pragma once
#include <cstdint>
#include <vector>

#include "config/config.h"

namespace fs {

// Where a switch sits in a ring across racks (NetReduce 3.3; netreduce_switch.h's roles). Not a
// key: a network run with hosts.model netreduce sets it from hosts.members and the topology.
struct NetReduceTier {
  unsigned role = 0;                  // NETREDUCE_ROLE_RACK (the default), _LEAF or _ROOT
  unsigned address = 0;               // LEAF, ROOT: the switch's fabric address (fs_fabric_switch_ipv4)
  unsigned parent = 0;                // LEAF: the root's
  unsigned leaf = 0;                  // LEAF: its index in `leaves`
  std::vector<unsigned> leaves;       // LEAF, ROOT: the leaves' addresses
  std::vector<unsigned> leaf_of_rank; // LEAF: the index in `leaves` of each rank's host's leaf
};

struct NetReduceConfig {
  unsigned ring_id = 1;       // the INA header's RingID
  unsigned window = 8;        // N: messages a worker has in flight (a power of two up to 32)
  unsigned msg_packets = 4;   // MsgLen: packets of a full message
  unsigned mtu = 1024;        // RDMA payload bytes of a full packet (a multiple of 4)
  // The switch (a network run sets ranks on the switches its ring crosses).
  unsigned ranks = 0;         // P: workers of the ring the switch aggregates; 0 = none
  unsigned clt_entries = 256; // connection lookup table entries (a power of two)
  bool in_order = true;       // each connection's results leave in its PSN order (netreduce.c: emit_in_order)
  unsigned order_spins = 256; // turns a packet waits for its message's first packet's CLT step
  NetReduceTier tier;         // a network run's (not a key)
};
constexpr const char* kNetReduceSection = "netreduce";
inline NetReduceConfig& netreduce_config(Config& cfg) { return cfg.sections.get<NetReduceConfig>(kNetReduceSection); }
inline const NetReduceConfig& netreduce_config(const Config& cfg) {
  return cfg.sections.get<NetReduceConfig>(kNetReduceSection);
}
std::vector<ConfigKey> netreduce_config_keys();
// InputError naming the key when the ring's shape cannot run (window not a power of two up to
// NETREDUCE_MAX_WINDOW, MTU not a multiple of 4 or past an HPU's packet slot, ...).
void check_netreduce_shape(const NetReduceConfig& c);

}  // namespace fs
