// Handler runs on the RISC-V ISS (see iss_engine.h).
#include "pspin/iss_engine.h"

#include <cstdio>
#include <cstring>

#include "common/errors.h"
#include "common/text.h"
#include "common/sc_time_util.h"
#include "common/zeroed_memory.h"
#include "fs_memory_map.h"
#include "iss/cpu.h"
#include "iss/elf.h"
#include "pspin/packet_buffer.h"

namespace fs {
namespace {

constexpr uint32_t kArgsBytes = 40;  // fs_handler_args_t on RV32: ten 32-bit fields
constexpr uint64_t kChunk = 4096;    // instructions between watchdog checks

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

// Instruction trace lines for one handler run.
class TraceWriter : public iss::RetireObserver {
 public:
  TraceWriter(std::ostream& out, uint64_t start_cycle, const fs_handler_args_t& args, const std::string& set)
      : out_(out), start_(start_cycle), cluster_(args.cluster_id), hpu_(args.hpu_id), set_(set) {}
  void retired(uint64_t cycle, uint32_t pc, const iss::Insn& in, uint8_t dst, uint32_t value) override {
    char line[200];
    const std::string text = iss::disassemble(in, pc);
    int n = std::snprintf(line, sizeof line, "%llu %u %u %s 0x%08x %0*x %-32s", (unsigned long long)(start_ + cycle),
                          cluster_, hpu_, set_.c_str(), pc, in.len == 2 ? 4 : 8, in.raw, text.c_str());
    if (dst != iss::kNoReg && n > 0 && size_t(n) < sizeof line)
      std::snprintf(line + n, sizeof line - size_t(n), " %s=0x%08x", iss::reg_name(dst), value);
    out_ << line << '\n';
  }

 private:
  std::ostream& out_;
  uint64_t start_;
  unsigned cluster_, hpu_;
  const std::string& set_;
};

}  // namespace

// One HPU's core for one handler set, and its runtime registers (the MMIO device).
struct IssEngine::Context : iss::MmioDevice {
  iss::AddressSpace mem;
  std::unique_ptr<iss::Cpu> cpu;
  std::unique_ptr<ZeroedMemory> stack;
  uint32_t entry = 0, handler = 0, program_base = 0;
  uint32_t cluster_id = 0, hpu_id = 0, num_clusters = 0, num_ports = 0, l1_state = 0;
  uint32_t reg[0x40] = {};  // command registers by word offset
  uint32_t dma_latency = 0, dma_bytes_per_cycle = 1;
  std::function<Picos(uint32_t, Picos, uint64_t)> dma;  // the cluster DMA engines (may be unset)
  Picos period_ps = 1000;
  iss::StoreWatch* watch = nullptr;
  iss::Reservations* reservations = nullptr;
  uint64_t start_cycle = 0;  // the PsPIN cycle the current run started at
  bool queue_dma = false;
  HandlerRun* run = nullptr;
  bool exited = false;

  bool guest_bytes(uint32_t addr, uint32_t len, Bytes& out) const {
    if (len == 0) {
      out.clear();
      return true;
    }
    const iss::MemRegion* r = mem.find(addr, len);
    if (!r || r->mmio) return false;
    out.assign(r->host + (addr - r->base), r->host + (addr - r->base) + len);
    return true;
  }

  // Carries out the command set up in the registers; returns the status the handler reads.
  uint32_t issue(uint32_t kind) {
    const uint32_t addr = reg[FS_REG_CMD_ADDR / 4], len = reg[FS_REG_CMD_LEN / 4], port = reg[FS_REG_CMD_PORT / 4];
    HandlerCommand cmd;
    if (len > 65535 || !guest_bytes(addr, len, cmd.data)) return uint32_t(-1);
    if (kind == FS_CMD_SEND || kind == FS_CMD_HOST_WRITE) {
      if (port >= num_ports) return uint32_t(-1);
      cmd.kind = kind == FS_CMD_SEND ? HandlerCommand::kSend : HandlerCommand::kHostWrite;
      cmd.ports = {port};
      cmd.host_addr = (uint64_t(reg[FS_REG_CMD_HOST_HI / 4]) << 32) | reg[FS_REG_CMD_HOST_LO / 4];
    } else if (kind == FS_CMD_MULTICAST) {
      const uint32_t n = reg[FS_REG_CMD_NPORTS / 4];
      Bytes list;
      if (n > 4096 || !guest_bytes(reg[FS_REG_CMD_PORTS / 4], 4 * n, list)) return uint32_t(-1);
      cmd.kind = HandlerCommand::kMulticast;
      for (uint32_t k = 0; k < n; ++k) {
        uint32_t p;
        std::memcpy(&p, &list[4 * k], 4);
        if (p >= num_ports) return uint32_t(-1);
        cmd.ports.push_back(p);
      }
    } else {
      return uint32_t(-1);
    }
    run->commands.push_back(std::move(cmd));
    return 0;
  }

