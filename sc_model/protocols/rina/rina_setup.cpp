// The rina switch control plane (see rina_setup.h).
#include "protocols/rina/rina_setup.h"

#include <cstring>

#include "common/errors.h"
#include "protocols/rina/rina_config.h"

namespace fs {

rina_switch_config_t rina_switch_config(const Config& cfg, uint32_t clusters) {
  const RinaConfig& r = rina_config(cfg);
  rina_switch_config_t s;
  std::memset(&s, 0, sizeof(s));
  s.magic = RINA_SWITCH_MAGIC;
  s.self = fs_fabric_switch_ipv4(r.switch_address);
  s.slots = r.aggregators;
  s.per_cluster = (s.slots + clusters - 1) / clusters;
  s.by_clusters = fs_divisor_make(clusters);
  s.slots_offset = RINA_CONFIG_L1_BYTES;
  s.group_offset = uint32_t((sizeof(s) + 7) & ~size_t(7));
  s.sums = uint32_t(r.sum_parts.size());
  return s;
}

MemoryNeed RinaControl::memory_need(const Config& cfg, uint64_t l1_available, uint64_t l2_available) const {
  MemoryNeed need;
  if (!rina_config(cfg).aggregators) {
    need.none = true;
    return need;
  }
  const rina_switch_config_t s = rina_switch_config(cfg, cfg.pspin.clusters);
  if (s.sums > RINA_MAX_SUM_PARTS)
    throw InputError("network.kinds: a switch below " + std::to_string(s.sums) + " rina groups above racks, more than " +
                     std::to_string(RINA_MAX_SUM_PARTS));
  need.l2_bytes = s.group_offset + sizeof(rina_group_t) + s.sums * sizeof(rina_sum_part_t);
  if (l2_available < need.l2_bytes)
    throw InputError("pspin.l2_handler_bytes is too small for the rina configuration and group (" +
                     std::to_string(need.l2_bytes) + " bytes)");
  need.l1_bytes = RINA_CONFIG_L1_BYTES + uint64_t(s.per_cluster) * RINA_SLOT_BYTES;
  if (need.l1_bytes > l1_available)
    throw InputError("rina.aggregators: " + std::to_string(s.slots) + " slots need " + std::to_string(s.per_cluster) +
                     " of " + std::to_string(RINA_SLOT_BYTES) + " bytes in each of the " +
                     std::to_string(cfg.pspin.clusters) + " clusters' L1, " + std::to_string(need.l1_bytes) +
                     " bytes with the configuration; the L1 state area has " + std::to_string(l1_available));
  return need;
}

void RinaControl::install(const Config& cfg, const InstallTarget& t) const {
  const rina_switch_config_t s = rina_switch_config(cfg, t.clusters);
  std::memset(t.handler_mem, 0, s.group_offset + sizeof(rina_group_t));
  std::memcpy(t.handler_mem, &s, sizeof(s));
  const std::vector<RinaSumPart>& parts = rina_config(cfg).sum_parts;
  for (size_t k = 0; k < parts.size(); ++k) {
    rina_sum_part_t e;
    std::memset(&e, 0, sizeof(e));
    e.group_switch = parts[k].group_switch, e.group_address = parts[k].group_address, e.mask = parts[k].mask;
    e.children = uint32_t(parts[k].down.size());
    for (size_t p = 0; p < parts[k].down.size(); ++p) e.down[p] = uint16_t(parts[k].down[p]);
    std::memcpy(t.handler_mem + s.group_offset + sizeof(rina_group_t) + k * sizeof(e), &e, sizeof(e));
  }
  for (uint8_t* l1 : t.l1_state) {
    std::memset(l1, 0, t.l1_state_bytes);
    std::memcpy(l1, &s, sizeof(s));
  }
}

}  // namespace fs
