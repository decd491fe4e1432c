// The guarded native call (see native_call.h).
#include "pspin/native_call.h"

#include <execinfo.h>
#include <pthread.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/guarded_memory.h"
#include "common/host_code.h"

// AddressSanitizer's, when its runtime is in the program (FS_SANITIZE=address, FLARESIM_SANITIZE).
extern "C" void __asan_unpoison_memory_region(void const volatile* addr, size_t size) __attribute__((weak));
extern "C" int __asan_report_present() __attribute__((weak));

namespace fs {
namespace {

enum Cause : int { kReturned, kMemoryFault, kWatchdog };
enum Access : int { kUnknownAccess, kLoad, kStore, kFetch };
constexpr int kMaxFrames = 32;

// One per thread that makes guarded calls (never freed: the watchdog's thread may still look).
struct GuardState {
  pthread_t thread{};
  std::atomic<uint64_t> generation{0};  // odd while the thread is in a guarded call
  std::atomic<uint64_t> limit_ms{0};    // the call's watchdog bound (0: none)
  std::atomic<uint64_t> fire{0};        // the generation the watchdog stopped
  // The watchdog thread's own: the odd generation it saw last, and since when.
  uint64_t seen = 0;
  std::chrono::steady_clock::time_point seen_at{};
  // The thread's and its signal handlers': where to leave to, and why and where it stopped.
  sigjmp_buf escape;
  volatile sig_atomic_t api_depth = 0, deferred = 0;
  volatile sig_atomic_t cause = kReturned, access = kUnknownAccess;
  volatile uintptr_t address = 0, pc = 0, sp = 0;
  volatile sig_atomic_t pc_is_return = 0;
  void* frames[kMaxFrames];
  volatile int frame_count = 0;
};

thread_local GuardState* t_state = nullptr;

struct Registry {
  std::mutex mutex;
  std::vector<GuardState*> states;
  std::atomic<bool> watching{false};
};
Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: the watchdog's thread outlives statics
  return *r;
}

int watchdog_signal() { return SIGRTMIN + 2; }

struct sigaction g_previous_segv, g_previous_bus;

// The interrupted code's pc and, for a page fault, what it did (x86-64's error code: bit 1 a
// write, bit 4 an instruction fetch).
void record_context(GuardState& s, void* context) {
  const auto* uc = static_cast<const ucontext_t*>(context);
  s.access = kUnknownAccess;
  s.sp = 0;
#if defined(__x86_64__)
  s.pc = uintptr_t(uc->uc_mcontext.gregs[REG_RIP]);
  s.sp = uintptr_t(uc->uc_mcontext.gregs[REG_RSP]);
  if (uc->uc_mcontext.gregs[REG_TRAPNO] == 14) {
    const auto error = uc->uc_mcontext.gregs[REG_ERR];
    s.access = error & 0x10 ? kFetch : error & 0x2 ? kStore : kLoad;
  }
#elif defined(__aarch64__)
  s.pc = uintptr_t(uc->uc_mcontext.pc);
  s.sp = uintptr_t(uc->uc_mcontext.sp);
#else
  (void)uc;
  s.pc = 0;
#endif
  s.pc_is_return = 0;
  // Code outside the program (the C library's memcpy): the stack says which handler call it was
  // in. backtrace() was warmed up at installation, so it does not load anything here.
  s.frame_count = in_main_program(s.pc) ? 0 : backtrace(s.frames, kMaxFrames);
}

// Leaves the guarded call (from a signal handler or from native_api_leave).
[[noreturn]] void escape(GuardState& s, Cause cause) {
  s.cause = cause;
  siglongjmp(s.escape, 1);
}

void pass_on(int sig, siginfo_t* info, void* context) {
  const struct sigaction& previous = sig == SIGSEGV ? g_previous_segv : g_previous_bus;
  if ((previous.sa_flags & SA_SIGINFO) && previous.sa_sigaction) {
    previous.sa_sigaction(sig, info, context);
    return;
  }
  if (!(previous.sa_flags & SA_SIGINFO) && previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(sig);
    return;
  }
  // The default action: returning repeats the access, which now ends the process as it would have.
  signal(sig, SIG_DFL);
}

void on_memory_fault(int sig, siginfo_t* info, void* context) {
  GuardState* s = t_state;
  const bool in_call = s && (s->generation.load() & 1);
  if (in_call && s->api_depth == 0) {
    s->address = uintptr_t(info->si_addr);
    record_context(*s, context);
    escape(*s, kMemoryFault);
  }
  if (in_call) {
    static const char note[] =
        "flaresim: memory fault inside the simulator during a native handler's call into it\n";
    [[maybe_unused]] const ssize_t n = write(2, note, sizeof note - 1);
  }
  pass_on(sig, info, context);
}

void on_watchdog(int, siginfo_t*, void* context) {
  GuardState* s = t_state;
  if (!s) return;
  const uint64_t g = s->generation.load();
  if (!(g & 1) || s->fire.load() != g) return;  // late: that call has ended
  // AddressSanitizer is reporting an error of the handler's (which takes long: it symbolises the
  // stack) and ends the program when done: let it.
  if (__asan_report_present && __asan_report_present()) return;
  if (s->api_depth > 0) {
    s->deferred = 1;  // inside the simulator: stop when the call returns
    return;
  }
  record_context(*s, context);
  escape(*s, kWatchdog);
}

void install_signal_handlers() {
  in_main_program(0);  // finds the program's segments now, not in a signal handler
  void* warm[1];
  backtrace(warm, 1);  // loads the unwinder now
  struct sigaction sa {};
  sigemptyset(&sa.sa_mask);
  sa.sa_sigaction = on_memory_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigaction(SIGSEGV, &sa, &g_previous_segv);
  sigaction(SIGBUS, &sa, &g_previous_bus);
  sa.sa_sigaction = on_watchdog;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  sigaction(watchdog_signal(), &sa, nullptr);
}

// An alternate signal stack for the thread, unless it has one (AddressSanitizer makes its own).
void ensure_signal_stack() {
  stack_t current{};
  if (sigaltstack(nullptr, &current) == 0 && !(current.ss_flags & SS_DISABLE)) return;
  const size_t bytes = 256 * 1024;
  void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return;  // faults from a full stack then end the process
  stack_t st{};
  st.ss_sp = m;
  st.ss_size = bytes;
  sigaltstack(&st, nullptr);  // kept for the thread's life
}

// The watchdog's thread: every few milliseconds, stops each call that has been in flight, under
// one generation, for at least its bound (never earlier: a call is first seen after it starts).
[[noreturn]] void watch() {
  Registry& r = registry();
  for (;;) {
    std::chrono::milliseconds poll(100);
    {
      std::lock_guard<std::mutex> lock(r.mutex);
      for (GuardState* s : r.states)
        if (const uint64_t limit = s->limit_ms.load())
          poll = std::min(poll, std::chrono::milliseconds(std::max<uint64_t>(1, limit / 8)));
    }
    std::this_thread::sleep_for(poll);
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard<std::mutex> lock(r.mutex);
    for (GuardState* s : r.states) {
      const uint64_t g = s->generation.load(), limit = s->limit_ms.load();
      if (!(g & 1) || !limit) continue;
      if (g != s->seen) {
        s->seen = g;
        s->seen_at = now;
      } else if (now - s->seen_at >= std::chrono::milliseconds(limit) && s->fire.load() != g) {
        s->fire.store(g);
        pthread_kill(s->thread, watchdog_signal());
      }
    }
  }
}

GuardState& this_thread_state(bool watched) {
  static std::once_flag installed;
  std::call_once(installed, install_signal_handlers);
  Registry& r = registry();
  if (!t_state) {
    ensure_signal_stack();
    auto* s = new GuardState;
    s->thread = pthread_self();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.states.push_back(s);
    t_state = s;
  }
  if (watched && !r.watching.load()) {
    std::lock_guard<std::mutex> lock(r.mutex);
    if (!r.watching.exchange(true)) std::thread(watch).detach();
  }
  return *t_state;
}

// After leaving from a signal handler: the signals it blocked are unblocked, and in AddressSanitizer
// builds the frames the handler left are unpoisoned (ASan unpoisons the stack a longjmp leaves,
// but from a signal handler that is the alternate signal stack), from below the interrupted
// stack pointer (its 128-byte red zone included) up to `here`, a local of the guarded call.
void after_escape(const GuardState& s, const volatile void* here) {
  sigset_t ours;
  sigemptyset(&ours);
  sigaddset(&ours, SIGSEGV);
  sigaddset(&ours, SIGBUS);
  sigaddset(&ours, watchdog_signal());
  pthread_sigmask(SIG_UNBLOCK, &ours, nullptr);
  const uintptr_t top = uintptr_t(here), bottom = s.sp - 128;
  if (__asan_unpoison_memory_region && s.sp && bottom < top) __asan_unpoison_memory_region((void*)bottom, top - bottom);
}

// Calls fn(args) under sigsetjmp: true if it returned (its result in `outcome`), false if a signal
// handler left it (s.cause says why). The signal mask is not saved (that is a system call per
// run): after_escape unblocks what the signal handler blocked instead.
__attribute__((noinline)) bool guarded_call(GuardState& s, int (*fn)(const fs_handler_args_t*),
                                            const fs_handler_args_t* args, int& outcome) {
  volatile char here = 0;
  s.cause = kReturned;
  s.api_depth = 0;
  s.deferred = 0;
  s.frame_count = 0;
  s.sp = 0;
  if (sigsetjmp(s.escape, 0) != 0) {
    s.generation.fetch_add(1);  // even: out of the call
    after_escape(s, &here);
    return false;
  }
  s.generation.fetch_add(1);  // odd: in the call
  outcome = fn(args);
  s.generation.fetch_add(1);
  return true;
}

// Where the handler was: its pc, and for code outside the program the handler's call of it (the
// first return address in the program after the interrupted pc's own frame).
std::string place(const GuardState& s) {
  std::string text = describe_host_pc(s.pc, s.pc_is_return);
  void* const* end = s.frames + s.frame_count;
  for (void* const* f = std::find(s.frames + 0, end, reinterpret_cast<void*>(s.pc)); f != end; ++f)
    if (in_main_program(uintptr_t(*f))) {
      text += ", called from " + describe_host_pc(uintptr_t(*f), true);
      break;
    }
  return text;
}

std::string why(const GuardState& s, uint32_t watchdog_ms) {
  if (s.cause == kWatchdog)
    return "ran longer than hpu.native_watchdog_ms = " + std::to_string(watchdog_ms) + " ms (wall time), stopped at " +
           place(s);
  static const char* const kAccess[] = {"access fault", "load access fault", "store access fault",
                                        "instruction fetch access fault"};
  std::string target = describe_guarded_address(s.address);
  if (target.empty()) {
    char hex[40];
    std::snprintf(hex, sizeof hex, "0x%" PRIxPTR, uintptr_t(s.address));
    target = std::string("at host address ") + hex + ", in no simulated memory,";
  }
  return std::string(kAccess[s.access]) + " " + target + " at " + place(s);
}

}  // namespace

