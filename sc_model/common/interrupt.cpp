// SIGINT and SIGTERM as a request to stop (see interrupt.h).
#include "common/interrupt.h"

#include <csignal>
#include <cstring>

namespace fs {
namespace {

volatile std::sig_atomic_t g_signal = 0;

void on_signal(int sig) {
  g_signal = sig;
  std::signal(sig, SIG_DFL);  // a second one kills at once
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: blocked reads and opens return EINTR
  sigset_t ours;
  sigemptyset(&ours);
  for (int sig : {SIGINT, SIGTERM}) {
    struct sigaction old;
    sigaction(sig, nullptr, &old);
    if (old.sa_handler == SIG_IGN) continue;  // ignored by whoever started us (a background job): stays so
    sigaction(sig, &sa, nullptr);
    sigaddset(&ours, sig);
  }
  // A parent that blocked them would make the run unstoppable; one that arrived while they were
  // blocked is delivered now, and the first check stops the run.
  sigprocmask(SIG_UNBLOCK, &ours, nullptr);
}

int pending_interrupt() { return int(g_signal); }

void check_interrupted(const std::string& during) {
  if (g_signal) throw Interrupted(int(g_signal), during);
}

std::string signal_name(int signal) {
  if (signal == SIGINT) return "SIGINT";
  if (signal == SIGTERM) return "SIGTERM";
  return "signal " + std::to_string(signal);
}

}  // namespace fs
