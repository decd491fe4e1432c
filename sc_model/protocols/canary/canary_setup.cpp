// Canary's switch control plane (see canary_setup.h).
#include "protocols/canary/canary_setup.h"

#include <cmath>
#include <cstring>

#include "canary/canary_switch.h"
#include "common/errors.h"
#include "common/sc_time_util.h"
#include "fs_packet.h"
#include "protocols/canary/canary_config.h"

namespace fs {
namespace {

// PsPIN cycles in `ns` nanoseconds (rounded up: a timer never fires early); InputError naming `key`
// when they do not fit the handler API's 32-bit delay.
uint32_t cycles_of(const Config& cfg, uint64_t ns, const char* key) {
  const Picos period = Clock::from_ghz(cfg.pspin.clock_ghz).period_ps;
  const uint64_t cycles = (ns * kPicosPerNs + period - 1) / period;
  if (cycles > 0xFFFFFFFFull)
    throw InputError(std::string(key) + ": " + std::to_string(ns) + " ns is " + std::to_string(cycles) +
                     " PsPIN cycles, more than a handler timer's 2^32-1");
  return uint32_t(cycles);
}

}  // namespace

CanaryTable canary_table(const Config& cfg, uint64_t l1_state_bytes) {
  const CanaryConfig& c = canary_config(cfg);
  if (cfg.ports.count > CANARY_MAX_PORTS)
    throw InputError("canary: a Canary switch has at most " + std::to_string(CANARY_MAX_PORTS) +
                     " ports (its descriptors' children bitmap); this one has " + std::to_string(cfg.ports.count));
  CanaryTable t;
  const uint64_t room = l1_state_bytes > CANARY_CONFIG_L1_BYTES ? l1_state_bytes - CANARY_CONFIG_L1_BYTES : 0;
  const uint64_t fit = room / CANARY_DESCRIPTOR_BYTES;
  if (c.descriptors > fit || fit == 0)
    throw InputError("canary.descriptors: " + std::to_string(c.descriptors ? c.descriptors : 1) + " descriptors of " +
                     std::to_string(CANARY_DESCRIPTOR_BYTES) + " bytes do not fit in the " +
                     std::to_string(l1_state_bytes) + "-byte L1 state area (" + std::to_string(fit) + " do)");
  t.slots = uint32_t(c.descriptors ? c.descriptors : fit);
  t.app_slots = t.slots;
  if (c.mapping == "static") {
    if (c.apps > t.slots)
      throw InputError("canary.apps: " + std::to_string(c.apps) + " applications cannot share " +
                       std::to_string(t.slots) + " descriptors per cluster");
    t.app_slots = t.slots / c.apps;
  }
  t.timeout_cycles = cycles_of(cfg, c.timeout_ns, "canary.timeout_ns");
  t.lifetime_cycles = cycles_of(cfg, c.lifetime_ns, "canary.lifetime_ns");
  return t;
}

MemoryNeed CanaryControl::memory_need(const Config& cfg, uint64_t l1_available, uint64_t l2_available) const {
  MemoryNeed need;
  if (!canary_config(cfg).switch_address) {
    need.none = true;  // no Canary here: the set takes nothing from the others
    return need;
  }
  if (l2_available < sizeof(canary_switch_config_t))
    throw InputError("pspin.l2_handler_bytes is too small for the canary configuration (" +
                     std::to_string(sizeof(canary_switch_config_t)) + " bytes)");
  need.l2_bytes = sizeof(canary_switch_config_t);
  const unsigned d = canary_config(cfg).descriptors;
  if (d) {
    canary_table(cfg, l1_available);  // says so when they do not fit
    need.l1_bytes = CANARY_CONFIG_L1_BYTES + uint64_t(d) * CANARY_DESCRIPTOR_BYTES;
  }
  return need;
}

void CanaryControl::install(const Config& cfg, const InstallTarget& t) const {
  const CanaryConfig& c = canary_config(cfg);
  const CanaryTable table = canary_table(cfg, t.l1_state_bytes);
  canary_switch_config_t s;
  std::memset(&s, 0, sizeof(s));
  s.magic = CANARY_SWITCH_MAGIC;
  s.switch_address = c.switch_address;
  s.switch_ipv4 = fs_fabric_switch_ipv4(c.switch_address);
  s.timeout_cycles = table.timeout_cycles;
  s.lifetime_cycles = table.lifetime_cycles;
  s.mapping = c.mapping == "static" ? CANARY_MAP_STATIC : CANARY_MAP_HASH;
  s.slots = table.slots;
  s.app_slots = table.app_slots;
  s.by_clusters = fs_divisor_make(t.clusters);
  s.by_slots = fs_divisor_make(table.slots);
  s.by_apps = fs_divisor_make(c.apps);
  s.by_app_slots = fs_divisor_make(table.app_slots);
  s.descriptors_offset = CANARY_CONFIG_L1_BYTES;
  std::memcpy(t.handler_mem, &s, sizeof(s));
  for (uint8_t* l1 : t.l1_state) {
    std::memset(l1, 0, t.l1_state_bytes);
    std::memcpy(l1, &s, sizeof(s));
  }
}

}  // namespace fs
