// The worker pool (common/worker_pool.h): every index of every job runs exactly once, on the
// pool's threads, and run() returns only when all have.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "common/worker_pool.h"

namespace fs {
namespace {

TEST(WorkerPool, RunsEveryIndexOnceInEveryJob) {
  for (unsigned threads : {1u, 2u, 4u}) {
    WorkerPool pool(threads);
    EXPECT_EQ(pool.threads(), threads);
    // Jobs of many sizes back to back, as the interleaver's windows come: a helper late for one
    // job must take nothing of the next.
    for (size_t n : {0u, 1u, 2u, 3u, 64u, 7u, 1000u, 1u, 5u}) {
      for (int round = 0; round < 50; ++round) {
        std::vector<std::atomic<int>> ran(n);
        pool.run(n, [&](size_t i) { ran[i].fetch_add(1); });
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(ran[i].load(), 1) << threads << " threads, job of " << n << ", index " << i;
      }
    }
  }
}

TEST(WorkerPool, UsesItsHelpers) {
  // Jobs that wait for each other can only finish on two threads at once.
  WorkerPool pool(2);
  std::atomic<int> arrived{0};
  std::mutex m;
  std::set<std::thread::id> ids;
  pool.run(2, [&](size_t) {
    {
      std::lock_guard<std::mutex> lock(m);
      ids.insert(std::this_thread::get_id());
    }
    arrived.fetch_add(1);
    while (arrived.load() < 2) std::this_thread::yield();
  });
  EXPECT_EQ(ids.size(), 2u);
  EXPECT_EQ(arrived.load(), 2);
}

}  // namespace
}  // namespace fs
