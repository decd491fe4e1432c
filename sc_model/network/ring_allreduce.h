// The host-based ring allreduce (hosts.model = ring), the bandwidth-optimal baseline in-network
// allreduce is compared against: P member hosts (hosts.members, in rank order) each hold a vector
// of hosts.bytes, split into P segments; P-1 reduce-scatter steps (in step t rank r sends segment
// (r - t) mod P to rank r + 1, which folds it into its own) and P-1 allgather steps (the same
// rule, the receiver copying the completed segment) leave every rank with the reduction of all
// inputs. Pipelined per packet: packet j of step t + 1 is handed to the NIC as soon as packet j
// of step t has arrived. Reliable by segment-level ARQ: the receiver acknowledges a step's
// segment once all its packets arrived; the sender, hosts.timeout_ns after handing the segment's
// last packet to its NIC without an ACK, sends the whole segment again (16 sends at most).
// Element values are drawn from the run's seed; at the end every rank's vector is checked
// exactly against the reduction. With hosts.groups, each group of members is a ring of its own.
#pragma once
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "common/stats_tree.h"
#include "config/config.h"
#include "network/allreduce_run.h"
#include "network/network.h"
#include "network/traffic.h"

namespace fs {

// The UDP port of the ring's data and ACK frames (background traffic has its own).
constexpr uint16_t kRingUdpPort = 5202;
static_assert(kRingUdpPort != kTrafficUdpPort, "the ring and background traffic share a host's UDP ports");
// The ring header in front of a data packet's elements (an ACK is the header alone): magic,
// kind, attempt, sender rank, segment, step, packet index (ring_allreduce.cpp).
constexpr unsigned kRingHeaderBytes = 16;
// The most members: 2(P-1) steps fit the header's 16-bit step, and float32 sums of values in
// -512..511 over P members stay below 2^24, so exact in any order.
constexpr unsigned kRingMaxMembers = 32768;
// A segment is sent at most this many times (the first send and 15 retransmissions).
constexpr unsigned kRingMaxSends = 16;


class RingAllreduce : public sc_core::sc_module, public NetworkAllreduce {
 public:
  SC_HAS_PROCESS(RingAllreduce);
  // On group `group` of the hosts hosts.members names (hosts.groups cuts them into groups);
  // InputError naming the key for a bad member list or workload.
  RingAllreduce(sc_core::sc_module_name name, const Config& cfg, Network& net, unsigned group = 0);
  ~RingAllreduce() override;

  unsigned ranks() const { return unsigned(ranks_.size()); }
  unsigned host_of(unsigned rank) const;
  uint64_t elements() const { return elements_; }
  // A rank's vector as drawn before the run (drawn again on each call), and as it is now (after
  // the run, the result): elements of hosts.dtype, little-endian.
  Bytes input(unsigned rank) const;
  const Bytes& result(unsigned rank) const;
  // Segment s's first element and element count; the packets of a segment.
  uint64_t segment_start(unsigned s) const;
  uint64_t segment_elements(unsigned s) const;
  uint32_t segment_packets(unsigned s) const;
  uint64_t packet_elements(unsigned s, uint32_t packet) const;  // hosts.elem_bytes worth, but in its last
  // When the last rank got its last packet; 0 if a rank has not.
  Picos done_at() const;
  AllreduceStats stats() const override;
  void report(StatsTree& out) const { stats().report(out); }
  // Why the results are wrong or incomplete (for the CLI's error), "" if every rank has them.
  std::string failure() const override;

 private:
  struct Rank;  // one member's vector, its steps as sender and receiver, its NIC's sink
  enum class Dtype : uint8_t { kInt32, kInt16, kInt8, kFloat32 };
  enum class Op : uint8_t { kSum, kMin, kMax };

  void set_workload(const HostsConfig& h);         // element type, operator, sizes, timeout
  void run();                                      // the one thread: step 0's sends, then timeouts
  void receive(unsigned rank, const Packet& p);    // a frame to the rank's ring port
  void take_data(unsigned rank, unsigned step, uint32_t packet, uint8_t attempt, const uint8_t* elems);
  void take_ack(unsigned rank, unsigned step);
  void send_packet(unsigned rank, unsigned step, uint32_t packet);
  void send_ack(unsigned rank, unsigned step, uint8_t attempt);
  Bytes frame(unsigned from_rank, unsigned to_rank, const Bytes& payload) const;
  void transmit(unsigned rank, const Bytes& frame);  // a new packet of `frame` to the rank's NIC
  void fold(uint8_t* acc, const uint8_t* in, uint64_t count) const;  // acc op= in, element-wise
  void time_out(unsigned rank, unsigned step);
  void arm(unsigned rank, unsigned step);
  void disarm(unsigned rank, unsigned step);
  void reschedule();  // the timer event at the earliest deadline
  unsigned steps() const { return 2 * (ranks() - 1); }
  unsigned next(unsigned rank) const { return (rank + 1) % ranks(); }
  unsigned prev(unsigned rank) const { return (rank + ranks() - 1) % ranks(); }
  // The segment a rank sends in a step (and its successor receives): (rank - step) mod P.
  unsigned segment_of(unsigned rank, unsigned step) const { return (rank + ranks() - step % ranks()) % ranks(); }

  Network& net_;
  uint64_t bytes_ = 0, elements_ = 0;
  unsigned dsize_ = 4, per_packet_ = 0;  // element bytes; elements per full packet
  Dtype dtype_ = Dtype::kInt32;
  Op op_ = Op::kSum;
  uint64_t seed_ = 0;
  Picos timeout_ = 0;
  std::vector<std::unique_ptr<Rank>> ranks_;
  Bytes expected_;  // the reduction of every input, in rank order
  std::set<std::tuple<Picos, unsigned, unsigned>> timers_;  // (deadline, rank, step) not yet acknowledged
  sc_core::sc_event timer_;
  AllreduceStats counts_;  // the counters of stats() as the run goes
};

}  // namespace fs
