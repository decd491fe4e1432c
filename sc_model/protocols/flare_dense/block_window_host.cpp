// The closed-loop hosts' send loop (see block_window_host.h).
#include "protocols/flare_dense/block_window_host.h"

#include <algorithm>
#include <numeric>

#include "common/sc_time_util.h"
#include "protocols/flare_dense/allreduce_timing.h"

namespace fs {

BlockWindowHost::BlockWindowHost(sc_core::sc_module_name name, const HostsConfig& cfg, unsigned rank, unsigned hosts,
                                 uint64_t blocks, unsigned states, Picos* done_at)
    : sc_core::sc_module(name),
      cfg_(cfg),
      rank_(rank),
      hosts_(hosts),
      blocks_(blocks),
      states_(states),
      group_(stagger_group(cfg.window, states)),
      done_at_(done_at),
      finished_(blocks, false) {
  SC_THREAD(run);
}

bool BlockWindowHost::state_free(uint64_t block) const {
  if (by_tree_.empty()) return states_ == 0 || block < states_ || finished_[block - states_];
  for (uint64_t d : by_tree_[block % by_tree_.size()])
    if (block >= d && !finished_[block - d]) return false;
  return true;
}

void BlockWindowHost::run() {
  const uint64_t n = blocks_;
  uint64_t k = 0;  // originals sent, in this host's block order
  for (;;) {
    const Picos now = now_ps();
    // A retransmission that is due goes first, then the next original if the window allows.
    // The earliest deadline (the lowest block among equal ones).
    const auto due = by_due_.begin();
    if (due != by_due_.end() && due->first <= now) {
      const uint32_t block = due->second;
      if (++sent_[block] > kMaxSendAttempts) {
        // No result after every attempt: the host gives the block up (verification then
        // reports it missing), so that a switch that never answers cannot keep the run going.
        ++gave_up;
        in_flight_.erase(block);
        finish(block);
        continue;
      }
      ++retransmissions;
      send(block);
      continue;
    }
    // The next original waits for room in the window and for the block its state held before.
    const uint64_t next = k < n ? block_sent_at(cfg_.stagger, rank_, hosts_, n, k, group_) : 0;
    if (k < n && (cfg_.window == 0 || in_flight_.size() < cfg_.window) &&
        state_free(next)) {
      const uint32_t block = uint32_t(next);
      ++k;
      in_flight_.insert(block);
      sent_[block] = 1;
      max_in_flight = std::max<uint64_t>(max_in_flight, in_flight_.size());
      send(block);
      continue;
    }
    if (k == n && in_flight_.empty()) {
      *done_at_ = std::max(*done_at_, now);  // the last result, or the last block given up
      all_done();
      return;
    }
    if (due != by_due_.end())
      wait(ps_time(due->first - now), got_result_);
    else
      wait(got_result_);
  }
}

void BlockWindowHost::send(uint32_t block) {
  ++sends;
  send_block(block);
  if (in_flight_.count(block)) {
    clear_due(block);
    due_[block] = now_ps() + cfg_.timeout_ns * kPicosPerNs;
    by_due_.emplace(due_[block], block);
  }
}

void BlockWindowHost::clear_due(uint32_t block) {
  const auto it = due_.find(block);
  if (it == due_.end()) return;
  by_due_.erase({it->second, block});
  due_.erase(it);
}

void BlockWindowHost::result_complete(uint32_t block) {
  if (!in_flight_.erase(block)) return;
  ++completed;
  finish(block);
  got_result_.notify(sc_core::SC_ZERO_TIME);
}

void BlockWindowHost::finish(uint32_t block) {
  clear_due(block);
  sent_.erase(block);
  finished_[block] = true;
  forget(block);
}

std::vector<std::vector<uint64_t>> tree_sharing_distances(const std::vector<std::vector<uint64_t>>& states) {
  // At a switch of tree t with C clusters and S states per cluster for it, block b lives in
  // cluster b mod C, state (b / C) mod S, so block b - d shares it when d is a multiple of C S
  // and of N (the same tree): d = lcm(C S, N). A block waits for b - d at each switch of its
  // tree (and so, by the same rule, for every earlier sharer).
  std::vector<std::vector<uint64_t>> out(states.size());
  for (size_t t = 0; t < states.size(); ++t)
    for (uint64_t cs : states[t]) {
      const uint64_t d = std::lcm(cs, uint64_t(states.size()));
      if (std::find(out[t].begin(), out[t].end(), d) == out[t].end()) out[t].push_back(d);
    }
  return out;
}

uint64_t nearest_sharing(const std::vector<std::vector<uint64_t>>& distances) {
  uint64_t least = 0;
  for (const auto& tree : distances)
    for (uint64_t d : tree) least = least ? std::min(least, d) : d;
  return least;
}

}  // namespace fs
