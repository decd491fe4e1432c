// Handler runs on the RISC-V ISS: the cores and their stepping (see iss_engine.h).
#include "pspin/iss_engine.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>

#include "common/errors.h"
#include "common/text.h"
#include "common/sc_time_util.h"
#include "fs_memory_map.h"
#include "iss/cpu.h"
#include "pspin/channels.h"
#include "pspin/handler_api.h"
#include "pspin/insn_trace.h"
#include "pspin/memory/hpu_address_map.h"
#include "pspin/runtime_registers.h"

namespace fs {
namespace {

constexpr uint64_t kChunk = 4096;  // instructions between watchdog checks

// The counters of a run that ended, from the core (handler_counters.def says how each comes
// from it); FS_DEVICE_COUNT ones were counted into `k` during the run and stay as they are.
struct DeviceCount {};
#define FS_DEVICE_COUNT DeviceCount{}
void set_count(uint64_t& count, uint64_t value) { count = value; }
void set_count(uint64_t&, DeviceCount) {}
void copy_counters(const iss::Cpu& cpu, const iss::Timing& timing, HandlerCounters& k) {
#define FS_HANDLER_COUNTER(field, json, models, from_iss, doc) set_count(k.field, from_iss);
#include "pspin/handler_counters.def"
#undef FS_HANDLER_COUNTER
}
#undef FS_DEVICE_COUNT

// The bytes a load or store of `op` accesses.
unsigned access_bytes(iss::Op op) {
  using iss::Op;
  switch (op) {
    case Op::kLb: case Op::kLbu: case Op::kSb: case Op::kPLb: case Op::kPLbu: case Op::kPSb: return 1;
    case Op::kLh: case Op::kLhu: case Op::kSh: case Op::kPLh: case Op::kPLhu: case Op::kPSh: return 2;
    default: return 4;
  }
}

// Where the instruction at `pc` is: "`sw a5, 0(a4)` in fn+0x2e at file.c:31" (as much as the
// program's debug information tells).
std::string where_is(iss::Cpu& cpu, const HandlerProgram& prog, uint32_t pc) {
  const iss::Insn* in = cpu.insn_at(pc);
  std::string s = in ? "`" + iss::disassemble(*in, pc) + "`" : "pc " + hex32(pc);
  const std::string fn = prog.debug.symbolise(pc);
  if (!fn.empty()) s += " in " + fn;
  const std::string src = prog.debug.where(pc);
  if (!src.empty())
    s += " at " + src;
  else
    s += prog.debug.line_problem().empty() ? " (no source line for this pc)" : " (no source line: " + prog.debug.line_problem() + ")";
  return s;
}

// "0x1c000040 (L1 (local) +0x40)": a data address and where it lies.
std::string describe_word(const iss::AddressSpace& mem, uint32_t addr) {
  const iss::MemRegion* r = mem.find(addr, 1);
  if (!r) return hex32(addr);
  char off[32];
  std::snprintf(off, sizeof off, " +0x%x)", addr - r->base);
  return hex32(addr) + " (" + r->name + off;
}

}  // namespace

// One HPU's core for one handler set: its address space and runtime registers.
struct IssEngine::Context {
  iss::AddressSpace mem;
  std::unique_ptr<iss::Cpu> cpu;
  std::unique_ptr<RuntimeRegisters> regs;
  uint32_t entry = 0, handler = 0, timer = 0;
  uint32_t call = 0, ret = 0;  // the firmware's call of the handler, and where it returns to
  uint32_t stack_top = 0;  // the handler's arguments go just below
  const HandlerProgram* prog = nullptr;
};

// Where the handler ELFs are: hpu.handler_dir (default: the build's), and its xpulp/ folder for
// HPUs with Xpulp (handlers built with FS_XPULP, handlers/CMakeLists.txt).
static std::string handler_elf_dir(const HpuConfig& hpu) {
  const std::string dir = hpu.handler_dir.empty() ? FLARESIM_HANDLER_ELF_DIR : hpu.handler_dir;
  return hpu.isa == HpuIsa::kRv32imafcXpulp ? dir + "/xpulp" : dir;
}

IssEngine::IssEngine(const HpuConfig& hpu, const iss::IcacheParams& icache, const DmaConfig& dma,
                     const CommandConfig& command)
    : hpu_(hpu), icache_(icache), dma_(dma), register_cycles_(command.register_cycles),
      programs_(handler_elf_dir(hpu)) {}

IssEngine::~IssEngine() = default;

IssEngine::Context& IssEngine::context(const HandlerJob& job) {
  const fs_handler_args_t& args = job.args;
  auto key = std::make_tuple(args.cluster_id, args.hpu_id, job.set.name);
  auto it = contexts_.find(key);
  if (it != contexts_.end()) return *it->second;

  const HandlerProgram& prog = programs_.at(job.set);
  auto c = std::make_unique<Context>();
  c->entry = prog.entry;
  c->handler = prog.handler;
  c->timer = prog.timer;
  c->call = prog.call;
  c->ret = prog.ret;
  c->stack_top = FS_STACK_BASE + job.memory.stack.size;
  c->prog = &prog;
  // The handler set's share of L1 is what fs_cluster_l1 reports.
  const RuntimeRegisters::Ids ids{args.cluster_id, args.hpu_id, args.num_clusters, args.l1_size};
  iss::StoreWatch* watch = watch_ ? watch_(args.cluster_id) : nullptr;
  c->regs = std::make_unique<RuntimeRegisters>(c->mem, ids, &reservations_, watch);

  using iss::MemRegion;
  // Program memory is read-only: the cores share its image and its decoded instructions.
  c->mem.add(MemRegion{prog.base, uint32_t(prog.image.size()), const_cast<uint8_t*>(prog.image.data()), false, true,
                       0, "program memory"});
  // The runtime registers are the HPU's command interface, a peripheral of its cluster.
  c->mem.add(MemRegion{FS_MMIO_BASE, 0x100, nullptr, true, false, register_cycles_, "runtime registers",
                       c->regs.get()});
  // The data: the HPU's view of the unit's memories (pspin/memory/).
  const MemoryCosts costs{hpu_.remote_l1_cycles, hpu_.l2_cycles};
  std::shared_ptr<const iss::AddressSpace>& shared = shared_maps_[job.set.name];
  if (!shared) {  // the same for every HPU of the set: built once
    auto built = std::make_shared<iss::AddressSpace>();
    for (MemRegion& r : shared_address_map(job.memory, costs)) built->add(std::move(r));
    shared = std::move(built);
  }
  c->mem.share(shared);
  for (MemRegion& r : hpu_address_map(job.memory)) c->mem.add(std::move(r));
  c->cpu = std::make_unique<iss::Cpu>(c->mem, hpu_.timing, args.cluster_id * 1024 + args.hpu_id);
  c->cpu->set_xpulp(hpu_.isa == HpuIsa::kRv32imafcXpulp);
  c->cpu->set_engine(hpu_.iss_engine == IssEngineKind::kPlain ? iss::Cpu::Engine::kPlain : iss::Cpu::Engine::kFast);
  c->cpu->share_decode(&shared_decode_);
  c->cpu->decode_shared_code();
  c->cpu->set_store_watch(watch);
  c->cpu->set_reservations(&reservations_);
  Context& ref = *c;
  contexts_.emplace(key, std::move(c));
  return ref;
}

// One handler run on a context's core, advanced by the caller (see SteppedRun): the core's
// stepping, its watchdog and fault messages, and the timing of the run's API calls.
class IssEngine::Run : public SteppedRun, public HandlerApi::Hooks {
 public:
  // `queue_dma`: handler DMA copies queue on the cluster DMA (runs stepped in time order);
  // otherwise they cost the DMA's latency and bandwidth only.
  Run(Context& c, const HandlerJob& job, const HpuEnvironment& env, const HpuConfig& hpu, const DmaConfig& dma,
      InsnTrace* trace, iss::InstructionCache* icache, bool queue_dma, HandlerLog* log)
      : c_(c),
        cpu_(*c.cpu),
        timing_(hpu.timing),
        max_cycles_(hpu.max_cycles),
        job_(job),
        env_(env),
        dma_latency_(dma.latency_cycles),
        dma_bytes_per_cycle_(dma.bytes_per_cycle),
        queue_dma_(queue_dma),
        api_(env, job_, run_, *this, log) {
    const fs_handler_args_t& args = job.args;
    const HandlerSet& set = job.set;
    start_ps_ = now_ps();
    start_cycle_ = start_ps_ / env.period_ps;
    c.regs->begin(&api_, [this] { return start_cycle_ + cpu_.cycles; });
    // The arguments, in the RV32 layout, at the top of the stack.
    const uint32_t args_addr = c.stack_top - kHandlerArgsRoom;
    const fs_handler_args_rv32_t rv32 = rv32_handler_args(args, job.memory);
    std::memcpy(job.memory.stack.host + (args_addr - FS_STACK_BASE), &rv32, sizeof rv32);
    std::fill(std::begin(cpu_.x), std::end(cpu_.x), 0u);
    std::fill(std::begin(cpu_.f), std::end(cpu_.f), 0u);
    cpu_.fflags = cpu_.frm = 0;
    cpu_.reset_hw_loops();
    cpu_.cycles = cpu_.instret = 0;
    cpu_.counters = iss::CpuCounters{};
    cpu_.set_call_marks(c.call, c.ret);
    cpu_.pc = c.entry;
    cpu_.x[2] = args_addr & ~15u;
    cpu_.x[10] = args_addr;
    cpu_.x[11] = args.ingress_port == FS_TIMER_PORT ? c.timer : c.handler;  // a timer run: NAME_timer
    who_ = "handler " + set.name + " (cluster " + std::to_string(args.cluster_id) + ", HPU " +
           std::to_string(args.hpu_id) + ")";
    cpu_.clear_atomic_writes();
    const uint64_t packet = job.origin ? job.origin->id : 0;
    const bool timer = args.ingress_port == FS_TIMER_PORT;
    if (trace && trace->options().takes(args.cluster_id, args.hpu_id, set.name, packet, timer))
      tracer_ = std::make_unique<InsnTraceRun>(
          *trace, InsnTraceRun::Who{args.cluster_id, args.hpu_id, set.name, packet, args.ingress_port, args.pkt_len, timer},
          start_cycle_, env.period_ps, c.prog->debug);
    cpu_.set_observer(tracer_.get());
    cpu_.set_cycle_base(start_cycle_);
    cpu_.set_icache(icache, uint32_t(find_handler_set(set.name)));
  }

