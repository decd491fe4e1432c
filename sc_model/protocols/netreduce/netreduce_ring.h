// The workers of one NetReduce ring (NetReduce 3.1-3.2): each holds a vector of int32 gradients
// and opens one reliable connection (roce_nic.h) to its successor in the ring. Its flow control
// module cuts the vector into messages of msg_packets packets of mtu payload bytes: message m
// starts with the INA header (InetTag, RingID, MsgID = m mod 256, MsgLen = its packets, Rank)
// and carries the elements that fit behind it. It writes message m to the successor's result
// memory at m x message bytes, with m as the immediate data, and keeps at most `window`
// messages (N) whose results have not come back: message m + N goes once the result of m has
// arrived from the predecessor (an RDMA write into this worker's memory). The switch on the way
// (its NetReduce handlers) replaces every connection's message m with the sum over the ring;
// without them each worker receives its predecessor's gradients, which is what a plain switch
// leaves.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "network/network.h"
#include "protocols/netreduce/roce_nic.h"

namespace fs {

// The gradients every NetReduce host model draws: rank r's element i in ring `ring_id` of a run
// seeded `seed` is gradient_at(gradient_state(seed, ring_id, r), i) (netreduce_ring.cpp).
uint64_t gradient_state(uint64_t seed, unsigned ring_id, unsigned rank);
int32_t gradient_at(uint64_t state, uint64_t i);

struct NetReduceRingShape {
  unsigned ring_id = 0;
  uint64_t bytes = 0;          // gradient bytes per worker (int32 elements)
  unsigned mtu = 1024;         // payload bytes of a full packet
  unsigned msg_packets = 4;    // MsgLen: packets of a full message
  unsigned window = 8;         // N: messages in flight
  Picos timeout = 0;           // the NICs' go-back-N timeout
  uint64_t seed = 0;           // the gradients' draws
};

class NetReduceRing : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(NetReduceRing);
  // Workers on the network hosts `hosts`, in rank order (2 to 255 of them); InputError for a
  // shape that cannot run (a message of 256 packets or more, one too small for the INA header and
  // an element, no elements).
  NetReduceRing(sc_core::sc_module_name name, Network& net, const std::vector<unsigned>& hosts,
                const NetReduceRingShape& shape);
  ~NetReduceRing() override;

  unsigned ranks() const { return unsigned(workers_.size()); }
  uint64_t messages() const { return messages_; }
  uint64_t elements() const { return elements_; }
  uint64_t message_elements(uint64_t m) const;  // the last may have fewer
  uint64_t message_bytes() const { return per_message_ * 4 + NETREDUCE_INA_BYTES; }  // a full one
  // Rank r's gradients (drawn from the seed), and the elements of message m as rank r received
  // them (its predecessor's, or the ring's sum where the switch aggregates).
  int32_t gradient(unsigned r, uint64_t i) const;
  std::vector<int32_t> gradients(unsigned r) const;
  std::vector<int32_t> received(unsigned r, uint64_t m) const;
  // The INA header rank r received in front of message m.
  netreduce_ina_t received_header(unsigned r, uint64_t m) const;
  uint64_t results(unsigned r) const;       // messages whose result rank r has
  unsigned most_in_flight(unsigned r) const;  // the largest number of its messages in flight at once
  Picos done_at(unsigned r) const;          // when its last result arrived (0: not yet)
  const RoceNic& nic(unsigned r) const;

 private:
  struct Worker;
  void start();              // every worker's first window, at time 0
  void send_due(Worker& w);  // messages within the window, in order
  Bytes message(unsigned rank, uint64_t m) const;

  Network& net_;
  NetReduceRingShape shape_;
  uint64_t elements_ = 0, per_message_ = 0, messages_ = 0;
  std::vector<uint64_t> states_;  // each rank's gradient draws start here
  std::vector<std::unique_ptr<Worker>> workers_;
};

}  // namespace fs
