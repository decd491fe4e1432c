// The registry of handler sets and their control-plane installers.
#include "pspin/handler_sets.h"

#include <cstring>
#include <map>

#include "common/errors.h"
#include "protocols/flare_dense/flare_setup.h"

namespace fs {
namespace {

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
    for (uint32_t k = 0; k < d.n_outcomes; ++k) hs.outcomes.push_back(
          HandlerOutcome{d.outcomes[k].name, d.outcomes[k].drop != 0, d.outcomes[k].completes_block != 0});
    hs.block_id_offset = d.block_id_offset;
    hs.block_group_offset = d.block_group_offset;
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