  // HandlerApi::Hooks: calls happen at the cycle of the load that issues them, as many cycles
  // after the run's start as the core has spent.
  Picos now() const override { return start_ps_ + cpu_.cycles * env_.period_ps; }
  // A DMA copy, on the cluster's DMA engine behind the copies already queued there: the cycles
  // until it completes, from the load that issues it.
  uint64_t dma(uint32_t bytes) override {
    if (!env_.dma || !queue_dma_) return uint64_t(dma_latency_) + (bytes + dma_bytes_per_cycle_ - 1) / dma_bytes_per_cycle_;
    const Picos period = env_.period_ps;
    const Picos request = now();
    return (env_.dma->handler_copy(request, bytes) - request + period - 1) / period;
  }
  // A command, issued on the command path at the cycle of the load that issues it: the cycles
  // until the HPU has a free command slot.
  bool command(HandlerCommand& cmd, uint64_t& wait) override {
    if (!env_.commands) return false;
    const Picos at = now();
    const Picos went = env_.commands->issue(job_.args.cluster_id, job_.args.hpu_id, at, std::move(cmd), job_.origin);
    wait = (went - at) / env_.period_ps;
    return true;
  }

  Step advance(uint64_t target, const iss::Gates& gates) override {
    // A run that faulted or passed its watchdog while its cluster ran apart (Gates::isolated)
    // ends when it is next stepped with the others: its messages read memory (the word it waited
    // on, the words it still holds) that other clusters may be writing meanwhile on other threads.
    if (failed_) {
      if (gates.isolated) return Step::kLeaves;
      end_for(*failed_);
      failed_.reset();
      return Step::kEnded;
    }
    while (!ended_ && cpu_.cycles < target) {
      // Every instruction costs at least a cycle with the default timing, so a chunk no longer
      // than the cycles left stops the core right after it passes the watchdog's budget.
      const uint64_t left = cpu_.cycles < max_cycles_ ? max_cycles_ - cpu_.cycles : 0;
      const iss::Stop stop = cpu_.run(std::min<uint64_t>(kChunk, left + 1), target, gates);
      if (stop == iss::Stop::kGate) {
        const iss::GateKind g = cpu_.gate();
        return g == iss::GateKind::kDevice ? Step::kWaitsSwitch : g == iss::GateKind::kLeaves ? Step::kLeaves : Step::kWaitsShared;
      }
      if (stop == iss::Stop::kSpin) return Step::kSpins;
      if (stop == iss::Stop::kYield) return Step::kRunning;
      const bool fails = cpu_.cycles > max_cycles_ || stop == iss::Stop::kFault || stop == iss::Stop::kEcall ||
                         stop == iss::Stop::kEbreak;
      if (fails && gates.isolated) {
        failed_ = stop;
        return Step::kLeaves;
      }
      end_for(stop);
    }
    return ended_ ? Step::kEnded : Step::kRunning;
  }

