// ATP's dynamic aggregator allocation (a2tp.slots), as ATP's public implementation shares a
// switch's aggregators between jobs; A2TP §4.4 rests on it ("hash collisions rarely occur after
// the warm-up phase in dynamic hashing"). A job's fragments cycle through a table of T aggregator
// indexes, fragment s naming entry s mod T: the aggregator a fragment frees is taken again by its
// job's next fragment on that entry (a worker sends fragment s only once s - T is answered, so a
// job never meets itself). The entries start as hashes of (job, entry) mod M, distinct within the
// table (a hash that lands on an index the table holds already is tried again with the next salt).
// When a gradient of a fragment collides (its aggregator held by another aggregation), the job's
// PS, once it completes the fragment, moves the fragment's entry to an aggregator that no packet
// of its job has named and that the table does not hold, taken in an order shuffled from the
// run's seed, and says so in its result (MOVE, next: a2tp_proto.h); with none left the entry
// stays. The workers and the PS apply the same moves to copies of the same table. A training job
// whose fragments are shared among co-located PSes (a2tp.ps colocated) has one table of a part
// for each shard, the parts' entries distinct too, so that its shards never meet each other
// either; a shard's fragments cycle through its own part. Arithmetic only: the jobs
// (a2tp_jobs.h) and the PS (a2tp_ps.h) use it.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

namespace fs {

class A2tpSlotTable {
 public:
  // Job `job`'s table of `slots` entries over `aggregators` aggregators (1 <= slots <= aggregators
  // <= 65536; InputError otherwise); with `parts` parts of `slots` entries (parts x slots at most
  // `aggregators`), the view of part `part`.
  A2tpSlotTable(uint32_t job, unsigned slots, unsigned aggregators, unsigned part = 0, unsigned parts = 1);

  unsigned slots() const { return slots_; }  // the part's entries
  unsigned aggregators() const { return unsigned(held_.size()); }
  uint16_t aggregator(uint64_t sequence) const { return entries_[entry(sequence)]; }
  bool holds(uint16_t aggregator) const { return aggregator < held_.size() && held_[aggregator]; }
  // Moves fragment `sequence`'s entry to aggregator `to`; false (and nothing changes) if the table
  // holds `to` already or it is not an aggregator.
  bool move(uint64_t sequence, uint16_t to);

 private:
  size_t entry(uint64_t sequence) const { return size_t(part_) * slots_ + sequence % slots_; }
  unsigned slots_, part_;
  std::vector<uint16_t> entries_;  // every part's
  std::vector<bool> held_;  // by aggregator index: an entry (of any part) names it
};

// A PS's side of the allocation: which aggregators its job's packets named, and where a fragment
// that collided moves.
class A2tpSlotMover {
 public:
  // Over a copy of the job's initial table; the order it tries aggregators in is shuffled from
  // `seed`.
  A2tpSlotMover(const A2tpSlotTable& table, uint64_t seed);

  void seen(uint16_t aggregator);  // a packet of the job named it
  // Moves fragment `sequence`'s entry in the PS's copy of the table to the next aggregator in
  // the shuffled order that was never seen and the table does not hold, and returns it; nullopt,
  // and no move, when none is left.
  std::optional<uint16_t> move(uint64_t sequence);
  const A2tpSlotTable& table() const { return table_; }

 private:
  A2tpSlotTable table_;
  std::vector<uint16_t> order_;
  size_t tried_ = 0;  // order_[0, tried_) were taken or passed over for good
  std::vector<bool> seen_;
};

}  // namespace fs