  Result read(uint32_t off, unsigned size, uint32_t& v) override {
    if (size != 4 || (off & 3)) return Result::kFault;
    switch (off) {
      case FS_REG_NUM_CLUSTERS: v = num_clusters; return Result::kOk;
      case FS_REG_L1_STATE_SIZE: v = l1_state; return Result::kOk;
      case FS_REG_CLUSTER_ID: v = cluster_id; return Result::kOk;
      case FS_REG_HPU_ID: v = hpu_id; return Result::kOk;
      default:
        if (off < sizeof(reg)) {
          v = reg[off / 4];
          return Result::kOk;
        }
        return Result::kFault;
    }
  }

  // A DMA copy between non-device memories, on the cluster's DMA engine behind the copies
  // already queued there: the data moves at once; returns the cycles until the copy completes
  // (from the store that starts it), or -1.
  int64_t dma_copy() {
    const uint32_t dst = reg[FS_REG_DMA_DST / 4], src = reg[FS_REG_DMA_SRC / 4], len = reg[FS_REG_DMA_LEN / 4];
    const iss::MemRegion* d = len ? mem.find(dst, len) : nullptr;
    const iss::MemRegion* s = len ? mem.find(src, len) : nullptr;
    if (len && (!d || !s || d->mmio || s->mmio || !d->writable)) return -1;
    if (len) {
      std::memmove(d->host + (dst - d->base), s->host + (src - s->base), len);
      if (d->sharing) {
        reservations->stored(nullptr, d->host + (dst - d->base), len);
        if (watch && watch->armed) watch->stored(d->host + (dst - d->base), len, start_cycle + cpu->cycles);
      }
    }
    run->counters.dma_bytes += len;
    if (!dma || !queue_dma) return int64_t(dma_latency) + (len + dma_bytes_per_cycle - 1) / dma_bytes_per_cycle;
    const Picos request = (start_cycle + cpu->cycles) * period_ps;
    return int64_t((dma(cluster_id, request, len) - request + period_ps - 1) / period_ps);
  }

  bool reaches_switch(uint32_t off, bool store) const override { return store && off == FS_REG_DMA_GO; }

