// Advances every stepped handler run of the PsPIN unit (the ISS HPUs of all clusters) in
// simulated-time order, inside one SystemC process.
//  - Within a cluster the run furthest behind executes next, until it passes the next one, so the
//    cluster's L1 banks, instruction cache, and the locks and buffers its HPUs share see them in
//    exactly the order the instructions' times dictate.
//  - Clusters take turns in windows of `sync` cycles, so accesses from different clusters to
//    shared memory (another cluster's L1, L2 handler memory) are in time order to within the
//    window; 1 cycle makes that exact. A window has two phases:
//     1. every cluster runs apart from the others (Gates::isolated), up to the window's end or
//        until its run furthest behind would leave the cluster: an access to memory other clusters
//        share, a handler API call, a spin on another cluster's word. Clusters touch nothing of
//        each other's here, so they run on `threads` host threads with the same result;
//     2. cluster by cluster in index order, each runs the rest of its window.
//    A run that ends in phase 1 is told to its HPU just before its cluster's phase 2, and a
//    spinner woken by another cluster's phase-1 store goes on after phase 1, in cluster order,
//    so results do not depend on the thread count.
//  - An access to shared memory never runs ahead of a run that may still start: only before the
//    earliest start of a run not yet added (a packet copy already reserved, or one the cluster
//    schedulers could still dispatch: `start_lookahead` after now).
//  - An access that reaches the rest of the switch (a handler DMA) happens only within
//    `switch_lookahead` of the kernel's time, so it queues on the cluster DMA in request order with
//    the packet copies the cluster scheduler reserves `switch_lookahead` ahead.
//  - No run executes more than `quantum` ahead of the kernel's time.
// A run spinning on a shared word (a lock) is parked instead of stepped: it watches the word, and
// the first store to it puts the run back at the first turn of its loop that sees the store, with
// the skipped turns accounted. The process yields to the kernel only when no run can go on.
// Ties are broken by the order runs were added, so runs repeat exactly.
#pragma once
#include <array>
#include <atomic>
#include <bitset>
#include <deque>
#include <memory>
#include <unordered_map>
#include <set>
#include <vector>

#include "common/worker_pool.h"
#include "iss/cpu.h"
#include "pspin/hpu.h"

namespace fs {

class Interleaver : public sc_core::sc_module, public RunInterleaver {
 public:
  SC_HAS_PROCESS(Interleaver);
  Interleaver(sc_core::sc_module_name name, Clock clock, unsigned clusters, unsigned sync_cycles,
              unsigned start_lookahead_cycles, unsigned switch_lookahead_cycles, unsigned quantum_cycles,
              unsigned threads = 1);

  void expect(Picos start) override;
  void add(SteppedRun* run, unsigned cluster, Picos start, sc_core::sc_event* done) override;
  // Where cluster `c`'s cores report their stores to shared memory (it wakes the runs spinning
  // on the words stored to).
  iss::StoreWatch* store_watch(unsigned c) { return &clusters_[c].watch; }
  // Steps every cluster on the SystemC thread (an instruction trace is written as cores run).
  void run_on_one_thread() { pool_.reset(); }

  // For profiling: steps of runs, spins parked, windows, waits for the kernel.
  uint64_t steps() const;
  uint64_t parked_spins() const;
  uint64_t windows = 0, kernel_waits = 0;

