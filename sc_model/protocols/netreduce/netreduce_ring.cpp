// The workers of a NetReduce ring (see netreduce_ring.h).
//
// Gradients: element i of rank r is the low 32 bits of splitmix64_mix(state + (i + 1) x golden),
// state = splitmix64_mix(component_seed(seed, "netreduce.ring<ring_id>") ^ r).
#include "protocols/netreduce/netreduce_ring.h"

#include <algorithm>

#include "common/errors.h"
#include "common/fnv1a.h"
#include "common/sc_time_util.h"
#include "common/splitmix64.h"

namespace fs {

uint64_t gradient_state(uint64_t seed, unsigned ring_id, unsigned rank) {
  return splitmix64_mix(component_seed(seed, "netreduce.ring" + std::to_string(ring_id)) ^ rank);
}

int32_t gradient_at(uint64_t state, uint64_t i) { return int32_t(uint32_t(splitmix64_mix(state + (i + 1) * kSplitmixGolden))); }

struct NetReduceRing::Worker {
  unsigned rank = 0, host = 0;
  std::unique_ptr<RoceNic> nic;
  uint32_t send_qp = 0, recv_qp = 0;  // to the successor, from the predecessor
  uint64_t next = 0;                  // the next message to send
  uint64_t results = 0;               // messages whose result arrived
  std::vector<bool> got;
  unsigned most_in_flight = 0;
  Picos done = 0;
};

NetReduceRing::NetReduceRing(sc_core::sc_module_name name, Network& net, const std::vector<unsigned>& hosts,
                             const NetReduceRingShape& shape)
    : sc_core::sc_module(name), net_(net), shape_(shape) {
  if (hosts.size() < 2 || hosts.size() > 255)
    throw InputError("a NetReduce ring has 2 to 255 workers (the INA header's 8-bit rank), not " +
                     std::to_string(hosts.size()));
  if (shape.msg_packets == 0 || shape.msg_packets > 255)
    throw InputError("a NetReduce message has 1 to 255 packets (the INA header's 8-bit MsgLen), not " +
                     std::to_string(shape.msg_packets));
  if (uint64_t(shape.mtu) * shape.msg_packets < NETREDUCE_INA_BYTES + 4)
    throw InputError("a NetReduce message of " + std::to_string(shape.msg_packets) + " packets of " +
                     std::to_string(shape.mtu) + " bytes has no room for an element behind the 8-byte INA header");
  if (shape.bytes == 0 || shape.bytes % 4)
    throw InputError("NetReduce gradients are whole int32 elements; " + std::to_string(shape.bytes) + " bytes are not");
  if (shape.window == 0) throw InputError("a NetReduce window holds at least one message");
  elements_ = shape.bytes / 4;
  per_message_ = (uint64_t(shape.mtu) * shape.msg_packets - NETREDUCE_INA_BYTES) / 4;
  messages_ = (elements_ + per_message_ - 1) / per_message_;
  for (unsigned r = 0; r < hosts.size(); ++r) {
    states_.push_back(gradient_state(shape.seed, shape.ring_id, r));
    auto w = std::make_unique<Worker>();
    w->rank = r, w->host = hosts[r];
    w->nic = std::make_unique<RoceNic>(("nic" + std::to_string(r)).c_str(), net, hosts[r], shape.mtu, shape.timeout);
    w->send_qp = w->nic->create_qp(0);
    w->recv_qp = w->nic->create_qp(messages_ * message_bytes());
    w->got.assign(messages_, false);
    Worker* me = w.get();
    w->nic->on_write([this, me](uint32_t qp, uint32_t imm, uint64_t, uint64_t) {
      if (qp != me->recv_qp || imm >= messages_ || me->got[imm]) return;
      me->got[imm] = true;
      if (++me->results == messages_) {
        me->done = now_ps();
        net_.member_done();
      }
      send_due(*me);
    });
    workers_.push_back(std::move(w));
  }
  net.join_allreduce(hosts.size());
  for (unsigned r = 0; r < ranks(); ++r) {
    Worker& from = *workers_[r];
    Worker& to = *workers_[(r + 1) % ranks()];
    RoceNic::connect(*from.nic, from.send_qp, *to.nic, to.recv_qp);
  }
  SC_THREAD(start);
}

NetReduceRing::~NetReduceRing() = default;

void NetReduceRing::start() {
  for (auto& w : workers_) send_due(*w);
}

uint64_t NetReduceRing::message_elements(uint64_t m) const {
  return std::min<uint64_t>(per_message_, elements_ - m * per_message_);
}

int32_t NetReduceRing::gradient(unsigned r, uint64_t i) const {
  return gradient_at(states_.at(r), i);
}

std::vector<int32_t> NetReduceRing::gradients(unsigned r) const {
  std::vector<int32_t> g(elements_);
  for (uint64_t i = 0; i < elements_; ++i) g[i] = gradient(r, i);
  return g;
}

Bytes NetReduceRing::message(unsigned rank, uint64_t m) const {
  const uint64_t n = message_elements(m);
  Bytes b(NETREDUCE_INA_BYTES + n * 4);
  const netreduce_ina_t ina{NETREDUCE_INET_TAG, uint8_t(shape_.ring_id), uint8_t(m),
                            uint8_t((b.size() + shape_.mtu - 1) / shape_.mtu), uint8_t(rank)};
  netreduce_ina_encode(&ina, b.data());
  for (uint64_t i = 0; i < n; ++i) fs_put_le32(&b[NETREDUCE_INA_BYTES + 4 * i], uint32_t(gradient(rank, m * per_message_ + i)));
  return b;
}

void NetReduceRing::send_due(Worker& w) {
  while (w.next < messages_ && w.next - w.results < shape_.window) {
    w.nic->post_write(w.send_qp, message(w.rank, w.next), w.next * message_bytes(), uint32_t(w.next));
    ++w.next;
    w.most_in_flight = std::max(w.most_in_flight, unsigned(w.next - w.results));
  }
}

std::vector<int32_t> NetReduceRing::received(unsigned r, uint64_t m) const {
  const Bytes& mem = workers_.at(r)->nic->memory(workers_.at(r)->recv_qp);
  std::vector<int32_t> out(message_elements(m));
  const uint8_t* at = mem.data() + m * message_bytes() + NETREDUCE_INA_BYTES;
  for (uint64_t i = 0; i < out.size(); ++i) out[i] = int32_t(fs_le32(at + 4 * i));
  return out;
}

netreduce_ina_t NetReduceRing::received_header(unsigned r, uint64_t m) const {
  const Bytes& mem = workers_.at(r)->nic->memory(workers_.at(r)->recv_qp);
  netreduce_ina_t h;
  netreduce_ina_decode(mem.data() + m * message_bytes(), &h);
  return h;
}

uint64_t NetReduceRing::results(unsigned r) const { return workers_.at(r)->results; }
unsigned NetReduceRing::most_in_flight(unsigned r) const { return workers_.at(r)->most_in_flight; }
Picos NetReduceRing::done_at(unsigned r) const { return workers_.at(r)->done; }
const RoceNic& NetReduceRing::nic(unsigned r) const { return *workers_.at(r)->nic; }

}  // namespace fs
