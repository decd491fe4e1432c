// The allreduce generator's send schedule (see allreduce_timing.h): this file owns when and in
// which order each host sends its contributions. allreduce_gen.cpp owns the element values, the
// frames, the expected results and the expected-results file.
//
// Model, per host (hosts are independent; traces/FORMAT.md documents the same):
// * The host sends its blocks in the order of block_sent_at. Its first packet leaves at time 0;
//   each further original packet leaves when the host's previous transmission (of any kind) has
//   left the wire, plus the gap drawn for it (0 without --mean-gap).
// * A send may be lost (before the switch: it occupies the host's wire but is not in the trace).
//   The retransmission timer starts when the lost frame has left the wire; when it expires the
//   retransmission goes out as soon as the wire is free, ahead of original packets (retransmissions
//   among themselves by expiry time). A retransmission may be lost again; the kMaxSendAttempts-th
//   send always arrives.
// * A delivered send may be followed, right after it on the wire, by an identical duplicate (never
//   lost, never duplicated again).
// * With a window W (Flare 4.3), the host's next original packet also waits until fewer than W of
//   its blocks are in flight: sent, and their result (result_latency after the last host's
//   contribution to the block has arrived) not yet received.
// * With T block states at the switch (--states, default W), the original packet for block b also
//   waits until block b - T's result is back: blocks b and b + T share a state (b mod T), and
//   results come back out of order, so counting alone could put both in flight.
//   Retransmissions wait for neither.
// So transmissions of one host never overlap: each starts no earlier than the previous ended.
#include "protocols/flare_dense/allreduce_timing.h"

#include <algorithm>
#include <limits>
#include <queue>
#include <set>

#include "common/errors.h"
#include "common/splitmix64.h"

namespace fs {

namespace {

__extension__ typedef unsigned __int128 u128;  // GCC/Clang 128-bit integers

// -log(m / 2^64) for m in 1 .. 2^64, in fixed point with 48 fractional bits (at most 64 ln 2).
// log2(m) = e + log2(y) with y = m / 2^e in [1, 2); the fractional bits of log2(y) come one at a
// time from repeated squaring (y^2 >= 2: bit 1, halve). Then times ln 2 in 64-bit fixed point.
constexpr unsigned kLogFracBits = 48;
uint64_t neg_ln_fixed(u128 m) {
  if (m >> 64) return 0;  // m = 2^64: ln 1
  const uint64_t mm = uint64_t(m);
  const int e = 63 - __builtin_clzll(mm);               // floor(log2 m), 0 .. 63
  uint64_t y = e <= 62 ? mm << (62 - e) : mm >> 1;       // y in [1, 2) with 62 fractional bits
  uint64_t frac = 0;
  for (unsigned i = 0; i < kLogFracBits; ++i) {
    y = uint64_t((u128(y) * y) >> 62);                   // y^2 in [1, 4)
    frac <<= 1;
    if (y >> 63) {
      y >>= 1;
      frac |= 1;
    }
  }
  const uint64_t log2_m = (uint64_t(e) << kLogFracBits) | frac;
  const uint64_t neg_log2 = (uint64_t(64) << kLogFracBits) - log2_m;  // -log2(m / 2^64)
  constexpr uint64_t kLn2 = 0xB17217F7D1CF79ACull;                    // round(ln 2 * 2^64)
  return uint64_t((u128(neg_log2) * kLn2) >> 64);
}

constexpr Picos kNever = std::numeric_limits<Picos>::max();

Picos add_time(Picos a, Picos b) {
  if (a > kNever - b)
    throw InputError("allreduce generator: send times overflow 64-bit picoseconds (reduce bytes, "
                     "mean_gap or timeout, or raise gbps)");
  return a + b;
}

}  // namespace

uint64_t timing_draw(uint64_t seed, uint64_t tag, unsigned host, uint64_t n) {
  const uint64_t state = splitmix64_mix(splitmix64_mix(seed ^ tag) + host);
  return splitmix64_mix(state + n * kSplitmixGolden);
}

uint64_t stagger_group(unsigned window, unsigned states) {
  const uint64_t half_states = std::max(1u, states / 2);
  if (window) return states ? std::min<uint64_t>(window, half_states) : window;
  return states ? half_states : 0;
}

uint64_t block_sent_at(bool stagger, unsigned host, unsigned hosts, uint64_t nblocks, uint64_t k, uint64_t group) {
  if (!stagger) return k;
  // host < 65536 and nblocks <= 2^32: the products fit easily.
  if (!group || group >= nblocks) return (uint64_t(host) * nblocks / hosts + k) % nblocks;
  const uint64_t first = k / group * group, n = std::min<uint64_t>(group, nblocks - first);
  return first + (uint64_t(host) * group / hosts + k % group) % n;
}

Picos exponential_gap(uint64_t x, Picos mean) {
  if (mean == 0) return 0;
  const u128 m = (u128(1) << 64) - x;  // 2^64 (1 - u), u = x / 2^64 in [0, 1)
  const u128 ps = u128(neg_ln_fixed(m)) * mean + (u128(1) << (kLogFracBits - 1));
  const u128 whole = ps >> kLogFracBits;
  return whole > kNever ? kNever : Picos(whole);
}

Picos host_gap(uint64_t seed, unsigned host, uint64_t k, Picos mean) {
  return exponential_gap(timing_draw(seed, kGapStream, host, k), mean);
}

bool draw_hits(uint64_t x, double p) { return double(x >> 11) < p * 9007199254740992.0; }

bool send_lost(uint64_t seed, unsigned host, uint64_t block, unsigned attempt, double p) {
  if (attempt + 1 >= kMaxSendAttempts || !(p > 0)) return false;
  return draw_hits(timing_draw(seed, kLossStream, host, block * kMaxSendAttempts + attempt + 1), p);
}

bool send_duplicated(uint64_t seed, unsigned host, uint64_t block, double p) {
  if (!(p > 0)) return false;
  return draw_hits(timing_draw(seed, kDupStream, host, block + 1), p);
}

namespace {

// One host's sends, produced one transmission at a time so that hosts can be interleaved.
class HostSchedule {
 public:
  HostSchedule(const AllreduceGenOptions& o, unsigned host, uint64_t nblocks, const BlockWireTime& wire)
      : o_(o), host_(host), nblocks_(nblocks), wire_(wire) {}

