// The sparse allreduce workload (see sparse_workload.h). Every random choice is a draw of the
// project's splitmix64 streams (timing_draw in allreduce_timing.h: seed, purpose tag, host), so
// that choosing positions never changes the values and the other way round:
//
// * K = round(density x N) non-zeros per host (N elements), of which Kc = round(overlap x K) sit
//   at the pool's positions, common to all hosts, and K - Kc at positions of the host's own
//   outside the pool. The pool is chosen with the distribution from stream "pool" (host 0), a
//   host's own positions from stream "spos" of its rank, among the N - Kc positions left.
// * uniform: M distinct positions uniformly (Floyd's sampling, one draw each).
// * clustered: runs of run_length (L) consecutive positions, the last run (by position) shorter
//   when L does not divide M; the run starts are uniform over every placement that does not
//   overlap (R = ceil(M / L) distinct sorted draws s_i below A - M + R, A = positions available;
//   run i starts at s_i + the lengths of the runs before it, less one each). Runs may touch.
// * topk: a heavy-tailed vector, |v_p| = scale(p / 4096) x a Pareto variate of index 2; the M
//   largest magnitudes (ties: the lower position) are the non-zeros. In logarithms, integer
//   fixed point with 20 fractional bits (no libm, the same on every platform): ln|v_p| =
//   ln scale + E_p / 2, E_p = -ln(1 - x / 2^64) (exponential_gap) of draw p + 1 of the host's
//   stream; ln scale uniform in [0, ln 16) per segment of 4096 elements, from stream "scal"
//   (host 0): every host sees the same scales, as workers training one model see the same
//   layers. Only positions come from this vector; values are drawn as for the others.
// * Values: each host takes draws of stream "sval" of its rank in ascending position order, one
//   per non-zero, drawing again while a draw would give 0: integers take the low 8/16/32 bits as a
//   two's-complement value, float32 the top 24 bits k as (k - 2^23) / 2^23 (the dense
//   generator's values, uniform in [-1, 1), never 0).
// * The reference adds float32 values in rank order (host 0 first), as the dense generator does.
#include "protocols/flare_sparse/sparse_workload.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <queue>
#include <unordered_set>

#include "common/errors.h"
#include "common/float_bits.h"
#include "common/interrupt.h"
#include "flare/flare_sparse.h"
#include "protocols/flare_dense/allreduce_timing.h"
#include "protocols/flare_dense/flare_frame.h"
#include "protocols/flare_sparse/sparse_config.h"

namespace fs {

namespace {

__extension__ typedef unsigned __int128 u128;  // GCC/Clang 128-bit integers

// Stream tags (ASCII), xor-ed into the seed as allreduce_timing.h's.
constexpr uint64_t kPositionStream = 0x73706f73;  // "spos"
constexpr uint64_t kPoolStream = 0x706f6f6c;      // "pool"
constexpr uint64_t kScaleStream = 0x7363616c;     // "scal"
constexpr uint64_t kValueStream = 0x7376616c;     // "sval"

constexpr uint64_t kTopkSegment = 4096;           // elements of one scale
constexpr Picos kLogOne = Picos(1) << 20;         // 1.0 in the logarithms' fixed point
constexpr uint64_t kLnScaleRange = 2907271;       // round(ln 16 x 2^20)
constexpr uint64_t kMaxPairBytes = 4ull << 30;    // all hosts' pairs, as the dense generator's limit

// The draws of one stream, n = 1, 2, ...
class Draws {
 public:
  Draws(uint64_t seed, uint64_t tag, unsigned host) : seed_(seed), tag_(tag), host_(host) {}
  uint64_t next() { return timing_draw(seed_, tag_, host_, ++n_); }
  // Uniform below n (n >= 1): the high 64 bits of draw x n.
  uint64_t below(uint64_t n) { return uint64_t((u128(next()) * n) >> 64); }

