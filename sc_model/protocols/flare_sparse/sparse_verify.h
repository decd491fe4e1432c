// Sparse allreduce results: the expected-results file (`flaresim-expected-sparse 1`,
// traces/FORMAT.md) and the verifier that checks what the switch sent against it. A host port
// merges all the sparse result packets of a block (spills and the final packets, numbered from
// shard 0, the last flagged with the count) with the block's op; the merged block must equal the
// reference as a dense vector (absent = 0): integers exactly, float32 within the dense verifier's
// tolerance. Also counts the result traffic each host port got against the reference's pairs.
#pragma once
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "plugin/protocol.h"
#include "protocols/flare_sparse/sparse_frame.h"
#include "protocols/flare_sparse/sparse_workload.h"

namespace fs {

struct SparseExpected {
  std::vector<uint16_t> ports;  // the host ports every block's result must reach
  uint16_t udp_port = FLARE_UDP_PORT_DEFAULT;
  uint32_t span = 0;            // elements per block
  uint64_t elements = 0;        // elements of the vector (the last block may be shorter than span)
  std::vector<SparseExpectedBlock> blocks;
};

SparseExpected sparse_expected_of(const SparseWorkload& w, const std::vector<uint16_t>& ports,
                                  uint16_t udp_port = FLARE_UDP_PORT_DEFAULT);
void write_sparse_expected(std::ostream& out, const SparseExpected& e);
// Throws InputError "file:line: reason" (or "file: reason" for whole-file problems).
SparseExpected parse_sparse_expected(const std::string& name, const std::string& text);
SparseExpected read_sparse_expected(const std::string& path);

// merged[index] op= value for each pair (a host's result packets of a block, folded).
void fold_sparse_pairs(uint8_t dtype, uint8_t op, const SparsePairs& pairs, std::map<uint32_t, uint32_t>& merged);
// Empty if `merged` (index -> value bits) equals the block as a dense vector (absent = 0;
// integers exactly, float32 by float32_matches), else the first difference by index.
std::string compare_sparse_block(const SparseExpectedBlock& want, const std::map<uint32_t, uint32_t>& merged);
// The same on pairs (each ascending by index, indices distinct) of `dtype`.
std::string compare_sparse_pairs(uint8_t dtype, const SparsePairs& got, const SparsePairs& want);

// The result packets a host has of one block: their shard numbers and the count the block's last
// packet announces. Complete when every shard below that count is here.
struct ResultShards {
  std::set<uint16_t> got;
  uint32_t announced = 0;  // from the last packet; 0 until it came
  // Takes a result packet's header; false if its shard number is here already (a duplicate).
  bool take(const flare_sparse_header_t& h) {
    if (!got.insert(h.shard).second) return false;
    if (h.flags & FLARE_FLAG_LAST) announced = h.shards;
    return true;
  }
  bool complete() const {
    return announced && std::distance(got.begin(), got.lower_bound(uint16_t(announced))) >= long(announced);
  }
};

// A sparse result packet is an IPv4/UDP frame to expected.udp_port whose UDP payload starts with a
// 20-byte Flare header of version 1 with the sparse flag and kind result; every other packet is
// ignored. Per (block, host port): a packet with a shard number already taken is a duplicate
// (ignored); a packet whose rank is not 65535, whose dtype or op differ from the block's, whose
// length disagrees with its pair count, whose flags and shard fields disagree (last without
// shards, shard beyond shards, shards without last, two last packets) or whose index is beyond
// the block makes the pair wrong; the pair is missing without a last packet or with a shard
// below the announced count not received; else its merged pairs are compared. Problems are
// listed per egress record in the given order, then per (block order, port order). ok = nothing
// missing, wrong, duplicate or unexpected.
VerifyReport verify_sparse_egress(const SparseExpected& expected, const std::vector<EgressRecord>& egress);

// The result traffic of one host port: the sparse result packets of expected blocks it got
// (duplicates included), their frame bytes and pairs.
struct SparsePortTraffic {
  uint16_t port = 0;
  uint64_t packets = 0, bytes = 0, pairs = 0;
};
struct SparseTraffic {
  std::vector<SparsePortTraffic> ports;  // in the expected ports' order
  uint64_t reference_pairs = 0;          // the reference's pairs over all blocks: one host's share without spills
};
SparseTraffic sparse_result_traffic(const SparseExpected& expected, const std::vector<EgressRecord>& egress);

// The result checks as the core sees them (run --verify, closed-loop hosts).
class SparseVerifier : public ResultVerifier {
 public:
  explicit SparseVerifier(SparseExpected e);
  ~SparseVerifier() override;
  void take(uint16_t port, Picos time, const Bytes& frame) override;
  VerifyReport report() const override;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace fs
