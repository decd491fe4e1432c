// NetReduce's switch control plane: the ring a switch aggregates (netreduce.* keys) laid out in
// the netreduce handler set's L2 handler memory (the configuration, the connection lookup table,
// 2N x MsgLen aggregators of P + 1 slots) and installed there, every entry and aggregator free;
// and in each cluster's L1 state area a buffer of netreduce.mtu bytes per HPU, where a handler
// fetches the other ranks' elements to add them up.
#pragma once
#include <cstdint>

#include "config/config.h"
#include "pspin/handler_sets.h"

namespace fs {

class NetReduceControl : public HandlerSetControl {
 public:
  MemoryNeed memory_need(const Config& cfg, uint64_t l1_available, uint64_t l2_available) const override;
  void install(const Config& cfg, const InstallTarget& t) const override;
};

}  // namespace fs
