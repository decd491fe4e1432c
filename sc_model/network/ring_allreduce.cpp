// The host-based ring allreduce (see ring_allreduce.h).
//
// Element values: the host h of a rank draws from state = component_seed(sim.seed,
// "ring/host<h>"); each element adds the golden-ratio increment to the state and takes
// x = splitmix64_mix(state). int32/int16/int8 take x's low 32/16/8 bits (the full two's-complement
// range; sums wrap, as the switch's folds do); float32 takes the integer (x >> 54) - 512, in
// -512..511, so that every partial sum is an integer below 2^24 and exact in any order.
//
// Wire format (UDP to kRingUdpPort from kRingUdpPort, big-endian fields), 16 bytes:
//   0 magic "FSRA" | 4 kind (0 data, 1 ACK) | 5 attempt (0: first send, k: k-th retransmission;
//   an ACK: the attempt that completed or repeated the segment) | 6 sender rank | 8 segment |
//   10 step | 12 packet index (an ACK: the segment's packet count)
// then a data packet's elements (hosts.dtype, little-endian).
#include "network/ring_allreduce.h"

#include <algorithm>
#include <cstring>

#include "common/errors.h"
#include "common/float_bits.h"
#include "common/fnv1a.h"
#include "common/splitmix64.h"
#include "fs_packet.h"
#include "net/frame.h"
#include "net/headers.h"

namespace fs {
namespace {

constexpr uint32_t kMagic = 0x46535241;  // "FSRA"
constexpr uint8_t kData = 0, kAck = 1;
constexpr unsigned kAttemptOffset = 5;   // in the header

struct RingHeader {
  uint8_t kind = 0, attempt = 0;
  unsigned sender = 0, segment = 0, step = 0;
  uint32_t packet = 0;
};

void put_header(uint8_t* p, const RingHeader& h) {
  fs_put_be32(p, kMagic);
  p[4] = h.kind, p[kAttemptOffset] = h.attempt;
  fs_put_be16(p + 6, h.sender), fs_put_be16(p + 8, h.segment), fs_put_be16(p + 10, h.step);
  fs_put_be32(p + 12, h.packet);
}

RingHeader get_header(const uint8_t* p) {
  RingHeader h;
  h.kind = p[4], h.attempt = p[kAttemptOffset];
  h.sender = fs_be16(p + 6), h.segment = fs_be16(p + 8), h.step = fs_be16(p + 10);
  h.packet = fs_be32(p + 12);
  return h;
}

uint32_t load_le(const uint8_t* p, unsigned size) {
  uint32_t v = 0;
  for (unsigned b = 0; b < size; ++b) v |= uint32_t(p[b]) << (8 * b);
  return v;
}

void store_le(uint8_t* p, unsigned size, uint32_t v) {
  for (unsigned b = 0; b < size; ++b) p[b] = uint8_t(v >> (8 * b));
}

// The two's-complement value of the low `size` bytes of v.
int32_t signed_of(uint32_t v, unsigned size) {
  const unsigned shift = 32 - 8 * size;
  return int32_t(v << shift) >> shift;
}

// The hosts hosts.members names, in rank order; InputError for a bad list, or fewer than 2 or
// more than kRingMaxMembers of them.
std::vector<unsigned> members_of(const std::string& text, unsigned hosts) {
  const std::vector<unsigned> members = member_hosts(text, hosts);
  if (members.size() < 2 || members.size() > kRingMaxMembers)
    throw InputError("bad value '" + text + "' for 'hosts.members': the ring allreduce needs 2 to " +
                     std::to_string(kRingMaxMembers) + " hosts, not " + std::to_string(members.size()));
  return members;
}

}  // namespace

// One member of the ring: its vector, each step's segment as its sender keeps it until it is
// acknowledged and as its receiver assembles it, and the sink its host hands ring frames to.
struct RingAllreduce::Rank : PacketSinkIf {
  struct Outbound {
    std::vector<Bytes> frames;  // as first sent, kept for retransmission until acknowledged
    uint32_t handed = 0;        // packets handed to the NIC the first time
    unsigned sends = 0;         // times the whole segment has been sent
    bool acked = false;
    Picos deadline = 0;         // of its armed timeout
  };
  struct Inbound {
    std::vector<bool> got;  // by packet index
    uint32_t count = 0;
    int acked_attempt = -1;  // the highest attempt acknowledged
  };

  Rank(RingAllreduce& ring, unsigned index, unsigned host) : ring(ring), index(index), host(host) {}
  void accept(PacketPtr p) override { ring.receive(index, *p); }

