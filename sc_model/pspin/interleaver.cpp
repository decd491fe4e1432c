// The PsPIN unit's handler-run interleaver (see interleaver.h).
#include "pspin/interleaver.h"

#include <algorithm>

namespace fs {

namespace {
constexpr Picos kNever = ~Picos(0);
}

Interleaver::Interleaver(sc_core::sc_module_name name, Clock clock, unsigned clusters, unsigned sync_cycles,
                         unsigned start_lookahead_cycles, unsigned switch_lookahead_cycles, unsigned quantum_cycles,
                         unsigned threads)
    : sc_core::sc_module(name),
      period_(clock.period_ps),
      per_period_(1.0 / double(clock.period_ps)),
      sync_(clock.cycles_ps(std::max(1u, sync_cycles))),
      start_lookahead_(clock.cycles_ps(start_lookahead_cycles)),
      switch_lookahead_(clock.cycles_ps(switch_lookahead_cycles)),
      quantum_(clock.cycles_ps(std::max(std::max(1u, sync_cycles), quantum_cycles))),
      clusters_(clusters),
      by_cluster_(clusters) {
  for (unsigned c = 0; c < clusters; ++c) {
    clusters_[c].watch.owner = this;
    clusters_[c].watch.cluster = c;
  }
  if (threads > 1) pool_ = std::make_unique<WorkerPool>(threads);
  SC_THREAD(run);
}

uint64_t Interleaver::steps() const {
  uint64_t n = 0;
  for (const ClusterLane& l : clusters_) n += l.steps;
  return n;
}

uint64_t Interleaver::parked_spins() const {
  uint64_t n = 0;
  for (const ClusterLane& l : clusters_) n += l.parked_spins;
  return n;
}

void Interleaver::expect(Picos start) { expected_.insert(start); }

void Interleaver::add(SteppedRun* run, unsigned cluster, Picos start, sc_core::sc_event* done) {
  auto it = expected_.find(start);
  if (it != expected_.end()) expected_.erase(it);
  uint32_t id;
  if (free_ids_.empty()) {
    id = uint32_t(entries_.size());
    entries_.emplace_back();
  } else {
    id = free_ids_.back();
    free_ids_.pop_back();
  }
  Entry& e = entries_[id];
  e = Entry{};
  e.run = run;
  e.cluster = cluster;
  e.start = e.local = start;
  e.done = done;
  e.sequence = sequence_++;
  by_cluster_[cluster].push_back(Slot{start, id});
  ++active_;
  run_added_.notify(sc_core::SC_ZERO_TIME);
}

void Interleaver::set_local(uint32_t id, Picos t) {
  Entry& e = entries_[id];
  e.local = t;
  for (Slot& s : by_cluster_[e.cluster])
    if (s.id == id) s.local = t;
}

// A run ended at `delay` after the kernel's time: its HPU hears of it then (the `done` event). In
// phase 1 that waits until just before the cluster's phase 2 (the kernel and the ids are not the
// cluster's own), so the HPUs hear of ends and handler calls in the order of a window stepped
// cluster by cluster.
void Interleaver::ended(uint32_t id, Picos delay) {
  ClusterLane& lane = clusters_[entries_[id].cluster];
  auto& peers = by_cluster_[entries_[id].cluster];
  peers.erase(std::find_if(peers.begin(), peers.end(), [id](const Slot& s) { return s.id == id; }));
  lane.ended.push_back({id, delay});
  if (!lane.isolated) tell_ended(lane);
}

void Interleaver::tell_ended(ClusterLane& lane) {
  for (const auto& [id, delay] : lane.ended) {
    entries_[id].done->notify(delay ? ps_time(delay) : sc_core::SC_ZERO_TIME);
    free_ids_.push_back(id);
    --active_;
  }
  lane.ended.clear();
}

void Interleaver::Watchers::add(uintptr_t word, uint32_t id) {
  by_word[word].push_back(id);
  filter.set(word % filter.size());
}

void Interleaver::Watchers::remove(uintptr_t word, uint32_t id) {
  auto it = by_word.find(word);
  if (it == by_word.end()) return;
  auto& v = it->second;
  v.erase(std::remove(v.begin(), v.end(), id), v.end());
  if (!v.empty()) return;
  by_word.erase(it);
  filter.reset();
  for (const auto& w : by_word) filter.set(w.first % filter.size());
}

void Interleaver::Watchers::collect(uintptr_t word, std::vector<uint32_t>& into) const {
  if (empty() || !filter.test(word % filter.size())) return;
  auto it = by_word.find(word);
  if (it == by_word.end()) return;
  for (uint32_t id : it->second)
    if (std::find(into.begin(), into.end(), id) == into.end()) into.push_back(id);
}

// Whether the cores' stores must be told: if any run is parked. In phase 1 a cluster's count
// changes apart, in parked_delta (added after the phase), and its stores are told as armed_apart.
void Interleaver::count_parked(ClusterLane& lane, int change) {
  if (lane.isolated) {
    lane.parked_delta += change;
    lane.watch.armed = armed_apart(lane);
  } else {
    add_parked(change);
  }
}

void Interleaver::add_parked(int64_t change) {
  const bool before = parked_ > 0;
  parked_ = size_t(int64_t(parked_) + change);
  if ((parked_ > 0) != before)
    for (ClusterLane& l : clusters_) l.watch.armed = parked_ > 0;
}

// A spinning run leaves the time order until its word is stored to, or until its watchdog would
// fire (then it goes on from there and faults).
void Interleaver::park(uint32_t id) {
  Entry& e = entries_[id];
  ClusterLane& lane = clusters_[e.cluster];
  e.spin = e.run->spin();
  e.parked = true;
  ++lane.parked_spins;
  Watchers& w = watchers_of(e);
  const uintptr_t first = uintptr_t(e.spin.host) / 4, last = (uintptr_t(e.spin.host) + e.spin.bytes - 1) / 4;
  for (uintptr_t word = first; word <= last; ++word) {
    w.add(word, id);
    if (!e.spin.beyond_cluster) local_watched_[word % local_watched_.size()].fetch_add(1, std::memory_order_relaxed);
  }
  count_parked(lane, +1);
  const uint64_t now_cycles = e.run->cycles();
  const uint64_t turns = e.spin.deadline > now_cycles ? (e.spin.deadline - now_cycles + e.spin.period - 1) / e.spin.period : 0;
  set_local(id, e.start + (now_cycles + turns * e.spin.period) * period_);
}

void Interleaver::unpark(uint32_t id, uint64_t iterations) {
  Entry& e = entries_[id];
  ClusterLane& lane = clusters_[e.cluster];
  e.parked = false;
  Watchers& w = watchers_of(e);
  const uintptr_t first = uintptr_t(e.spin.host) / 4, last = (uintptr_t(e.spin.host) + e.spin.bytes - 1) / 4;
  for (uintptr_t word = first; word <= last; ++word) {
    w.remove(word, id);
    if (!e.spin.beyond_cluster) local_watched_[word % local_watched_.size()].fetch_sub(1, std::memory_order_relaxed);
  }
  count_parked(lane, -1);
  e.run->skip_spin(iterations);
  set_local(id, e.start + e.run->cycles() * period_);
  e.last = SteppedRun::Step::kRunning;
}

// The spin's loads start at load_cycle + i * period (i >= 1); the first to start after the store
// (at the same time: after it if the spinner comes later in the tie order) sees it.
void Interleaver::wake_for_store(uint32_t id, Picos at, uint64_t writer_sequence) {
  const Entry& e = entries_[id];
  if (!e.parked) return;
  const SteppedRun::SpinWait& s = e.spin;
  const Picos first_load = e.start + (s.load_cycle + s.period) * period_;
  uint64_t i = 1;
  if (at >= first_load) {
    const Picos step = s.period * period_;
    i = 1 + (at - first_load) / step;
    const Picos load = e.start + (s.load_cycle + i * s.period) * period_;
    if (load < at || (load == at && e.sequence < writer_sequence)) ++i;
  }
  unpark(id, i - 1);
  clusters_[e.cluster].phase_two = true;
}

void Interleaver::stored(unsigned c, const uint8_t* host, uint32_t bytes, uint64_t cycle) {
  ClusterLane& lane = clusters_[c];
  if (bytes == 0 || lane.current == ~0u) return;
  // `cycle` counts from the writer's start cycle; its run started at a picosecond time.
  const Entry& writer = entries_[lane.current];
  const Picos at = writer.start + (cycle - writer.start / period_) * period_;
  std::vector<uint32_t> woken;
  std::vector<uint32_t> later;  // phase 1: runs of other clusters, woken after it
  for (uintptr_t w = uintptr_t(host) / 4; w <= (uintptr_t(host) + bytes - 1) / 4; ++w) {
    lane.watchers.collect(w, woken);
    shared_watchers_.collect(w, lane.isolated ? later : woken);
    // A store to another cluster's L1 (phase 1 makes none).
    if (!lane.isolated && local_watched_[w % local_watched_.size()].load(std::memory_order_relaxed))
      for (const ClusterLane& other : clusters_)
        if (&other != &lane) other.watchers.collect(w, woken);
  }
  for (uint32_t id : later) lane.wakes.push_back(Wake{id, at, writer.sequence});
  for (uint32_t id : woken) wake_for_store(id, at, writer.sequence);
  // The writer stops after this store, so that the woken runs take their turns in time order.
  if (!woken.empty()) lane.watch.yield = true;
}

bool Interleaver::step_cluster(unsigned c, const Limits& lim, Picos& wake) {
  using Step = SteppedRun::Step;
  ClusterLane& lane = clusters_[c];
  const std::vector<Slot>& runs = by_cluster_[c];
  bool stepped = false;
  for (;;) {
    // The run furthest behind (the oldest among equals: `runs` is in the order they were added)
    // and the time of the next one.
    uint32_t id = ~0u;
    Picos first = kNever, next = kNever;
    for (const Slot& r : runs) {
      if (r.local < first) {
        next = first;
        first = r.local;
        id = r.id;
      } else if (r.local < next) {
        next = r.local;
      }
    }
    if (first >= lim.window_end) return stepped;
    Entry& m = entries_[id];
    if (m.parked) {  // nobody stored to its word before its watchdog time
      if (lane.isolated && m.spin.beyond_cluster) {  // others may store to it first
        lane.phase_two = true;
        return stepped;
      }
      const uint64_t at = (m.local - m.start) / period_, now_cycles = m.run->cycles();
      unpark(id, at > now_cycles ? (at - now_cycles) / m.spin.period : 0);
      continue;
    }
    // Phase 1 ends for the cluster where its run furthest behind would leave it.
    if (lane.isolated && m.last == Step::kLeaves) {
      lane.phase_two = true;
      return stepped;
    }
    // Waiting for the kernel: for time to pass (waking at m's own time, the latest that keeps
    // every run at or after the kernel's time, lets every access in the next lookahead go at
    // once), or for a run that may start earlier to be added, which wakes the process anyway.
    if ((m.last == Step::kWaitsShared && m.local > lim.shared) || (m.last == Step::kWaitsSwitch && m.local > lim.switch_)) {
      const Picos ahead = m.last == Step::kWaitsShared ? start_lookahead_ + sync_ - period_ : switch_lookahead_;
      if (m.local > lim.now + ahead) wake = std::min(wake, m.local);
      return stepped;
    }
    // In the run's own cycles: a gate lets an access go while the run's count is at most the gate.
    // Peers and kernel limits allow accesses at their time (ties go by the order of stepping);
    // the window allows only accesses that start before its end, so windows do not overlap.
    auto cycles_at = [&](Picos t) -> uint64_t { return whole_cycles(t - m.start); };
    const uint64_t in_window = whole_cycles(lim.window_end - m.start + period_ - 1) - 1;  // last cycle before the end
    iss::Gates gates;
    gates.cluster = std::min(cycles_at(std::min(next, lim.shared)), in_window);
    gates.shared = std::min(cycles_at(lim.shared), in_window);
    gates.device = std::min(cycles_at(std::min(next, lim.switch_)), in_window);
    gates.isolated = lane.isolated;
    ++lane.steps;
    lane.current = id;
    m.last = m.run->advance(in_window + 1, gates);
    lane.current = ~0u;
    stepped = true;
    set_local(id, m.start + m.run->cycles() * period_);
    if (m.last == Step::kEnded) {
      ended(id, m.local > lim.now ? m.local - lim.now : 0);
    } else if (m.last == Step::kSpins) {
      park(id);
    }
  }
}

// After phase 1, in cluster order: the parked counts add up, and the runs of other clusters that
// phase 1's stores woke go on.
void Interleaver::end_phase_one() {
  int64_t change = 0;
  for (unsigned c : busy_clusters_) {
    ClusterLane& lane = clusters_[c];
    lane.isolated = false;
    change += lane.parked_delta;
    lane.parked_delta = 0;
  }
  add_parked(change);
  for (unsigned c : busy_clusters_) {
    ClusterLane& lane = clusters_[c];
    lane.watch.armed = parked_ > 0;  // (phase 1 set it apart)
    for (const Wake& w : lane.wakes) wake_for_store(w.id, w.at, w.writer_sequence);
    lane.wakes.clear();
  }
}

void Interleaver::run() {
  for (;;) {
    if (active_ == 0) {
      wait(run_added_);
      continue;
    }
    Limits lim;
    lim.now = now_ps();
    // Shared accesses must stay before any run that may still start; switch accesses within the
    // scheduler's lookahead of now; everything within the quantum.
    const Picos next_start = expected_.empty() ? kNever : *expected_.begin();
    // (To within the sync window, like accesses from different clusters.)
    lim.shared = std::min(lim.now + start_lookahead_, next_start) + (sync_ - period_);
    lim.switch_ = std::min(lim.now + switch_lookahead_, next_start);
    const Picos horizon = lim.now + quantum_;
    Picos earliest = kNever;
    busy_clusters_.clear();
    for (unsigned c = 0; c < clusters_.size(); ++c) {
      if (by_cluster_[c].empty()) continue;
      for (const Slot& r : by_cluster_[c]) earliest = std::min(earliest, r.local);
      busy_clusters_.push_back(c);
    }
    Picos wake = kNever;
    bool stepped = false;
    if (earliest + sync_ <= horizon) {
      lim.window_end = earliest + sync_;
      ++windows;
      // Phase 1: each cluster apart, on the pool's threads.
      for (unsigned c : busy_clusters_) {
        ClusterLane& lane = clusters_[c];
        lane.isolated = true;
        lane.phase_two = false;
        lane.watch.armed = armed_apart(lane);
        lane.wake = kNever;
      }
      auto phase_one = [&](size_t i) {
        ClusterLane& lane = clusters_[busy_clusters_[i]];
        lane.stepped = step_cluster(busy_clusters_[i], lim, lane.wake);
      };
      if (pool_)
        pool_->run(busy_clusters_.size(), phase_one);
      else
        for (size_t i = 0; i < busy_clusters_.size(); ++i) phase_one(i);
      end_phase_one();
      // Phase 2: the rest of the window, cluster by cluster. (A cluster whose phase 1 ended at the
      // window's end or at a wait for the kernel, and that no store has woken since, would stop
      // at once.)
      for (unsigned c : busy_clusters_) {
        ClusterLane& lane = clusters_[c];
        stepped = stepped || lane.stepped;
        wake = std::min(wake, lane.wake);
        tell_ended(lane);
        if (lane.phase_two && !by_cluster_[c].empty() && step_cluster(c, lim, wake)) stepped = true;
        lane.phase_two = false;
      }
    } else {
      wake = earliest + sync_ - quantum_;  // when the whole window is within the quantum
    }
    if (stepped || active_ == 0) continue;
    ++kernel_waits;
    if (wake == kNever)
      wait(run_added_);
    else
      wait(ps_time(wake - lim.now), run_added_);
  }
}

}  // namespace fs