  bool done() const { return k_ == nblocks_ && retries_.empty(); }
  // When the next transmission starts, if the window lets the next original packet leave from
  // `window_ok` on (kNever: not known yet). kNever: the host must wait for more results. The
  // caller takes transmissions of all hosts in time order, so a blocked host's retransmission
  // can go: the results it waits for come after every transmission still to be made.
  Picos next(Picos window_ok) const { return std::min(retry_time(), original_time(window_ok)); }
  // Makes the transmission next() announced (retransmissions first on ties).
  SendEvent step(Picos window_ok) {
    const Picos t_retry = retry_time(), t_orig = original_time(window_ok);
    if (t_retry <= t_orig) {
      const Retry r = retries_.top();
      retries_.pop();
      return send(t_retry, r.block, r.attempt, SendKind::kRetransmission);
    }
    const SendEvent ev =
        send(t_orig, next_block(), 0, SendKind::kOriginal);
    ++k_;
    gap_ = k_ < nblocks_ ? host_gap(o_.seed, host_, k_, o_.mean_gap) : 0;
    return ev;
  }
  const std::vector<SendEvent>& sends() const { return out_; }
  std::vector<SendEvent>& sends() { return out_; }
  uint64_t originals_sent() const { return k_; }
  // The block of the next original packet (while originals_sent() < nblocks).
  uint64_t next_block() const {
    return block_sent_at(o_.stagger, host_, o_.hosts, nblocks_, k_,
                         stagger_group(o_.window, o_.states ? o_.states : o_.window));
  }

 private:
  struct Retry {
    Picos due;
    uint64_t block;
    unsigned attempt;
  };
  struct Later {
    bool operator()(const Retry& a, const Retry& b) const { return a.due != b.due ? a.due > b.due : a.block > b.block; }
  };

  Picos retry_time() const { return retries_.empty() ? kNever : std::max(retries_.top().due, free_); }
  Picos original_time(Picos window_ok) const {
    if (k_ == nblocks_ || window_ok == kNever) return kNever;
    return std::max(add_time(free_, gap_), window_ok);
  }

  SendEvent send(Picos t, uint64_t block, unsigned attempt, SendKind kind) {
    SendEvent ev;
    ev.time = t;
    ev.wire = wire_(host_, block);
    ev.block = uint32_t(block);
    ev.host = uint16_t(host_);
    ev.attempt = uint8_t(attempt);
    ev.kind = kind;
    ev.lost = send_lost(o_.seed, host_, block, attempt, o_.loss);
    out_.push_back(ev);
    const size_t at = out_.size() - 1;
    free_ = add_time(t, ev.wire);
    if (ev.lost) {
      retries_.push(Retry{add_time(free_, o_.timeout), block, attempt + 1});
    } else if (send_duplicated(o_.seed, host_, block, o_.duplicate)) {
      ev.time = free_;
      ev.kind = SendKind::kDuplicate;
      out_.push_back(ev);
      free_ = add_time(free_, ev.wire);
    }
    return out_[at];
  }