  uint64_t cycles() const override { return ended_ ? run_.cycles : cpu_.cycles; }
  SpinWait spin() const override {
    const iss::Spin& s = cpu_.spin();
    return SpinWait{s.host, s.bytes, s.load_cycle, s.period, max_cycles_ + 1, s.sharing == iss::kGlobalShared};
  }
  void skip_spin(uint64_t iterations) override { cpu_.skip_spin(iterations); }
  HandlerRun finish() override { return std::move(run_); }

 private:
  // Ends the run if the core's stop (with its cycle count) ends it: the watchdog, the exit
  // register, a fault, an ecall or ebreak.
  void end_for(iss::Stop stop) {
    if (cpu_.cycles > max_cycles_) {
      end_with(who_ + ": " + watchdog_message());
    } else if (stop == iss::Stop::kHalt && c_.regs->exited()) {
      end_with("");
    } else if (stop == iss::Stop::kFault) {
      end_with(who_ + ": " + fault_message());
    } else if (stop == iss::Stop::kEcall || stop == iss::Stop::kEbreak) {
      const iss::Insn* in = cpu_.insn_at(cpu_.pc);
      end_with(who_ + ": " + (stop == iss::Stop::kEcall ? "ecall outside the handler API" : "ebreak") + " at pc " +
               hex32(cpu_.pc) + " (instruction " + hex32(in ? in->raw : 0) + "): " + where_is(cpu_, *c_.prog, cpu_.pc));
    }
  }
  // The core's fault: what, where in the source, and which region the address missed. (A fetch
  // fault's instruction word is read here if the core left it: memory other clusters share.)
  std::string fault_message() {
    iss::Fault f = cpu_.fault();
    if (f.kind == iss::Fault::kFetchAccess)
      if (const iss::MemRegion* r = c_.mem.find(f.pc, 2); r && r->host && r->sharing == iss::kGlobalShared)
        f.insn = uint32_t(r->host[f.pc - r->base]) | uint32_t(r->host[f.pc - r->base + 1]) << 8;
    std::string m = f.describe() + ": " + where_is(cpu_, *c_.prog, f.pc);
    if (f.kind == iss::Fault::kLoadAccess || f.kind == iss::Fault::kStoreAccess) {
      const iss::Insn* in = cpu_.insn_at(f.pc);
      m += "; the address is " +
           c_.mem.describe_miss(f.addr, in ? access_bytes(in->op) : 1, f.kind == iss::Fault::kStoreAccess);
    }
    return m;
  }
  // The watchdog: where the handler was, and the word it waited on if it was spinning.
  std::string watchdog_message() {
    const iss::Insn* in = cpu_.insn_at(cpu_.pc);
    std::string m = "ran longer than hpu.max_cycles = " + std::to_string(max_cycles_) + " cycles (pc " + hex32(cpu_.pc) +
                    ", instruction " + hex32(in ? in->raw : 0) + "): " + where_is(cpu_, *c_.prog, cpu_.pc);
    if (const uint8_t* word = cpu_.waiting_on()) {
      run_.waiting_on = word;
      m += "; it was waiting on the word at " + describe_word(c_.mem, word_address(word)) + ", which holds " +
           std::to_string(HandlerRun::word_at(word));
    }
    return m;
  }
  // The guest address of a host word of this core's memory (0 if unmapped).
  uint32_t word_address(const uint8_t* host) const { return c_.mem.guest_address(host); }
  // Shared words the run's atomics changed and that still hold what the run wrote: a lock it
  // took, a counter it claimed. A faulted run never releases them.
  void note_held_words() {
    for (const iss::AtomicWrite& w : cpu_.atomic_writes()) {
      if (HandlerRun::word_at(w.host) != w.after) continue;
      run_.held.push_back(HandlerRun::HeldWord{
          w.host, describe_word(c_.mem, w.addr) + " = " + std::to_string(w.after) + " (was " + std::to_string(w.before) +
                      "; " + where_is(cpu_, *c_.prog, w.pc) + ")"});
    }
  }
  void end_with(const std::string& fault) {
    ended_ = true;
    run_.fault = fault;
    run_.outcome = c_.regs->exit_code();
    c_.regs->end();
    if (!fault.empty()) note_held_words();
    if (tracer_) {
      if (!fault.empty())
        tracer_->faulted(cpu_.cycles, fault);
      else
        tracer_->ended(cpu_.cycles, outcome_name(job_.set, run_.outcome));
    }
    cpu_.set_observer(nullptr);
    run_.cycles = cpu_.cycles;
    // The handler's part: from the firmware's call to the handler's return (all of the run is
    // entry if it ended before the call, and nothing is exit if it ended inside the handler).
    const iss::CallMarks& marks = cpu_.call_marks();
    run_.entry_cycles = std::min(marks.entered, cpu_.cycles);
    run_.exit_cycles = marks.returned <= cpu_.cycles ? cpu_.cycles - marks.returned : 0;
    copy_counters(cpu_, timing_, run_.counters);
    if (!fault.empty()) run_.commands.clear();
  }