  RingAllreduce& ring;
  unsigned index, host;
  Bytes data;  // the input, then partial reductions, then the result
  std::vector<Outbound> out;  // by step
  std::vector<Inbound> in;    // by step
  unsigned incomplete = 0;    // inbound steps still missing packets
  Picos done = 0;             // when the last of them completed
};

RingAllreduce::RingAllreduce(sc_core::sc_module_name name, const Config& cfg, Network& net, unsigned group)
    : sc_core::sc_module(name), net_(net) {
  const std::vector<unsigned> members = member_groups(members_of(cfg.hosts.members, unsigned(net.host_count())),
                                                      cfg.hosts.groups, 2, "ring")
                                            .at(group);
  set_workload(cfg.hosts);
  seed_ = cfg.seed;
  counts_.model = "ring";
  counts_.hosts = members.size();
  counts_.bytes = bytes_;
  for (unsigned r = 0; r < members.size(); ++r) ranks_.push_back(std::make_unique<Rank>(*this, r, members[r]));
  for (unsigned r = 0; r < ranks(); ++r) {
    Rank& rank = *ranks_[r];
    rank.data = input(r);
    rank.out.resize(steps());
    rank.in.resize(steps());
    for (unsigned t = 0; t < steps(); ++t) {
      rank.in[t].got.assign(segment_packets(segment_of(prev(r), t)), false);
      rank.incomplete += !rank.in[t].got.empty();
    }
    net.host(rank.host).bind_udp(kRingUdpPort, &rank);
    if (r == 0) {
      expected_ = rank.data;
    } else {
      fold(expected_.data(), rank.data.data(), elements_);
    }
  }
  net.join_allreduce(ranks());
  SC_THREAD(run);
}

void RingAllreduce::set_workload(const HostsConfig& h) {
  static const std::pair<const char*, Dtype> dtypes[] = {
      {"int32", Dtype::kInt32}, {"int16", Dtype::kInt16}, {"int8", Dtype::kInt8}, {"float32", Dtype::kFloat32}};
  for (const auto& [dname, d] : dtypes)
    if (h.dtype == dname) dtype_ = d;  // a choice key: one of them
  dsize_ = dtype_ == Dtype::kInt16 ? 2 : dtype_ == Dtype::kInt8 ? 1 : 4;
  op_ = h.op == "min" ? Op::kMin : h.op == "max" ? Op::kMax : Op::kSum;
  for (const auto& [key, value] : {std::pair{"hosts.bytes", h.bytes}, std::pair{"hosts.elem_bytes", uint64_t(h.elem_bytes)}})
    if (value % dsize_)
      throw InputError("bad value '" + std::to_string(value) + "' for '" + key + "': not a whole number of " + h.dtype +
                       " elements (" + std::to_string(dsize_) + " bytes each)");
  if (h.loss != 0)
    throw InputError("hosts.loss: the ring allreduce's hosts lose nothing themselves (its losses are the network's "
                     "drops); leave hosts.loss at 0");
  bytes_ = h.bytes, elements_ = h.bytes / dsize_, per_packet_ = h.elem_bytes / dsize_;
  timeout_ = h.timeout_ns * kPicosPerNs;
}

RingAllreduce::~RingAllreduce() = default;

unsigned RingAllreduce::host_of(unsigned rank) const { return ranks_.at(rank)->host; }

Bytes RingAllreduce::input(unsigned rank) const {
  Bytes out(size_t(elements_) * dsize_);
  uint64_t state = component_seed(seed_, "ring/host" + std::to_string(host_of(rank)));
  for (uint64_t i = 0; i < elements_; ++i) {
    state += kSplitmixGolden;
    const uint64_t x = splitmix64_mix(state);
    const uint32_t v = dtype_ == Dtype::kFloat32 ? bits_of_float(float(int64_t(x >> 54) - 512)) : uint32_t(x);
    store_le(out.data() + i * dsize_, dsize_, v);
  }
  return out;
}

const Bytes& RingAllreduce::result(unsigned rank) const { return ranks_.at(rank)->data; }

uint64_t RingAllreduce::segment_start(unsigned s) const {
  const uint64_t base = elements_ / ranks(), extra = elements_ % ranks();
  return s * base + std::min<uint64_t>(s, extra);
}

uint64_t RingAllreduce::segment_elements(unsigned s) const {
  return elements_ / ranks() + (s < elements_ % ranks() ? 1 : 0);
}

uint32_t RingAllreduce::segment_packets(unsigned s) const {
  return uint32_t((segment_elements(s) + per_packet_ - 1) / per_packet_);
}

uint64_t RingAllreduce::packet_elements(unsigned s, uint32_t packet) const {
  return std::min<uint64_t>(per_packet_, segment_elements(s) - uint64_t(packet) * per_packet_);
}

void RingAllreduce::fold(uint8_t* acc, const uint8_t* in, uint64_t count) const {
  for (uint64_t i = 0; i < count; ++i) {
    uint8_t* at = acc + i * dsize_;
    const uint32_t a = load_le(at, dsize_), b = load_le(in + i * dsize_, dsize_);
    uint32_t r;
    if (dtype_ == Dtype::kFloat32) {
      const float fa = float_of_bits(a), fb = float_of_bits(b);
      r = bits_of_float(op_ == Op::kSum ? fa + fb : op_ == Op::kMin ? (fb < fa ? fb : fa) : (fb > fa ? fb : fa));
    } else if (op_ == Op::kSum) {
      r = a + b;  // wraps; store_le keeps the low dsize_ bytes
    } else {
      const bool b_smaller = signed_of(b, dsize_) < signed_of(a, dsize_);
      r = (op_ == Op::kMin) == b_smaller ? b : a;
    }
    store_le(at, dsize_, r);
  }
}

Bytes RingAllreduce::frame(unsigned from_rank, unsigned to_rank, const Bytes& payload) const {
  const unsigned from = host_of(from_rank), to = host_of(to_rank);
  uint8_t src[6], dst[6];
  fs_host_mac(from, src);
  fs_host_mac(to, dst);
  return build_udp_frame(src, dst, fs_host_ipv4(from), fs_host_ipv4(to), kRingUdpPort, kRingUdpPort, payload.data(),
                         payload.size());
}

void RingAllreduce::transmit(unsigned rank, const Bytes& frame) {
  auto p = std::make_shared<Packet>();
  p->data = frame;
  p->arrival = now_ps();
  counts_.bytes_sent += frame.size();
  net_.host(host_of(rank)).send(std::move(p));
}

void RingAllreduce::run() {
  for (unsigned r = 0; r < ranks(); ++r)
    for (uint32_t j = 0; j < segment_packets(segment_of(r, 0)); ++j) send_packet(r, 0, j);
  for (;;) {
    wait(timer_);
    while (!timers_.empty() && std::get<0>(*timers_.begin()) <= now_ps()) {
      const auto [deadline, rank, step] = *timers_.begin();
      timers_.erase(timers_.begin());
      time_out(rank, step);
    }
    reschedule();
  }
}

void RingAllreduce::send_packet(unsigned r, unsigned step, uint32_t packet) {
  Rank& rank = *ranks_[r];
  const unsigned seg = segment_of(r, step);
  const uint64_t first = segment_start(seg) + uint64_t(packet) * per_packet_, count = packet_elements(seg, packet);
  Bytes payload(kRingHeaderBytes + count * dsize_);
  put_header(payload.data(), RingHeader{kData, 0, r, seg, step, packet});
  std::memcpy(payload.data() + kRingHeaderBytes, rank.data.data() + first * dsize_, count * dsize_);
  Rank::Outbound& out = rank.out[step];
  if (out.frames.empty()) out.frames.resize(segment_packets(seg));
  out.frames[packet] = frame(r, next(r), payload);
  transmit(r, out.frames[packet]);
  ++counts_.packets_sent;
  if (++out.handed == out.frames.size()) {
    out.sends = 1;
    arm(r, step);
  }
}

void RingAllreduce::send_ack(unsigned r, unsigned step, uint8_t attempt) {
  const unsigned seg = segment_of(prev(r), step);
  Bytes payload(kRingHeaderBytes);
  put_header(payload.data(), RingHeader{kAck, attempt, r, seg, step, segment_packets(seg)});
  transmit(r, frame(r, prev(r), payload));
  ++counts_.acks_sent;
  ranks_[r]->in[step].acked_attempt = attempt;
}

void RingAllreduce::receive(unsigned r, const Packet& p) {
  const Headers h = walk_headers(p.data.data(), p.data.size());
  const uint8_t* payload = p.data.data() + h.payload_offset;
  if (!h.ok || h.payload_len < kRingHeaderBytes || fs_be32(payload) != kMagic) {
    ++counts_.stray_packets;
    return;
  }
  const RingHeader rh = get_header(payload);
  if (rh.step < steps()) {
    if (rh.kind == kAck && rh.sender == next(r) && rh.segment == segment_of(r, rh.step)) return take_ack(r, rh.step);
    const unsigned seg = segment_of(prev(r), rh.step);
    if (rh.kind == kData && rh.sender == prev(r) && rh.segment == seg && rh.packet < segment_packets(seg) &&
        h.payload_len == kRingHeaderBytes + packet_elements(seg, rh.packet) * dsize_)
      return take_data(r, rh.step, rh.packet, rh.attempt, payload + kRingHeaderBytes);
  }
  ++counts_.stray_packets;
}

void RingAllreduce::take_data(unsigned r, unsigned step, uint32_t packet, uint8_t attempt, const uint8_t* elems) {
  Rank& rank = *ranks_[r];
  Rank::Inbound& in = rank.in[step];
  if (!in.got[packet]) {  // the first copy; a duplicate changes nothing
    in.got[packet] = true;
    const unsigned seg = segment_of(prev(r), step);
    const uint64_t first = segment_start(seg) + uint64_t(packet) * per_packet_, count = packet_elements(seg, packet);
    uint8_t* mine = rank.data.data() + first * dsize_;
    if (step < ranks() - 1) {
      fold(mine, elems, count);  // reduce-scatter: into this rank's partial
    } else {
      std::memcpy(mine, elems, count * dsize_);  // allgather: the completed segment
    }
    if (step + 1 < steps()) send_packet(r, step + 1, packet);
    if (++in.count == in.got.size() && --rank.incomplete == 0) {
      rank.done = now_ps();
      net_.member_done();
    }
  }
  // A complete segment is acknowledged once per attempt that reaches it (a lost ACK is
  // answered by the retransmission it causes).
  if (in.count == in.got.size() && int(attempt) > in.acked_attempt) send_ack(r, step, attempt);
}

void RingAllreduce::take_ack(unsigned r, unsigned step) {
  Rank::Outbound& out = ranks_[r]->out[step];
  if (out.acked) return;  // an ACK repeated
  out.acked = true;
  out.frames = {};
  disarm(r, step);
}

void RingAllreduce::time_out(unsigned r, unsigned step) {
  Rank::Outbound& out = ranks_[r]->out[step];
  if (out.sends >= kRingMaxSends) {
    ++counts_.gave_up;
    out.frames = {};
    return;
  }
  const uint8_t attempt = uint8_t(out.sends++);
  ++counts_.retransmissions;
  for (const Bytes& f : out.frames) {
    Bytes again = f;
    again[FS_UDP_PAYLOAD_OFFSET + kAttemptOffset] = attempt;
    transmit(r, again);
    ++counts_.packets_sent;
  }
  arm(r, step);
}

void RingAllreduce::arm(unsigned r, unsigned step) {
  Rank::Outbound& out = ranks_[r]->out[step];
  out.deadline = now_ps() + timeout_;
  timers_.insert({out.deadline, r, step});
  reschedule();
}

void RingAllreduce::disarm(unsigned r, unsigned step) {
  timers_.erase({ranks_[r]->out[step].deadline, r, step});
  reschedule();
}

void RingAllreduce::reschedule() {
  timer_.cancel();
  if (!timers_.empty()) timer_.notify(ps_time(std::get<0>(*timers_.begin()) - now_ps()));
}

Picos RingAllreduce::done_at() const {
  Picos last = 0;
  for (const auto& rank : ranks_) {
    if (rank->incomplete) return 0;
    last = std::max(last, rank->done);
  }
  return last;
}

AllreduceStats RingAllreduce::stats() const {
  AllreduceStats s = counts_;
  bool right = true;
  for (const auto& rank : ranks_) {
    s.unfinished_ranks += rank->incomplete != 0;
    right = right && rank->data == expected_;
  }
  s.conclude(done_at(), right);
  return s;
}

std::string RingAllreduce::failure() const {
  const AllreduceStats s = stats();
  if (s.results_ok) return "";
  if (s.unfinished_ranks)
    return "the ring allreduce did not complete: " + std::to_string(s.unfinished_ranks) + " of " +
           std::to_string(ranks()) + " ranks are missing packets (" + std::to_string(s.gave_up) +
           " segments given up after " + std::to_string(kRingMaxSends) +
           " sends without an ACK: stats allreduce.gave_up, network.drops)";
  for (unsigned r = 0; r < ranks(); ++r) {
    const Bytes& got = ranks_[r]->data;
    if (got == expected_) continue;
    const size_t at = size_t(std::mismatch(got.begin(), got.end(), expected_.begin()).first - got.begin());
    return "the ring allreduce's results are wrong: rank " + std::to_string(r) + " (host " +
           std::to_string(host_of(r)) + ") differs from the reduction of the inputs at element " +
           std::to_string(at / dsize_);
  }
  return "";
}

}  // namespace fs
