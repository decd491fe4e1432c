// The worker pool (see worker_pool.h).
#include "common/worker_pool.h"

#include <chrono>

namespace fs {

namespace {
// How long a helper looks for a new job before it sleeps.
constexpr auto kSpinFor = std::chrono::microseconds(50);

inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}
}  // namespace

WorkerPool::WorkerPool(unsigned threads) {
  for (unsigned i = 1; i < threads; ++i) helpers_.emplace_back([this] { helper(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : helpers_) t.join();
}

void WorkerPool::take_work(const Job& job) {
  uint64_t t = next_.load(std::memory_order_acquire);
  for (;;) {
    if ((t >> 32) != (job.generation & 0xFFFFFFFFu) || (t & 0xFFFFFFFFu) >= job.n) return;
    if (!next_.compare_exchange_weak(t, t + 1, std::memory_order_acq_rel)) continue;
    (*job.job)(size_t(t & 0xFFFFFFFFu));
    done_.fetch_add(1, std::memory_order_release);
    t = next_.load(std::memory_order_acquire);
  }
}

void WorkerPool::run(size_t n, const std::function<void(size_t)>& job) {
  if (helpers_.empty() || n <= 1) {
    for (size_t i = 0; i < n; ++i) job(i);
    return;
  }
  Job j;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    j = Job{&job, n, current_.generation + 1};
    current_ = j;
    done_.store(0, std::memory_order_relaxed);
    next_.store((j.generation & 0xFFFFFFFFu) << 32, std::memory_order_release);
    generation_.store(j.generation, std::memory_order_release);
  }
  wake_.notify_all();
  take_work(j);
  while (done_.load(std::memory_order_acquire) < n) relax();
}

void WorkerPool::helper() {
  uint64_t seen = 0;
  for (;;) {
    const auto until = std::chrono::steady_clock::now() + kSpinFor;
    for (unsigned spins = 0; generation_.load(std::memory_order_acquire) == seen && !stopping_.load(std::memory_order_acquire);)
      if (++spins % 64 == 0 && std::chrono::steady_clock::now() > until) break;
      else relax();
    Job j;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return current_.generation != seen || stop_; });
      if (stop_) return;
      j = current_;
    }
    seen = j.generation;
    take_work(j);
  }
}

}  // namespace fs