 private:
  struct Entry {
    SteppedRun* run = nullptr;
    unsigned cluster = 0;
    Picos start = 0, local = 0;  // local: start + the cycles the run has used
    sc_core::sc_event* done = nullptr;
    uint64_t sequence = 0;
    SteppedRun::Step last = SteppedRun::Step::kRunning;
    bool parked = false;
    SteppedRun::SpinWait spin;
  };
  // A cluster's view of one of its runs: where it is, kept next to the others for the scans.
  struct Slot {
    Picos local;
    uint32_t id;
  };
  // The kernel's constraints on one pass over the runs.
  struct Limits {
    Picos now, shared, switch_, window_end;
  };
  // Parked runs by the word they watch (host address / 4), with a filter on word % 4096 so that
  // most stores need no lookup.
  struct Watchers {
    std::unordered_map<uintptr_t, std::vector<uint32_t>> by_word;
    std::bitset<4096> filter;
    void add(uintptr_t word, uint32_t id);
    void remove(uintptr_t word, uint32_t id);
    bool empty() const { return by_word.empty(); }
    // Adds the runs watching `word` to `into`, each once.
    void collect(uintptr_t word, std::vector<uint32_t>& into) const;
  };
  class ClusterWatch : public iss::StoreWatch {
   public:
    void stored(const uint8_t* host, uint32_t bytes, uint64_t cycle) override { owner->stored(cluster, host, bytes, cycle); }
    Interleaver* owner = nullptr;
    unsigned cluster = 0;
  };
  // A store in phase 1 to a word a run of another cluster watches: woken after the phase.
  struct Wake {
    uint32_t id;
    Picos at;
    uint64_t writer_sequence;
  };
  // Everything of one cluster that stepping it touches; in phase 1 only its thread does.
  struct ClusterLane {
    Watchers watchers;       // its parked runs that watch words of its own L1
    ClusterWatch watch;
    uint32_t current = ~0u;  // the run being stepped
    bool isolated = false;   // in phase 1
    bool phase_two = false;  // phase 2 has work for it: phase 1 stopped where it would leave, or a store woke a run
    // The runs that ended in phase 1 (their HPUs hear of it before the cluster's phase 2), and
    // its stores that wake other clusters' runs (after it, in cluster order).
    std::vector<std::pair<uint32_t, Picos>> ended;
    std::vector<Wake> wakes;
    bool stepped = false;
    Picos wake = 0;
    uint64_t steps = 0, parked_spins = 0;
    int64_t parked_delta = 0;  // phase 1: runs parked less unparked
  };
  void run();  // SC_THREAD
  // Steps cluster c's runs in time order up to the window's end (or, isolated, until the run
  // furthest behind would leave the cluster); false if it could not step any. `wake`: when a run
  // that waits for the kernel can go on (kNever: when a run is added).
  bool step_cluster(unsigned c, const Limits& lim, Picos& wake);
  void end_phase_one();
  void tell_ended(ClusterLane& lane);
  void set_local(uint32_t id, Picos t);
  void ended(uint32_t id, Picos delay);
  void park(uint32_t id);
  void unpark(uint32_t id, uint64_t iterations);
  void stored(unsigned c, const uint8_t* host, uint32_t bytes, uint64_t cycle);
  // Wakes parked run `id` for a store at `at` by a run of sequence `writer_sequence`.
  void wake_for_store(uint32_t id, Picos at, uint64_t writer_sequence);
  Watchers& watchers_of(const Entry& e) { return e.spin.beyond_cluster ? shared_watchers_ : clusters_[e.cluster].watchers; }
  void count_parked(ClusterLane& lane, int change);
  void add_parked(int64_t change);  // outside phase 1
  // In phase 1 a cluster's stores are told if its own runs or any watching a word other clusters
  // share are parked (other clusters' own words are not its to store to).
  bool armed_apart(const ClusterLane& lane) const { return !lane.watchers.empty() || !shared_watchers_.empty(); }

  // d / period_, rounded down, without a division (the interleaver converts times every step).
  uint64_t whole_cycles(Picos d) const {
    uint64_t q = uint64_t(double(d) * per_period_);
    if (q * period_ > d)
      --q;
    else if ((q + 1) * period_ <= d)
      ++q;
    return q;
  }

  Picos period_;
  double per_period_;
  Picos sync_, start_lookahead_, switch_lookahead_, quantum_;
  std::deque<Entry> entries_;         // by id (ids are reused)
  std::vector<uint32_t> free_ids_;
  size_t active_ = 0;
  std::deque<ClusterLane> clusters_;
  std::vector<std::vector<Slot>> by_cluster_;  // the active runs of each cluster, oldest first
  Watchers shared_watchers_;          // parked runs watching words other clusters share
  size_t parked_ = 0;                 // runs parked (after phase 1: its changes added)
  // Words (% 4096) that parked runs watch in their own cluster's L1, counted over all clusters,
  // so that a store need not look at every cluster's watchers.
  std::array<std::atomic<uint32_t>, 4096> local_watched_{};
  std::multiset<Picos> expected_;     // starts of runs not added yet
  uint64_t sequence_ = 0;
  std::unique_ptr<WorkerPool> pool_;  // threads > 1
  std::vector<unsigned> busy_clusters_;
  sc_core::sc_event run_added_;
};

}  // namespace fs
