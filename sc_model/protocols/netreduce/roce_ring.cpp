// The host ring allreduce over RDMA (see roce_ring.h).
#include "protocols/netreduce/roce_ring.h"

#include <algorithm>

#include "common/errors.h"
#include "common/sc_time_util.h"

namespace fs {

struct RoceRing::Rank {
  unsigned index = 0;
  std::unique_ptr<RoceNic> nic;
  uint32_t send_qp = 0, recv_qp = 0;
  std::vector<int32_t> data;  // the input, then partial sums, then the result
  uint64_t missing = 0;       // chunks still to receive
  Picos done = 0;
};

RoceRing::RoceRing(sc_core::sc_module_name name, Network& net, const std::vector<unsigned>& hosts,
                   const NetReduceRingShape& shape)
    : sc_core::sc_module(name), net_(net), shape_(shape) {
  if (hosts.size() < 2) throw InputError("a ring allreduce needs 2 ranks or more, not " + std::to_string(hosts.size()));
  if (shape.bytes == 0 || shape.bytes % 4)
    throw InputError("the ring's gradients are whole int32 elements; " + std::to_string(shape.bytes) + " bytes are not");
  if (shape.msg_packets == 0 || uint64_t(shape.mtu) * shape.msg_packets < 4)
    throw InputError("a ring chunk of " + std::to_string(shape.msg_packets) + " packets of " +
                     std::to_string(shape.mtu) + " bytes holds no element");
  elements_ = shape.bytes / 4;
  chunk_elements_ = uint64_t(shape.mtu) * shape.msg_packets / 4;
  const uint64_t largest_segment = (elements_ + hosts.size() - 1) / hosts.size();
  chunks_ = std::max<uint64_t>(1, (largest_segment + chunk_elements_ - 1) / chunk_elements_);
  for (unsigned r = 0; r < hosts.size(); ++r) {
    states_.push_back(gradient_state(shape.seed, shape.ring_id, r));
    auto k = std::make_unique<Rank>();
    k->index = r;
    k->nic = std::make_unique<RoceNic>(("nic" + std::to_string(r)).c_str(), net, hosts[r], shape.mtu, shape.timeout);
    k->send_qp = k->nic->create_qp(0);
    // A staging area per step and chunk: imm x chunk bytes.
    k->recv_qp = k->nic->create_qp(uint64_t(2 * (hosts.size() - 1)) * chunks_ * chunk_elements_ * 4);
    k->data.resize(elements_);
    for (uint64_t i = 0; i < elements_; ++i) k->data[i] = gradient_at(states_[r], i);
    Rank* me = k.get();
    k->nic->on_write([this, me](uint32_t qp, uint32_t imm, uint64_t, uint64_t) {
      if (qp == me->recv_qp) take_chunk(*me, imm);
    });
    ranks_.push_back(std::move(k));
  }
  net.join_allreduce(hosts.size());
  for (auto& k : ranks_) {
    for (unsigned t = 0; t < steps(); ++t) {
      const unsigned s = segment_of((k->index + ranks() - 1) % ranks(), t);  // what the predecessor sends
      k->missing += (segment_elements(s) + chunk_elements_ - 1) / chunk_elements_;
    }
    Rank& next = *ranks_[(k->index + 1) % ranks()];
    RoceNic::connect(*k->nic, k->send_qp, *next.nic, next.recv_qp);
  }
  SC_THREAD(start);
}

RoceRing::~RoceRing() = default;

int32_t RoceRing::gradient(unsigned r, uint64_t i) const { return gradient_at(states_.at(r), i); }
const std::vector<int32_t>& RoceRing::vector(unsigned r) const { return ranks_.at(r)->data; }
Picos RoceRing::done_at(unsigned r) const { return ranks_.at(r)->done; }
const RoceNic& RoceRing::nic(unsigned r) const { return *ranks_.at(r)->nic; }

uint64_t RoceRing::segment_start(unsigned s) const {
  return s * (elements_ / ranks()) + std::min<uint64_t>(s, elements_ % ranks());
}

uint64_t RoceRing::segment_elements(unsigned s) const { return elements_ / ranks() + (s < elements_ % ranks() ? 1 : 0); }

void RoceRing::start() {
  for (auto& k : ranks_) {
    const unsigned s = segment_of(k->index, 0);
    for (uint64_t j = 0; j * chunk_elements_ < segment_elements(s); ++j) send_chunk(*k, 0, j);
  }
}

void RoceRing::send_chunk(Rank& k, unsigned step, uint64_t chunk) {
  const unsigned s = segment_of(k.index, step);
  const uint64_t first = segment_start(s) + chunk * chunk_elements_;
  const uint64_t n = std::min(chunk_elements_, segment_elements(s) - chunk * chunk_elements_);
  Bytes b(n * 4);
  for (uint64_t i = 0; i < n; ++i) fs_put_le32(&b[4 * i], uint32_t(k.data[first + i]));
  const uint64_t slot = uint64_t(step) * chunks_ + chunk;
  k.nic->post_write(k.send_qp, b, slot * chunk_elements_ * 4, uint32_t(slot));
}

void RoceRing::take_chunk(Rank& k, uint32_t imm) {
  const unsigned step = unsigned(imm / chunks_);
  const uint64_t chunk = imm % chunks_;
  const unsigned s = segment_of((k.index + ranks() - 1) % ranks(), step);
  const uint64_t first = segment_start(s) + chunk * chunk_elements_;
  const uint64_t n = std::min(chunk_elements_, segment_elements(s) - chunk * chunk_elements_);
  const uint8_t* at = k.nic->memory(k.recv_qp).data() + uint64_t(imm) * chunk_elements_ * 4;
  for (uint64_t i = 0; i < n; ++i) {
    const uint32_t v = fs_le32(at + 4 * i);
    int32_t& mine = k.data[first + i];
    mine = step < ranks() - 1 ? int32_t(uint32_t(mine) + v) : int32_t(v);
  }
  if (step + 1 < steps()) send_chunk(k, step + 1, chunk);
  if (--k.missing == 0) {
    k.done = now_ps();
    net_.member_done();
  }
}

}  // namespace fs
