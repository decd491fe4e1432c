// The registry of handler sets (see handler_sets.h).
#include "pspin/handler_sets.h"

#include <algorithm>
#include <stdexcept>

namespace fs {
namespace {

std::vector<HandlerSet>& registry() {  // by name, so indices do not depend on registration order
  static std::vector<HandlerSet> sets;
  return sets;
}

}  // namespace

void register_handler_set(const fs_handler_set_desc_t& d, const HandlerSetControl* control) {
  static const HandlerSetControl kNoControl;
  if (find_handler_set(d.name) >= 0) throw std::logic_error(std::string("handler set '") + d.name + "' registered twice");
  HandlerSet hs;
  hs.name = d.name;
  hs.doc = d.doc;
  hs.fn = d.fn;
  hs.timer_fn = d.timer;
  for (uint32_t k = 0; k < d.n_outcomes; ++k)
    hs.outcomes.push_back(HandlerOutcome{d.outcomes[k].name, d.outcomes[k].drop != 0, d.outcomes[k].completes_block != 0,
                                         d.outcomes[k].no_block != 0});
  hs.block_id_offset = d.block_id_offset;
  hs.block_group_offset = d.block_group_offset;
  hs.control = control ? control : &kNoControl;
  auto& r = registry();
  const auto at = std::upper_bound(r.begin(), r.end(), hs.name,
                                   [](const std::string& n, const HandlerSet& s) { return n < s.name; });
  r.insert(at, std::move(hs));
}

const std::vector<HandlerSet>& handler_sets() { return registry(); }

int find_handler_set(const std::string& name) {
  const auto& sets = handler_sets();
  for (size_t i = 0; i < sets.size(); ++i)
    if (sets[i].name == name) return int(i);
  return -1;
}

std::string outcome_name(const HandlerSet& set, int code) {
  const bool known = code >= 0 && size_t(code) < set.outcomes.size();
  return known ? set.outcomes[size_t(code)].name : "code_" + std::to_string(code);
}

}  // namespace fs
