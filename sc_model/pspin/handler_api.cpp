// The handler API's calls as the simulator carries them out (see handler_api.h), and the
// handler log.
#include "pspin/handler_api.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include "common/guarded_memory.h"
#include "pspin/native_call.h"

namespace fs {

// The helpers' rows of fs_api.def match their declarations in fs_handler.h (a pointer of the
// row's type initialised with the function does not compile otherwise).
#define FS_API_DEVICE(...)
#define FS_API_LOCAL(...)
#define FS_API_HELPER(name, ret, params, doc) [[maybe_unused]] constexpr ret(*kRowOf_##name) params = &fs_##name;
#include "fs_api.def"
#undef FS_API_DEVICE
#undef FS_API_LOCAL
#undef FS_API_HELPER

namespace {

// A pointer the handler passed reaches memory next to the simulated memories that no HPU
// addresses (a guard or padding: common/guarded_memory.h). The ISS's runtime registers refuse
// such guest addresses before the call; natively the call refuses them itself, so that the guard
// pages never trap inside the simulator. Other host pointers (a native handler's stack, its
// constant data) are used as they are.
bool stray(const void* p, uint64_t len) { return reaches_guard(p, size_t(len)); }

}  // namespace

void HandlerLog::line(Picos time, uint32_t cluster, uint32_t hpu, const std::string& set, std::string_view text) {
  if (!out_) return;
  char prefix[96];
  std::snprintf(prefix, sizeof prefix, "%llu.%03llu %u %u ", (unsigned long long)(time / 1000),
                (unsigned long long)(time % 1000), cluster, hpu);
  *out_ << prefix << set << ' ' << text << '\n';
}

void HandlerApi::issue(HandlerCommand cmd) {
  uint64_t wait = 0;
  if (!hooks_.command(cmd, wait)) {
    run_.commands.push_back(std::move(cmd));
    return;
  }
  run_.counters.command_wait_cycles += wait;
  wait_ = wait;
}

// The frame's bytes are taken at the call: the handler may change them afterwards.
int HandlerApi::send(const void* frame, uint32_t len, uint32_t port) {
  if (len > kMaxFrameBytes || port >= env_.num_ports || stray(frame, len)) return -1;
  const auto* b = static_cast<const uint8_t*>(frame);
  issue({HandlerCommand::kSend, {port}, 0, Bytes(b, b + len)});
  return 0;
}

int HandlerApi::multicast(const void* frame, uint32_t len, const uint32_t* ports, uint32_t nports) {
  if (len > kMaxFrameBytes || nports > kMaxPorts || stray(frame, len) || stray(ports, uint64_t(nports) * 4)) return -1;
  for (uint32_t i = 0; i < nports; ++i)
    if (ports[i] >= env_.num_ports) return -1;
  const auto* b = static_cast<const uint8_t*>(frame);
  issue({HandlerCommand::kMulticast, std::vector<uint32_t>(ports, ports + nports), 0, Bytes(b, b + len)});
  return 0;
}

int HandlerApi::host_write(uint32_t port, uint64_t addr, const void* data, uint32_t len) {
  if (len > kMaxFrameBytes || port >= env_.num_ports || stray(data, len)) return -1;
  const auto* b = static_cast<const uint8_t*>(data);
  issue({HandlerCommand::kHostWrite, {port}, addr, Bytes(b, b + len)});
  return 0;
}

// Timers are commands too: they take effect when the handler ends (the retire block hands them to
// the PsPIN unit's timer unit), so both HPU models arm them at the same time.
int HandlerApi::timer_arm(uint32_t id, uint32_t delay_cycles) {
  if (!set_.timer_fn) return -1;
  HandlerCommand c;
  c.kind = HandlerCommand::kTimerArm;
  c.timer_id = id;
  c.delay_cycles = delay_cycles;
  run_.commands.push_back(std::move(c));
  return 0;
}

int HandlerApi::timer_cancel(uint32_t id) {
  if (!set_.timer_fn) return -1;
  HandlerCommand c;
  c.kind = HandlerCommand::kTimerCancel;
  c.timer_id = id;
  run_.commands.push_back(std::move(c));
  return 0;
}

uint8_t* HandlerApi::cluster_l1(uint32_t cluster_id, uint32_t* size) {
  // The running set's range of that cluster's L1 state area.
  if (cluster_id >= memory_.set_l1.size() || stray(size, size ? 4 : 0)) return nullptr;
  if (size) *size = memory_.set_l1[cluster_id].size;
  return memory_.set_l1[cluster_id].host;
}

int HandlerApi::dma_copy(void* dst, const void* src, uint32_t len) {
  if (stray(dst, len) || stray(src, len)) return -1;
  if (len) std::memmove(dst, src, len);
  run_.counters.dma_bytes += len;
  wait_ = hooks_.dma(len);
  run_.counters.dma_wait_cycles += wait_;
  return 0;
}

int HandlerApi::next_hop(uint32_t ipv4) { return env_.routes ? env_.routes->next_hop_ipv4(ipv4) : -1; }

int HandlerApi::log_write(const char* text, uint32_t len) {
  if (stray(text, std::min<uint32_t>(len, FS_LOG_MAX_LINE))) return -1;
  ++run_.log_lines;
  if (!log_) return 0;
  std::string line(text, text + std::min<uint32_t>(len, FS_LOG_MAX_LINE));
  if (!line.empty() && line.back() == '\n') line.pop_back();
  for (char& c : line)
    if ((unsigned char)c < 0x20 || c == 0x7f) c = ' ';
  log_->line(hooks_.now(), args_.cluster_id, args_.hpu_id, set_.name, line);
  return 0;
}

namespace {
// The host back end's entries: each forwards to the HandlerApi in ctx, bracketed as a call into
// the simulator (a native watchdog waits for its return: pspin/native_call.h).
template <typename Call>
auto into_simulator(Call call) {
  native_api_enter();
  if constexpr (std::is_void_v<decltype(call())>) {
    call();
    native_api_leave();
  } else {
    const auto result = call();
    native_api_leave();
    return result;
  }
}
struct Forward {
#define FS_API_CALL_(name, ret, params, args) \
  static ret name FS_API_CTX_PARAMS params {  \
    return into_simulator([&] { return static_cast<HandlerApi*>(ctx)->name args; }); \
  }
#define FS_API_DEVICE(name, ret, params, args, ...) FS_API_CALL_(name, ret, params, args)
#define FS_API_LOCAL(name, ret, params, args, doc) FS_API_CALL_(name, ret, params, args)
#define FS_API_HELPER(...)
#include "fs_api.def"
#undef FS_API_DEVICE
#undef FS_API_LOCAL
#undef FS_API_HELPER
#undef FS_API_CALL_
};
}  // namespace

std::string handler_api_markdown() {
  std::string s = "| call | what it does |\n| --- | --- |\n";
  auto row = [&](const char* ret, const char* name, const char* params, const char* doc) {
    s += std::string("| `") + ret + " fs_" + name + params + "` | " + doc + " |\n";
  };
#define FS_API_DEVICE(name, ret, params, args, doc, ...) row(#ret, #name, #params, doc);
#define FS_API_LOCAL(name, ret, params, args, doc) row(#ret, #name, #params, doc);
#define FS_API_HELPER(name, ret, params, doc) row(#ret, #name, #params, doc);
#include "fs_api.def"
#undef FS_API_DEVICE
#undef FS_API_LOCAL
#undef FS_API_HELPER
  return s;
}

fs_backend_t HandlerApi::backend() {
  fs_backend_t b{};
  b.ctx = this;
#define FS_API_DEVICE(name, ...) b.name = &Forward::name;
#define FS_API_LOCAL(name, ...) b.name = &Forward::name;
#define FS_API_HELPER(...)
#include "fs_api.def"
#undef FS_API_DEVICE
#undef FS_API_LOCAL
#undef FS_API_HELPER
  return b;
}

}  // namespace fs
