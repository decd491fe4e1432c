// NetReduce's switch control plane (see netreduce_setup.h).
#include "protocols/netreduce/netreduce_setup.h"

#include <cstring>

#include "common/errors.h"
#include "netreduce/netreduce_switch.h"
#include "protocols/netreduce/netreduce_config.h"

namespace fs {
namespace {

// A leaf's slots: its rack's ranks (sources) in rank order, then a headers-only slot for each
// rank in another rack whose connection ends in this one (its successor is here).
void lay_out_leaf(const NetReduceConfig& c, netreduce_switch_config_t& s) {
  const NetReduceTier& t = c.tier;
  if (t.leaf_of_rank.size() != c.ranks || t.leaf >= t.leaves.size())
    throw std::logic_error("netreduce: a leaf's tier does not match its ring");
  std::memset(s.slot_of_rank, NETREDUCE_NO_SLOT, sizeof(s.slot_of_rank));
  for (unsigned r = 0; r < c.ranks; ++r) {
    s.receiver_leaf[r] = uint8_t(t.leaf_of_rank[(r + 1) % c.ranks]);
    if (t.leaf_of_rank[r] == t.leaf) s.slot_of_rank[r] = uint8_t(s.sources++);
  }
  s.slots = s.sources;
  for (unsigned r = 0; r < c.ranks; ++r)
    if (t.leaf_of_rank[r] != t.leaf && s.receiver_leaf[r] == t.leaf) s.slot_of_rank[r] = uint8_t(s.slots++);
  s.leaf = t.leaf;
  s.parent_ipv4 = fs_fabric_switch_ipv4(t.parent);
}

}  // namespace

netreduce_switch_config_t netreduce_switch_layout(const NetReduceConfig& c) {
  netreduce_switch_config_t s;
  std::memset(&s, 0, sizeof(s));
  s.magic = NETREDUCE_SWITCH_MAGIC;
  s.ring_id = c.ring_id;
  s.ranks = c.ranks;
  s.window = c.window;
  s.msg_packets = c.msg_packets;
  s.mtu = c.mtu;
  s.clt_entries = c.clt_entries;
  s.order_spins = c.order_spins;
  s.role = c.tier.role;
  s.in_order = c.in_order;
  if (s.role != NETREDUCE_ROLE_RACK) {
    if (c.tier.leaves.size() < 2 || c.tier.leaves.size() > NETREDUCE_MAX_CHILDREN)
      throw std::logic_error("netreduce: a tier of " + std::to_string(c.tier.leaves.size()) + " leaves");
    s.switch_ipv4 = fs_fabric_switch_ipv4(c.tier.address);
    for (size_t i = 0; i < c.tier.leaves.size(); ++i) s.leaf_ipv4[i] = fs_fabric_switch_ipv4(c.tier.leaves[i]);
  }
  if (s.role == NETREDUCE_ROLE_LEAF) {
    lay_out_leaf(c, s);
  } else if (s.role == NETREDUCE_ROLE_ROOT) {
    s.sources = s.slots = uint32_t(c.tier.leaves.size());
  } else {
    s.sources = s.slots = c.ranks;
    for (unsigned r = 0; r < c.ranks; ++r) s.slot_of_rank[r] = uint8_t(r);
  }
  s.clt_offset = uint32_t((sizeof(s) + 63) & ~size_t(63));
  s.aggregators_offset = uint32_t(s.clt_offset + c.clt_entries * sizeof(netreduce_clt_entry_t));
  s.aggregator_bytes = uint32_t(netreduce_aggregator_bytes(s.slots, c.mtu));
  s.slot_bytes = NETREDUCE_HEADER_MAX + c.mtu;
  return s;
}

MemoryNeed NetReduceControl::memory_need(const Config& cfg, uint64_t l1_available, uint64_t l2_available) const {
  const NetReduceConfig& c = netreduce_config(cfg);
  MemoryNeed need;
  if (!c.ranks) {
    need.none = true;  // no ring here: the set takes nothing from the others
    return need;
  }
  check_netreduce_shape(c);
  if (c.ranks < 2) throw InputError("netreduce.ranks: a ring has 2 workers or more, not 1");
  const netreduce_switch_config_t s = netreduce_switch_layout(c);
  need.l2_bytes = netreduce_ring_bytes(s.slots, c.mtu, c.window, c.msg_packets, c.clt_entries);
  need.l1_bytes = NETREDUCE_CONFIG_L1_BYTES + uint64_t(cfg.pspin.hpus_per_cluster) * c.mtu;  // and each HPU's buffer
  if (need.l1_bytes > l1_available)
    throw InputError("netreduce: the configuration and each HPU's " + std::to_string(c.mtu) +
                     "-byte buffer (netreduce.mtu) take " + std::to_string(need.l1_bytes) +
                     " bytes of each cluster's L1 state area, which has " + std::to_string(l1_available));
  if (need.l2_bytes > l2_available)
    throw InputError("netreduce: the ring's state takes " + std::to_string(need.l2_bytes) + " bytes (2 x netreduce.window " +
                     std::to_string(c.window) + " x netreduce.msg_packets " + std::to_string(c.msg_packets) +
                     " aggregators of " + std::to_string(s.aggregator_bytes) + " bytes for " + std::to_string(s.slots) +
                     " slots of netreduce.mtu " + std::to_string(c.mtu) +
                     ", and the CLT), more than pspin.l2_handler_bytes' " + std::to_string(l2_available));
  return need;
}

void NetReduceControl::install(const Config& cfg, const InstallTarget& t) const {
  const NetReduceConfig& c = netreduce_config(cfg);
  const netreduce_switch_config_t s = netreduce_switch_layout(c);
  const uint64_t bytes = netreduce_ring_bytes(s.slots, c.mtu, c.window, c.msg_packets, c.clt_entries);
  if (bytes > t.handler_mem_size)
    throw InputError("netreduce: the ring's state does not fit the handler set's " + std::to_string(t.handler_mem_size) +
                     " bytes of L2 handler memory");
  std::memset(t.handler_mem, 0, bytes);
  std::memcpy(t.handler_mem, &s, sizeof(s));
  for (uint8_t* l1 : t.l1_state) {
    std::memset(l1, 0, t.l1_state_bytes);
    std::memcpy(l1, &s, sizeof(s));
  }
}

}  // namespace fs
