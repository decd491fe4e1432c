// The handler API's one implementation in the simulator (handlers/include/fs_api.def lists the
// calls): a HandlerApi object serves one handler run, on either HPU model. Native handlers reach
// it through the host back end's table (backend()); ISS handlers through the runtime registers
// (runtime_registers.h), which turn the firmware's command-register sequences into calls of the
// same members, with guest pointers already checked and turned into host pointers. It turns
// send, multicast and host writes into HandlerCommands, which the HPU model issues
// (Hooks::command) or leaves in the run, makes DMA copies (their timing is the model's:
// Hooks::dma), finds other clusters' L1 and writes handler log lines. Plain C++, no SystemC.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "common/units.h"
#include "fs_handler.h"
#include "pspin/hpu_engine.h"

namespace fs {

// The handler log (`flaresim run --handler-log FILE`): one line per fs_log / fs_log_write call,
// "<time in ns> <cluster> <hpu> <handler set> <text>". Without a stream the lines are dropped
// (the calls still cost their cycles and count in the stats).
class HandlerLog {
 public:
  static constexpr const char* kHeader = "# time_ns cluster hpu handler_set text";
  explicit HandlerLog(std::ostream* out) : out_(out) {}
  void line(Picos time, uint32_t cluster, uint32_t hpu, const std::string& set, std::string_view text);

 private:
  std::ostream* out_;
};

class HandlerApi {
 public:
  // What the HPU model decides: when a call happens and what a DMA copy costs.
  class Hooks {
   public:
    virtual ~Hooks() = default;
    virtual Picos now() const = 0;  // the simulated time of the call being made
    // A copy of `bytes` bytes was made; returns the cycles the HPU waits for it now (0 if the
    // model charges it later).
    virtual uint64_t dma(uint32_t bytes) = 0;
    // The handler issues `cmd` now: true if the model issued it (`wait`: the cycles the HPU
    // waits for a free command slot), false to leave it in the run for the retire block.
    virtual bool command(HandlerCommand& /*cmd*/, uint64_t& /*wait*/) { return false; }
  };

  static constexpr uint32_t kMaxFrameBytes = 65535;
  static constexpr uint32_t kMaxPorts = 4096;  // in one multicast's list

  // `job.args` as the native handler sees them (host pointers); `log` may be null (lines dropped).
  HandlerApi(const HpuEnvironment& env, const HandlerJob& job, HandlerRun& run, Hooks& hooks, HandlerLog* log)
      : env_(env), args_(job.args), set_(job.set), memory_(job.memory), run_(run), hooks_(hooks), log_(log) {}
  HandlerApi(const HandlerApi&) = delete;
  HandlerApi& operator=(const HandlerApi&) = delete;

  // One member per call of fs_api.def, with the C signature (less the fs_ prefix).
#define FS_API_DEVICE(name, ret, params, ...) ret name params;
#define FS_API_LOCAL(name, ret, params, ...) ret name params;
#define FS_API_HELPER(...)
#include "fs_api.def"
#undef FS_API_DEVICE
#undef FS_API_LOCAL
#undef FS_API_HELPER

  // The cycles the HPU waits after the last call (a DMA copy, a command's issue); reading them
  // clears them.
  uint64_t take_wait_cycles() {
    const uint64_t w = wait_;
    wait_ = 0;
    return w;
  }
  // A host back-end table whose every entry forwards to this object (ctx = this).
  fs_backend_t backend();

 private:
  // A send, multicast or host write: issued by the model, or kept in the run.
  void issue(HandlerCommand cmd);

  const HpuEnvironment& env_;
  const fs_handler_args_t& args_;
  const HandlerSet& set_;
  const HpuMemoryView& memory_;
  HandlerRun& run_;
  Hooks& hooks_;
  HandlerLog* log_;
  uint64_t wait_ = 0;
};

// The table of the handler API in docs/HANDLERS.md (markdown, a line per row of fs_api.def), as
// `flaresim info --api` prints it.
std::string handler_api_markdown();

}  // namespace fs