 private:
  uint64_t seed_, tag_;
  unsigned host_;
  uint64_t n_ = 0;
};

// m distinct values below a (m <= a), ascending: Floyd's sampling.
std::vector<uint64_t> choose_distinct(Draws& d, uint64_t m, uint64_t a) {
  std::unordered_set<uint64_t> chosen;  // membership only: the result is sorted
  chosen.reserve(size_t(m));
  std::vector<uint64_t> out;
  out.reserve(size_t(m));
  for (uint64_t j = a - m; j < a; ++j) {
    const uint64_t t = d.below(j + 1);
    const uint64_t pick = chosen.count(t) ? j : t;
    chosen.insert(pick);
    out.push_back(pick);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The positions of ascending ranks among the positions not in `taken` (ascending).
std::vector<uint64_t> positions_of_ranks(const std::vector<uint64_t>& ranks, const std::vector<uint64_t>& taken) {
  std::vector<uint64_t> out;
  out.reserve(ranks.size());
  size_t j = 0;
  for (uint64_t r : ranks) {
    while (j < taken.size() && taken[j] <= r + j) ++j;
    out.push_back(r + j);
  }
  return out;
}

// Runs of `run` ranks (the last one shorter) covering m of a ranks, placed uniformly.
std::vector<uint64_t> clustered_ranks(Draws& d, uint64_t m, uint64_t a, uint64_t run) {
  if (!m) return {};
  const uint64_t runs = (m + run - 1) / run;
  const std::vector<uint64_t> starts = choose_distinct(d, runs, a - m + runs);
  std::vector<uint64_t> out;
  out.reserve(size_t(m));
  uint64_t shift = 0;
  for (uint64_t i = 0; i < runs; ++i) {
    const uint64_t len = i + 1 < runs ? run : m - (runs - 1) * run;
    for (uint64_t k = 0; k < len; ++k) out.push_back(starts[i] + shift + k);
    shift += len - 1;
  }
  return out;
}

// The m positions of largest magnitude of the heavy-tailed vector of stream (tag, host), the
// positions in `taken` left out.
std::vector<uint64_t> topk_positions(uint64_t seed, uint64_t tag, unsigned host, uint64_t m, uint64_t n,
                                     const std::vector<uint64_t>& taken) {
  if (!m) return {};
  struct Entry {
    uint64_t key, pos;
  };
  // a is kept before b: the larger magnitude, the lower position on ties. Ordered by it, the
  // heap's top is the weakest entry kept.
  auto stronger = [](const Entry& a, const Entry& b) { return a.key != b.key ? a.key > b.key : a.pos < b.pos; };
  std::priority_queue<Entry, std::vector<Entry>, decltype(stronger)> kept(stronger);
  uint64_t segment = ~uint64_t(0), ln_scale2 = 0;
  size_t t = 0;
  for (uint64_t p = 0; p < n; ++p) {
    if ((p & 0xFFFFF) == 0) check_interrupted("choosing the sparse positions");
    if (t < taken.size() && taken[t] == p) {
      ++t;
      continue;
    }
    if (p / kTopkSegment != segment) {
      segment = p / kTopkSegment;
      ln_scale2 = 2 * uint64_t((u128(timing_draw(seed, kScaleStream, 0, segment + 1)) * kLnScaleRange) >> 64);
    }
    const Entry e{ln_scale2 + exponential_gap(timing_draw(seed, tag, host, p + 1), kLogOne), p};  // 2 ln|v|
    if (kept.size() < m) {
      kept.push(e);
    } else if (stronger(e, kept.top())) {
      kept.pop();
      kept.push(e);
    }
  }
  std::vector<uint64_t> out;
  out.reserve(kept.size());
  for (; !kept.empty(); kept.pop()) out.push_back(kept.top().pos);
  std::sort(out.begin(), out.end());
  return out;
}

// m positions by the distribution: from draws of stream (tag, host), outside `taken`.
std::vector<uint64_t> choose_positions(const SparseWorkloadOptions& o, uint64_t tag, unsigned host, uint64_t m,
                                       uint64_t n, const std::vector<uint64_t>& taken) {
  if (o.distribution == "topk") return topk_positions(o.seed, tag, host, m, n, taken);
  Draws d(o.seed, tag, host);
  const uint64_t a = n - taken.size();
  return positions_of_ranks(o.distribution == "clustered" ? clustered_ranks(d, m, a, o.run_length)
                                                          : choose_distinct(d, m, a),
                            taken);
}


// A non-zero value of `dtype` from the value stream.
uint32_t draw_value(Draws& d, uint8_t dtype) {
  for (;;) {
    const uint64_t x = d.next();
    if (dtype == FLARE_FLOAT32) {
      const int64_t k = int64_t(x >> 40) - (int64_t(1) << 23);
      if (k) return bits_of_float(float(k) / 8388608.0f);
    } else {
      const uint32_t size = flare_dtype_bytes(dtype);
      const uint32_t bits = uint32_t(size == 4 ? x & 0xFFFFFFFFu : x & ((1u << (8 * size)) - 1));
      if (bits) return bits;
    }
  }
}

// An option's error, naming the option as the user gave it (SparseWorkloadOptions::names).
std::string named(const SparseWorkloadOptions& o, const std::string& field) {
  const auto it = o.names.find(field);
  return it == o.names.end() ? field : it->second;
}

[[noreturn]] void bad_option(const SparseWorkloadOptions& o, const std::string& field, const std::string& why) {
  throw InputError("sparse workload: " + named(o, field) + ": " + why);
}

}  // namespace

uint32_t sparse_fold(uint8_t dtype, uint8_t op, uint32_t a, uint32_t b) {
  if (dtype == FLARE_FLOAT32) {
    const float x = float_of_bits(a), v = float_of_bits(b);
    return bits_of_float(op == FLARE_OP_SUM ? x + v : op == FLARE_OP_MIN ? (v < x ? v : x) : (v > x ? v : x));
  }
  const uint32_t size = flare_dtype_bytes(dtype);
  const unsigned shift = 64 - 8 * size;
  const int64_t x = int64_t(uint64_t(a) << shift) >> shift, v = int64_t(uint64_t(b) << shift) >> shift;
  const int64_t r = op == FLARE_OP_SUM ? x + v : op == FLARE_OP_MIN ? std::min(x, v) : std::max(x, v);
  return uint32_t(uint64_t(r) & (size == 4 ? 0xFFFFFFFFull : (1ull << (8 * size)) - 1));
}

std::string sparse_value_text(uint8_t dtype, uint32_t bits) {
  if (dtype == FLARE_FLOAT32) {
    const float f = float_of_bits(bits);
    if (std::isnan(f)) return "nan";
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, f);  // the shortest form that reads back as f
    return std::string(buf, r.ptr);
  }
  const unsigned shift = 64 - 8 * flare_dtype_bytes(dtype);
  return std::to_string(int64_t(uint64_t(bits) << shift) >> shift);
}

bool parse_sparse_value(const std::string& s, uint8_t dtype, uint32_t* bits) {
  const char* b = s.data();
  const char* e = b + s.size();
  if (dtype == FLARE_FLOAT32) {
    float f = 0;
    const auto r = std::from_chars(b, e, f, std::chars_format::general);
    if (s.empty() || r.ec != std::errc() || r.ptr != e) return false;
    std::memcpy(bits, &f, 4);
    return true;
  }
  int64_t v = 0;
  const auto r = std::from_chars(b, e, v);
  const uint32_t size = flare_dtype_bytes(dtype);
  const int64_t hi = (int64_t(1) << (8 * size - 1)) - 1;
  if (s.empty() || r.ec != std::errc() || r.ptr != e || v < -hi - 1 || v > hi) return false;
  *bits = uint32_t(uint64_t(v) & (size == 4 ? 0xFFFFFFFFull : (1ull << (8 * size)) - 1));
  return true;
}

SparseWorkloadOptions sparse_workload_options(const Config& cfg, unsigned hosts) {
  const FlareSparseConfig& s = sparse_config(cfg);
  SparseWorkloadOptions o;
  o.hosts = hosts;
  o.bytes = cfg.hosts.bytes;
  o.elem_bytes = cfg.hosts.elem_bytes;
  o.dtype = cfg.hosts.dtype;
  o.op = cfg.hosts.op;
  o.seed = cfg.seed;
  o.allreduce_id = s.allreduce_id;
  o.span = sparse_span(cfg);
  o.density = s.density;
  o.distribution = s.distribution;
  o.run_length = s.run_length;
  o.overlap = s.overlap;
  o.names = {{"hosts", "flare_sparse.ports"},
             {"bytes", "hosts.bytes"},
             {"elem_bytes", "hosts.elem_bytes"},
             {"dtype", "hosts.dtype"},
             {"op", "hosts.op"},
             {"span", "flare_sparse.span"},
             {"density", "flare_sparse.density"},
             {"distribution", "flare_sparse.distribution"},
             {"run_length", "flare_sparse.run_length"},
             {"overlap", "flare_sparse.overlap"}};
  return o;
}

uint32_t sparse_packets_for(uint64_t pairs, uint32_t pairs_per_packet) {
  return pairs ? uint32_t((pairs + pairs_per_packet - 1) / pairs_per_packet) : 1;
}

SparseWorkload make_sparse_workload(const SparseWorkloadOptions& o) {
  SparseWorkload w;
  w.allreduce_id = o.allreduce_id;
  if (o.hosts < 1 || o.hosts > 65535) bad_option(o, "hosts", std::to_string(o.hosts) + " hosts, not 1..65535");
  if (!flare_dtype_from_name(o.dtype, &w.dtype))
    bad_option(o, "dtype", "unknown '" + o.dtype + "' (valid: " + kFlareDtypeChoices + ")");
  if (!flare_op_from_name(o.op, &w.op)) bad_option(o, "op", "unknown '" + o.op + "' (valid: " + kFlareOpChoices + ")");
  if (o.distribution != "uniform" && o.distribution != "clustered" && o.distribution != "topk")
    bad_option(o, "distribution", "unknown '" + o.distribution + "' (valid: uniform, clustered or topk)");
  const uint32_t dsize = flare_dtype_bytes(w.dtype), pair_bytes = flare_pair_bytes(w.dtype);
  w.pairs_per_packet = o.elem_bytes / pair_bytes;
  if (!w.pairs_per_packet)
    bad_option(o, "elem_bytes", std::to_string(o.elem_bytes) + " bytes hold no " + std::to_string(pair_bytes) +
                                    "-byte " + o.dtype + " pair");
  if (FLARE_PAYLOAD_OFFSET + FLARE_SPARSE_HEADER_BYTES + uint64_t(w.pairs_per_packet) * pair_bytes > 65535)
    bad_option(o, "elem_bytes", std::to_string(o.elem_bytes) + " pair bytes do not fit in a 65535-byte frame");
  if (o.bytes == 0 || o.bytes % dsize)
    bad_option(o, "bytes", std::to_string(o.bytes) + " is not a positive multiple of the " + o.dtype + " size " +
                               std::to_string(dsize));
  if (o.span == 0) bad_option(o, "span", "must be positive");
  if (!(o.density > 0 && o.density <= 1)) bad_option(o, "density", "must be above 0 and at most 1");
  if (!(o.overlap >= 0 && o.overlap <= 1)) bad_option(o, "overlap", "must be from 0 to 1");
  if (o.run_length == 0) bad_option(o, "run_length", "must be positive");
  w.elements = o.bytes / dsize;
  w.span = o.span;
  const uint64_t nblocks = (w.elements + w.span - 1) / w.span;
  if (nblocks > (uint64_t(1) << 32))
    bad_option(o, "bytes", std::to_string(nblocks) + " blocks of " + std::to_string(w.span) +
                               " elements exceed the 32-bit block id");
  w.nonzeros = std::min<uint64_t>(w.elements, uint64_t(std::llround(o.density * double(w.elements))));
  const uint64_t common = std::min<uint64_t>(w.nonzeros, uint64_t(std::llround(o.overlap * double(w.nonzeros))));
  if (double(w.nonzeros) * o.hosts * pair_bytes > double(kMaxPairBytes))
    bad_option(o, "bytes", std::to_string(o.hosts) + " hosts x " + std::to_string(w.nonzeros) + " non-zeros x " +
                               std::to_string(pair_bytes) + " bytes: at most 4 GiB of pairs in one workload");
  if (o.distribution == "topk" && double(w.elements) * o.hosts > 4294967296.0)
    bad_option(o, "bytes", "topk draws every element: " + std::to_string(o.hosts) + " hosts x " +
                               std::to_string(w.elements) + " elements is over 2^32");

  w.pool = choose_positions(o, kPoolStream, 0, common, w.elements, {});
  w.hosts.resize(o.hosts);
  for (unsigned h = 0; h < o.hosts; ++h) {
    check_interrupted("generating the hosts' sparse vectors");
    const std::vector<uint64_t> own = choose_positions(o, kPositionStream, h, w.nonzeros - common, w.elements, w.pool);
    std::vector<uint64_t> all(w.pool.size() + own.size());
    std::merge(w.pool.begin(), w.pool.end(), own.begin(), own.end(), all.begin());
    std::vector<SparsePairs>& blocks = w.hosts[h];
    blocks.resize(size_t(nblocks));
    Draws values(o.seed, kValueStream, h);
    for (uint64_t p : all) blocks[size_t(p / w.span)].push_back(SparsePair{uint32_t(p % w.span), draw_value(values, w.dtype)});
    for (uint64_t b = 0; b < nblocks; ++b) {
      const uint32_t packets = sparse_packets_for(blocks[b].size(), w.pairs_per_packet);
      if (packets > FLARE_SPARSE_MAX_SHARDS)
        throw InputError("sparse workload: host " + std::to_string(h) + " block " + std::to_string(b) + " has " +
                         std::to_string(blocks[b].size()) + " non-zeros, " + std::to_string(packets) +
                         " packets of at most " + std::to_string(w.pairs_per_packet) + " pairs; a block may have " +
                         std::to_string(FLARE_SPARSE_MAX_SHARDS) + " packets at most: lower " + named(o, "span") +
                         " (" + std::to_string(w.span) + " elements per block) or " + named(o, "run_length") +
                         ", or raise " + named(o, "elem_bytes"));
    }
  }

  // The reference: per block, each index's values folded in rank order.
  w.reference.resize(size_t(nblocks));
  std::vector<SparsePair> all;
  for (uint64_t b = 0; b < nblocks; ++b) {
    SparseExpectedBlock& e = w.reference[size_t(b)];
    e.allreduce_id = o.allreduce_id;
    e.block_id = uint32_t(b);
    e.dtype = w.dtype;
    e.op = w.op;
    e.length = uint32_t(std::min<uint64_t>(w.span, w.elements - b * w.span));
    all.clear();
    for (unsigned h = 0; h < o.hosts; ++h) all.insert(all.end(), w.hosts[h][b].begin(), w.hosts[h][b].end());
    std::stable_sort(all.begin(), all.end(), [](const SparsePair& x, const SparsePair& y) { return x.index < y.index; });
    for (size_t i = 0; i < all.size();) {
      uint32_t acc = all[i].bits;
      size_t j = i + 1;
      for (; j < all.size() && all[j].index == all[i].index; ++j) acc = sparse_fold(w.dtype, w.op, acc, all[j].bits);
      if (acc) e.pairs.push_back(SparsePair{all[i].index, acc});
      i = j;
    }
  }
  return w;
}

std::vector<Bytes> sparse_block_frames(const SparseWorkload& w, unsigned rank, uint32_t block, uint16_t port,
                                       uint16_t udp_port) {
  return sparse_block_frames_as(w, rank, block, port, w.allreduce_id, uint16_t(rank), udp_port);
}

std::vector<Bytes> sparse_block_frames_as(const SparseWorkload& w, unsigned rank, uint32_t block, uint16_t port,
                                          uint32_t allreduce_id, uint16_t sender_rank, uint16_t udp_port) {
  const SparsePairs& pairs = w.hosts.at(rank).at(block);
  const uint32_t packets = sparse_packets_for(pairs.size(), w.pairs_per_packet);
  std::vector<Bytes> out;
  flare_sparse_header_t h{};
  h.version = FLARE_VERSION;
  h.kind = FLARE_KIND_CONTRIB;
  h.dtype = w.dtype;
  h.op = w.op;
  h.allreduce_id = allreduce_id;
  h.block_id = block;
  h.sender_rank = sender_rank;
  for (uint32_t k = 0; k < packets; ++k) {
    const size_t first = size_t(k) * w.pairs_per_packet;
    const size_t last = std::min(pairs.size(), first + w.pairs_per_packet);
    h.shard = uint16_t(k);
    h.flags = k + 1 == packets ? FLARE_FLAG_LAST : 0;
    h.shards = k + 1 == packets ? uint16_t(packets) : 0;
    out.push_back(build_sparse_packet(h, port, SparsePairs(pairs.begin() + long(first), pairs.begin() + long(last)),
                                      udp_port));
  }
  return out;
}

}  // namespace fs