void native_api_enter() {
  if (GuardState* s = t_state) s->api_depth = s->api_depth + 1;
}

void native_api_leave() {
  GuardState* s = t_state;
  if (!s) return;
  s->api_depth = s->api_depth - 1;
  if (s->api_depth == 0 && s->deferred && (s->generation.load() & 1)) {
    s->pc = uintptr_t(fs_backend_caller());
    s->pc_is_return = 1;
    s->frame_count = 0;
    escape(*s, kWatchdog);
  }
}

bool native_stop_pending() {
  const GuardState* s = t_state;
  return s && s->deferred;
}

void run_native_handler(const HandlerJob& job, HandlerApi& api, HandlerRun& run, uint32_t watchdog_ms) {
  GuardState& s = this_thread_state(watchdog_ms > 0);
  s.limit_ms.store(watchdog_ms);
  const fs_handler_args_t& args = job.args;
  const auto fn = args.ingress_port == FS_TIMER_PORT ? job.set.timer_fn : job.set.fn;
  if (!fn) throw std::logic_error("run_native_handler: handler set " + job.set.name + " has no timer handler");
  const fs_backend_t backend = api.backend();
  const fs_backend_t* previous = fs_set_backend(&backend);
  int outcome = FS_OK;
  const bool returned = guarded_call(s, fn, &args, outcome);
  fs_set_backend(previous);
  if (returned) {
    run.outcome = outcome;
    return;
  }
  run.fault = "handler " + job.set.name + " (cluster " + std::to_string(args.cluster_id) + ", HPU " +
              std::to_string(args.hpu_id) + "): " + why(s, watchdog_ms);
  run.commands.erase(std::remove_if(run.commands.begin(), run.commands.end(),
                                    [](const HandlerCommand& c) {
                                      return c.kind == HandlerCommand::kTimerArm ||
                                             c.kind == HandlerCommand::kTimerCancel;
                                    }),
                     run.commands.end());
}

}  // namespace fs
