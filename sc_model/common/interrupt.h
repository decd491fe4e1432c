// SIGINT and SIGTERM as a request to stop. install_interrupt_handlers() makes the first such
// signal only record itself (and restore the default action, so that a second one kills at once);
// the command's long loops (reading a trace, simulating) call check_interrupted(), which throws
// Interrupted. The handler does not ask for restarted system calls, so a read or open blocked on
// a FIFO returns and its caller checks too. The top level turns Interrupted into a one-line
// message and exit status 128 + the signal number, after the outputs' temporary files are gone.
#pragma once
#include <exception>
#include <string>

namespace fs {

class Interrupted : public std::exception {
 public:
  Interrupted(int signal, std::string during) : signal_(signal), during_(std::move(during)) {}
  int signal() const { return signal_; }
  // "reading the trace", "simulating (at 12.3 us of simulated time)", ...
  const std::string& during() const { return during_; }
  const char* what() const noexcept override { return "interrupted"; }

 private:
  int signal_;
  std::string during_;
};

// Signals the parent ignored stay ignored; blocked ones are unblocked (a pending one then counts).
void install_interrupt_handlers();
// The signal that asked to stop, or 0.
int pending_interrupt();
// Throws Interrupted if a signal asked to stop; `during` says what was being done.
void check_interrupted(const std::string& during);
// "SIGINT", "SIGTERM" or "signal N".
std::string signal_name(int signal);

}  // namespace fs
