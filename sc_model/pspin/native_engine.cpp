// Native handler execution: installs a handler-API back end that records the handler's commands,
// runs the C handler, and charges cycles by the native cost model.
#include <cmath>

#include "pspin/hpu_engine.h"

namespace fs {
namespace {

struct Recorder {
  HandlerRun* run;
  const HpuEnvironment* env;
};

int rec_send(void* ctx, const void* frame, uint32_t len, uint32_t port) {
  auto* r = static_cast<Recorder*>(ctx);
  if (port >= r->env->num_ports) return -1;
  const auto* b = static_cast<const uint8_t*>(frame);
  r->run->commands.push_back({HandlerCommand::kSend, {port}, 0, Bytes(b, b + len)});
  return 0;
}

int rec_multicast(void* ctx, const void* frame, uint32_t len, const uint32_t* ports, uint32_t n) {
  auto* r = static_cast<Recorder*>(ctx);
  for (uint32_t i = 0; i < n; ++i)
    if (ports[i] >= r->env->num_ports) return -1;
  const auto* b = static_cast<const uint8_t*>(frame);
  r->run->commands.push_back({HandlerCommand::kMulticast, std::vector<uint32_t>(ports, ports + n), 0, Bytes(b, b + len)});
  return 0;
}

int rec_host_write(void* ctx, uint32_t port, uint64_t addr, const void* data, uint32_t len) {
  auto* r = static_cast<Recorder*>(ctx);
  if (port >= r->env->num_ports) return -1;
  const auto* b = static_cast<const uint8_t*>(data);
  r->run->commands.push_back({HandlerCommand::kHostWrite, {port}, addr, Bytes(b, b + len)});
  return 0;
}

uint8_t* rec_cluster_l1(void* ctx, uint32_t cluster, uint32_t* size) {
  return static_cast<Recorder*>(ctx)->env->cluster_l1(cluster, size);
}

}  // namespace

HandlerRun NativeEngine::execute(const HandlerSet& set, const fs_handler_args_t& args, const HpuEnvironment& env) {
  HandlerRun run;
  Recorder rec{&run, &env};
  const fs_backend_t backend{&rec, rec_send, rec_multicast, rec_host_write, rec_cluster_l1};
  const fs_backend_t* previous = fs_set_backend(&backend);
  run.outcome = set.fn(&args);
  fs_set_backend(previous);
  run.cycles = fixed_ + uint64_t(std::ceil(per_byte_ * double(args.pkt_len)));
  return run;
}

}  // namespace fs
