// The flare_sparse configuration section and the block span (see sparse_config.h).
#include "protocols/flare_sparse/sparse_config.h"

#include <cmath>

#include "common/errors.h"
#include "config/config_keys.h"
#include "flare/flare_proto.h"
#include "flare/flare_sparse.h"
#include "protocols/flare_dense/flare_frame.h"

namespace fs {

#define SPARSE(field) FS_SECTION_FIELD(FlareSparseConfig, kFlareSparseSection, field)

std::vector<ConfigKey> sparse_config_keys() {
  constexpr uint64_t kMaxU32 = 0xFFFFFFFFull;
  std::vector<ConfigKey> s;
  s.push_back(uint_key("flare_sparse.allreduce_id", "id of the sparse allreduce (in its packets' headers)", 0, kMaxU32,
                       SPARSE(allreduce_id)));
  s.push_back(string_key("flare_sparse.ports", "ports of the sparse allreduce's children (hosts or switches), in rank order (e.g. 0-15); empty = the switch takes part in no sparse allreduce (the flare_sparse handler set then takes no memory)",
                         {}, SPARSE(ports), [](const std::string& k, const std::string& v) {
                           if (!trim(v).empty()) parse_port_list(k, v);
                         }));
  s.push_back(string_key("flare_sparse.algorithm", "aggregation: single (one storage per block, each packet folded under the block's lock) or tree (a storage per child, folded up a fixed binary tree as children complete)",
                         {"single", "tree"}, SPARSE(algorithm)));
  s.push_back(string_key("flare_sparse.storage", "how a block's partial aggregate is kept: auto (hash below the root of the reduction tree, array at the root: Flare 7), hash (a hash table with a spill buffer), array (the block's whole span)",
                         {"auto", "hash", "array"}, SPARSE(storage)));
  s.push_back(uint_key("flare_sparse.hash_slots", "slots of a block's hash table (a power of two); 0 = the smallest power of two holding every child's packet of pairs", 0, 1u << 20,
                       SPARSE(hash_slots)));
  s.push_back(string_key("flare_sparse.parent", "port towards the parent switch, or none at the root of the reduction tree", {},
                         SPARSE(parent)));
  s.push_back(uint_key("flare_sparse.rank", "this switch's rank among its parent's children", 0, 65534, SPARSE(rank)));
  s.push_back(uint_key("flare_sparse.max_payload", "pair bytes of a packet the switch sends (its spill buffer; results)", 8, 8192,
                       SPARSE(max_payload)));
  s.push_back(uint_key("flare_sparse.buffers", "block states per cluster for the allreduce; 0 = share the L1 state area equally among the allreduces", 0, kMaxU32,
                       SPARSE(buffers)));
  s.push_back(string_key("flare_sparse.allreduces", "several sparse allreduces: ';'-separated entries of key=value words (id, ports, algorithm, storage, hash_slots, parent, rank, max_payload, buffers, span); unset keys take the flare_sparse.* values; empty = the one allreduce flare_sparse.* describes",
                         {}, SPARSE(allreduces)));
  s.push_back(uint_key("flare_sparse.trees", "network runs (hosts.model = sparse_allreduce): static reduction trees, ids flare_sparse.allreduce_id and up, roots drawn from sim.seed; block b goes to tree b mod flare_sparse.trees", 1, FLARE_SPARSE_MAX_ALLREDUCES,
                       SPARSE(trees)));
  s.push_back(uint_key("flare_sparse.span", "elements per block (indices 0 .. span-1); 0 = the hosts' pairs per packet (hosts.elem_bytes) / flare_sparse.density, so that a block's non-zeros fill one packet on average (Flare 7)", 0, kMaxU32,
                       SPARSE(span)));
  s.push_back(double_key("flare_sparse.density", "sparse workload: share of each host's elements that are non-zero", 1e-6, 1,
                         SPARSE(density)));
  s.push_back(string_key("flare_sparse.distribution", "sparse workload: where the non-zeros are: uniform (positions drawn uniformly), clustered (runs of flare_sparse.run_length elements), topk (the largest magnitudes of a heavy-tailed vector whose scale varies along it)",
                         {"uniform", "clustered", "topk"}, SPARSE(distribution)));
  s.push_back(uint_key("flare_sparse.run_length", "sparse workload, clustered: elements per run of non-zeros", 1, 1u << 20,
                       SPARSE(run_length)));
  s.push_back(double_key("flare_sparse.overlap", "sparse workload: share of each host's non-zero positions drawn from one pool that all hosts share (0: independent, 1: identical positions)", 0, 1,
                         SPARSE(overlap)));
  return s;
}

#undef SPARSE

uint32_t sparse_pairs_per_packet(uint32_t payload_bytes, uint8_t dtype) {
  const uint32_t b = flare_pair_bytes(dtype);
  return b ? payload_bytes / b : 0;
}

uint32_t sparse_span(const Config& cfg) {
  const FlareSparseConfig& s = sparse_config(cfg);
  if (s.span) return s.span;
  uint8_t dtype = 0;
  flare_dtype_from_name(cfg.hosts.dtype, &dtype);
  const uint32_t pairs = sparse_pairs_per_packet(cfg.hosts.elem_bytes, dtype);
  const double span = std::floor(double(std::max<uint32_t>(pairs, 1)) / s.density);
  if (span > 4294967295.0)
    throw InputError("flare_sparse.span: " + std::to_string(pairs) + " pairs per packet / density " +
                     std::to_string(s.density) + " is more than 2^32-1 elements per block; set flare_sparse.span");
  return std::max<uint32_t>(1, uint32_t(span));
}

}  // namespace fs
