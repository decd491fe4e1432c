// The a2tp switch control plane (see a2tp_setup.h).
#include "protocols/a2tp/a2tp_setup.h"

#include <cstring>

#include "common/errors.h"
#include "protocols/a2tp/a2tp_config.h"
#include "protocols/a2tp/a2tp_frame.h"

namespace fs {

a2tp_switch_config_t a2tp_switch_config(const Config& cfg, uint32_t clusters) {
  const A2tpConfig& a = a2tp_config(cfg);
  a2tp_switch_config_t s;
  std::memset(&s, 0, sizeof(s));
  s.magic = A2TP_SWITCH_MAGIC;
  s.mode = a.mode == "atp" ? A2TP_MODE_ATP : a.mode == "static" ? A2TP_MODE_STATIC : A2TP_MODE_A2TP;
  s.aggregators = a.aggregators;
  s.jobs = a.mode == "static" ? a.jobs : 1;
  if (s.jobs > s.aggregators)
    throw InputError("a2tp.jobs: " + std::to_string(a.jobs) + " jobs cannot share " + std::to_string(a.aggregators) +
                     " aggregators (a2tp.aggregators) statically");
  s.share = s.aggregators / s.jobs;
  s.per_cluster = (s.aggregators + clusters - 1) / clusters;
  s.by_clusters = fs_divisor_make(clusters);
  s.by_aggregators = fs_divisor_make(s.aggregators);
  s.by_share = fs_divisor_make(s.share);
  s.aggregators_offset = A2TP_CONFIG_L1_BYTES;
  s.tree_jobs = uint32_t(a.tree.size());
  s.tree_offset = (sizeof(s) + 7) & ~size_t(7);
  return s;
}

namespace {

// The bytes of L2 handler memory the configuration and its tree entries take.
uint64_t l2_bytes_of(const a2tp_switch_config_t& s) {
  return s.tree_offset + uint64_t(s.tree_jobs) * sizeof(a2tp_tree_job_t);
}

}  // namespace

MemoryNeed A2tpControl::memory_need(const Config& cfg, uint64_t l1_available, uint64_t l2_available) const {
  MemoryNeed need;
  if (!a2tp_config(cfg).aggregators) {
    need.none = true;  // no aggregators here: the set takes nothing from the others
    return need;
  }
  const a2tp_switch_config_t s = a2tp_switch_config(cfg, cfg.pspin.clusters);
  if (l2_available < l2_bytes_of(s))
    throw InputError("pspin.l2_handler_bytes is too small for the a2tp configuration (" +
                     std::to_string(l2_bytes_of(s)) + " bytes)");
  need.l2_bytes = l2_bytes_of(s);
  need.l1_bytes = A2TP_CONFIG_L1_BYTES + uint64_t(s.per_cluster) * A2TP_AGGREGATOR_BYTES;
  if (need.l1_bytes > l1_available)
    throw InputError("a2tp.aggregators: " + std::to_string(s.aggregators) + " aggregators need " +
                     std::to_string(s.per_cluster) + " of " + std::to_string(A2TP_AGGREGATOR_BYTES) +
                     " bytes in each of the " + std::to_string(cfg.pspin.clusters) + " clusters' L1, " +
                     std::to_string(need.l1_bytes) + " bytes with the configuration; the L1 state area has " +
                     std::to_string(l1_available));
  return need;
}

void A2tpControl::install(const Config& cfg, const InstallTarget& t) const {
  const a2tp_switch_config_t s = a2tp_switch_config(cfg, t.clusters);
  std::memcpy(t.handler_mem, &s, sizeof(s));
  const std::vector<A2tpTreeJob>& tree = a2tp_config(cfg).tree;
  for (size_t j = 0; j < tree.size(); ++j) {
    a2tp_tree_job_t e;
    std::memset(&e, 0, sizeof(e));
    a2tp_set_bitmap(e.mask, tree[j].mask);
    e.passes_on = tree[j].passes_on;
    e.children = uint32_t(tree[j].down.size());
    for (size_t k = 0; k < tree[j].down.size(); ++k) e.down[k] = uint16_t(tree[j].down[k]);
    std::memcpy(t.handler_mem + s.tree_offset + j * sizeof(e), &e, sizeof(e));
  }
  for (uint8_t* l1 : t.l1_state) {
    std::memset(l1, 0, t.l1_state_bytes);
    std::memcpy(l1, &s, sizeof(s));
  }
}

}  // namespace fs