  Result write(uint32_t off, unsigned size, uint32_t v, uint32_t& busy) override {
    if (size != 4 || (off & 3) || off > FS_REG_DMA_STATUS) return Result::kFault;
    if (off == FS_REG_DMA_GO) {
      const int64_t cycles = dma_copy();
      reg[FS_REG_DMA_STATUS / 4] = cycles < 0 ? uint32_t(-1) : 0;
      busy = cycles < 0 ? 0 : uint32_t(cycles);
      return Result::kOk;
    }
    if (off == FS_REG_DMA_STATUS) return Result::kFault;
    if (off == FS_REG_EXIT) {
      run->outcome = int(int32_t(v));
      exited = true;
      return Result::kHalt;
    }
    if (off == FS_REG_CMD_ISSUE) {
      reg[FS_REG_CMD_STATUS / 4] = issue(v);
      return Result::kOk;
    }
    if (off == FS_REG_CMD_STATUS) return Result::kFault;
    reg[off / 4] = v;
    return Result::kOk;
  }
};

IssEngine::IssEngine(const Config& cfg, uint32_t l1_state_bytes) : cfg_(cfg), l1_state_bytes_(l1_state_bytes) {
  // Bank conflicts need the HPUs of a cluster to execute in time order.
  if (cfg.hpu.interleave == OnOff::kOn)
    for (unsigned k = 0; k < cfg.pspin.clusters; ++k) banks_.push_back(std::make_unique<iss::TcdmBanks>(cfg.pspin.l1_banks));
  if (l1_state_bytes > FS_L1_GLOBAL_STRIDE)
    throw InputError("hpu.model = iss maps each cluster's L1 state area into 16 MiB; 'pspin.l1_bytes' is too large");
  if (cfg.pspin.clusters > FS_MAX_CLUSTERS)
    throw InputError("hpu.model = iss supports at most " + std::to_string(FS_MAX_CLUSTERS) + " clusters ('pspin.clusters')");
  if (cfg.pspin.l2_handler_bytes > FS_PROGRAM_BASE - FS_L2_HANDLER_BASE)
    throw InputError("hpu.model = iss maps L2 handler memory into 16 MiB; 'pspin.l2_handler_bytes' is too large");
}

IssEngine::~IssEngine() = default;

std::string IssEngine::elf_path(const HandlerSet& set) const {
  const std::string dir = cfg_.hpu.handler_dir.empty() ? FLARESIM_HANDLER_ELF_DIR : cfg_.hpu.handler_dir;
  return dir + "/" + set.name + ".elf";
}

// A handler set's program: its code image and entry points, read once.
struct IssEngine::Program {
  uint32_t base = 0, entry = 0, handler = 0;
  std::vector<uint8_t> image;
};

void IssEngine::preload(const HandlerSet& set) {
  if (programs_.count(set.name)) return;
  const std::string path = elf_path(set);
  iss::ElfImage img;
  try {
    img = iss::read_elf(path);
  } catch (const InputError& e) {
    throw InputError(std::string(e.what()) + " (the RISC-V build of handler set '" + set.name +
                     "'; hpu.handler_dir says where to find it, hpu.model = native runs without it)");
  }
  if (img.has_writable_segment())
    throw InputError(path + ": handler programs may not have writable data (keep state in L1 or L2 handler memory)");
  const auto sym = img.symbols.find(set.name + "_handler");
  if (sym == img.symbols.end()) throw InputError(path + ": no function '" + set.name + "_handler'");
  uint32_t lo = ~0u, hi = 0;
  for (const iss::ElfSegment& s : img.segments) {
    lo = std::min(lo, s.vaddr);
    hi = std::max(hi, s.vaddr + s.memsz);
  }
  if (lo < FS_PROGRAM_BASE || hi > FS_L1_GLOBAL_BASE)
    throw InputError(path + ": segments outside program memory (" + hex32(FS_PROGRAM_BASE) + " onwards)");
  auto p = std::make_unique<Program>();
  p->base = lo;
  p->entry = img.entry;
  p->handler = sym->second;
  p->image.assign(hi - lo, 0);
  for (const iss::ElfSegment& s : img.segments) std::copy(s.bytes.begin(), s.bytes.end(), p->image.begin() + (s.vaddr - lo));
  programs_.emplace(set.name, std::move(p));
}

IssEngine::Context& IssEngine::context(const HandlerSet& set, const fs_handler_args_t& args, const HpuEnvironment& env) {
  auto key = std::make_tuple(args.cluster_id, args.hpu_id, set.name);
  auto it = contexts_.find(key);
  if (it != contexts_.end()) return *it->second;

  const Program& prog = *programs_.at(set.name);
  auto c = std::make_unique<Context>();
  c->entry = prog.entry;
  c->handler = prog.handler;
  c->cluster_id = args.cluster_id;
  c->hpu_id = args.hpu_id;
  c->num_clusters = env.num_clusters;
  c->num_ports = env.num_ports;
  c->l1_state = args.l1_size;  // the handler set's share
  c->dma_latency = cfg_.dma.latency_cycles;
  c->dma_bytes_per_cycle = cfg_.dma.bytes_per_cycle;
  c->dma = env.dma;
  c->period_ps = env.period_ps;
  c->program_base = prog.base;
  c->stack = std::make_unique<ZeroedMemory>(cfg_.hpu.stack_bytes);

  using iss::MemRegion;
  // Program memory is read-only: the cores share its image and its decoded instructions.
  c->mem.add(MemRegion{c->program_base, uint32_t(prog.image.size()), const_cast<uint8_t*>(prog.image.data()), false,
                       true, 0, "program memory"});
  c->mem.add(MemRegion{FS_MMIO_BASE, 0x100, nullptr, true, false, 0, "runtime registers", c.get()});
  // TCDM layout for bank selection: the state area, then one packet slot per HPU, then stacks.
  iss::TcdmBanks* own_banks = banks_.empty() ? nullptr : banks_[args.cluster_id].get();
  const uint32_t slot_offset = l1_state_bytes_ + args.hpu_id * kL1PacketSlotBytes;
  const uint32_t stack_offset =
      l1_state_bytes_ + cfg_.pspin.hpus_per_cluster * kL1PacketSlotBytes + args.hpu_id * cfg_.hpu.stack_bytes;
  c->mem.add(MemRegion{FS_PKT_SLOT_BASE, kL1PacketSlotBytes, args.pkt, true, false, 0, "L1 packet slot", nullptr,
                       iss::kLocalL1Access, own_banks, slot_offset});
  c->mem.add(MemRegion{FS_STACK_BASE, uint32_t(c->stack->size()), c->stack->data(), true, false, 0, "stack", nullptr,
                       iss::kLocalL1Access, own_banks, stack_offset});
  // Memory other HPUs can touch is shared (with the cluster, or with everyone): interleaved runs
  // order their accesses to it.
  c->mem.add(MemRegion{FS_L2_HANDLER_BASE, args.handler_mem_size, args.handler_mem, true, false, cfg_.hpu.l2_cycles,
                       "L2 handler memory", nullptr, iss::kL2Access, nullptr, 0, iss::kGlobalShared});
  // The handler set's range of the L1 state area (handler_memory.h); banks by its TCDM offset.
  const uint32_t set_offset = uint32_t(args.l1 - env.cluster_l1(args.cluster_id, nullptr));
  c->mem.add(MemRegion{FS_L1_LOCAL_BASE, args.l1_size, args.l1, true, false, 0, "L1 (local)", nullptr,
                       iss::kLocalL1Access, own_banks, set_offset, iss::kClusterShared});
  for (uint32_t k = 0; k < env.num_clusters; ++k) {
    uint32_t size = 0;
    uint8_t* l1 = set_l1_of_cluster(env, args, k, &size);
    const bool local = k == args.cluster_id;
    c->mem.add(MemRegion{FS_L1_GLOBAL_BASE + k * FS_L1_GLOBAL_STRIDE, size, l1, true, false,
                         local ? 0 : cfg_.hpu.remote_l1_cycles, "L1 of cluster " + std::to_string(k), nullptr,
                         local ? iss::kLocalL1Access : iss::kRemoteL1Access,
                         banks_.empty() ? nullptr : banks_[k].get(), set_offset,
                         local ? iss::kClusterShared : iss::kGlobalShared});
  }
  c->cpu = std::make_unique<iss::Cpu>(c->mem, cfg_.hpu.timing, args.cluster_id * 1024 + args.hpu_id);
  c->cpu->share_decode(&shared_decode_);
  c->cpu->set_store_watch(watch_);
  c->watch = watch_;
  c->cpu->set_reservations(&reservations_);
  c->reservations = &reservations_;
  Context& ref = *c;
  contexts_.emplace(key, std::move(c));
  return ref;
}

// One handler run on a context's core, advanced by the caller (see SteppedRun).
class IssEngine::Run : public SteppedRun {
 public:
  // `queue_dma`: handler DMA copies queue on the cluster DMA (runs stepped in time order);
  // otherwise they cost the DMA's latency and bandwidth only.
  Run(Context& c, const HandlerSet& set, const fs_handler_args_t& args, const Config& cfg, std::ostream* trace,
      iss::InstructionCache* icache, bool queue_dma)
      : c_(c), cpu_(*c.cpu), timing_(cfg.hpu.timing), max_cycles_(cfg.hpu.max_cycles) {
    c.run = &run_;
    c.queue_dma = queue_dma;
    c.exited = false;
    std::fill(std::begin(c.reg), std::end(c.reg), 0u);
    // The arguments, as the RV32 fs_handler_args_t, at the top of the stack.
    const uint32_t args_addr = FS_STACK_BASE + uint32_t(c.stack->size()) - 64;
    const uint32_t fields[10] = {FS_PKT_SLOT_BASE, args.pkt_len, args.ingress_port, args.cluster_id, args.hpu_id,
                                 args.num_clusters, FS_L1_LOCAL_BASE, args.l1_size, FS_L2_HANDLER_BASE,
                                 args.handler_mem_size};
    std::memcpy(c.stack->data() + (args_addr - FS_STACK_BASE), fields, kArgsBytes);
    std::fill(std::begin(cpu_.x), std::end(cpu_.x), 0u);
    std::fill(std::begin(cpu_.f), std::end(cpu_.f), 0u);
    cpu_.fflags = cpu_.frm = 0;
    cpu_.cycles = cpu_.instret = 0;
    cpu_.counters = iss::CpuCounters{};
    cpu_.pc = c.entry;
    cpu_.x[2] = args_addr & ~15u;
    cpu_.x[10] = args_addr;
    cpu_.x[11] = c.handler;
    who_ = "handler " + set.name + " (cluster " + std::to_string(args.cluster_id) + ", HPU " +
           std::to_string(args.hpu_id) + ")";
    if (trace) {
      const Clock clock = Clock::from_ghz(cfg.pspin.clock_ghz);
      tracer_ = std::make_unique<TraceWriter>(*trace, now_ps() / clock.period_ps, args, set.name);
    }
    cpu_.set_observer(tracer_.get());
    c.start_cycle = now_ps() / Clock::from_ghz(cfg.pspin.clock_ghz).period_ps;
    cpu_.set_cycle_base(c.start_cycle);
    cpu_.set_icache(icache, uint32_t(find_handler_set(set.name)));
  }

