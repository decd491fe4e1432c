// A host's RDMA NIC (see roce_nic.h). Inside, PSNs are counted as 64-bit sequence numbers from the
// connection's first PSN (a packet's PSN is its number mod 2^24 past the first), so that windows
// compare without wrapping.
#include "protocols/netreduce/roce_nic.h"

#include <algorithm>

#include "common/errors.h"
#include "common/sc_time_util.h"

namespace fs {

struct RoceNic::QueuePair {
  uint32_t qpn = 0, peer_qpn = 0;
  unsigned peer_host = 0;
  uint32_t first_psn = 0;  // of both directions
  Bytes memory;
  // Sending: packets base .. base + sending.size() - 1 not acknowledged; `cursor` the next to
  // send; `sent` one past the highest ever sent (below it a send is a resend).
  std::deque<RocePacket> sending;
  uint64_t base = 0, cursor = 0, sent = 0;
  Picos deadline = 0;  // of the go-back-N timeout (0: nothing unacknowledged)
  // Receiving: the next packet expected; the write in progress; messages completed.
  uint64_t expected = 0;
  bool nak_sent = false;
  uint64_t write_address = 0, write_offset = 0;
  uint32_t msn = 0;

  uint32_t psn(uint64_t seq) const { return uint32_t((first_psn + seq) & ROCE_PSN_MASK); }
  // The sequence number of PSN `p` near `near` (within 2^23 of it).
  uint64_t seq_of(uint32_t p, uint64_t near) const { return uint64_t(int64_t(near) + roce_psn_diff(p, psn(near))); }
};

RoceNic::RoceNic(sc_core::sc_module_name name, Network& net, unsigned host, unsigned mtu, Picos timeout)
    : sc_core::sc_module(name), net_(net), host_(host), mtu_(mtu), timeout_(timeout) {
  if (mtu == 0) throw InputError("RoceNic: the MTU must be at least one byte");
  net.host(host).bind_udp(ROCE_UDP_PORT, this);
  SC_THREAD(run);
}

RoceNic::~RoceNic() = default;

uint32_t RoceNic::create_qp(uint64_t memory_bytes) {
  auto q = std::make_unique<QueuePair>();
  q->qpn = uint32_t(qps_.size() + 1);
  q->memory.assign(memory_bytes, 0);
  const uint32_t qpn = q->qpn;
  qps_[qpn] = std::move(q);
  return qpn;
}

void RoceNic::connect(RoceNic& a, uint32_t qp, RoceNic& b, uint32_t peer_qp, uint32_t first_psn) {
  QueuePair& x = *a.qps_.at(qp);
  QueuePair& y = *b.qps_.at(peer_qp);
  x.peer_qpn = peer_qp, x.peer_host = b.host_, x.first_psn = first_psn;
  y.peer_qpn = qp, y.peer_host = a.host_, y.first_psn = first_psn;
}

const Bytes& RoceNic::memory(uint32_t qp) const { return qps_.at(qp)->memory; }

uint64_t RoceNic::unacknowledged(uint32_t qp) const { return qps_.at(qp)->sending.size(); }

void RoceNic::post_write(uint32_t qp, const Bytes& message, uint64_t remote_address, uint32_t imm) {
  QueuePair& q = *qps_.at(qp);
  const size_t packets = std::max<size_t>(1, (message.size() + mtu_ - 1) / mtu_);
  for (size_t k = 0; k < packets; ++k) {
    RocePacket p;
    const bool first = k == 0, last = k + 1 == packets;
    p.bth.opcode = first && last ? ROCE_RC_WRITE_ONLY_IMM
                   : first       ? ROCE_RC_WRITE_FIRST
                   : last        ? ROCE_RC_WRITE_LAST_IMM
                                 : ROCE_RC_WRITE_MIDDLE;
    p.bth.pkey = ROCE_DEFAULT_PKEY;
    p.bth.dest_qp = q.peer_qpn;
    p.bth.ack_request = last;
    p.bth.psn = q.psn(q.base + q.sending.size());
    if (first) p.reth = {remote_address, 0, uint32_t(message.size())};
    if (last) p.imm = imm;
    const size_t from = k * mtu_, to = std::min(message.size(), from + mtu_);
    p.payload.assign(message.begin() + long(from), message.begin() + long(to));
    q.sending.push_back(std::move(p));
  }
  wake_.notify(sc_core::SC_ZERO_TIME);
}

Bytes RoceNic::frame_of(const QueuePair& q, const RocePacket& p) const {
  // RoCEv2's UDP source port gives each connection its own flow (ECMP); the range is 49152 up.
  return build_roce_frame(p, host_, fs_host_ipv4(q.peer_host), uint16_t(0xC000 | (q.qpn & 0x3FFF)));
}

void RoceNic::run() {
  for (;;) {
    const Picos now = now_ps();
    Picos next_deadline = 0;
    for (auto& [qpn, q] : qps_) {
      if (q->deadline && q->deadline <= now) {
        ++counts_.timeouts;
        go_back(*q, q->psn(q->base));
        q->deadline = now + timeout_;
      }
      if (q->deadline && (!next_deadline || q->deadline < next_deadline)) next_deadline = q->deadline;
    }
    if (send_next()) continue;
    if (next_deadline) {
      wait(ps_time(next_deadline - now), wake_);
    } else {
      wait(wake_);
    }
  }
}

// Hands the next due frame to the link and waits while it leaves; false if none is due.
bool RoceNic::send_next() {
  Bytes frame;
  if (!control_.empty()) {
    frame = std::move(control_.front());
    control_.pop_front();
  } else {
    QueuePair* pick = nullptr;
    for (size_t i = 0; i < qps_.size() && !pick; ++i) {
      QueuePair& q = *qps_.at(uint32_t((next_turn_ + i) % qps_.size()) + 1);
      if (q.cursor < q.base + q.sending.size()) pick = &q;
    }
    if (!pick) return false;
    next_turn_ = pick->qpn % uint32_t(qps_.size());  // the queue pair after it goes next
    QueuePair& q = *pick;
    frame = frame_of(q, q.sending[q.cursor - q.base]);
    ++counts_.packets_sent;
    if (q.cursor < q.sent) ++counts_.resent;
    q.sent = std::max(q.sent, ++q.cursor);
    if (!q.deadline) q.deadline = now_ps() + timeout_;
  }
  counts_.bytes_sent += frame.size();
  HostPort& port = net_.host(host_);
  const Picos wire = port.nic().params().wire_time_of(frame.size());
  auto p = std::make_shared<Packet>();
  p->data = std::move(frame);
  p->arrival = now_ps();
  port.send(std::move(p));
  wait(ps_time(wire));
  return true;
}

void RoceNic::accept(PacketPtr pkt) {
  RocePacket p;
  std::string why;
  if (!parse_roce_frame(pkt->data.data(), pkt->data.size(), &p, &why)) return void(++counts_.bad_frames);
  const auto it = qps_.find(p.bth.dest_qp);
  if (it == qps_.end()) return void(++counts_.unknown_qp);
  if (p.bth.opcode == ROCE_RC_ACK) return take_ack(*it->second, p);
  take_data(*it->second, p);
}

void RoceNic::take_data(QueuePair& q, const RocePacket& p) {
  const uint64_t seq = q.seq_of(p.bth.psn, q.expected);
  if (seq < q.expected) {  // a duplicate: say again how far this side is
    ++counts_.duplicates;
    return send_control(q, ROCE_AETH_ACK, q.psn(q.expected - 1));
  }
  if (seq > q.expected) {  // a gap: one NAK until it is filled
    ++counts_.out_of_order;
    if (!q.nak_sent) send_control(q, ROCE_AETH_NAK_SEQUENCE, q.psn(q.expected));
    q.nak_sent = true;
    return;
  }
  q.nak_sent = false;
  ++q.expected;
  const uint8_t op = p.bth.opcode;
  if (roce_has_reth(op)) q.write_address = p.reth.virtual_address, q.write_offset = 0;
  const uint64_t at = q.write_address + q.write_offset;
  if (at + p.payload.size() > q.memory.size())
    throw SimError("RoCE NIC of host " + std::to_string(host_) + ": an RDMA write to queue pair " +
                   std::to_string(q.qpn) + " at byte " + std::to_string(at) + " passes its " +
                   std::to_string(q.memory.size()) + "-byte memory");
  std::copy(p.payload.begin(), p.payload.end(), q.memory.begin() + long(at));
  q.write_offset += p.payload.size();
  if (roce_has_imm(op)) ++q.msn;
  if (p.bth.ack_request) send_control(q, ROCE_AETH_ACK, p.bth.psn);
  if (roce_has_imm(op) && on_write_) on_write_(q.qpn, p.imm, q.write_address, q.write_offset);
}

void RoceNic::take_ack(QueuePair& q, const RocePacket& p) {
  const uint64_t seq = q.seq_of(p.bth.psn, q.base);
  const bool nak = p.aeth.syndrome == ROCE_AETH_NAK_SEQUENCE;
  // Retired: up to the ACK's PSN, or before the NAK's.
  const uint64_t end = std::min<uint64_t>(q.base + q.sending.size(), nak ? seq : seq + 1);
  if (end > q.base) {
    q.sending.erase(q.sending.begin(), q.sending.begin() + long(end - q.base));
    q.base = end;
    q.cursor = std::max(q.cursor, q.base);
    q.deadline = q.sending.empty() ? 0 : now_ps() + timeout_;
  }
  if (nak && seq >= q.base && seq < q.base + q.sending.size()) go_back(q, p.bth.psn);
}

void RoceNic::go_back(QueuePair& q, uint32_t psn) {
  q.cursor = std::max(q.base, q.seq_of(psn, q.base));
  wake_.notify(sc_core::SC_ZERO_TIME);
}

void RoceNic::send_control(QueuePair& q, uint8_t syndrome, uint32_t psn) {
  RocePacket a;
  a.bth.opcode = ROCE_RC_ACK;
  a.bth.pkey = ROCE_DEFAULT_PKEY;
  a.bth.dest_qp = q.peer_qpn;
  a.bth.psn = psn;
  a.aeth = {syndrome, q.msn};
  control_.push_back(frame_of(q, a));
  ++(syndrome == ROCE_AETH_ACK ? counts_.acks_sent : counts_.naks_sent);
  wake_.notify(sc_core::SC_ZERO_TIME);
}

}  // namespace fs