  const AllreduceGenOptions& o_;
  unsigned host_;
  uint64_t nblocks_;
  const BlockWireTime& wire_;
  std::priority_queue<Retry, std::vector<Retry>, Later> retries_;
  std::vector<SendEvent> out_;
  Picos free_ = 0;  // the host's wire is free from here on
  uint64_t k_ = 0;  // the next original packet, in the host's block order
  Picos gap_ = 0;   // the gap before it (none before the first)
};

}  // namespace

std::vector<std::vector<SendEvent>> schedule_hosts(const AllreduceGenOptions& o, uint64_t nblocks, Picos wire_full,
                                                   Picos wire_last) {
  return schedule_hosts(o, nblocks, [&](unsigned, uint64_t block) { return block + 1 == nblocks ? wire_last : wire_full; });
}

std::vector<std::vector<SendEvent>> schedule_hosts(const AllreduceGenOptions& o, uint64_t nblocks,
                                                   const BlockWireTime& wire) {
  std::vector<HostSchedule> hosts;
  for (unsigned h = 0; h < o.hosts; ++h) hosts.emplace_back(o, h, nblocks, wire);
  const unsigned states = o.states ? o.states : o.window;
  if (!o.window && !states) {
    for (HostSchedule& hs : hosts)
      while (!hs.done()) hs.step(0);
  } else {
    // Results: a block's result reaches the hosts result_latency after the last host's
    // contribution to it has arrived (its first send that is not lost).
    std::vector<unsigned> arrived(nblocks, 0);
    std::vector<Picos> last_arrival(nblocks, 0), result(nblocks, kNever);
    std::vector<std::vector<bool>> counted(o.hosts, std::vector<bool>(nblocks, false));
    // The window: before its k-th original (k >= W) a host needs k - W + 1 of its k blocks in
    // flight back, i.e. the (k - W + 1)-th earliest of their result times. pending[h] holds the
    // result times of host h's sent blocks not taken yet (kNever: not known yet); its earliest is
    // the next one needed, because a block sent later has its result after every time taken
    // before (they were no later than its sending).
    std::vector<std::multiset<Picos>> pending(o.hosts);
    auto window_ok = [&](unsigned h) -> Picos {
      if (hosts[h].originals_sent() == nblocks) return kNever;
      Picos t = 0;
      if (o.window && hosts[h].originals_sent() >= o.window) t = *pending[h].begin();
      const uint64_t b = hosts[h].next_block();
      if (states && b >= states) t = std::max(t, result[b - states]);  // the state's previous block
      return t;
    };
    for (;;) {
      unsigned pick = o.hosts;
      Picos best = kNever;
      bool all_done = true;
      for (unsigned h = 0; h < o.hosts; ++h) {
        if (hosts[h].done()) continue;
        all_done = false;
        const Picos t = hosts[h].next(window_ok(h));
        if (t < best) best = t, pick = h;
      }
      if (all_done) break;
      if (pick == o.hosts)
        throw InputError("allreduce generator: window " + std::to_string(o.window) + ": every host waits for results");
      const bool window_bound = o.window && hosts[pick].originals_sent() >= o.window;
      const SendEvent ev = hosts[pick].step(window_ok(pick));  // the earliest transmission of any host
      if (ev.kind == SendKind::kOriginal) {
        if (window_bound) pending[pick].erase(pending[pick].begin());
        pending[pick].insert(kNever);
      }
      if (!ev.lost && ev.kind != SendKind::kDuplicate && !counted[pick][ev.block]) {
        counted[pick][ev.block] = true;
        last_arrival[ev.block] = std::max(last_arrival[ev.block], add_time(ev.time, ev.wire));
        if (++arrived[ev.block] == o.hosts) {
          result[ev.block] = add_time(last_arrival[ev.block], o.result_latency);
          for (auto& p : pending) {  // every host has the block pending: its time is known now
            p.erase(p.find(kNever));
            p.insert(result[ev.block]);
          }
        }
      }
    }
  }
  std::vector<std::vector<SendEvent>> out;
  for (HostSchedule& hs : hosts) out.push_back(std::move(hs.sends()));
  return out;
}

}  // namespace fs
