// A fixed set of host threads that carry out one job over the indices [0, n) together with the
// calling thread: each index once, in no particular order, and run() returns when all are done.
// Helpers wait for work spinning a short while, then asleep, so that a job every few
// microseconds (the interleaver's windows) does not pay a thread wake-up each time.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace fs {

class WorkerPool {
 public:
  // `threads`: the calling thread and threads - 1 helpers (at least 1 in all).
  explicit WorkerPool(unsigned threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  unsigned threads() const { return unsigned(helpers_.size()) + 1; }
  // Calls job(i) for every i in [0, n), spread over the threads; returns when all have returned.
  // The job must not throw.
  void run(size_t n, const std::function<void(size_t)>& job);

 private:
  struct Job {
    const std::function<void(size_t)>* job = nullptr;
    size_t n = 0;
    uint64_t generation = 0;
  };
  void helper();
  void take_work(const Job& job);  // runs the job's indices until none is left

  std::vector<std::thread> helpers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  Job current_;                          // under mutex_
  std::atomic<uint64_t> generation_{0};  // current_.generation, to watch without the mutex
  bool stop_ = false;                    // under mutex_
  std::atomic<bool> stopping_{false};
  // generation << 32 | the next index to take: a helper that comes late to a job takes
  // nothing from the next one.
  std::atomic<uint64_t> next_{0};
  std::atomic<size_t> done_{0};  // indices of the current job finished
};

}  // namespace fs
