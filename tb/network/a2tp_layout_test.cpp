// Where a run's a2tp jobs sit on its hosts (protocols/a2tp/a2tp_layout.h), worked by hand: with
// a2tp.ps dedicated a training job's last host is its PS; with colocated every host is a worker
// and the PS of one shard, its own group address, its own rank local; an iteration's fragments
// split among the shards in order; refusals naming the key.
#include <gtest/gtest.h>

#include "a2tp/a2tp_proto.h"
#include "common/errors.h"
#include "config/config.h"
#include "protocols/a2tp/a2tp_config.h"
#include "protocols/a2tp/a2tp_layout.h"

namespace fs {
namespace {

Config with(const std::string& ps, unsigned groups) {
  Config c;
  a2tp_config(c).ps = ps;
  c.hosts.groups = groups;
  return c;
}

TEST(A2tpJobLayout, ADedicatedPsIsEachJobsLastHost) {
  const std::vector<A2tpJobLayout> l = a2tp_job_layout(with("dedicated", 2), {0, 1, 2, 3, 4, 5});
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[0].workers, (std::vector<unsigned>{0, 1}));
  EXPECT_EQ(l[0].ps, 2u);
  EXPECT_EQ(l[0].local, -1);
  EXPECT_EQ(l[0].shards, 1u);
  EXPECT_EQ(l[0].group, a2tp_group_ipv4(0));
  EXPECT_EQ(l[1].training, 1u);
  EXPECT_EQ(l[1].workers, (std::vector<unsigned>{3, 4}));
  EXPECT_EQ(l[1].ps, 5u);
  EXPECT_EQ(l[1].group, a2tp_group_ipv4(3));
}

TEST(A2tpJobLayout, ColocatedPsesAreAJobForEachHostOfTheTrainingJob) {
  const std::vector<A2tpJobLayout> l = a2tp_job_layout(with("colocated", 2), {0, 1, 2, 3, 4, 5});
  ASSERT_EQ(l.size(), 6u);
  for (unsigned j = 0; j < 6; ++j) {
    const unsigned first = j < 3 ? 0 : 3;
    EXPECT_EQ(l[j].training, j / 3) << j;
    EXPECT_EQ(l[j].workers, (std::vector<unsigned>{first, first + 1, first + 2})) << j;
    EXPECT_EQ(l[j].ps, j) << j;
    EXPECT_EQ(l[j].local, int(j - first)) << j;
    EXPECT_EQ(l[j].shard, j - first) << j;
    EXPECT_EQ(l[j].shards, 3u) << j;
    EXPECT_EQ(l[j].group, a2tp_group_ipv4(j)) << j;
  }
}

TEST(A2tpJobLayout, AnIterationsFragmentsSplitAmongTheShardsInOrder) {
  // 10 fragments over 4 shards: 3, 3, 2, 2 from fragments 0, 3, 6, 8.
  const uint64_t first[] = {0, 3, 6, 8}, count[] = {3, 3, 2, 2};
  for (unsigned s = 0; s < 4; ++s) {
    EXPECT_EQ(a2tp_shard_first(10, s, 4), first[s]) << s;
    EXPECT_EQ(a2tp_shard_fragments(10, s, 4), count[s]) << s;
  }
  EXPECT_EQ(a2tp_shard_first(10, 0, 1), 0u);
  EXPECT_EQ(a2tp_shard_fragments(10, 0, 1), 10u);
  EXPECT_EQ(a2tp_shard_fragments(2, 3, 4), 0u);  // fewer fragments than shards: some carry none
}

TEST(A2tpJobLayout, TooManyWorkersAreRefusedNamingTheKey) {
  std::vector<unsigned> hosts;
  for (unsigned h = 0; h < 129; ++h) hosts.push_back(h);
  EXPECT_NO_THROW(a2tp_job_layout(with("dedicated", 1), hosts));  // 128 workers and the PS
  try {
    a2tp_job_layout(with("colocated", 1), hosts);
    FAIL() << "laid out";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "hosts.groups: job 0 would have 129 workers; a job has 1 to 128 (a2tp.ps colocated: "
                           "each of them a PS too)");
  }
}

}  // namespace
}  // namespace fs
