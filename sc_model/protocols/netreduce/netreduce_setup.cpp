// NetReduce's switch control plane (see netreduce_setup.h).
#include "protocols/netreduce/netreduce_setup.h"

#include <cstring>

#include "common/errors.h"
#include "netreduce/netreduce_switch.h"
#include "protocols/netreduce/netreduce_config.h"

namespace fs {
namespace {

uint64_t ring_bytes(const NetReduceConfig& c) {
  return netreduce_ring_bytes(c.ranks, c.mtu, c.window, c.msg_packets, c.clt_entries);
}

}  // namespace

MemoryNeed NetReduceControl::memory_need(const Config& cfg, uint64_t l1_available, uint64_t l2_available) const {
  const NetReduceConfig& c = netreduce_config(cfg);
  MemoryNeed need;
  if (!c.ranks) {
    need.none = true;  // no ring here: the set takes nothing from the others
    return need;
  }
  check_netreduce_shape(c);
  if (c.ranks < 2) throw InputError("netreduce.ranks: a ring has 2 workers or more, not 1");
  need.l2_bytes = ring_bytes(c);
  need.l1_bytes = NETREDUCE_CONFIG_L1_BYTES + uint64_t(cfg.pspin.hpus_per_cluster) * c.mtu;  // and each HPU's buffer
  if (need.l1_bytes > l1_available)
    throw InputError("netreduce: the configuration and each HPU's " + std::to_string(c.mtu) +
                     "-byte buffer (netreduce.mtu) take " + std::to_string(need.l1_bytes) +
                     " bytes of each cluster's L1 state area, which has " + std::to_string(l1_available));
  if (need.l2_bytes > l2_available)
    throw InputError("netreduce: the ring's state takes " + std::to_string(need.l2_bytes) + " bytes (2 x netreduce.window " +
                     std::to_string(c.window) + " x netreduce.msg_packets " + std::to_string(c.msg_packets) +
                     " aggregators of " + std::to_string(netreduce_aggregator_bytes(c.ranks, c.mtu)) +
                     " bytes for " + std::to_string(c.ranks) + " ranks of netreduce.mtu " + std::to_string(c.mtu) +
                     ", and the CLT), more than pspin.l2_handler_bytes' " + std::to_string(l2_available));
  return need;
}

void NetReduceControl::install(const Config& cfg, const InstallTarget& t) const {
  const NetReduceConfig& c = netreduce_config(cfg);
  netreduce_switch_config_t s;
  std::memset(&s, 0, sizeof(s));
  s.magic = NETREDUCE_SWITCH_MAGIC;
  s.ring_id = c.ring_id;
  s.ranks = c.ranks;
  s.window = c.window;
  s.msg_packets = c.msg_packets;
  s.mtu = c.mtu;
  s.clt_entries = c.clt_entries;
  s.clt_offset = uint32_t((sizeof(s) + 63) & ~size_t(63));
  s.aggregators_offset = uint32_t(s.clt_offset + c.clt_entries * sizeof(netreduce_clt_entry_t));
  s.aggregator_bytes = uint32_t(netreduce_aggregator_bytes(c.ranks, c.mtu));
  s.slot_bytes = NETREDUCE_HEADER_MAX + c.mtu;
  s.in_order = c.in_order;
  s.order_spins = c.order_spins;
  if (ring_bytes(c) > t.handler_mem_size)
    throw InputError("netreduce: the ring's state does not fit the handler set's " + std::to_string(t.handler_mem_size) +
                     " bytes of L2 handler memory");
  std::memset(t.handler_mem, 0, ring_bytes(c));
  std::memcpy(t.handler_mem, &s, sizeof(s));
  for (uint8_t* l1 : t.l1_state) {
    std::memset(l1, 0, t.l1_state_bytes);
    std::memcpy(l1, &s, sizeof(s));
  }
}

}  // namespace fs
