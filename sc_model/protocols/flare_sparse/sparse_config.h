// The flare_sparse protocol's configuration section ("flare_sparse"): the sparse allreduce(s) the
// switch takes part in (children, parent, algorithm, storage, block span, hash table size) and
// the sparse workload that the generator and the closed-loop hosts send (density, element
// distribution, overlap of the hosts' non-zero positions). The block span is the one number both
// sides must agree on: sparse_span() is its only definition.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "config/config.h"

namespace fs {

struct FlareSparseConfig {
  // The switch (what the network manager installs).
  uint32_t allreduce_id = 0;
  std::string ports;               // ports of the children (hosts or switches), in rank order; "" = none
  std::string algorithm = "single";  // single (one storage per block, under its lock) or tree
  std::string storage = "auto";    // auto (hash below the root, array at the root: Flare 7), hash, array
  unsigned hash_slots = 0;         // slots of a block's hash table (a power of two); 0 = by the workload
  std::string parent = "none";     // port of the parent switch, or none at the root
  unsigned rank = 0;               // this switch's rank among its parent's children
  unsigned max_payload = 1024;     // pair bytes of a packet the switch sends (spill and result packets)
  unsigned buffers = 0;            // block states per cluster; 0 = share the L1 state area
  std::string allreduces;          // several allreduces: ';'-separated key=value entries
  unsigned trees = 1;              // network runs: reduction trees the blocks go to round-robin
  // The workload (generator and hosts; the switch takes the span from it).
  uint32_t span = 0;               // elements per block; 0 = packet pairs / density (Flare 7)
  double density = 0.01;           // non-zero elements / elements of each host's vector
  std::string distribution = "uniform";  // uniform, clustered or topk
  unsigned run_length = 16;        // clustered: non-zeros come in runs of this many elements
  double overlap = 0;              // share of a host's non-zero positions drawn from one pool common to all hosts
};
constexpr const char* kFlareSparseSection = "flare_sparse";
inline FlareSparseConfig& sparse_config(Config& cfg) { return cfg.sections.get<FlareSparseConfig>(kFlareSparseSection); }
inline const FlareSparseConfig& sparse_config(const Config& cfg) {
  return cfg.sections.get<FlareSparseConfig>(kFlareSparseSection);
}
// The section's keys.
std::vector<ConfigKey> sparse_config_keys();

// Pairs of `dtype` (flare_proto.h codes) in `payload_bytes` of a packet.
uint32_t sparse_pairs_per_packet(uint32_t payload_bytes, uint8_t dtype);
// The block span: flare_sparse.span, or (0) the hosts' pairs per packet (hosts.elem_bytes and
// hosts.dtype) divided by flare_sparse.density, so that a block's non-zeros fill one packet on
// average (Flare 7); at least 1. Throws InputError when the span does not fit in 32 bits.
uint32_t sparse_span(const Config& cfg);

}  // namespace fs
