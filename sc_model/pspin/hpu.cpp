// HPU task loop (see hpu.h).
#include "pspin/hpu.h"

namespace fs {

Hpu::Hpu(sc_core::sc_module_name name, unsigned index, const HpuServices& services)
    : sc_core::sc_module(name), retire("retire"), index_(index), svc_(services) {
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
    // The handler sees its own set's memory only.
    const HandlerSet& set = handler_sets()[size_t(task.pkt->handler_set)];
    const HpuMemoryView& memory = svc_.memory->view(svc_.cluster_id, index_, task.pkt->handler_set);
    // The copy the cluster DMA made: the packet's bytes, where the slot's layout puts them.
    const HandlerJob job{set, place_packet(memory, task.pkt->data, task.timer ? FS_TIMER_PORT : task.pkt->ingress_port),
                         memory, task.pkt};
    const Picos started = now_ps();
    std::unique_ptr<SteppedRun> stepped = svc_.interleaver ? svc_.engine->start(job, svc_.env) : nullptr;
    HandlerRun result;
    if (stepped) {
      // The interleaver advances this run with the other HPUs' in simulated-time order and
      // notifies run_done_ at the time it ends.
      svc_.interleaver->add(stepped.get(), svc_.cluster_id, started, &run_done_);
      wait(run_done_);
      result = stepped->finish();
    } else {
      result = svc_.engine->execute(job, svc_.env);
      wait(svc_.clock.cycles(result.cycles));
      // Copies the handler asked for queue on the cluster DMA now, one after another.
      for (uint32_t bytes : result.dma_copies) {
        const Picos asked = now_ps();
        wait(ps_time(svc_.env.dma->handler_copy(asked, bytes) - asked));
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
