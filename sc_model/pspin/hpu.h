// A handler processing unit: gets a task from its cluster scheduler together with the time the
// cluster DMA finishes copying the packet into its L1 slot (pspin/memory/), waits for the copy, runs the handler
// through its engine, spends the handler's cycles, then reports back (commands, outcome,
// timing) and becomes free.
#pragma once
#include "common/sc_time_util.h"
#include "pspin/channels.h"
#include "pspin/dma.h"
#include "pspin/hpu_engine.h"
#include "pspin/memory/pspin_memory.h"

namespace fs {

class Hpu;

// Interleaves stepped handler runs (the ISS) of the HPUs in simulated-time order
// (pspin/interleaver.h). `done` is notified at the simulated time the run ends.
class RunInterleaver {
 public:
  virtual ~RunInterleaver() = default;
  // A run will start at `start` (its packet copy is reserved); add() then takes it.
  virtual void expect(Picos start) = 0;
  virtual void add(SteppedRun* run, unsigned cluster, Picos start, sc_core::sc_event* done) = 0;
};

// What an HPU uses of its cluster and the PsPIN unit.
struct HpuServices {
  Clock clock;
  unsigned cluster_id = 0;
  HpuEngine* engine = nullptr;
  RunInterleaver* interleaver = nullptr;  // set: stepped engines run interleaved through it
  HpuEnvironment env;                     // env.dma: the cluster's DMA engine
  PspinMemory* memory = nullptr;          // the unit's memories (the HPU's slot, stack, views)
};

class Hpu : public sc_core::sc_module, public HpuStartIf {
 public:
  sc_core::sc_port<RetireIf> retire;  // every run ends there

  SC_HAS_PROCESS(Hpu);
  Hpu(sc_core::sc_module_name name, unsigned index, const HpuServices& services);

  bool busy() const { return busy_; }
  unsigned index() const { return index_; }
  // Takes a task whose packet copy completes at `copy_done` (reserved by the cluster).
  void start(Task t, Picos copy_done) override;

  // Its entry of the stats' HPUs; `cycles` the run's length in cycles. Returns its utilisation.
  double report(StatsTree& out, double cycles) const {
    const double u = cycles > 0 ? double(handler_cycles) / cycles : 0.0;
    out["cluster"] = svc_.cluster_id, out["hpu"] = index_, out["tasks"] = tasks;
    out["handler_cycles"] = handler_cycles, out["utilisation"] = u;
    return u;
  }
  uint64_t tasks = 0, handler_cycles = 0;
  Picos occupied_ps = 0;  // from dispatch to the end of the handler

 private:
  void run();

  unsigned index_;
  const HpuServices& svc_;
  bool busy_ = false;
  Task task_;
  Picos copy_done_ = 0;
  sc_core::sc_event start_;
  sc_core::sc_event run_done_;  // an interleaved run ended
};

}  // namespace fs
