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
// So transmissions of one host never overlap: each starts no earlier than the previous ended.
#include "workload/allreduce_timing.h"

#include <algorithm>
#include <limits>
#include <queue>

#include "common/errors.h"

namespace fs {

namespace {

__extension__ typedef unsigned __int128 u128;  // GCC/Clang 128-bit integers

uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

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
  const uint64_t state = mix64(mix64(seed ^ tag) + host);
  return mix64(state + n * 0x9E3779B97F4A7C15ull);
}

uint64_t block_sent_at(bool stagger, unsigned host, unsigned hosts, uint64_t nblocks, uint64_t k) {
  if (!stagger) return k;
  // host < 65536 and nblocks <= 2^32: the product fits easily.
  return (uint64_t(host) * nblocks / hosts + k) % nblocks;
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

std::vector<SendEvent> schedule_host(const AllreduceGenOptions& o, unsigned host, uint64_t nblocks,
                                     Picos wire_full, Picos wire_last) {
  struct Retry {
    Picos due;
    uint64_t block;
    unsigned attempt;
  };
  auto later = [](const Retry& a, const Retry& b) {
    return a.due != b.due ? a.due > b.due : a.block > b.block;
  };
  std::priority_queue<Retry, std::vector<Retry>, decltype(later)> retries(later);
  std::vector<SendEvent> out;
  out.reserve(size_t(nblocks));
  Picos free = 0;  // the host's wire is free from here on
  auto send = [&](Picos t, uint64_t block, unsigned attempt, SendKind kind) {
    SendEvent ev;
    ev.time = t;
    ev.wire = block + 1 == nblocks ? wire_last : wire_full;
    ev.block = uint32_t(block);
    ev.host = uint16_t(host);
    ev.attempt = uint8_t(attempt);
    ev.kind = kind;
    ev.lost = send_lost(o.seed, host, block, attempt, o.loss);
    out.push_back(ev);
    free = add_time(t, ev.wire);
    if (ev.lost) {
      retries.push(Retry{add_time(free, o.timeout), block, attempt + 1});
    } else if (send_duplicated(o.seed, host, block, o.duplicate)) {
      ev.time = free;
      ev.kind = SendKind::kDuplicate;
      out.push_back(ev);
      free = add_time(free, ev.wire);
    }
  };
  uint64_t k = 0;   // the next original packet, in the host's block order
  Picos gap = 0;    // the gap before it (none before the first)
  while (k < nblocks || !retries.empty()) {
    const Picos t_orig = k < nblocks ? add_time(free, gap) : kNever;
    const Picos t_retry = retries.empty() ? kNever : std::max(retries.top().due, free);
    if (t_retry <= t_orig) {
      const Retry r = retries.top();
      retries.pop();
      send(t_retry, r.block, r.attempt, SendKind::kRetransmission);
    } else {
      send(t_orig, block_sent_at(o.stagger, host, o.hosts, nblocks, k), 0, SendKind::kOriginal);
      ++k;
      gap = k < nblocks ? host_gap(o.seed, host, k, o.mean_gap) : 0;
    }
  }
  return out;
}

}  // namespace fs
