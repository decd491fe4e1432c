// Native handler execution: installs a handler-API back end that records the handler's commands,
// runs the C handler, and charges cycles by the native cost model. Its DMA copies are left to
// the HPU, which queues them on the cluster's DMA engine once the handler's cycles have passed.
#include <cmath>
#include <cstring>

#include "pspin/hpu_engine.h"

namespace fs {
namespace {

struct Recorder {
  HandlerRun* run;
  const HpuEnvironment* env;
  const fs_handler_args_t* args;
  uint32_t dma_latency, dma_bw;
  uint64_t dma_cycles = 0;
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
  const auto* r = static_cast<Recorder*>(ctx);
  return set_l1_of_cluster(*r->env, *r->args, cluster, size);
}

int rec_dma_copy(void* ctx, void* dst, const void* src, uint32_t len) {
  auto* r = static_cast<Recorder*>(ctx);
  std::memmove(dst, src, len);
  r->run->counters.dma_bytes += len;
  if (r->env->dma)
    r->run->dma_copies.push_back(len);  // the HPU queues it on the cluster DMA after the compute
  else
    r->dma_cycles += r->dma_latency + (len + r->dma_bw - 1) / r->dma_bw;
  return 0;
}

}  // namespace

HandlerRun NativeEngine::execute(const HandlerSet& set, const fs_handler_args_t& args, const HpuEnvironment& env) {
  HandlerRun run;
  const uint64_t compute = fixed_ + uint64_t(std::ceil(per_byte_ * double(args.pkt_len)));
  Recorder rec{&run, &env, &args, dma_latency_, dma_bw_};
  const fs_backend_t backend{&rec, rec_send, rec_multicast, rec_host_write, rec_cluster_l1, rec_dma_copy};
  const fs_backend_t* previous = fs_set_backend(&backend);
  run.outcome = set.fn(&args);
  fs_set_backend(previous);
  run.cycles = compute + rec.dma_cycles;
  run.counters.dma_wait_cycles = rec.dma_cycles;
  return run;
}

}  // namespace fs
