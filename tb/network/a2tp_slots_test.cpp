// ATP's dynamic aggregator allocation (sc_model/protocols/a2tp/a2tp_slots.h): a job's table holds
// distinct aggregators, fragment s names entry s mod T, a move takes only an aggregator the table
// does not hold; the PS's mover never picks an aggregator its job's packets named or the table
// holds, and says when none is left (worked by hand on 4 aggregators); and the PS flags a collided
// fragment's results MOVE with the aggregator its entry moved to, the result resent to one worker
// included.
#include <gtest/gtest.h>

#include <set>

#include "common/errors.h"
#include "protocols/a2tp/a2tp_ps.h"
#include "protocols/a2tp/a2tp_slots.h"

namespace fs {
namespace {

std::vector<uint16_t> entries(const A2tpSlotTable& t) {
  std::vector<uint16_t> out;
  for (unsigned e = 0; e < t.slots(); ++e) out.push_back(t.aggregator(e));
  return out;
}

// The aggregators of 0..3 the table does not hold, in order.
std::vector<uint16_t> outside_of(const A2tpSlotTable& t) {
  std::vector<uint16_t> out;
  for (uint16_t x = 0; x < 4; ++x)
    if (!t.holds(x)) out.push_back(x);
  return out;
}

TEST(A2tpSlotTable, EntriesAreDistinctAggregatorsAndFragmentsCycleThroughThem) {
  const A2tpSlotTable t(3, 40, 64);
  const std::vector<uint16_t> e = entries(t);
  EXPECT_EQ(std::set<uint16_t>(e.begin(), e.end()).size(), 40u);
  for (uint16_t a : e) {
    EXPECT_LT(a, 64);
    EXPECT_TRUE(t.holds(a));
  }
  EXPECT_EQ(t.aggregator(7), t.aggregator(7 + 40));
  EXPECT_EQ(t.aggregator(7), t.aggregator(7 + 40 * 1000));
  // The same job's workers and PS build the same table; another job's differs.
  EXPECT_EQ(entries(A2tpSlotTable(3, 40, 64)), e);
  EXPECT_NE(entries(A2tpSlotTable(4, 40, 64)), e);
  // A table as long as the switch holds every aggregator once.
  const std::vector<uint16_t> all = entries(A2tpSlotTable(0, 64, 64));
  EXPECT_EQ(std::set<uint16_t>(all.begin(), all.end()).size(), 64u);
}

TEST(A2tpSlotTable, AMoveTakesOnlyAnAggregatorTheTableDoesNotHold) {
  A2tpSlotTable t(1, 2, 4);
  const uint16_t a = t.aggregator(0), b = t.aggregator(1);
  const std::vector<uint16_t> free = outside_of(t);
  ASSERT_EQ(free.size(), 2u);
  EXPECT_FALSE(t.move(5, a));  // entry 1 to entry 0's aggregator: refused
  EXPECT_FALSE(t.move(5, 4));  // not an aggregator
  EXPECT_EQ(t.aggregator(1), b);
  EXPECT_TRUE(t.move(5, free[0]));  // fragment 5 is entry 1's
  EXPECT_EQ(t.aggregator(1), free[0]);
  EXPECT_EQ(t.aggregator(3), free[0]);
  EXPECT_FALSE(t.holds(b));
  EXPECT_TRUE(t.move(0, b));  // the aggregator left behind can be taken again
  EXPECT_EQ(entries(t), (std::vector<uint16_t>{b, free[0]}));
}

TEST(A2tpSlotTable, ATableLongerThanTheSwitchIsRefused) {
  EXPECT_THROW(A2tpSlotTable(0, 5, 4), InputError);
  EXPECT_THROW(A2tpSlotTable(0, 0, 4), InputError);
  EXPECT_THROW(A2tpSlotTable(0, 1, 0), InputError);
}

// A training job's shards (a2tp.ps colocated) each cycle through a part of one table: the parts'
// entries are distinct across the parts, each part is the whole table's stretch of its own (part
// 0 the table of one part), and no part holds what another could move to. More parts than the
// switch holds are refused, naming the key.
TEST(A2tpSlotTable, AShardsPartNeverMeetsAnotherShardsPart) {
  std::set<uint16_t> all;
  for (unsigned part = 0; part < 4; ++part) {
    const A2tpSlotTable t(3, 10, 64, part, 4);
    EXPECT_EQ(t.slots(), 10u);
    EXPECT_EQ(t.aggregator(2), t.aggregator(12));
    for (uint16_t a : entries(t)) all.insert(a);
    for (unsigned other = 0; other < 4; ++other)
      for (uint16_t a : entries(A2tpSlotTable(3, 10, 64, other, 4))) EXPECT_TRUE(t.holds(a));
  }
  EXPECT_EQ(all.size(), 40u);
  EXPECT_EQ(entries(A2tpSlotTable(3, 10, 64, 0, 4)), entries(A2tpSlotTable(3, 10, 64)));
  // Moving part 1's fragment 2 changes part 1's entry 2 and nothing of part 0's.
  A2tpSlotTable t1(3, 10, 64, 1, 4);
  uint16_t free = 0;
  while (t1.holds(free)) ++free;
  EXPECT_TRUE(t1.move(12, free));
  EXPECT_EQ(t1.aggregator(2), free);
  try {
    A2tpSlotTable(0, 20, 64, 0, 4);
    FAIL() << "built";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "a2tp.slots: 4 shards' tables of 20 entries each are more than the 64 aggregators "
                           "(a2tp.ps colocated: a2tp.slots x the job's hosts at most a2tp.aggregators)");
  }
}

TEST(A2tpSlotMover, MovesOnlyToAggregatorsNeverSeenNorHeldUntilNoneIsLeft) {
  // 4 aggregators, the job's table holds 2 (a, b); its packets named a, b and c (c: another job's,
  // met in a collision). The only aggregator left is the fourth, d.
  const A2tpSlotTable t(1, 2, 4);
  const uint16_t a = t.aggregator(0), b = t.aggregator(1);
  const std::vector<uint16_t> outside = outside_of(t);
  const uint16_t c = outside[0], d = outside[1];
  A2tpSlotMover m(t, 42);
  m.seen(a), m.seen(b), m.seen(c);
  EXPECT_EQ(m.move(0), std::optional<uint16_t>(d));
  EXPECT_EQ(entries(m.table()), (std::vector<uint16_t>{d, b}));
  // a is free in the table now, but was seen: nothing is left.
  EXPECT_EQ(m.move(1), std::nullopt);
  EXPECT_EQ(entries(m.table()), (std::vector<uint16_t>{d, b}));
}

TEST(A2tpSlotMover, PicksDifferAndFollowTheSeed) {
  const A2tpSlotTable t(2, 8, 256);
  A2tpSlotMover m(t, 7), same(t, 7), other(t, 8);
  std::vector<uint16_t> picks, again, others;
  // As the PS moves: a collided packet names the entry's aggregator, then the entry moves.
  const auto move = [](A2tpSlotMover& mover, uint64_t s) {
    mover.seen(mover.table().aggregator(s));
    return *mover.move(s);
  };
  for (uint64_t s = 0; s < 100; ++s) {
    picks.push_back(move(m, s));
    again.push_back(move(same, s));
    others.push_back(move(other, s));
  }
  EXPECT_EQ(picks, again);
  EXPECT_NE(picks, others);
  EXPECT_EQ(std::set<uint16_t>(picks.begin(), picks.end()).size(), 100u);  // never the same twice
  for (uint16_t p : picks)
    for (uint16_t e : entries(t)) EXPECT_NE(p, e);  // never one the table held at first (held or seen)
}

A2tpPacket gradient(unsigned worker, uint32_t seq, uint16_t aggregator, uint8_t flags = 0) {
  A2tpPacket p;
  p.h.job = 1, p.h.sequence = seq, p.h.aggregator = aggregator, p.h.worker = uint8_t(worker), p.h.workers = 2;
  p.h.bitmap[0] = 1u << worker, p.h.flags = flags, p.h.elements = 1;
  p.values = {int32_t(worker + 1)};
  return p;
}

TEST(A2tpParameterServer, ACollidedFragmentsResultsMoveItsEntry) {
  const A2tpSlotTable t(1, 2, 4);
  const uint16_t a = t.aggregator(0), b = t.aggregator(1);
  const std::vector<uint16_t> outside = outside_of(t);
  A2tpParameterServer ps(2, A2tpSlotMover(t, 42));
  using Kind = A2tpParameterServer::Action::Kind;
  // Fragment 1 (entry 1, aggregator b) completes at the switch: no move.
  A2tpPacket whole = gradient(0, 1, b, A2TP_FLAG_RESULT);
  whole.h.bitmap[0] = 3;
  auto r = ps.take(whole, false);
  EXPECT_EQ(r.kind, Kind::kMulticast);
  EXPECT_EQ(r.flags, A2TP_FLAG_RESULT);
  EXPECT_EQ(r.next, 0);
  // Fragment 2 (entry 0, aggregator a) collided there with another job's aggregation held at a
  // (so a is seen, as the table's own); worker 0's gradient and then worker 1's, bypassed.
  // Neither a nor b may be taken: the move goes to one of the other two.
  EXPECT_EQ(ps.take(gradient(0, 2, a, A2TP_FLAG_COLLISION), false).kind, Kind::kNone);
  r = ps.take(gradient(1, 2, a, A2TP_FLAG_COLLISION), false);
  EXPECT_EQ(r.kind, Kind::kMulticast);
  EXPECT_EQ(r.values, (std::vector<int32_t>{3}));
  EXPECT_EQ(r.aggregator, a);  // the old one: a switch the result passes frees it there
  EXPECT_EQ(r.flags, A2TP_FLAG_RESULT | A2TP_FLAG_COL | A2TP_FLAG_MOVE);
  EXPECT_TRUE(r.next == outside[0] || r.next == outside[1]) << r.next;
  EXPECT_EQ(ps.moves(), 1u);
  // Worker 1 never got it and sends its gradient again: the result again, moving the same way.
  const auto again = ps.take(gradient(1, 2, a, A2TP_FLAG_RESEND), false);
  EXPECT_EQ(again.kind, Kind::kResend);
  EXPECT_EQ(again.flags, r.flags);
  EXPECT_EQ(again.next, r.next);
  EXPECT_EQ(ps.moves(), 1u);
  // Without a mover a collided fragment's result moves nothing.
  A2tpParameterServer plain(2);
  plain.take(gradient(0, 2, a, A2TP_FLAG_COLLISION), false);
  r = plain.take(gradient(1, 2, a, A2TP_FLAG_COLLISION), false);
  EXPECT_EQ(r.flags, A2TP_FLAG_RESULT | A2TP_FLAG_COL);
  EXPECT_EQ(r.next, 0);
}

}  // namespace
}  // namespace fs
