// A host-based collective run from a schedule of transfers (see collective.h).
//
// Wire format (UDP to kCollectiveUdpPort from it, big-endian fields), 16 bytes:
//   0 magic "FSCO" | 4 kind (0 data, 1 ACK) | 5 reserved (0) | 6 reserved (0) | 8 transfer |
//   12 block (data: the block's index in the transfer; ACK: blocks 0 .. block - 1 arrived)
// then a data packet's int32 values, little-endian.
#include "protocols/collectives/collective.h"

#include "protocols/collectives/collectives_config.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>

#include "common/errors.h"
#include "common/fnv1a.h"
#include "common/sc_time_util.h"
#include "fs_packet.h"
#include "net/frame.h"
#include "net/headers.h"

namespace fs {
namespace {

constexpr uint32_t kMagic = 0x4653434F;  // "FSCO"
constexpr unsigned kHeaderBytes = 16;
constexpr uint8_t kData = 0, kAck = 1;

}  // namespace

// One member: its vector, its transfers out (sent in turn, as their blocks are ready) and in.
class Collective::Member : public sc_core::sc_module, public PacketSinkIf {
 public:
  SC_HAS_PROCESS(Member);
  Member(sc_core::sc_module_name name, Collective& owner, unsigned rank)
      : sc_core::sc_module(name), owner_(owner), rank_(rank), host_(owner.hosts_[rank]) {
    values_.resize(owner.elements_);
    for (uint64_t e = 0; e < values_.size(); ++e) values_[e] = owner.value(rank, e);
    const std::vector<CollectiveTransfer>& ts = owner.schedule_.transfers;
    for (unsigned t = 0; t < ts.size(); ++t) {
      if (ts[t].from == rank) out_.push_back({t});
      if (ts[t].to == rank) in_[t].assign(ts[t].blocks, false), blocks_to_come_ += ts[t].blocks;
    }
    owner.net_.host(host_).bind_udp(kCollectiveUdpPort, this);
    SC_THREAD(send_loop);
    if (!blocks_to_come_) SC_THREAD(finish_now);
  }

  void accept(PacketPtr p) override;
  bool done() const { return blocks_to_come_ == 0; }

 private:
  struct Out {
    unsigned transfer;
    uint64_t next = 0;       // its next block to send
    uint64_t acked = 0;      // blocks the receiver has acknowledged
  };
  const CollectiveTransfer& transfer(unsigned t) const { return owner_.schedule_.transfers[t]; }
  bool ready(const Out& o) const;
  void send_block(Out& o);
  void send(unsigned to_rank, const Bytes& payload);
  void ack(unsigned t, uint64_t upto);
  void finished();
  void send_loop();
  void finish_now() { finished(); }

