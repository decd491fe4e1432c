// What the Verilated RTL twins share in a run: one VerilatedContext and, with --vcd FILE, one
// VCD waveform file that every block's model traces into (time in picoseconds of simulated time).
// The blocks are ticked only when they have work; a tick is two clock phases, stamped at the
// simulated time of the work (nudged forward by a picosecond when several ticks share an
// instant, so the waveform's time never goes back). VerilatedBlock is how a wrapper holds its
// model in that context.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

class VerilatedContext;
class VerilatedVcdC;

namespace fs {

class RtlContext {
 public:
  explicit RtlContext(std::string vcd_path = "");  // empty: no waveforms
  ~RtlContext();
  RtlContext(const RtlContext&) = delete;
  RtlContext& operator=(const RtlContext&) = delete;

  VerilatedContext* context() { return ctx_.get(); }
  // The waveform every model traces into, or nullptr.
  VerilatedVcdC* vcd() { return vcd_.get(); }
  // Time stamps for the low and the high phase of a tick at simulated time `ps`.
  uint64_t stamp(uint64_t ps);
  // The same at the current simulated time. (This header stays free of SystemC: verilated.h
  // must come before systemc.h, or it takes the model for a SystemC one.)
  uint64_t stamp_now();
  // Opens the waveform file once every model has registered its signals (the models trace
  // from their construction on; ticks before this, such as resets, are not in the file).
  void open();
  // Writes the waveform's values at `t` (once open).
  void dump(uint64_t t);
  void close();

  // One clock cycle of a Verilated model at the current simulated time: the low phase, then the
  // rising edge, each evaluated and written to the waveform.
  template <class Model>
  void clock(Model& m) {
    const uint64_t t = stamp_now();
    m.clk = 0;
    m.eval();
    dump(t);
    m.clk = 1;
    m.eval();
    dump(t + 1);
  }

 private:
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<VerilatedVcdC> vcd_;
  std::string vcd_path_;
  bool opened_ = false;
  uint64_t last_ = 0;
};

// A Verilated model in a run: made in the run's context, traced into its waveform (if any) and
// finalised when it goes; clocked through the context. V is the Verilated class (its header is
// needed where the members are used). Every RTL wrapper holds its model this way.
template <class V>
class VerilatedBlock {
 public:
  VerilatedBlock(RtlContext& rtl, const std::string& name)
      : rtl_(rtl), m_(std::make_unique<V>(rtl.context(), name.c_str())) {
    if (rtl_.vcd()) m_->trace(rtl_.vcd(), 99);
  }
  ~VerilatedBlock() { m_->final(); }
  V* operator->() { return m_.get(); }
  // Evaluates the inputs as set, clock low, to read combinational outputs before the edge.
  void settle() {
    m_->clk = 0;
    m_->eval();
  }
  // One clock cycle (RtlContext::clock).
  void clock() { rtl_.clock(*m_); }
  // One clock cycle with rst high.
  void reset_cycle() {
    m_->rst = 1;
    clock();
    m_->rst = 0;
  }

 private:
  RtlContext& rtl_;
  std::unique_ptr<V> m_;
};

}  // namespace fs
