// A host's RDMA NIC for NetReduce's hosts (NetReduce 3.1-3.2): reliable connections (RC queue
// pairs) carrying RDMA writes over RoCEv2 (roce_frame.h), in the simulator's own model of what
// a RoCE NIC does, not any vendor's.
//
// Sending: a message posted to a queue pair is cut into packets of at most `mtu` payload bytes,
// numbered by consecutive PSNs: WRITE_FIRST with the RETH (remote address, length), WRITE_MIDDLE,
// WRITE_LAST_IMM with the immediate data and the acknowledge request (a one-packet message:
// WRITE_ONLY_IMM). The NIC hands one packet at a time to the host's link, the next when the
// last has left (pacing), acknowledgements first, then the queue pairs in turn.
// Receiving: a queue pair takes the packet with the PSN it expects, writes its payload into its
// memory at the message's address plus its offset, and acknowledges a packet that asks for it;
// at a message's last packet the write completes (on_write, with the immediate data). A packet
// past the expected PSN is a gap: the receiver sends one NAK (PSN sequence error, with the PSN
// it expects) until the gap is filled. A packet before it is a duplicate, answered with an ACK
// of the last PSN taken. A frame with a wrong ICRC, or for a queue pair this NIC lacks, is
// dropped and counted.
// Reliability (go-back-N): an ACK of PSN a retires every packet up to a; a NAK of PSN p retires
// those before p and makes the sender send again from p; a queue pair that has packets not
// acknowledged and hears nothing new for `timeout` sends again from its oldest.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "network/network.h"
#include "protocols/netreduce/roce_frame.h"

namespace fs {

struct RoceNicCounts {
  uint64_t packets_sent = 0;     // data packets handed to the link, resends included
  uint64_t resent = 0;           // of them, sent again (after a NAK or a timeout)
  uint64_t acks_sent = 0, naks_sent = 0;
  uint64_t timeouts = 0;         // go-back-N started by a timeout
  uint64_t duplicates = 0;       // data packets before the expected PSN
  uint64_t out_of_order = 0;     // data packets past it (dropped)
  uint64_t bad_frames = 0;       // refused by parse_roce_frame (a wrong ICRC, ...)
  uint64_t unknown_qp = 0;
  uint64_t bytes_sent = 0;       // frame bytes handed to the link, data and acknowledgements
};

class RoceNic : public sc_core::sc_module, public PacketSinkIf {
 public:
  SC_HAS_PROCESS(RoceNic);
  // On network host `host`, taking RoCEv2 frames to UDP port 4791 there. `mtu`: payload bytes
  // of a full packet; `timeout`: the go-back-N timeout.
  RoceNic(sc_core::sc_module_name name, Network& net, unsigned host, unsigned mtu, Picos timeout);
  ~RoceNic() override;

  // A queue pair with `memory_bytes` of memory RDMA writes to it land in; its number (the first
  // is 1). Its peer is set by connect().
  uint32_t create_qp(uint64_t memory_bytes);
  // Connects queue pair `qp` of `a` with `peer_qp` of `b` both ways, each sending from PSN
  // `first_psn`.
  static void connect(RoceNic& a, uint32_t qp, RoceNic& b, uint32_t peer_qp, uint32_t first_psn = 0);

  // An RDMA write of `message` to the peer's memory at `remote_address`, with immediate data
  // `imm` on its last packet.
  void post_write(uint32_t qp, const Bytes& message, uint64_t remote_address, uint32_t imm);
  // Called when an RDMA write to a queue pair of this NIC completes: (qp, immediate data,
  // address, length).
  void on_write(std::function<void(uint32_t, uint32_t, uint64_t, uint64_t)> f) { on_write_ = std::move(f); }

  const Bytes& memory(uint32_t qp) const;
  // Packets posted on `qp` not yet acknowledged.
  uint64_t unacknowledged(uint32_t qp) const;
  const RoceNicCounts& counts() const { return counts_; }
  unsigned host() const { return host_; }

  void accept(PacketPtr p) override;

 private:
  struct QueuePair;
  void run();                                   // the sending thread
  bool send_next();                             // one frame to the link, if any is due
  void take_data(QueuePair& q, const RocePacket& p);
  void take_ack(QueuePair& q, const RocePacket& p);
  void send_control(QueuePair& q, uint8_t syndrome, uint32_t psn);
  void go_back(QueuePair& q, uint32_t psn);
  Bytes frame_of(const QueuePair& q, const RocePacket& p) const;

  Network& net_;
  const unsigned host_, mtu_;
  const Picos timeout_;
  std::map<uint32_t, std::unique_ptr<QueuePair>> qps_;
  std::deque<Bytes> control_;  // acknowledgements to send, first
  uint32_t next_turn_ = 0;     // the queue pair whose turn it is
  sc_core::sc_event wake_, timer_;
  std::function<void(uint32_t, uint32_t, uint64_t, uint64_t)> on_write_;
  RoceNicCounts counts_;
};

}  // namespace fs