  Step advance(uint64_t target, const iss::Gates& gates) override {
    while (!ended_ && cpu_.cycles < target) {
      // Every instruction costs at least a cycle with the default timing, so a chunk no longer
      // than the cycles left stops the core right after it passes the watchdog's budget.
      const uint64_t left = cpu_.cycles < max_cycles_ ? max_cycles_ - cpu_.cycles : 0;
      const iss::Stop stop = cpu_.run(std::min<uint64_t>(kChunk, left + 1), target, gates);
      if (stop == iss::Stop::kGate)
        return cpu_.gate() == iss::GateKind::kDevice ? Step::kWaitsSwitch : Step::kWaitsShared;
      if (stop == iss::Stop::kSpin) return Step::kSpins;
      if (stop == iss::Stop::kYield) return Step::kRunning;
      if (cpu_.cycles > max_cycles_) {
        const iss::Insn* in = cpu_.insn_at(cpu_.pc);
        end_with(who_ + ": ran longer than hpu.max_cycles = " + std::to_string(max_cycles_) + " cycles (pc " +
                 hex32(cpu_.pc) + ", instruction " + hex32(in ? in->raw : 0) + ")");
      } else if (stop == iss::Stop::kHalt && c_.exited) {
        end_with("");
      } else if (stop == iss::Stop::kFault) {
        end_with(who_ + ": " + cpu_.fault().describe());
      } else if (stop == iss::Stop::kEcall || stop == iss::Stop::kEbreak) {
        const iss::Insn* in = cpu_.insn_at(cpu_.pc);
        end_with(who_ + ": " + (stop == iss::Stop::kEcall ? "ecall outside the handler API" : "ebreak") +
                 " at pc " + hex32(cpu_.pc) + " (instruction " + hex32(in ? in->raw : 0) + ")");
      }
    }
    return ended_ ? Step::kEnded : Step::kRunning;
  }

