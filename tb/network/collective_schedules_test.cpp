// The host baselines' schedules (sc_model/protocols/collectives/schedules.h): the parameter
// server's transfers written out by hand for 3 members and 6 blocks; and, for the parameter
// server and the ring of 1 to 5 members and the hierarchical ring over 1 to 3 racks of 1 to 3
// members, over 1, 5 and 36 blocks, an executor of this test's own that lets every transfer's block go as early as the
// schedule lets it leaves every member with the sum of all, both in rounds (all that are ready go
// at once, then arrive: the steps are the number of rounds) and with the blocks arriving one at a
// time in shuffled orders (a block that may go before what it needs has come then sums wrong).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "protocols/collectives/schedules.h"

namespace fs {
namespace {

TEST(CollectiveSchedules, TheParameterServerByHand) {
  const CollectiveSchedule s = ps_schedule(3, 6);
  ASSERT_EQ(s.transfers.size(), 12u);
  EXPECT_EQ(s.steps, 2u);
  // Shard j is blocks [2j, 2j + 2). First every member's shard j to its server j, to be added in.
  unsigned k = 0;
  for (unsigned j = 0; j < 3; ++j)
    for (unsigned r = 0; r < 3; ++r) {
      if (r == j) continue;
      const CollectiveTransfer& t = s.transfers[k++];
      EXPECT_EQ(t.from, r);
      EXPECT_EQ(t.to, j);
      EXPECT_EQ(t.first_block, 2u * j);
      EXPECT_EQ(t.blocks, 2u);
      EXPECT_TRUE(t.reduce);
      EXPECT_TRUE(t.after.empty());
    }
  // Then each server's sum to every other member, copied, once both shards came in.
  for (unsigned j = 0; j < 3; ++j)
    for (unsigned r = 0; r < 3; ++r) {
      if (r == j) continue;
      const CollectiveTransfer& t = s.transfers[k++];
      EXPECT_EQ(t.from, j);
      EXPECT_EQ(t.to, r);
      EXPECT_EQ(t.first_block, 2u * j);
      EXPECT_FALSE(t.reduce);
      EXPECT_EQ(t.after, (std::vector<unsigned>{2 * j, 2 * j + 1}));
    }
}

// Runs the schedule on `members` vectors of `blocks` values (member m's block b holds 1000 m + b +
// 1), each transfer's block going as soon as the schedule lets it. With seed 0 in rounds (all that
// are ready go at once, then arrive; *rounds counts them); else the blocks sent arrive one at a
// time in an order drawn from the seed, so that a block that goes before what it needs has come
// shows as a wrong sum.
std::vector<std::vector<int64_t>> execute(const CollectiveSchedule& s, unsigned members, uint64_t blocks, uint64_t seed,
                                          unsigned* rounds) {
  std::vector<std::vector<int64_t>> v(members, std::vector<int64_t>(blocks));
  for (unsigned m = 0; m < members; ++m)
    for (uint64_t b = 0; b < blocks; ++b) v[m][b] = 1000 * m + int64_t(b) + 1;
  std::vector<size_t> base(s.transfers.size() + 1, 0);  // each transfer's blocks in the flat flags
  for (size_t t = 0; t < s.transfers.size(); ++t) base[t + 1] = base[t] + s.transfers[t].blocks;
  std::vector<char> sent(base.back(), 0), arrived(base.back(), 0);
  const auto has = [&](unsigned d, uint64_t b) {
    const CollectiveTransfer& dep = s.transfers[d];
    return b < dep.first_block || b >= dep.first_block + dep.blocks || arrived[base[d] + (b - dep.first_block)];
  };
  std::vector<std::tuple<unsigned, uint64_t, int64_t>> flying;
  uint64_t state = seed;
  *rounds = 0;
  for (;;) {
    for (unsigned t = 0; t < s.transfers.size(); ++t) {
      const CollectiveTransfer& tr = s.transfers[t];
      for (uint64_t k = 0; k < tr.blocks; ++k) {
        const uint64_t b = tr.first_block + k;
        if (sent[base[t] + k] || !std::all_of(tr.after.begin(), tr.after.end(), [&](unsigned d) { return has(d, b); }))
          continue;
        sent[base[t] + k] = 1;
        flying.emplace_back(t, b, v[tr.from][b]);
      }
    }
    if (flying.empty()) break;
    ++*rounds;
    std::vector<std::tuple<unsigned, uint64_t, int64_t>> now;
    if (!seed) {
      now.swap(flying);
    } else {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      const size_t k = size_t((state >> 33) % flying.size());
      now.push_back(flying[k]);
      flying.erase(flying.begin() + long(k));
    }
    for (const auto& [t, b, x] : now) {
      const CollectiveTransfer& tr = s.transfers[t];
      arrived[base[t] + (b - tr.first_block)] = 1;
      v[tr.to][b] = tr.reduce ? v[tr.to][b] + x : x;
    }
  }
  return v;
}

void expect_sums(const CollectiveSchedule& s, unsigned members, uint64_t blocks) {
  for (uint64_t seed = 0; seed <= 4; ++seed) {
    unsigned rounds = 0;
    const std::vector<std::vector<int64_t>> v = execute(s, members, blocks, seed, &rounds);
    for (unsigned m = 0; m < members; ++m)
      for (uint64_t b = 0; b < blocks; ++b) {
        int64_t want = 0;
        for (unsigned k = 0; k < members; ++k) want += 1000 * k + int64_t(b) + 1;
        ASSERT_EQ(v[m][b], want) << "member " << m << " block " << b << " seed " << seed;
      }
    if (!seed && blocks >= uint64_t(members) * members) {
      EXPECT_EQ(rounds, s.steps);  // every part non-empty: a round a step
    }
  }
}

TEST(CollectiveSchedules, EverySchedulesEarliestRunEndsWithTheSums) {
  for (uint64_t blocks : {1u, 5u, 36u}) {
    for (unsigned n = 1; n <= 5; ++n) {
      SCOPED_TRACE("ps " + std::to_string(n) + " " + std::to_string(blocks));
      expect_sums(ps_schedule(n, blocks), n, blocks);
      std::vector<unsigned> ranks(n);
      for (unsigned r = 0; r < n; ++r) ranks[r] = r;
      expect_sums(ring_schedule(ranks, blocks), n, blocks);
    }
    for (unsigned racks = 1; racks <= 3; ++racks)
      for (unsigned n = 1; n <= 3; ++n) {
        SCOPED_TRACE("hierarchical " + std::to_string(racks) + " x " + std::to_string(n) + " " + std::to_string(blocks));
        std::vector<std::vector<unsigned>> r(racks);
        for (unsigned q = 0; q < racks; ++q)
          for (unsigned l = 0; l < n; ++l) r[q].push_back(q * n + l);
        const CollectiveSchedule s = hierarchical_schedule(r, blocks);
        EXPECT_EQ(s.steps, 2 * (n - 1) + 2 * (racks - 1));
        expect_sums(s, racks * n, blocks);
      }
  }
}

}  // namespace
}  // namespace fs
