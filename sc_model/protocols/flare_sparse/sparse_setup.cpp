// Sparse allreduce setup (see sparse_setup.h).
#include "protocols/flare_sparse/sparse_setup.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <set>
#include <sstream>

#include "common/errors.h"
#include "common/text.h"
#include "protocols/flare_sparse/sparse_config.h"

namespace fs {
namespace {

// One allreduce's keys: the flare_sparse.* values with an entry's key=value words applied on top.
Config entry_config(const Config& cfg, const std::string& entry, size_t index) {
  Config c = cfg;
  std::istringstream words(entry);
  std::string word;
  std::set<std::string> seen;
  const std::string where = "flare_sparse.allreduces entry " + std::to_string(index + 1);
  static const std::set<std::string> keys = {"id", "ports", "algorithm", "storage", "hash_slots", "parent",
                                             "rank", "max_payload", "buffers", "span"};
  while (words >> word) {
    const size_t eq = word.find('=');
    if (eq == std::string::npos || eq == 0) throw InputError(where + ": '" + word + "' is not key=value");
    const std::string key = word.substr(0, eq);
    if (!seen.insert(key).second) throw InputError(where + ": '" + key + "' given twice");
    if (!keys.count(key))
      throw InputError(where + ": unknown key '" + key +
                       "' (id, ports, algorithm, storage, hash_slots, parent, rank, max_payload, buffers, span)");
    try {
      find_config_key("flare_sparse." + (key == "id" ? std::string("allreduce_id") : key))->set(c, word.substr(eq + 1));
    } catch (const InputError& e) {
      throw InputError(where + ": " + e.what());
    }
  }
  if (!seen.count("id") || !seen.count("ports")) throw InputError(where + ": needs id= and ports=");
  return c;
}

uint32_t next_pow2(uint64_t v) {
  uint32_t p = 1;
  while (p < v && p < (1u << 30)) p <<= 1;
  return p;
}

SparseAllreduce resolve(const Config& cfg, const std::string& where) {
  const FlareSparseConfig& f = sparse_config(cfg);
  SparseAllreduce a;
  flare_sparse_allreduce_t& t = a.table;
  t.allreduce_id = f.allreduce_id;
  a.ports = parse_port_list(where + "ports", f.ports);
  if (a.ports.empty() || a.ports.size() > FLARE_SPARSE_MAX_CHILDREN)
    throw InputError("bad value '" + f.ports + "' for '" + where + "ports': 1 to " +
                     std::to_string(FLARE_SPARSE_MAX_CHILDREN) + " children");
  for (unsigned p : a.ports)
    if (p >= cfg.ports.count)
      throw InputError("bad value '" + f.ports + "' for '" + where + "ports': port " + std::to_string(p) +
                       " does not exist (ports.count = " + std::to_string(cfg.ports.count) + ")");
  t.n_children = uint32_t(a.ports.size());
  t.parent_port = FLARE_SPARSE_NO_PARENT;
  if (f.parent != "none") {
    uint64_t p = 0;
    if (!parse_decimal(trim(f.parent), 0xFFFF, &p) || p >= cfg.ports.count)
      throw InputError("bad value '" + f.parent + "' for '" + where + "parent': expected none or a port below " +
                       std::to_string(cfg.ports.count));
    if (std::find(a.ports.begin(), a.ports.end(), unsigned(p)) != a.ports.end())
      throw InputError("bad value '" + f.parent + "' for '" + where + "parent': port " + f.parent + " is a child");
    t.parent_port = uint32_t(p);
  }
  t.rank_at_parent = f.rank;
  a.algorithm = f.algorithm;
  t.algorithm = f.algorithm == "tree" ? FLARE_SPARSE_TREE : FLARE_SPARSE_SINGLE;
  a.storage = f.storage == "auto" ? (t.parent_port == FLARE_SPARSE_NO_PARENT ? "array" : "hash") : f.storage;
  t.storage = a.storage == "hash" ? FLARE_STORE_HASH : FLARE_STORE_ARRAY;
  t.span = sparse_span(cfg);
  t.max_payload = f.max_payload;
  // By default a table has a slot for every pair of one packet from each child (the pairs of the
  // workload's dtype), rounded up to a power of two.
  uint8_t dtype = 0;
  const char* names[] = {"int32", "int16", "int8", "float32"};
  for (uint8_t d = 0; d < 4; ++d)
    if (cfg.hosts.dtype == names[d]) dtype = d;
  const uint64_t pairs = std::max<uint32_t>(1, f.max_payload / flare_pair_bytes(dtype));
  t.hash_slots = f.hash_slots ? f.hash_slots : next_pow2(pairs * t.n_children);
  if (t.hash_slots < 2 || (t.hash_slots & (t.hash_slots - 1)))
    throw InputError("bad value '" + std::to_string(f.hash_slots) + "' for '" + where +
                     "hash_slots': a power of two from 2 (or 0)");
  t.hash_shift = 32;
  for (uint32_t s = t.hash_slots; s > 1; s >>= 1) --t.hash_shift;
  if (t.storage == FLARE_STORE_ARRAY && uint64_t(t.span) * 4 > 0xFFFFFFFull)
    throw InputError(where + "span: an array of " + std::to_string(t.span) + " elements does not fit in L1");
  flare_sparse_layout(&t);
  t.states_per_cluster = f.buffers;
  return a;
}

std::vector<SparseAllreduce> resolve_all(const Config& cfg) {
  std::vector<SparseAllreduce> all;
  std::vector<std::string> entries;
  std::istringstream list(sparse_config(cfg).allreduces);
  for (std::string e; std::getline(list, e, ';');)
    if (!trim(e).empty()) entries.push_back(trim(e));
  if (entries.empty()) {
    if (!trim(sparse_config(cfg).ports).empty()) all.push_back(resolve(cfg, "flare_sparse."));
  } else {
    for (size_t i = 0; i < entries.size(); ++i)
      all.push_back(resolve(entry_config(cfg, entries[i], i),
                            "flare_sparse.allreduces entry " + std::to_string(i + 1) + ": "));
  }
  if (all.size() > FLARE_SPARSE_MAX_ALLREDUCES)
    throw InputError("'flare_sparse.allreduces' lists " + std::to_string(all.size()) + " allreduces; at most " +
                     std::to_string(FLARE_SPARSE_MAX_ALLREDUCES));
  std::set<uint32_t> ids;
  for (const SparseAllreduce& a : all)
    if (!ids.insert(a.table.allreduce_id).second)
      throw InputError("'flare_sparse.allreduces': allreduce id " + std::to_string(a.table.allreduce_id) + " twice");
  return all;
}

}  // namespace

std::vector<SparseAllreduce> sparse_allreduces(const Config& cfg, uint32_t l1_state_bytes) {
  std::vector<SparseAllreduce> all = resolve_all(cfg);
  uint64_t fixed = FLARE_SPARSE_TABLE_L1_BYTES;
  size_t sharing = 0;
  for (const SparseAllreduce& a : all) {
    if (a.table.states_per_cluster)
      fixed += uint64_t(a.table.states_per_cluster) * a.table.state_bytes;
    else
      ++sharing;
  }
  if (fixed > l1_state_bytes)
    throw InputError("the sparse allreduces' flare_sparse.buffers need " + std::to_string(fixed) +
                     " bytes of L1 per cluster (" + std::to_string(FLARE_SPARSE_TABLE_L1_BYTES) +
                     " of them the allreduce table); the L1 state area has " + std::to_string(l1_state_bytes));
  uint32_t offset = FLARE_SPARSE_TABLE_L1_BYTES;
  for (SparseAllreduce& a : all) {
    flare_sparse_allreduce_t& t = a.table;
    if (!t.states_per_cluster) {
      t.states_per_cluster = uint32_t((l1_state_bytes - fixed) / sharing / t.state_bytes);
      if (!t.states_per_cluster)
        throw InputError("sparse allreduce " + std::to_string(t.allreduce_id) + ": a block state of " +
                         std::to_string(t.state_bytes) + " bytes (" + a.storage + " storage of " +
                         std::to_string(t.storage_bytes) + " bytes" +
                         (t.algorithm == FLARE_SPARSE_TREE ? " per child" : "") + ") does not fit in its share of the " +
                         std::to_string(l1_state_bytes) + "-byte L1 state area");
    }
    t.l1_offset = offset;
    t.by_states = fs_divisor_make(t.states_per_cluster);
    offset += t.states_per_cluster * t.state_bytes;
  }
  return all;
}

MemoryNeed FlareSparseControl::memory_need(const Config& cfg, uint64_t l1_available, uint64_t l2_available) const {
  const std::vector<SparseAllreduce> all = resolve_all(cfg);
  MemoryNeed need;
  if (all.empty()) {
    need.none = true;  // no sparse allreduce here: the set takes nothing from the others
    return need;
  }
  if (l2_available < sizeof(flare_sparse_config_t))
    throw InputError("'pspin.l2_handler_bytes' is too small for the flare_sparse configuration (" +
                     std::to_string(sizeof(flare_sparse_config_t)) + " bytes)");
  need.l2_bytes = sizeof(flare_sparse_config_t);
  for (const SparseAllreduce& a : all)
    if (!a.table.states_per_cluster) return need;  // it fills the L1 share it gets
  sparse_allreduces(cfg, uint32_t(std::min<uint64_t>(l1_available, 0xFFFFFFFFu)));
  need.l1_bytes = FLARE_SPARSE_TABLE_L1_BYTES;
  for (const SparseAllreduce& a : all) need.l1_bytes += uint64_t(a.table.states_per_cluster) * a.table.state_bytes;
  return need;
}

void FlareSparseControl::install(const Config& cfg, const InstallTarget& t) const {
  const std::vector<SparseAllreduce> all = sparse_allreduces(cfg, t.l1_state_bytes);
  auto c = std::make_unique<flare_sparse_config_t>();
  std::memset(c.get(), 0, sizeof(*c));
  c->table.magic = FLARE_SPARSE_MAGIC;
  c->table.n_allreduces = uint32_t(all.size());
  c->table.by_clusters = fs_divisor_make(t.clusters);
  for (size_t i = 0; i < all.size(); ++i) {
    c->table.allreduces[i] = all[i].table;
    for (size_t r = 0; r < all[i].ports.size(); ++r) c->ports[i][r] = all[i].ports[r];
  }
  std::memcpy(t.handler_mem, c.get(), sizeof(*c));
  for (uint8_t* l1 : t.l1_state) std::memcpy(l1, &c->table, sizeof(c->table));
}

}  // namespace fs
