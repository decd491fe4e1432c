// Flare allreduce setup (see flare_setup.h).
#include "protocols/flare_dense/flare_setup.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <sstream>

#include "common/errors.h"
#include "common/text.h"
#include "flare/flare_dense.h"

namespace fs {
namespace {

constexpr uint64_t kKiB = 1024;

// One allreduce's keys: the flare.* values, with an entry's key=value words applied on top
// through the same key checks as the command line.
FlareConfig entry_config(const Config& cfg, const std::string& entry, size_t index) {
  Config c = cfg;
  std::istringstream words(entry);
  std::string word;
  std::set<std::string> seen;
  const std::string where = "flare.allreduces entry " + std::to_string(index + 1);
  while (words >> word) {
    const size_t eq = word.find('=');
    if (eq == std::string::npos || eq == 0) throw InputError(where + ": '" + word + "' is not key=value");
    std::string key = word.substr(0, eq);
    if (!seen.insert(key).second) throw InputError(where + ": '" + key + "' given twice");
    if (key == "id") key = "allreduce_id";
    const ConfigKey* k = find_config_key("flare." + key);
    if (!k || key == "allreduces" || key == "trees")
      throw InputError(where + ": unknown key '" + word.substr(0, eq) +
                       "' (id, ports, algorithm, multi_buffers, bytes, reproducible, parent, rank, max_payload, buffers)");
    try {
      k->set(c, word.substr(eq + 1));
    } catch (const InputError& e) {
      throw InputError(where + ": " + e.what());
    }
  }
  if (!seen.count("id") || !seen.count("ports")) throw InputError(where + ": needs id= and ports=");
  return flare_config(c);
}

// Flare 6.4: tree when sums must be reproducible or the data is small, more buffers as it
// shrinks, one buffer for large data (or when its size is not known).
FlareAllreduce resolve(const Config& cfg, const FlareConfig& f, const std::string& where) {
  FlareAllreduce a;
  a.id = f.allreduce_id;
  a.ports = parse_port_list(where + "ports", f.ports);
  if (a.ports.empty() || a.ports.size() > FLARE_DENSE_MAX_CHILDREN)
    throw InputError("bad value '" + f.ports + "' for '" + where + "ports': 1 to " +
                     std::to_string(FLARE_DENSE_MAX_CHILDREN) + " children");
  for (unsigned p : a.ports)
    if (p >= cfg.ports.count)
      throw InputError("bad value '" + f.ports + "' for '" + where + "ports': port " + std::to_string(p) +
                       " does not exist (ports.count = " + std::to_string(cfg.ports.count) + ")");
  std::string algo = f.algorithm;
  if (algo == "auto") {
    if (f.reproducible || (f.bytes != 0 && f.bytes <= 128 * kKiB))
      algo = "tree";
    else if (f.bytes != 0 && f.bytes <= 512 * kKiB)
      algo = "multi";
    else
      algo = "single";
  }
  a.algorithm = algo;
  if (algo == "multi") {
    a.buffers_per_block = f.multi_buffers ? f.multi_buffers : (f.bytes > 256 * kKiB ? 4 : 2);
    if (a.buffers_per_block < 2 || a.buffers_per_block > FLARE_MAX_BUFFERS)
      throw InputError("bad value '" + std::to_string(a.buffers_per_block) + "' for '" + where +
                       "multi_buffers': 2 to " + std::to_string(FLARE_MAX_BUFFERS) + " buffers per block");
  } else if (algo == "tree") {
    a.buffers_per_block = unsigned(a.ports.size());
  }
  if (f.parent != "none") {
    uint64_t p = 0;
    if (!parse_decimal(trim(f.parent), 0xFFFF, &p) || p >= cfg.ports.count)
      throw InputError("bad value '" + f.parent + "' for '" + where + "parent': expected none or a port below " +
                       std::to_string(cfg.ports.count));
    for (unsigned c : a.ports)
      if (c == p) throw InputError("bad value '" + f.parent + "' for '" + where + "parent': port " + f.parent + " is a child");
    a.parent = uint32_t(p);
  }
  a.rank_at_parent = f.rank;
  a.max_payload = f.max_payload;
  a.states_per_cluster = f.buffers;
  const uint32_t algo_code = algo == "multi" ? FLARE_ALGO_MULTI : algo == "tree" ? FLARE_ALGO_TREE : FLARE_ALGO_SINGLE;
  a.state_bytes = flare_block_state_bytes(algo_code, a.buffers_per_block, uint32_t(a.ports.size()), a.max_payload);
  return a;
}

// The allreduces of the configuration, checked, with their algorithms chosen (not laid out).
std::vector<FlareAllreduce> resolve_all(const Config& cfg) {
  std::vector<FlareAllreduce> all;
  if (trim(flare_config(cfg).allreduces) == kFlareNoAllreduces) return all;
  std::vector<std::string> entries;
  std::istringstream list(flare_config(cfg).allreduces);
  for (std::string e; std::getline(list, e, ';');)
    if (!trim(e).empty()) entries.push_back(trim(e));
  if (entries.empty()) {
    all.push_back(resolve(cfg, flare_config(cfg), "flare."));
  } else {
    for (size_t i = 0; i < entries.size(); ++i) {
      const std::string where = "flare.allreduces entry " + std::to_string(i + 1) + ": ";
      all.push_back(resolve(cfg, entry_config(cfg, entries[i], i), where));
    }
  }
  if (all.size() > FLARE_MAX_ALLREDUCES)
    throw InputError("'flare.allreduces' lists " + std::to_string(all.size()) + " allreduces; at most " +
                     std::to_string(FLARE_MAX_ALLREDUCES));
  std::set<uint32_t> ids;
  for (const FlareAllreduce& a : all)
    if (!ids.insert(a.id).second) throw InputError("'flare.allreduces': allreduce id " + std::to_string(a.id) + " twice");
  return all;
}

void check_table_fits(uint64_t l2_bytes) {
  if (l2_bytes < sizeof(flare_dense_config_t))
    throw InputError("'pspin.l2_handler_bytes' is too small for the flare_dense configuration (" +
                     std::to_string(sizeof(flare_dense_config_t)) + " bytes)");
}

}  // namespace

std::vector<FlareAllreduce> flare_allreduces(const Config& cfg, uint32_t l1_state_bytes) {
  std::vector<FlareAllreduce> all = resolve_all(cfg);

  // Memory partitioning: the allreduce table first, then explicit shares, then the rest of the
  // L1 state area split equally.
  uint64_t fixed = FLARE_TABLE_L1_BYTES;
  size_t sharing = 0;
  for (const FlareAllreduce& a : all) {
    if (a.states_per_cluster)
      fixed += uint64_t(a.states_per_cluster) * a.state_bytes;
    else
      ++sharing;
  }
  if (fixed > l1_state_bytes)
    throw InputError("the allreduces' flare.buffers need " + std::to_string(fixed) + " bytes of L1 per cluster (" +
                     std::to_string(FLARE_TABLE_L1_BYTES) + " of them the allreduce table); the L1 state area has " +
                     std::to_string(l1_state_bytes));
  uint32_t offset = FLARE_TABLE_L1_BYTES;
  for (FlareAllreduce& a : all) {
    if (!a.states_per_cluster) {
      a.states_per_cluster = unsigned((l1_state_bytes - fixed) / sharing / a.state_bytes);
      if (!a.states_per_cluster)
        throw InputError("allreduce " + std::to_string(a.id) + ": a block state of " + std::to_string(a.state_bytes) +
                         " bytes does not fit in its share of the " + std::to_string(l1_state_bytes) +
                         "-byte L1 state area");
    }
    a.l1_offset = offset;
    offset += a.states_per_cluster * a.state_bytes;
  }
  return all;
}

MemoryNeed FlareDenseControl::memory_need(const Config& cfg, uint64_t l1_available, uint64_t l2_available) const {
  check_table_fits(l2_available);
  MemoryNeed need;
  need.l2_bytes = sizeof(flare_dense_config_t);
  const std::vector<FlareAllreduce> all = resolve_all(cfg);
  for (const FlareAllreduce& a : all)
    if (!a.states_per_cluster) return need;  // it fills the L1 share it gets
  // Every allreduce names its block states: exactly what they take (laid out once here so that
  // too many states are reported in the allreduces' own terms), after the table.
  flare_allreduces(cfg, uint32_t(std::min<uint64_t>(l1_available, 0xFFFFFFFFu)));
  need.l1_bytes = FLARE_TABLE_L1_BYTES;
  for (const FlareAllreduce& a : all) need.l1_bytes += uint64_t(a.states_per_cluster) * a.state_bytes;
  return need;
}

void FlareDenseControl::install(const Config& cfg, const InstallTarget& t) const {
  check_table_fits(t.handler_mem_size);
  const std::vector<FlareAllreduce> all = flare_allreduces(cfg, t.l1_state_bytes);
  flare_dense_config_t c;
  std::memset(&c, 0, sizeof(c));
  c.table.magic = FLARE_DENSE_MAGIC;
  c.table.n_allreduces = uint32_t(all.size());
  c.table.by_clusters = fs_divisor_make(t.clusters);
  for (size_t i = 0; i < all.size(); ++i) {
    const FlareAllreduce& a = all[i];
    flare_allreduce_config_t& o = c.table.allreduces[i];
    o.allreduce_id = a.id;
    o.algorithm = a.algorithm == "multi" ? FLARE_ALGO_MULTI : a.algorithm == "tree" ? FLARE_ALGO_TREE : FLARE_ALGO_SINGLE;
    o.buffers = a.buffers_per_block;
    o.n_children = uint32_t(a.ports.size());
    o.parent_port = a.parent;
    o.rank_at_parent = a.rank_at_parent;
    o.slot_payload = a.max_payload;
    o.state_bytes = a.state_bytes;
    o.l1_offset = a.l1_offset;
    o.states_per_cluster = a.states_per_cluster;
    o.by_states = fs_divisor_make(a.states_per_cluster);
    o.by_buffers = fs_divisor_make(a.buffers_per_block);
    for (size_t r = 0; r < a.ports.size(); ++r) c.ports[i][r] = a.ports[r];
  }
  std::memcpy(t.handler_mem, &c, sizeof(c));
  for (uint8_t* l1 : t.l1_state) std::memcpy(l1, &c.table, sizeof(c.table));
}

}  // namespace fs
