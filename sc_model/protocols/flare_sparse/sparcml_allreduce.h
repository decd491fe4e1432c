// The host-based sparse allreduce Flare sparse is compared with (hosts.model = sparcml on a
// network): SparCML's split-allgather algorithm on the member hosts (hosts.members, in rank order),
// each holding its rank's vector of the flare_sparse workload (sparse_workload.h, the same vectors
// the Flare sparse hosts send). The vector's E elements are cut into P partitions of ceil(E / P)
// (rank q owns partition q). Reduce-scatter: each rank sends every other rank q its pairs that
// fall in partition q, in turn to q = r + 1, r + 2, ... (mod P), and q folds them into its own;
// allgather: once a rank has all P - 1 of them, it sends its reduced partition (zero results left
// out) to every other rank in the same order. A message is pairs (a 4-byte element index and the
// value, the pair Flare's packets carry) or, when those would take more bytes, the partition's
// dense values (SparCML's switch to a dense representation); a packet carries hosts.elem_bytes
// of them at most. Reliable by message-level ARQ: the receiver acknowledges a message once all its
// packets arrived, the sender sends it again whole when no ACK came within hosts.timeout_ns, plus
// a share of it up to as much again drawn from the seed, after handing its last packet to the NIC
// (kSparcmlMaxSends sends at most). Every partition a rank gathers (and
// its own) is checked against the workload's reference as it completes (sparse_verify.h's rule).
// The hosts' merging takes no simulated time: the network is what is compared.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "config/config.h"
#include "network/allreduce_run.h"
#include "network/network.h"
#include "network/traffic.h"
#include "protocols/flare_sparse/sparse_workload.h"

namespace fs {

// The UDP port of SparCML's data and ACK frames.
constexpr uint16_t kSparcmlUdpPort = 5203;
static_assert(kSparcmlUdpPort != kTrafficUdpPort && kSparcmlUdpPort != FLARE_UDP_PORT_DEFAULT,
              "SparCML's frames share a host's UDP port");
// The header in front of a data packet's pairs or values (an ACK is the header alone):
// sparcml_allreduce.cpp has the layout.
constexpr unsigned kSparcmlHeaderBytes = 16;
// A message is sent at most this many times (the first send and 15 retransmissions).
constexpr unsigned kSparcmlMaxSends = 16;

class SparcmlAllreduce : public sc_core::sc_module, public NetworkAllreduce {
 public:
  // On the hosts `members`; InputError naming the key for a workload it cannot run.
  SparcmlAllreduce(sc_core::sc_module_name name, const Config& cfg, Network& net, const std::vector<unsigned>& members);
  ~SparcmlAllreduce() override;

  AllreduceStats stats() const override;
  std::string failure() const override;

  // Partition q's elements [first, end).
  uint64_t partition_first(unsigned q) const;
  uint64_t partition_end(unsigned q) const;
  // Messages that went as dense values (a partition whose pairs would take more bytes).
  uint64_t dense_messages() const { return dense_messages_; }

 private:
  class Rank;
  friend class Rank;
  unsigned ranks() const { return ranks_count_; }
  // The reference's pairs in partition q (indices over the whole vector, ascending).
  SparsePairs reference_of(unsigned q) const;
  // A message's packets from rank `from` to rank `to`: `pairs` (ascending) of partition `part`,
  // as pairs or as dense values, whichever is smaller.
  std::vector<Bytes> message(unsigned phase, unsigned from, unsigned to, unsigned part, const SparsePairs& pairs);
  Bytes frame(unsigned from, unsigned to, const Bytes& payload) const;
  void check(unsigned rank, unsigned part, const SparsePairs& got);

  Network& net_;
  SparseWorkload w_;
  uint64_t bytes_ = 0;
  unsigned ranks_count_ = 0, dsize_ = 4, pair_bytes_ = 8, per_packet_bytes_ = 1024;
  Picos timeout_ = 0;
  uint64_t seed_ = 0;
  SparsePairs reference_;                  // the reduction, indices over the whole vector
  std::vector<std::unique_ptr<Rank>> ranks_;
  Picos done_at_ = 0;
  AllreduceStats counts_;
  uint64_t dense_messages_ = 0, wrong_ = 0;
  std::string first_problem_;
};

}  // namespace fs