  Collective& owner_;
  const unsigned rank_, host_;
  std::vector<int32_t> values_;
  std::vector<Out> out_;
  std::map<unsigned, std::vector<bool>> in_;  // by transfer: which of its blocks arrived
  std::map<unsigned, uint64_t> in_upto_;      // by transfer: its first block not yet arrived in a row
  uint64_t blocks_to_come_ = 0;
  size_t turn_ = 0;  // the transfer out to try first
  sc_core::sc_event wake_;
};

// Block o.next of the transfer may go: the window has room and every transfer it waits for whose
// blocks hold it has brought it here.
bool Collective::Member::ready(const Out& o) const {
  const CollectiveTransfer& t = transfer(o.transfer);
  if (o.next >= t.blocks || o.next - o.acked >= owner_.window_) return false;
  const uint64_t block = t.first_block + o.next;
  for (unsigned d : t.after) {
    const CollectiveTransfer& dep = transfer(d);
    if (block < dep.first_block || block >= dep.first_block + dep.blocks) continue;
    if (!in_.at(d)[block - dep.first_block]) return false;
  }
  return true;
}

void Collective::Member::send_loop() {
  const LinkParams& link = owner_.net_.host(host_).nic().params();
  for (;;) {
    size_t k = 0;
    for (; k < out_.size() && !ready(out_[(turn_ + k) % out_.size()]); ++k) {
    }
    if (k == out_.size()) {
      wait(wake_);
      continue;
    }
    Out& o = out_[(turn_ + k) % out_.size()];
    turn_ = (turn_ + k + 1) % out_.size();
    const size_t bytes = FS_UDP_PAYLOAD_OFFSET + kHeaderBytes + owner_.block_elements(transfer(o.transfer).first_block + o.next) * 4;
    send_block(o);
    wait(ps_time(link.wire_time_of(bytes)));
  }
}

void Collective::Member::send_block(Out& o) {
  const CollectiveTransfer& t = transfer(o.transfer);
  const uint64_t block = t.first_block + o.next;
  const uint64_t first = block * owner_.per_packet_, n = owner_.block_elements(block);
  Bytes payload(kHeaderBytes + n * 4, 0);
  fs_put_be32(payload.data(), kMagic);
  payload[4] = kData;
  fs_put_be32(payload.data() + 8, o.transfer);
  fs_put_be32(payload.data() + 12, uint32_t(o.next));
  for (uint64_t e = 0; e < n; ++e) fs_put_le32(payload.data() + kHeaderBytes + 4 * e, uint32_t(values_[first + e]));
  ++o.next;
  ++owner_.base_.packets_sent;
  send(t.to, payload);
}

void Collective::Member::send(unsigned to_rank, const Bytes& payload) {
  uint8_t src[6], dst[6];
  fs_host_mac(host_, src);
  fs_switch_mac(dst);
  auto p = std::make_shared<Packet>();
  p->data = build_udp_frame(src, dst, fs_host_ipv4(host_), fs_host_ipv4(owner_.hosts_[to_rank]), kCollectiveUdpPort,
                            kCollectiveUdpPort, payload.data(), payload.size());
  owner_.base_.bytes_sent += p->data.size();
  owner_.net_.host(host_).send(std::move(p));
}

void Collective::Member::ack(unsigned t, uint64_t upto) {
  Bytes payload(kHeaderBytes, 0);
  fs_put_be32(payload.data(), kMagic);
  payload[4] = kAck;
  fs_put_be32(payload.data() + 8, t);
  fs_put_be32(payload.data() + 12, uint32_t(upto));
  ++owner_.base_.acks_sent;
  send(transfer(t).from, payload);
}

void Collective::Member::accept(PacketPtr pkt) {
  const Headers h = walk_headers(pkt->data.data(), pkt->data.size());
  const uint8_t* u = pkt->data.data() + h.payload_offset;
  const auto stray = [&] { ++owner_.base_.stray_packets; };
  if (h.payload_len < kHeaderBytes || fs_be32(u) != kMagic) return stray();
  const uint32_t t = uint32_t(fs_be32(u + 8)), b = uint32_t(fs_be32(u + 12));
  if (t >= owner_.schedule_.transfers.size()) return stray();
  const CollectiveTransfer& tr = transfer(t);
  if (u[4] == kAck) {
    if (tr.from != rank_) return stray();
    for (Out& o : out_)
      if (o.transfer == t && b > o.acked && b <= o.next) o.acked = b, wake_.notify(sc_core::SC_ZERO_TIME);
    return;
  }
  if (tr.to != rank_ || b >= tr.blocks) return stray();
  const uint64_t block = tr.first_block + b, first = block * owner_.per_packet_, n = owner_.block_elements(block);
  if (h.payload_len != kHeaderBytes + n * 4) return stray();
  std::vector<bool>& got = in_.at(t);
  if (got[b]) return stray();
  for (uint64_t e = 0; e < n; ++e) {
    const uint32_t x = uint32_t(fs_le32(u + kHeaderBytes + 4 * e));
    values_[first + e] = int32_t(tr.reduce ? uint32_t(values_[first + e]) + x : x);
  }
  got[b] = true;
  uint64_t& upto = in_upto_[t];
  while (upto < tr.blocks && got[upto]) ++upto;
  const uint64_t every = std::max<uint64_t>(1, owner_.window_ / 2);
  if (upto == tr.blocks || upto % every == 0) ack(t, upto);
  wake_.notify(sc_core::SC_ZERO_TIME);
  if (--blocks_to_come_ == 0) finished();
}

void Collective::Member::finished() {
  owner_.check(rank_, values_);
  owner_.done_at_ = std::max(owner_.done_at_, now_ps());
  owner_.net_.member_done();
}

Collective::Collective(sc_core::sc_module_name name, const Config& cfg, Network& net,
                       const std::vector<unsigned>& members, const std::string& model, CollectiveSchedule schedule)
    : sc_core::sc_module(name), cfg_(cfg), net_(net), hosts_(members), model_(model), schedule_(std::move(schedule)) {
  if (cfg.hosts.dtype != "int32" || cfg.hosts.op != "sum")
    throw InputError("hosts.dtype: hosts.model " + model + " reduces int32 values, summed (hosts.dtype int32, hosts.op sum)");
  per_packet_ = cfg.hosts.elem_bytes / 4;
  elements_ = cfg.hosts.bytes / 4;
  window_ = collectives_window(cfg);
  const uint64_t blocks = (elements_ + per_packet_ - 1) / per_packet_;
  const std::vector<CollectiveTransfer>& ts = schedule_.transfers;
  for (const CollectiveTransfer& t : ts) {
    if (t.from >= members.size() || t.to >= members.size() || t.from == t.to || t.first_block + t.blocks > blocks)
      throw std::logic_error("Collective: a transfer outside the members or the vector");
    for (unsigned d : t.after)
      if (d >= ts.size() || ts[d].to != t.from)
        throw std::logic_error("Collective: a transfer waits for one that does not come to its sender");
  }
  values_seed_ = component_seed(cfg.seed, "collective.values");
  net.join_allreduce(members.size());
  for (unsigned rank = 0; rank < members.size(); ++rank)
    members_.push_back(std::make_unique<Member>(("member" + std::to_string(rank)).c_str(), *this, rank));
}

Collective::~Collective() = default;

int32_t Collective::value(unsigned rank, uint64_t element) const { return member_value(values_seed_, 0, rank, element); }

uint64_t Collective::block_elements(uint64_t block) const {
  return std::min<uint64_t>(per_packet_, elements_ - block * per_packet_);
}

void Collective::check(unsigned rank, const std::vector<int32_t>& got) {
  if (sum_.empty()) {
    sum_.assign(elements_, 0);
    for (unsigned r = 0; r < hosts_.size(); ++r)
      for (uint64_t e = 0; e < elements_; ++e) sum_[e] += uint32_t(value(r, e));
  }
  for (uint64_t e = 0; e < elements_; ++e) {
    const uint32_t want = sum_[e];
    if (uint32_t(got[e]) != want) {
      if (!wrong_++)
        first_problem_ = "rank " + std::to_string(rank) + ", element " + std::to_string(e) + ": got " +
                         std::to_string(got[e]) + ", want " + std::to_string(int32_t(want));
      return;
    }
  }
}

AllreduceStats Collective::stats() const {
  AllreduceStats s = base_;
  s.model = model_;
  s.hosts = hosts_.size();
  s.bytes = elements_ * 4;
  s.unfinished_ranks = 0;
  for (const auto& m : members_) s.unfinished_ranks += !m->done();
  s.details = {{"transfers", schedule_.transfers.size()}, {"steps", schedule_.steps}};
  s.conclude(done_at_, !wrong_);
  return s;
}

std::string Collective::failure() const {
  if (wrong_) return "the " + model_ + " results are wrong: " + std::to_string(wrong_) + " members; the first: " + first_problem_;
  const AllreduceStats s = stats();
  if (s.unfinished_ranks)
    return "the " + model_ + " allreduce did not complete: " + std::to_string(s.unfinished_ranks) + " of " +
           std::to_string(hosts_.size()) + " members are missing blocks (a lost packet is not sent again)";
  return "";
}

}  // namespace fs