  uint64_t cycles() const override { return ended_ ? run_.cycles : cpu_.cycles; }
  SpinWait spin() const override {
    const iss::Spin& s = cpu_.spin();
    return SpinWait{s.host, s.bytes, s.load_cycle, s.period, max_cycles_ + 1};
  }
  void skip_spin(uint64_t iterations) override { cpu_.skip_spin(iterations); }
  HandlerRun finish() override { return std::move(run_); }

 private:
  void end_with(const std::string& fault) {
    ended_ = true;
    run_.fault = fault;
    c_.run = nullptr;
    cpu_.set_observer(nullptr);
    run_.cycles = cpu_.cycles;
    copy_counters(cpu_, timing_, run_.counters);
    if (!fault.empty()) run_.commands.clear();
  }

  Context& c_;
  iss::Cpu& cpu_;
  iss::Timing timing_;
  uint64_t max_cycles_;
  std::string who_;
  std::unique_ptr<TraceWriter> tracer_;
  HandlerRun run_;
  bool ended_ = false;
};

std::unique_ptr<SteppedRun> IssEngine::start(const HandlerSet& set, const fs_handler_args_t& args,
                                             const HpuEnvironment& env) {
  return make_run(set, args, env, true);
}

std::unique_ptr<SteppedRun> IssEngine::make_run(const HandlerSet& set, const fs_handler_args_t& args,
                                                const HpuEnvironment& env, bool queue_dma) {
  Context& c = context(set, args, env);
  std::unique_ptr<iss::InstructionCache>& icache = icaches_[args.cluster_id];
  if (!icache)
    icache = std::make_unique<iss::InstructionCache>(uint32_t(cfg_.pspin.icache_bytes), cfg_.pspin.icache_line_bytes,
                                                     cfg_.pspin.icache_ways, cfg_.pspin.icache_miss_cycles);
  return std::make_unique<Run>(c, set, args, cfg_, trace_, icache.get(), queue_dma);
}

HandlerRun IssEngine::execute(const HandlerSet& set, const fs_handler_args_t& args, const HpuEnvironment& env) {
  // Run to completion when it starts: nothing else runs meanwhile, so no gates, and DMA copies
  // cannot be put in order with the cluster's packet copies (they cost latency and bandwidth).
  std::unique_ptr<SteppedRun> run = make_run(set, args, env, false);
  run->advance(~0ull);
  return run->finish();
}

}  // namespace fs
