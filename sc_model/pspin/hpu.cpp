// HPU task loop (see hpu.h).
#include "pspin/hpu.h"

#include "pspin/packet_buffer.h"

namespace fs {

Hpu::Hpu(sc_core::sc_module_name name, unsigned index, const HpuServices& services)
    : sc_core::sc_module(name), retire("retire"), index_(index), svc_(services), slot_(kL1PacketSlotBytes) {
  SC_THREAD(run);
}

void Hpu::start(Task t, Picos copy_done) {
  busy_ = true;
  task_ = std::move(t);
  copy_done_ = copy_done;
  start_.notify(sc_core::SC_ZERO_TIME);
}

void Hpu::run() {
  for (;;) {
    wait(start_);
    const Picos dispatched = now_ps();
    Task task = std::move(task_);
    wait(ps_time(copy_done_ - dispatched));
    std::copy(task.pkt->data.begin(), task.pkt->data.end(), slot_.data());

    fs_handler_args_t args{};
    args.pkt = slot_.data();
    args.pkt_len = uint32_t(task.pkt->data.size());
    args.ingress_port = task.timer ? FS_TIMER_PORT : task.pkt->ingress_port;
    args.cluster_id = svc_.cluster_id;
    args.hpu_id = index_;
    args.num_clusters = svc_.num_clusters;
    // The handler sees its own set's memory only.
    const HandlerSetMemory& mem = (*svc_.set_memory)[size_t(task.pkt->handler_set)];
    args.l1 = svc_.l1 + mem.l1_offset;
    args.l1_size = mem.l1_bytes;
    args.handler_mem = svc_.handler_mem + mem.l2_offset;
    args.handler_mem_size = mem.l2_bytes;
    const Picos started = now_ps();
    const HandlerSet& set = handler_sets()[size_t(task.pkt->handler_set)];
    std::unique_ptr<SteppedRun> stepped = svc_.interleaver ? svc_.engine->start(set, args, svc_.env) : nullptr;
    HandlerRun result;
    if (stepped) {
      // The interleaver advances this run with the other HPUs' in simulated-time order and
      // notifies run_done_ at the time it ends.
      svc_.interleaver->add(stepped.get(), svc_.cluster_id, started, &run_done_);
      wait(run_done_);
      result = stepped->finish();
    } else {
      result = svc_.engine->execute(set, args, svc_.env);
      wait(svc_.clock.cycles(result.cycles));
      // Copies the handler asked for queue on the cluster DMA now, one after another.
      for (uint32_t bytes : result.dma_copies) {
        const Picos asked = now_ps();
        wait(ps_time(svc_.env.dma(svc_.cluster_id, asked, bytes) - asked));
        const uint64_t waited = (now_ps() - asked) / svc_.clock.period_ps;
        result.cycles += waited;
        result.counters.dma_wait_cycles += waited;
      }
    }

    ++tasks;
    handler_cycles += result.cycles;
    occupied_ps += now_ps() - dispatched;
    busy_ = false;
    retire->retire(RetiredRun{svc_.cluster_id, index_, std::move(task), std::move(result), started});
  }
}

}  // namespace fs
