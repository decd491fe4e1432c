// SparCML's split-allgather sparse allreduce on a network's hosts (see sparcml_allreduce.h).
//
// Wire format (UDP to kSparcmlUdpPort from kSparcmlUdpPort, little-endian fields), 16 bytes:
//   0 magic "SC" | 2 kind (1 pairs, 2 dense values, 3 ACK) | 3 phase (1 reduce-scatter,
//   2 allgather) | 4 sender rank (u16) | 6 partition (u16) | 8 packet index (u32) |
//   12 packets in the message (u32)
// then a pairs packet's pairs (u32 element index over the whole vector, then the value's dtype
// bytes) or a dense packet's values: elements first + k x (values per packet) onwards of the
// partition for packet k. An ACK names the phase and the acknowledging rank.
#include "protocols/flare_sparse/sparcml_allreduce.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>

#include "common/errors.h"
#include "common/sc_time_util.h"
#include "fs_packet.h"
#include "net/frame.h"
#include "net/headers.h"
#include "protocols/flare_dense/allreduce_timing.h"
#include "protocols/flare_sparse/sparse_verify.h"

namespace fs {
namespace {

constexpr uint8_t kMagic0 = 'S', kMagic1 = 'C';
constexpr uint64_t kTimerStream = 0x7374696d;  // "stim": the share of a timeout added to hosts.timeout_ns
enum Kind : uint8_t { kPairs = 1, kDense = 2, kAck = 3 };

struct Header {
  uint8_t kind = 0, phase = 0;
  uint16_t sender = 0, partition = 0;
  uint32_t packet = 0, packets = 0;
};

void put16(uint8_t* p, uint16_t v) { p[0] = uint8_t(v), p[1] = uint8_t(v >> 8); }
uint16_t get16(const uint8_t* p) { return uint16_t(p[0] | p[1] << 8); }

Bytes header_bytes(const Header& h) {
  Bytes b(kSparcmlHeaderBytes, 0);
  b[0] = kMagic0, b[1] = kMagic1, b[2] = h.kind, b[3] = h.phase;
  put16(&b[4], h.sender);
  put16(&b[6], h.partition);
  fs_put_le32(&b[8], h.packet);
  fs_put_le32(&b[12], h.packets);
  return b;
}

// A value's dtype bytes (little-endian) at p, and back.
void put_value(uint8_t* p, uint32_t bits, unsigned size) { for (unsigned i = 0; i < size; ++i) p[i] = uint8_t(bits >> (8 * i)); }
uint32_t get_value(const uint8_t* p, unsigned size) {
  uint32_t v = 0;
  for (unsigned i = 0; i < size; ++i) v |= uint32_t(p[i]) << (8 * i);
  return v;
}

}  // namespace

// One member: its vector's pairs, the partition it reduces, what it has received, and the
// messages it sends (one thread: originals in order, retransmissions when due).
class SparcmlAllreduce::Rank : public sc_core::sc_module, public PacketSinkIf {
 public:
  SC_HAS_PROCESS(Rank);
  Rank(sc_core::sc_module_name name, SparcmlAllreduce& owner, unsigned rank, unsigned host, SparsePairs input)
      : sc_core::sc_module(name), owner_(owner), rank_(rank), host_(host), input_(std::move(input)) {
    const uint64_t first = owner.partition_first(rank), end = owner.partition_end(rank);
    acc_.assign(end - first, 0);
    present_.assign(end - first, false);
    fold(pairs_in(rank));
    owner.net_.host(host).bind_udp(kSparcmlUdpPort, this);
    SC_THREAD(run);
  }

  void accept(PacketPtr p) override;

  unsigned host() const { return host_; }
  unsigned gathered = 0;  // partitions it has complete, its own included
  bool done() const { return gathered == owner_.ranks(); }

 private:
  struct Outgoing {
    unsigned phase = 0, to = 0;
    std::vector<Bytes> frames;
    unsigned sends = 0;
    bool acked = false;
    Picos due = 0;  // when to send it again (in due_ while not acknowledged)
  };
  struct Incoming {
    std::vector<bool> got;
    uint32_t count = 0;
    SparsePairs pairs;  // allgather: the partition's non-zeros so far
    bool complete = false;
  };

