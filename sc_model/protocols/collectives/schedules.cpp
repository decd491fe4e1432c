// The host baselines' schedules (see schedules.h).
#include "protocols/collectives/schedules.h"

#include <algorithm>
#include <stdexcept>

namespace fs {
namespace {

using Into = std::vector<std::vector<unsigned>>;  // per ring position: transfers into it

uint64_t part_start(uint64_t first, uint64_t count, unsigned parts, unsigned p) { return first + count * p / parts; }

// Adds a transfer of part p of [first, first + count) cut into `parts`; its index, or -1 for an
// empty part (none is added).
int add(CollectiveSchedule& s, unsigned from, unsigned to, uint64_t first, uint64_t count, unsigned parts, unsigned p,
        bool reduce, std::vector<unsigned> after) {
  const uint64_t lo = part_start(first, count, parts, p), hi = part_start(first, count, parts, p + 1);
  if (hi == lo) return -1;
  CollectiveTransfer t;
  t.from = from, t.to = to, t.first_block = lo, t.blocks = hi - lo, t.reduce = reduce, t.after = std::move(after);
  s.transfers.push_back(t);
  return int(s.transfers.size() - 1);
}

std::vector<unsigned> just(int t) { return t < 0 ? std::vector<unsigned>{} : std::vector<unsigned>{unsigned(t)}; }

std::vector<unsigned> with(std::vector<unsigned> a, const std::vector<unsigned>& b) {
  for (unsigned t : b)
    if (std::find(a.begin(), a.end(), t) == a.end()) a.push_back(t);
  return a;
}

// A ring over `ranks` (m positions, in ring order) of the blocks [first, first + count) cut into m
// parts: a reduce-scatter (position i sends part (i - t) mod m at step t, to be added in; it ends
// holding part (i + 1) mod m summed) and, with `gather`, an allgather (position i sends part
// (i + 1 - t) mod m at step t, to be copied; without `scatter` each position starts holding part
// (i + 1) mod m). Every send of position i waits for `before[i]` (what made its own data: a part it
// adds to must hold it already) and for the step before's transfer into it. Returns, per
// position, the transfers into it by which it holds its result: its part (scatter alone) or
// every part.
Into add_ring(CollectiveSchedule& s, const std::vector<unsigned>& ranks, uint64_t first, uint64_t count, bool scatter,
              bool gather, const Into& before) {
  const unsigned m = unsigned(ranks.size());
  Into held = before;  // per position: what its next send waits for
  Into into(m);
  if (m > 1 && scatter)
    for (unsigned t = 0; t + 1 < m; ++t) {
      Into next(m);
      for (unsigned i = 0; i < m; ++i) {
        const unsigned to = (i + 1) % m, p = (i + m - t % m) % m;
        next[to] = just(add(s, ranks[i], ranks[to], first, count, m, p, true, with(held[i], before[i])));
      }
      held = next;
    }
  for (unsigned i = 0; i < m; ++i) into[i] = held[i];
  if (m > 1 && gather)
    for (unsigned t = 0; t + 1 < m; ++t) {
      Into next(m);
      for (unsigned i = 0; i < m; ++i) {
        const unsigned to = (i + 1) % m, p = (i + 1 + m - t % m) % m;
        next[to] = just(add(s, ranks[i], ranks[to], first, count, m, p, false, with(held[i], before[i])));
      }
      for (unsigned i = 0; i < m; ++i) into[i].insert(into[i].end(), next[i].begin(), next[i].end());
      held = next;
    }
  return into;
}

}  // namespace

CollectiveSchedule ps_schedule(unsigned members, uint64_t blocks) {
  CollectiveSchedule s;
  std::vector<std::vector<unsigned>> gathered(members);  // per server: the shards it summed
  for (unsigned j = 0; j < members; ++j)
    for (unsigned r = 0; r < members; ++r)
      if (r != j)
        for (unsigned t : just(add(s, r, j, 0, blocks, members, j, true, {}))) gathered[j].push_back(t);
  for (unsigned j = 0; j < members; ++j)
    for (unsigned r = 0; r < members; ++r)
      if (r != j) add(s, j, r, 0, blocks, members, j, false, gathered[j]);
  s.steps = members > 1 ? 2 : 0;
  return s;
}

CollectiveSchedule hierarchical_schedule(const std::vector<std::vector<unsigned>>& racks, uint64_t blocks) {
  const unsigned R = unsigned(racks.size()), n = unsigned(racks.at(0).size());
  for (const auto& rack : racks)
    if (rack.size() != n) throw std::logic_error("hierarchical_schedule: racks of different sizes");
  CollectiveSchedule s;
  std::vector<Into> reduced(R);  // per rack: by position, what its rack sum of its shard came in
  for (unsigned q = 0; q < R; ++q) reduced[q] = add_ring(s, racks[q], 0, blocks, true, false, Into(n));
  std::vector<Into> whole(R, Into(n));  // per rack: by position, what its whole shard came in
  for (unsigned l = 0; l < n; ++l) {
    const unsigned shard = (l + 1) % n;
    std::vector<unsigned> across;
    Into before;
    for (unsigned q = 0; q < R; ++q) across.push_back(racks[q][l]), before.push_back(reduced[q][l]);
    const uint64_t lo = part_start(0, blocks, n, shard), hi = part_start(0, blocks, n, shard + 1);
    const Into done = add_ring(s, across, lo, hi - lo, true, true, before);
    for (unsigned q = 0; q < R; ++q) {
      whole[q][l] = reduced[q][l];
      whole[q][l].insert(whole[q][l].end(), done[q].begin(), done[q].end());
    }
  }
  for (unsigned q = 0; q < R; ++q) add_ring(s, racks[q], 0, blocks, false, true, whole[q]);
  s.steps = 2 * (n - 1) + 2 * (R - 1);
  return s;
}

CollectiveSchedule ring_schedule(const std::vector<unsigned>& ranks, uint64_t blocks) {
  CollectiveSchedule s;
  add_ring(s, ranks, 0, blocks, true, true, Into(ranks.size()));
  s.steps = ranks.size() > 1 ? 2 * unsigned(ranks.size() - 1) : 0;
  return s;
}

}  // namespace fs
