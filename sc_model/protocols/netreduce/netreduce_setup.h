// NetReduce's switch control plane: the ring a switch aggregates (netreduce.* keys, and its tier
// in a ring across racks) laid out in the netreduce handler set's L2 handler memory (the
// configuration, the connection lookup table, 2N x MsgLen aggregators of a result area and a slot
// each: per rank on a rack switch, per rank of its rack and per connection into it from another
// rack on a leaf, per leaf on the root) and installed there, every entry and aggregator free; and
// in each cluster's L1 state area a copy of the configuration and a buffer of netreduce.mtu
// bytes per HPU, where a handler fetches the other slots' elements to add them up.
#pragma once
#include <cstdint>

#include "config/config.h"
#include "netreduce/netreduce_switch.h"
#include "pspin/handler_sets.h"

namespace fs {

struct NetReduceConfig;
// The configuration the handlers find (netreduce_switch.h): the ring's shape, the switch's role
// and slots, and where the CLT and the aggregators start.
netreduce_switch_config_t netreduce_switch_layout(const NetReduceConfig& c);

class NetReduceControl : public HandlerSetControl {
 public:
  MemoryNeed memory_need(const Config& cfg, uint64_t l1_available, uint64_t l2_available) const override;
  void install(const Config& cfg, const InstallTarget& t) const override;
};

}  // namespace fs