  // Its input's pairs in partition q.
  SparsePairs pairs_in(unsigned q) const {
    const uint64_t first = owner_.partition_first(q), end = owner_.partition_end(q);
    auto lo = std::lower_bound(input_.begin(), input_.end(), first, [](const SparsePair& p, uint64_t i) { return p.index < i; });
    auto hi = std::lower_bound(lo, input_.end(), end, [](const SparsePair& p, uint64_t i) { return p.index < i; });
    return SparsePairs(lo, hi);
  }
  void fold(const SparsePairs& pairs) {
    const uint64_t first = owner_.partition_first(rank_);
    for (const SparsePair& p : pairs) {
      const size_t i = size_t(p.index - first);
      acc_[i] = present_[i] ? sparse_fold(owner_.w_.dtype, owner_.w_.op, acc_[i], p.bits) : p.bits;
      present_[i] = true;
    }
  }
  // Its reduced partition, zero results left out.
  SparsePairs reduced() const {
    SparsePairs out;
    const uint64_t first = owner_.partition_first(rank_);
    for (size_t i = 0; i < acc_.size(); ++i)
      if (present_[i] && acc_[i]) out.push_back({uint32_t(first + i), acc_[i]});
    return out;
  }
  // Its message of `phase` to rank `to`: out_ holds them in the order queue_phase makes them.
  size_t message_index(unsigned phase, unsigned to) const {
    const unsigned n = owner_.ranks();
    return size_t(phase - 1) * (n - 1) + (to + n - rank_) % n - 1;
  }
  // Queues a message to every other rank, in turn from rank + 1.
  void queue_phase(unsigned phase) {
    const unsigned n = owner_.ranks();
    const SparsePairs mine = phase == 2 ? reduced() : SparsePairs();
    for (unsigned s = 1; s < n; ++s) {
      const unsigned to = (rank_ + s) % n;
      Outgoing m;
      m.phase = phase, m.to = to;
      m.frames = phase == 1 ? owner_.message(1, rank_, to, to, pairs_in(to)) : owner_.message(2, rank_, to, rank_, mine);
      out_.push_back(std::move(m));
      ready_.push_back(out_.size() - 1);
    }
    wake_.notify(sc_core::SC_ZERO_TIME);
  }
  void run();
  void send(size_t m);
  void take_data(const Header& h, const uint8_t* data, size_t len);
  void send_ack(unsigned phase, unsigned to);
  void partition_complete(unsigned part, SparsePairs got);

