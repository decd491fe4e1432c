// The sparse allreduce workload (Flare section 7) that `flaresim gen flare-sparse` and the
// closed-loop sparse hosts send: each host's sparse vector (which elements are non-zero, by the
// flare_sparse.* distribution, density and overlap, and their values), cut into blocks of
// sparse_span() elements, each block's contribution packets, and the reference result of every
// block. Deterministic from the seed; traces/FORMAT.md ("Generated sparse workloads") documents
// every draw.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "config/config.h"
#include "net/packet.h"
#include "protocols/flare_sparse/sparse_frame.h"

namespace fs {

struct SparseWorkloadOptions {
  unsigned hosts = 0;                    // host of rank r sends with rank r
  uint64_t bytes = 0;                    // dense bytes of each host's vector (elements x dtype size)
  uint32_t elem_bytes = 1024;            // pair bytes a contribution packet carries at most
  std::string dtype = "int32";           // int32 int16 int8 float32
  std::string op = "sum";                // sum min max
  uint64_t seed = 1;
  uint32_t allreduce_id = 0;
  uint32_t span = 0;                     // elements per block (sparse_span(); must be set)
  double density = 0.01;                 // non-zero elements / elements, per host
  std::string distribution = "uniform";  // uniform, clustered or topk
  unsigned run_length = 16;              // clustered: elements per run
  double overlap = 0;                    // share of each host's non-zeros at positions common to all hosts
  // How the user gave each field (e.g. "elem_bytes" -> "hosts.elem_bytes" or "--elem-bytes"), so
  // that an error names what to change; a field not listed is named as itself.
  std::map<std::string, std::string> names;
};

// The options the configuration gives `hosts` hosts (hosts.*, sim.seed, flare_sparse.*, the span
// from sparse_span()), every field named by its key.
SparseWorkloadOptions sparse_workload_options(const Config& cfg, unsigned hosts);

// One block as a host sends it, or as the reference has it: (index within the block, value bits)
// pairs, indices ascending and distinct, no zero value.
using SparsePairs = std::vector<SparsePair>;

// The reduced block every host must end up with.
struct SparseExpectedBlock {
  uint32_t allreduce_id = 0, block_id = 0;
  uint8_t dtype = 0, op = 0;
  uint32_t length = 0;  // elements in the block: the span, less for a short last block
  SparsePairs pairs;    // the op over all hosts, zero results left out
};

struct SparseWorkload {
  uint8_t dtype = 0, op = 0;
  uint32_t allreduce_id = 0;
  uint64_t elements = 0;          // per host
  uint32_t span = 0;
  uint32_t pairs_per_packet = 0;  // P = elem_bytes / pair bytes
  uint64_t nonzeros = 0;          // per host: round(density x elements)
  std::vector<uint64_t> pool;     // the positions common to all hosts (round(overlap x nonzeros)), ascending
  std::vector<std::vector<SparsePairs>> hosts;  // [rank][block]: what the host holds of the block
  std::vector<SparseExpectedBlock> reference;   // by block id
  uint64_t blocks() const { return reference.size(); }
};

// Throws InputError naming the option (SparseWorkloadOptions::names) when an option is invalid,
// and naming the host, block and the keys to change when a block needs more packets than
// FLARE_SPARSE_MAX_SHARDS.
SparseWorkload make_sparse_workload(const SparseWorkloadOptions& o);

// Host `rank`'s contribution packets for `block` (at least one; an empty block is one header-only
// packet), sent from `port`: the pairs in order, pairs_per_packet at most per packet, numbered
// from shard 0, the last one flagged FLARE_FLAG_LAST with the number of packets.
std::vector<Bytes> sparse_block_frames(const SparseWorkload& w, unsigned rank, uint32_t block, uint16_t port,
                                       uint16_t udp_port = FLARE_UDP_PORT_DEFAULT);
// The same packets under another allreduce id and sender rank (a network's hosts: the block's
// tree's id, the host's rank among its switch's children in that tree).
std::vector<Bytes> sparse_block_frames_as(const SparseWorkload& w, unsigned rank, uint32_t block, uint16_t port,
                                          uint32_t allreduce_id, uint16_t sender_rank,
                                          uint16_t udp_port = FLARE_UDP_PORT_DEFAULT);
// How many packets sparse_block_frames makes for `pairs` pairs.
uint32_t sparse_packets_for(uint64_t pairs, uint32_t pairs_per_packet);

// a op b on value bits of `dtype` (zero-extended little-endian bytes, as SparsePair::bits):
// integers in the dtype's width (sums wrap, two's complement), float32 in IEEE single precision.
uint32_t sparse_fold(uint8_t dtype, uint8_t op, uint32_t a, uint32_t b);
// Value bits as text: a signed decimal for integers, for float32 the shortest decimal that reads
// back as the same float ("0.5", "-0.000123", "nan").
std::string sparse_value_text(uint8_t dtype, uint32_t bits);
// A value of `dtype` as sparse_value_text writes it (integers in the dtype's signed range, float32
// as from_chars reads it, "nan" and "inf" included) into *bits; false if it is not one.
bool parse_sparse_value(const std::string& text, uint8_t dtype, uint32_t* bits);

}  // namespace fs
