// Test support for Flare sparse: sparse vectors cut into blocks and packets as a host sends them,
// the dense reduction they must give (an implementation of the operators of its own, independent
// of the handler's), and what a host makes of the result packets it receives. Used by the
// host-harness tests (tb/blocks) and the ISS tests on whole switches (tb/topology).
#pragma once
#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "config/config.h"
#include "flare/flare_sparse.h"
#include "common/float_bits.h"
#include "protocols/flare_sparse/sparse_config.h"
#include "protocols/flare_sparse/sparse_frame.h"

namespace fs_tb {
namespace sparse {

using Vec = std::map<uint32_t, uint32_t>;  // index -> value bits (a block of one host, non-zeros only)

inline float f32(uint32_t b) { return fs::float_of_bits(b); }
inline uint32_t bits(float f) { return fs::bits_of_float(f); }
inline int64_t sval(uint32_t b, uint8_t dtype) {  // the signed value of an integer dtype's bits
  if (dtype == FLARE_INT16) return int16_t(uint16_t(b));
  if (dtype == FLARE_INT8) return int8_t(uint8_t(b));
  return int32_t(b);
}

// The reference operator on two present values (bits of the dtype, zero-extended).
inline uint32_t combine(uint8_t op, uint8_t dtype, uint32_t a, uint32_t b) {
  const uint32_t mask = dtype == FLARE_INT16 ? 0xFFFFu : dtype == FLARE_INT8 ? 0xFFu : 0xFFFFFFFFu;
  if (dtype == FLARE_FLOAT32) {
    const float x = f32(a), y = f32(b);
    if (op == FLARE_OP_SUM) return bits(x + y);
    return (op == FLARE_OP_MIN ? y < x : y > x) ? b : a;
  }
  if (op == FLARE_OP_SUM) return (a + b) & mask;
  const int64_t x = sval(a, dtype), y = sval(b, dtype);
  return (op == FLARE_OP_MIN ? y < x : y > x) ? b : a;
}

// acc op= v over the present indices (absent = not taking part; for sums, absent = 0).
inline void merge(Vec& acc, const Vec& v, uint8_t op, uint8_t dtype) {
  for (const auto& [i, b] : v) {
    auto it = acc.find(i);
    if (it == acc.end())
      acc.emplace(i, b);
    else
      it->second = combine(op, dtype, it->second, b);
  }
}

// For comparing: sums that came out as zero are absent.
inline Vec without_zeros(Vec v) {
  for (auto it = v.begin(); it != v.end();) it = it->second == 0 ? v.erase(it) : std::next(it);
  return v;
}

struct Params {
  std::string storage = "hash", algorithm = "single";
  uint8_t dtype = FLARE_INT32, op = FLARE_OP_SUM;
  unsigned hosts = 3;
  double density = 0.1;
  unsigned pairs = 16;       // pairs per host packet
  unsigned blocks = 6;
  uint32_t hash_slots = 0;   // 0: the default
  double dup = 0.1;          // share of packets sent twice
  bool exact_floats = true;  // float values that add exactly in any order
  uint64_t seed = 1;
};

struct Workload {
  uint32_t span = 0;
  std::vector<std::vector<Vec>> v;  // [host][block]
};

inline uint32_t random_value(std::mt19937_64& rng, const Params& p) {
  for (;;) {
    uint32_t b;
    if (p.dtype == FLARE_FLOAT32)
      b = p.exact_floats ? bits(float(int(rng() % 1023) - 511) / 4.0f)
                         : bits(float(int64_t(rng() % (1u << 24)) - (1 << 23)) / 8388608.0f);
    else
      b = uint32_t(rng()) & (p.dtype == FLARE_INT16 ? 0xFFFFu : p.dtype == FLARE_INT8 ? 0xFFu : 0xFFFFFFFFu);
    if (b != 0 && b != 0x80000000u) return b;  // never a zero (nor a float -0)
  }
}

inline Workload make_workload(const Params& p) {
  std::mt19937_64 rng(p.seed);
  Workload w;
  w.span = std::max<uint32_t>(1, uint32_t(double(p.pairs) / p.density));
  w.v.assign(p.hosts, std::vector<Vec>(p.blocks));
  for (unsigned h = 0; h < p.hosts; ++h)
    for (unsigned b = 0; b < p.blocks; ++b) {
      // About `pairs` non-zeros, sometimes twice as many (a block split over packets), sometimes none.
      const unsigned roll = unsigned(rng() % 8);
      unsigned n = roll == 0 ? 0 : roll == 1 ? 2 * p.pairs + unsigned(rng() % 5) : p.pairs / 2 + unsigned(rng() % (p.pairs + 1));
      n = std::min<unsigned>(n, w.span);
      while (w.v[h][b].size() < n) w.v[h][b].emplace(uint32_t(rng() % w.span), random_value(rng, p));
    }
  return w;
}

// A host's packets for one block, as flare_proto.h says a host sends them.
inline std::vector<fs::Bytes> host_packets(const Params& p, unsigned host, uint32_t block, const Vec& v) {
  std::vector<fs::SparsePair> all;
  for (const auto& [i, b] : v) all.push_back({i, b});
  const size_t n = std::max<size_t>(1, (all.size() + p.pairs - 1) / p.pairs);
  std::vector<fs::Bytes> out;
  for (size_t k = 0; k < n; ++k) {
    flare_sparse_header_t h{};
    h.version = FLARE_VERSION;
    h.kind = FLARE_KIND_CONTRIB;
    h.flags = k + 1 == n ? FLARE_FLAG_LAST : 0;
    h.dtype = p.dtype;
    h.op = p.op;
    h.allreduce_id = 7;
    h.block_id = block;
    h.sender_rank = uint16_t(host);
    h.shard = uint16_t(k);
    h.shards = k + 1 == n ? uint16_t(n) : 0;
    const size_t from = k * p.pairs, to = std::min(all.size(), from + p.pairs);
    out.push_back(fs::build_sparse_packet(h, uint16_t(host), {all.begin() + long(from), all.begin() + long(to)}));
  }
  return out;
}

inline fs::Config switch_config(const Params& p, uint32_t span, const std::string& ports) {
  fs::Config cfg;
  cfg.pspin.clusters = 2;
  cfg.ports.count = 20;
  fs::FlareSparseConfig& s = fs::sparse_config(cfg);
  s.allreduce_id = 7;
  s.ports = ports;
  s.storage = p.storage;
  s.algorithm = p.algorithm;
  s.hash_slots = p.hash_slots;
  s.span = span;
  s.max_payload = p.pairs * flare_pair_bytes(p.dtype);
  const char* names[] = {"int32", "int16", "int8", "float32"};
  cfg.hosts.dtype = names[p.dtype];
  cfg.hosts.elem_bytes = p.pairs * flare_pair_bytes(p.dtype);
  return cfg;
}

// What a port received for each block: packets by number, and the merged pairs.
struct Received {
  std::map<uint32_t, std::map<uint16_t, fs::SparsePacket>> by_block;  // block -> shard -> packet
  std::vector<std::string> problems;