  Context& c_;
  iss::Cpu& cpu_;
  iss::Timing timing_;
  uint64_t max_cycles_;
  const HandlerJob job_;  // the run's own copy (args as the host sees them), for the HandlerApi
  const HpuEnvironment& env_;
  uint32_t dma_latency_, dma_bytes_per_cycle_;
  bool queue_dma_;
  Picos start_ps_ = 0;        // when the run started
  uint64_t start_cycle_ = 0;  // the PsPIN cycle it started in (the cycle count of traces and gates)
  std::string who_;
  std::unique_ptr<InsnTraceRun> tracer_;
  HandlerRun run_;
  HandlerApi api_;
  bool ended_ = false;
  std::optional<iss::Stop> failed_;  // a fault or the watchdog, while isolated: ends at the next step
};

std::unique_ptr<SteppedRun> IssEngine::start(const HandlerJob& job, const HpuEnvironment& env) {
  return make_run(job, env, true);
}

std::unique_ptr<SteppedRun> IssEngine::make_run(const HandlerJob& job, const HpuEnvironment& env, bool queue_dma) {
  Context& c = context(job);
  std::unique_ptr<iss::InstructionCache>& icache = icaches_[job.args.cluster_id];
  if (!icache)
    icache = std::make_unique<iss::InstructionCache>(icache_);
  return std::make_unique<Run>(c, job, env, hpu_, dma_, trace_, icache.get(), queue_dma, log_);
}

HandlerRun IssEngine::execute(const HandlerJob& job, const HpuEnvironment& env) {
  // Run to completion when it starts: nothing else runs meanwhile, so no gates, and DMA copies
  // cannot be put in order with the cluster's packet copies (they cost latency and bandwidth).
  std::unique_ptr<SteppedRun> run = make_run(job, env, false);
  run->advance(~0ull);
  return run->finish();
}

}  // namespace fs
