// The instruction trace of ISS handler runs (`flaresim run --trace-insn FILE`): which runs and
// lines it takes (filters by cluster, HPU, handler set, packet, simulated time and a line limit),
// and what a line says: one per retired instruction (PsPIN cycle, cluster, HPU, handler set, PC,
// instruction word, disassembly, the register written, the address a load or store accessed,
// and with `symbols` the function and source line of the PC), plus marker lines starting with
// '#' where a run starts (its packet), ends (its outcome) or faults (the message).
#pragma once
#include <cstdint>
#include <limits>
#include <ostream>
#include <set>
#include <string>

#include "common/units.h"
#include "iss/cpu.h"
#include "iss/debug_info.h"
#include "fs_handler.h"

namespace fs {

struct InsnTraceOptions {
  std::set<unsigned> clusters, hpus;  // empty: all
  std::set<std::string> sets;         // handler sets; empty: all
  uint64_t first_packet = 0, last_packet = std::numeric_limits<uint64_t>::max();  // packet ids (trace order)
  Picos from = 0, to = std::numeric_limits<Picos>::max();  // instructions retired in [from, to]
  uint64_t max_lines = std::numeric_limits<uint64_t>::max();  // instruction lines; then the trace stops
  bool symbols = false;  // name each PC's function and source line
  // Whether a run of `set` on cluster/HPU for packet `packet` is traced (timer runs: `packet` is
  // the id of the packet that armed nothing, so timer runs pass the packet filter only if it is
  // the full range).
  bool takes(unsigned cluster, unsigned hpu, const std::string& set, uint64_t packet, bool timer) const;
};

// The trace shared by all runs: the stream, the options and the lines written so far.
class InsnTrace {
 public:
  InsnTrace(std::ostream& out, InsnTraceOptions options);
  const InsnTraceOptions& options() const { return options_; }
  // The column header written at the top of the file.
  static const char* header();

 private:
  friend class InsnTraceRun;
  // Counts a line; false once the limit is reached (the first time, a marker says so).
  bool take_line();
  std::ostream& out_;
  InsnTraceOptions options_;
  uint64_t lines_ = 0;
  bool stopped_ = false;
};

// The trace of one handler run on the ISS: the core's retire observer.
class InsnTraceRun : public iss::RetireObserver {
 public:
  struct Who {
    unsigned cluster, hpu;
    const std::string& set;
    uint64_t packet;
    uint32_t ingress_port, pkt_len;
    bool timer;
  };
  // `start_cycle`: the PsPIN cycle the run started in; `period_ps`: the PsPIN clock period.
  InsnTraceRun(InsnTrace& trace, const Who& who, uint64_t start_cycle, Picos period_ps, const iss::DebugInfo& debug);
  void retired(uint64_t cycle, uint32_t pc, const iss::Insn& in, uint8_t dst, uint32_t value,
               uint64_t mem_addr) override;
  // The run ended at `cycle` (the core's count) with outcome `outcome`, or faulted with `fault`.
  void ended(uint64_t cycle, const std::string& outcome);
  void faulted(uint64_t cycle, const std::string& fault);

 private:
  bool in_window(uint64_t cycle) const;
  void marker(uint64_t cycle, const std::string& text);  // writes the start marker first if not yet
  InsnTrace& trace_;
  Who who_;
  uint64_t start_;
  Picos period_;
  const iss::DebugInfo& debug_;
  bool started_ = false;  // the start marker is written
};

}  // namespace fs