  void take(const fs::Bytes& frame) {
    fs::SparsePacket pkt;
    std::string why;
    if (!fs::parse_sparse_packet(frame.data(), frame.size(), &pkt, &why)) {
      problems.push_back("unreadable result: " + why);
      return;
    }
    if (!by_block[pkt.h.block_id].emplace(pkt.h.shard, pkt).second)
      problems.push_back("block " + std::to_string(pkt.h.block_id) + " shard " + std::to_string(pkt.h.shard) + " twice");
  }
  // The merged block, after checking that its packets are numbered 0 .. shards-1 and the last one
  // (only) is flagged with that count.
  Vec block(uint32_t b, uint8_t op, uint8_t dtype, std::string* problem) const {
    Vec acc;
    const auto it = by_block.find(b);
    if (it == by_block.end()) {
      *problem = "no result for block " + std::to_string(b);
      return acc;
    }
    const auto& pkts = it->second;
    const uint16_t n = uint16_t(pkts.size());
    for (const auto& [shard, pkt] : pkts) {
      const bool last = (pkt.h.flags & FLARE_FLAG_LAST) != 0;
      if (shard >= n || last != (shard + 1 == n) || (last && pkt.h.shards != n))
        *problem = "block " + std::to_string(b) + ": shard " + std::to_string(shard) + " of " + std::to_string(n) +
                   (last ? " flagged last with " + std::to_string(pkt.h.shards) : " not flagged last");
      if (pkt.h.kind != FLARE_KIND_RESULT || pkt.h.sender_rank != FLARE_RANK_SWITCH || pkt.h.dtype != dtype ||
          pkt.h.op != op || pkt.h.allreduce_id != 7)
        *problem = "block " + std::to_string(b) + ": a result header is wrong";
      // Pair by pair: a spill packet may hold an index twice (two colliding contributions).
      for (const fs::SparsePair& e : pkt.pairs) merge(acc, Vec{{e.index, e.bits}}, op, dtype);
    }
    return acc;
  }
};

// The reference of one block: host 0 op host 1 op ... (sums: any order, the test's floats add exactly).
inline Vec reference(const Workload& w, uint32_t b, const Params& p) {
  Vec acc;
  for (unsigned h = 0; h < p.hosts; ++h) merge(acc, w.v[h][b], p.op, p.dtype);
  return acc;
}

// The tree's order: node (l, j) = left op right over ranks, as the handler folds them.
inline Vec tree_reference(const Workload& w, uint32_t b, const Params& p) {
  std::vector<Vec> node;
  for (unsigned h = 0; h < p.hosts; ++h) node.push_back(w.v[h][b]);
  for (unsigned width = 1; width < p.hosts; width *= 2)
    for (unsigned left = 0; left + width < p.hosts; left += 2 * width) merge(node[left], node[left + width], p.op, p.dtype);
  return node[0];
}

}  // namespace sparse
}  // namespace fs_tb
