// The host-based ring allreduce over the same RDMA transport as NetReduce's workers (roce_nic.h):
// NetReduce's baseline. P ranks each hold a vector of int32 gradients split into P segments, and
// each segment into chunks of chunk_packets packets of mtu bytes. In step t (0 .. 2P - 3) rank r
// writes segment (r - t) mod P, chunk by chunk, into its successor's memory (one RDMA write a
// chunk, immediate data t x chunks + j); in the first P - 1 steps the successor adds the chunk to
// its own, in the rest it copies it, and it sends the chunk on in the next step as soon as it has
// it (pipelined per chunk). At the end every rank holds the sum (wrapping int32) of all vectors.
// The gradients are NetReduceRing's (the same ring id and seed give the same vectors).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "network/network.h"
#include "protocols/netreduce/netreduce_ring.h"
#include "protocols/netreduce/roce_nic.h"

namespace fs {

class RoceRing : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(RoceRing);
  // Ranks on the network hosts `hosts` (2 or more); the shape's window is not used (the ring
  // sends each chunk as soon as it may). InputError for a shape it cannot run.
  RoceRing(sc_core::sc_module_name name, Network& net, const std::vector<unsigned>& hosts,
           const NetReduceRingShape& shape);
  ~RoceRing() override;

  unsigned ranks() const { return unsigned(ranks_.size()); }
  uint64_t elements() const { return elements_; }
  int32_t gradient(unsigned r, uint64_t i) const;  // NetReduceRing's draw
  const std::vector<int32_t>& vector(unsigned r) const;  // rank r's, the sum once it is done
  Picos done_at(unsigned r) const;  // when it had every chunk (0: not yet)
  const RoceNic& nic(unsigned r) const;
  uint64_t chunks_per_segment() const { return chunks_; }

 private:
  struct Rank;
  void start();
  void send_chunk(Rank& k, unsigned step, uint64_t chunk);
  void take_chunk(Rank& k, uint32_t imm);
  uint64_t segment_start(unsigned s) const;
  uint64_t segment_elements(unsigned s) const;
  unsigned steps() const { return 2 * (ranks() - 1); }
  unsigned segment_of(unsigned rank, unsigned step) const { return (rank + ranks() - step % ranks()) % ranks(); }

  Network& net_;
  NetReduceRingShape shape_;
  uint64_t elements_ = 0, chunk_elements_ = 0, chunks_ = 0;
  std::vector<uint64_t> states_;
  std::vector<std::unique_ptr<Rank>> ranks_;
};

}  // namespace fs
