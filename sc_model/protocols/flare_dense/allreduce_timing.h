// Send schedule of the allreduce generator (see allreduce_timing.cpp and traces/FORMAT.md): the
// order in which a host sends its blocks (staggered sending), exponential gaps between its
// packets, lost sends and their retransmissions, duplicated frames, and the deterministic random
// draws behind them. generate_allreduce (allreduce_gen.cpp) builds the frames and the trace
// from the schedule of every host.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "protocols/flare_dense/allreduce_gen.h"

namespace fs {

// A contribution is sent at most this many times: sends 1 .. kMaxSendAttempts-1 may be lost,
// the last one always arrives.
constexpr unsigned kMaxSendAttempts = 16;

// Random streams, one per purpose and host, so that enabling one option never changes another's
// draws. The tag is xor-ed into the seed (ASCII "gaps", "loss", "dups").
constexpr uint64_t kGapStream = 0x67617073;
constexpr uint64_t kLossStream = 0x6c6f7373;
constexpr uint64_t kDupStream = 0x64757073;

// Draw n (n >= 1) of stream `tag` of host `host`: mix(s + n * 0x9E3779B97F4A7C15) where
// s = mix(mix(seed ^ tag) + host) and mix is the splitmix64 finalizer of the element values.
uint64_t timing_draw(uint64_t seed, uint64_t tag, unsigned host, uint64_t n);

// The groups hosts stagger within, for a window of W blocks in flight and T block states (either
// 0: none): G = min(W, max(1, T / 2)), or W without states, or max(1, T / 2) without a window; 0
// (no groups) without either. Groups must be at most W so that a host can send a whole group;
// at most T / 2 so that the block a state had before (T back, two groups) is sent a group
// earlier and a group can go while the one before is reduced (groups of T would make hosts
// stop at every group until it was reduced).
uint64_t stagger_group(unsigned window, unsigned states);

// The block a host sends k-th (k = 0 .. nblocks-1): k, or with staggering
// (host * nblocks / hosts + k) mod nblocks. With groups of G blocks (see stagger_group; G = 0 or
// G >= nblocks: one group) staggering happens within each group (g G .. g G + n - 1, n = G or
// what is left): g G + (host * G / hosts + k mod G) mod n, so every group can complete.
uint64_t block_sent_at(bool stagger, unsigned host, unsigned hosts, uint64_t nblocks, uint64_t k,
                       uint64_t group = 0);

// Exponential variate with mean `mean` ps from a uniform 64-bit draw x: -mean * ln(1 - x/2^64),
// rounded to the nearest picosecond, in integer fixed-point arithmetic (identical on every
// platform). 0 for x = 0, at most about 44.4 * mean; saturates at 2^64-1.
Picos exponential_gap(uint64_t x, Picos mean);

// The gap before host `host`'s k-th original packet (k >= 1; the first one has none).
Picos host_gap(uint64_t seed, unsigned host, uint64_t k, Picos mean);

// Whether the draw x hits probability p (0..1): (x >> 11) < p * 2^53, exact for p = 0 and 1.
bool draw_hits(uint64_t x, double p);

// Whether send `attempt` (0 = the first) of host `host`'s block `block` is lost: draw
// block * kMaxSendAttempts + attempt + 1 of the loss stream hits `p`. Never for the last attempt.
bool send_lost(uint64_t seed, unsigned host, uint64_t block, unsigned attempt, double p);

// Whether the delivered send of host `host`'s block `block` is followed by a duplicate: draw
// block + 1 of the duplicate stream hits `p`.
bool send_duplicated(uint64_t seed, unsigned host, uint64_t block, double p);

// Every transmission of every host (by host, each in send order). wire_full is the wire time of a
// full block's frame, wire_last that of the last block (which may be shorter). Without a window
// hosts are independent; with one, a host's next original packet waits until fewer than `window`
// of its blocks are in flight, and the one for block b until block b - T's result is back (T =
// o.states, or the window). Throws InputError when a time overflows 64-bit picoseconds.
std::vector<std::vector<SendEvent>> schedule_hosts(const AllreduceGenOptions& o, uint64_t nblocks, Picos wire_full,
                                                   Picos wire_last);
// The same with the wire time of each host's send of each block (a sparse host's block is a
// burst of packets whose length varies by host and block).
using BlockWireTime = std::function<Picos(unsigned host, uint64_t block)>;
std::vector<std::vector<SendEvent>> schedule_hosts(const AllreduceGenOptions& o, uint64_t nblocks,
                                                   const BlockWireTime& wire);

}  // namespace fs