  SparcmlAllreduce& owner_;
  unsigned rank_, host_;
  SparsePairs input_;                 // its vector, indices over the whole vector
  std::vector<uint32_t> acc_;         // its partition, being reduced
  std::vector<bool> present_;
  unsigned reduced_from_ = 0;         // reduce-scatter messages complete
  std::map<std::pair<unsigned, unsigned>, Incoming> in_;  // (phase, sender) -> what came
  std::vector<Outgoing> out_;
  std::deque<size_t> ready_;          // messages to send for the first time, in order
  uint64_t timer_draws_ = 0;          // timeouts drawn so far: the timer stream's draw number
  std::set<std::pair<Picos, size_t>> due_;  // (resend time, message) of unacknowledged ones
  sc_core::sc_event wake_;
};

void SparcmlAllreduce::Rank::run() {
  queue_phase(1);
  if (owner_.ranks() == 1) partition_complete(rank_, reduced());
  for (;;) {
    const Picos now = now_ps();
    if (!due_.empty() && due_.begin()->first <= now) {
      const size_t m = due_.begin()->second;
      due_.erase(due_.begin());
      if (out_[m].sends >= kSparcmlMaxSends) {
        ++owner_.counts_.gave_up;
        continue;
      }
      ++owner_.counts_.retransmissions;
      send(m);
      continue;
    }
    if (!ready_.empty()) {
      const size_t m = ready_.front();
      ready_.pop_front();
      send(m);
      continue;
    }
    if (due_.empty() && done()) return;
    if (due_.empty())
      wait(wake_);
    else
      wait(ps_time(due_.begin()->first - now), wake_);
  }
}

void SparcmlAllreduce::Rank::send(size_t m) {
  Outgoing& o = out_[m];
  ++o.sends;
  HostPort& port = owner_.net_.host(host_);
  for (const Bytes& f : o.frames) {
    if (o.acked) return;
    auto p = std::make_shared<Packet>();
    p->data = f;
    ++owner_.counts_.packets_sent;
    owner_.counts_.bytes_sent += f.size();
    port.send(std::move(p));
    wait(ps_time(port.nic().params().wire_time_of(f.size())));
  }
  if (o.acked) return;
  // hosts.timeout_ns and a share of it up to as much again, drawn from the seed: senders that
  // lost packets together do not all send again together.
  const uint64_t draw = timing_draw(owner_.seed_, kTimerStream, rank_, ++timer_draws_);
  o.due = now_ps() + owner_.timeout_ + Picos((static_cast<unsigned __int128>(draw) * owner_.timeout_) >> 64);
  due_.insert({o.due, m});
}

void SparcmlAllreduce::Rank::accept(PacketPtr p) {
  const Headers hd = walk_headers(p->data.data(), p->data.size());
  const uint8_t* u = p->data.data() + hd.payload_offset;
  if (!hd.ok || hd.payload_len < kSparcmlHeaderBytes || u[0] != kMagic0 || u[1] != kMagic1)
    return void(++owner_.counts_.stray_packets);
  Header h;
  h.kind = u[2], h.phase = u[3], h.sender = get16(u + 4), h.partition = get16(u + 6);
  h.packet = fs_le32(u + 8), h.packets = fs_le32(u + 12);
  const unsigned n = owner_.ranks();
  if ((h.phase != 1 && h.phase != 2) || h.sender >= n || h.sender == rank_) return void(++owner_.counts_.stray_packets);
  if (h.kind == kAck) {
    const size_t m = message_index(h.phase, h.sender);
    if (m >= out_.size()) return void(++owner_.counts_.stray_packets);  // allgather not begun: nothing to ACK
    if (!out_[m].acked) {
      out_[m].acked = true;
      due_.erase({out_[m].due, m});
      wake_.notify(sc_core::SC_ZERO_TIME);
    }
    return;
  }
  const unsigned want_part = h.phase == 1 ? rank_ : h.sender;
  if ((h.kind != kPairs && h.kind != kDense) || h.partition != want_part || h.packets == 0 || h.packet >= h.packets)
    return void(++owner_.counts_.stray_packets);
  take_data(h, u + kSparcmlHeaderBytes, hd.payload_len - kSparcmlHeaderBytes);
}

void SparcmlAllreduce::Rank::take_data(const Header& h, const uint8_t* data, size_t len) {
  Incoming& in = in_[{h.phase, h.sender}];
  if (in.complete) return send_ack(h.phase, h.sender);  // its ACK was lost or late: again
  if (in.got.empty()) in.got.assign(h.packets, false);
  if (in.got.size() != h.packets) return void(++owner_.counts_.stray_packets);  // disagrees with its first packet
  if (in.got[h.packet]) return;  // a duplicate
  // The packet's elements as pairs.
  SparsePairs pairs;
  const unsigned vs = owner_.dsize_;
  const uint64_t first = owner_.partition_first(h.partition), end = owner_.partition_end(h.partition);
  if (h.kind == kPairs) {
    for (size_t off = 0; off + owner_.pair_bytes_ <= len; off += owner_.pair_bytes_)
      pairs.push_back({fs_le32(data + off), get_value(data + off + 4, vs)});
  } else {
    const uint64_t at = first + uint64_t(h.packet) * (owner_.per_packet_bytes_ / vs);
    for (size_t k = 0; (k + 1) * vs <= len && at + k < end; ++k)
      if (const uint32_t bits = get_value(data + k * vs, vs)) pairs.push_back({uint32_t(at + k), bits});
  }
  for (const SparsePair& p : pairs)
    if (p.index < first || p.index >= end) return void(++owner_.counts_.stray_packets);
  in.got[h.packet] = true;
  ++in.count;
  if (h.phase == 1)
    fold(pairs);
  else
    in.pairs.insert(in.pairs.end(), pairs.begin(), pairs.end());
  if (in.count < h.packets) return;
  in.complete = true;
  send_ack(h.phase, h.sender);
  if (h.phase == 1) {
    if (++reduced_from_ == owner_.ranks() - 1) {
      partition_complete(rank_, reduced());
      queue_phase(2);
    }
  } else {
    SparsePairs got = std::move(in.pairs);
    std::sort(got.begin(), got.end(), [](const SparsePair& a, const SparsePair& b) { return a.index < b.index; });
    partition_complete(h.sender, std::move(got));
  }
}

void SparcmlAllreduce::Rank::send_ack(unsigned phase, unsigned to) {
  Header h;
  h.kind = kAck, h.phase = uint8_t(phase), h.sender = uint16_t(rank_);
  auto p = std::make_shared<Packet>();
  p->data = owner_.frame(rank_, to, header_bytes(h));
  ++owner_.counts_.acks_sent;
  owner_.counts_.bytes_sent += p->data.size();
  owner_.net_.host(host_).send(std::move(p));
}

void SparcmlAllreduce::Rank::partition_complete(unsigned part, SparsePairs got) {
  owner_.check(rank_, part, got);
  if (++gathered == owner_.ranks()) {
    owner_.done_at_ = std::max(owner_.done_at_, now_ps());
    owner_.net_.member_done();
    wake_.notify(sc_core::SC_ZERO_TIME);
  }
}

SparcmlAllreduce::SparcmlAllreduce(sc_core::sc_module_name name, const Config& cfg, Network& net,
                                   const std::vector<unsigned>& members)
    : sc_core::sc_module(name),
      net_(net),
      w_(make_sparse_workload(sparse_workload_options(cfg, unsigned(members.size())))),
      bytes_(cfg.hosts.bytes),
      dsize_(flare_dtype_bytes(w_.dtype)),
      pair_bytes_(flare_pair_bytes(w_.dtype)),
      per_packet_bytes_(cfg.hosts.elem_bytes),
      timeout_(Picos(cfg.hosts.timeout_ns) * 1000),
      seed_(cfg.seed) {
  if (members.size() > 0xFFFF) throw InputError("hosts.members: SparCML's header numbers at most 65535 ranks");
  if (w_.elements > 0xFFFFFFFFull)
    throw InputError("hosts.bytes: SparCML's pairs index at most 2^32 elements; the vector has " +
                     std::to_string(w_.elements));
  if (per_packet_bytes_ < pair_bytes_)
    throw InputError("hosts.elem_bytes (" + std::to_string(per_packet_bytes_) + ") holds no " +
                     std::to_string(pair_bytes_) + "-byte pair");
  ranks_count_ = unsigned(members.size());
  counts_.model = "sparcml";
  counts_.hosts = members.size();
  counts_.bytes = bytes_;
  for (uint64_t b = 0; b < w_.blocks(); ++b)
    for (const SparsePair& p : w_.reference[b].pairs) reference_.push_back({uint32_t(b * w_.span + p.index), p.bits});
  ranks_.reserve(members.size());
  for (unsigned r = 0; r < members.size(); ++r) {
    SparsePairs input;
    for (uint64_t b = 0; b < w_.blocks(); ++b)
      for (const SparsePair& p : w_.hosts[r][b]) input.push_back({uint32_t(b * w_.span + p.index), p.bits});
    ranks_.push_back(std::make_unique<Rank>(("rank" + std::to_string(r)).c_str(), *this, r, members[r], std::move(input)));
  }
  net.join_allreduce(members.size());
}

SparcmlAllreduce::~SparcmlAllreduce() = default;

uint64_t SparcmlAllreduce::partition_first(unsigned q) const {
  const uint64_t part = (w_.elements + ranks_count_ - 1) / ranks_count_;
  return std::min(w_.elements, q * part);
}

uint64_t SparcmlAllreduce::partition_end(unsigned q) const { return partition_first(q + 1); }

SparsePairs SparcmlAllreduce::reference_of(unsigned q) const {
  const uint64_t first = partition_first(q), end = partition_end(q);
  auto lo = std::lower_bound(reference_.begin(), reference_.end(), first, [](const SparsePair& p, uint64_t i) { return p.index < i; });
  auto hi = std::lower_bound(lo, reference_.end(), end, [](const SparsePair& p, uint64_t i) { return p.index < i; });
  return SparsePairs(lo, hi);
}

std::vector<Bytes> SparcmlAllreduce::message(unsigned phase, unsigned from, unsigned to, unsigned part,
                                             const SparsePairs& pairs) {
  const uint64_t first = partition_first(part), elements = partition_end(part) - first;
  const bool dense = pairs.size() * pair_bytes_ > elements * dsize_;
  const unsigned unit = dense ? dsize_ : pair_bytes_, per_packet = per_packet_bytes_ / unit;
  const uint64_t items = dense ? elements : pairs.size();
  const uint32_t packets = uint32_t(std::max<uint64_t>(1, (items + per_packet - 1) / per_packet));
  dense_messages_ += dense;
  std::vector<Bytes> out;
  std::vector<uint32_t> values;
  if (dense) {
    values.assign(elements, 0);
    for (const SparsePair& p : pairs) values[p.index - first] = p.bits;
  }
  for (uint32_t k = 0; k < packets; ++k) {
    Header h;
    h.kind = dense ? kDense : kPairs, h.phase = uint8_t(phase), h.sender = uint16_t(from), h.partition = uint16_t(part);
    h.packet = k, h.packets = packets;
    Bytes payload = header_bytes(h);
    const uint64_t lo = uint64_t(k) * per_packet, hi = std::min(items, lo + per_packet);
    payload.resize(kSparcmlHeaderBytes + (hi - lo) * unit);
    uint8_t* d = payload.data() + kSparcmlHeaderBytes;
    for (uint64_t i = lo; i < hi; ++i, d += unit) {
      if (dense) {
        put_value(d, values[i], dsize_);
      } else {
        fs_put_le32(d, pairs[i].index);
        put_value(d + 4, pairs[i].bits, dsize_);
      }
    }
    out.push_back(frame(from, to, payload));
  }
  return out;
}

Bytes SparcmlAllreduce::frame(unsigned from, unsigned to, const Bytes& payload) const {
  const unsigned a = ranks_[from]->host(), b = ranks_[to]->host();
  uint8_t src[6], dst[6];
  fs_host_mac(a, src);
  fs_host_mac(b, dst);
  return build_udp_frame(src, dst, fs_host_ipv4(a), fs_host_ipv4(b), kSparcmlUdpPort, kSparcmlUdpPort, payload.data(),
                         payload.size());
}

void SparcmlAllreduce::check(unsigned rank, unsigned part, const SparsePairs& got) {
  const std::string wrong = compare_sparse_pairs(w_.dtype, got, reference_of(part));
  if (!wrong.empty() && !wrong_++)
    first_problem_ = "rank " + std::to_string(rank) + ", partition " + std::to_string(part) + ": " + wrong;
}

AllreduceStats SparcmlAllreduce::stats() const {
  AllreduceStats s = counts_;
  for (const auto& r : ranks_) s.unfinished_ranks += !r->done();
  s.conclude(done_at_, !wrong_);
  return s;
}

std::string SparcmlAllreduce::failure() const {
  if (wrong_)
    return "the SparCML allreduce's results are wrong: " + std::to_string(wrong_) + " partitions wrong in all; the first: " +
           first_problem_;
  const AllreduceStats s = stats();
  for (const auto& r : ranks_)
    if (!r->done())
      return "the SparCML allreduce did not complete: " + std::to_string(s.unfinished_ranks) + " of " +
             std::to_string(ranks_.size()) + " ranks are missing partitions (the first of them has " +
             std::to_string(r->gathered) + " of " + std::to_string(ranks_.size()) + "; " + std::to_string(s.gave_up) +
             " messages given up in all)";
  return "";
}

}  // namespace fs
