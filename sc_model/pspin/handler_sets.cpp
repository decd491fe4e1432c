// The registry of handler sets and their control-plane installers.
#include "pspin/handler_sets.h"

#include <cstring>
#include <map>

#include "common/errors.h"
#include "flare/flare_dense.h"

namespace fs {
namespace {

void install_flare_dense(const Config& cfg, const InstallTarget& t) {
  const std::vector<unsigned> ports = parse_port_list("flare.ports", cfg.flare.ports);
  if (ports.size() > FLARE_DENSE_MAX_CHILDREN)
    throw InputError("bad value '" + cfg.flare.ports + "' for 'flare.ports': at most " +
                     std::to_string(FLARE_DENSE_MAX_CHILDREN) + " hosts");
  for (unsigned p : ports)
    if (p >= cfg.ports.count)
      throw InputError("bad value '" + cfg.flare.ports + "' for 'flare.ports': port " + std::to_string(p) +
                       " does not exist (ports.count = " + std::to_string(cfg.ports.count) + ")");
  if (t.handler_mem_size < sizeof(flare_dense_config_t))
    throw InputError("'pspin.l2_handler_bytes' is too small for the flare_dense configuration");
  const uint32_t slot = flare_dense_slot_bytes(cfg.flare.max_payload);
  const uint32_t fit = t.l1_state_bytes / slot;
  const uint32_t slots = cfg.flare.buffers ? cfg.flare.buffers : fit;
  if (slots == 0 || slots > fit)
    throw InputError("'flare.buffers' = " + std::to_string(slots) + " block buffers of " + std::to_string(slot) +
                     " bytes do not fit in the " + std::to_string(t.l1_state_bytes) +
                     "-byte L1 state area of a cluster (at most " + std::to_string(fit) + ")");
  flare_dense_config_t c;
  std::memset(&c, 0, sizeof(c));
  c.magic = FLARE_DENSE_MAGIC;
  c.n_children = uint32_t(ports.size());
  c.slot_payload = cfg.flare.max_payload;
  c.slots_per_cluster = slots;
  for (size_t i = 0; i < ports.size(); ++i) c.ports[i] = ports[i];
  std::memcpy(t.handler_mem, &c, sizeof(c));
}

// Control-plane installers of the handler sets that need one (configuration -> handler memory).
// A handler set without an entry here installs nothing.
const std::map<std::string, std::function<void(const Config&, const InstallTarget&)>>& installers() {
  static const std::map<std::string, std::function<void(const Config&, const InstallTarget&)>> m = {
      {"flare_dense", install_flare_dense},
  };
  return m;
}

std::vector<HandlerSet> make_sets() {
  std::vector<HandlerSet> sets;
  for (unsigned i = 0; i < fs_handler_registry_count; ++i) {
    const fs_handler_set_desc_t& d = *fs_handler_registry[i];
    HandlerSet hs;
    hs.name = d.name;
    hs.doc = d.doc;
    hs.fn = d.fn;
    for (uint32_t k = 0; k < d.n_outcomes; ++k) hs.outcomes.push_back(HandlerOutcome{d.outcomes[k].name, d.outcomes[k].drop != 0});
    hs.block_id_offset = d.block_id_offset;
    const auto it = installers().find(hs.name);
    hs.install = it != installers().end() ? it->second : [](const Config&, const InstallTarget&) {};
    sets.push_back(std::move(hs));
  }
  return sets;
}

}  // namespace

const std::vector<HandlerSet>& handler_sets() {
  static const std::vector<HandlerSet> sets = make_sets();
  return sets;
}

int find_handler_set(const std::string& name) {
  const auto& sets = handler_sets();
  for (size_t i = 0; i < sets.size(); ++i)
    if (sets[i].name == name) return int(i);
  return -1;
}

}  // namespace fs
