// The Verilated ICRC engine (rtl/icrc_engine.sv) behind the IcrcCore interface, so that it can be
// run in lockstep with its C++ twin (IcrcEngineModel) or used in its place. IcrcRtl is the build
// the simulator links (BYTES = 8, prefix Vicrc_engine); IcrcRtlOf drives a Verilation of any
// width, for code that includes that model's header.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "net/icrc.h"
#include "rtl_bridge/rtl_context.h"

namespace fs {

// V: the Verilated icrc_engine class, kBytes: the BYTES it was Verilated with (1, 2, 4, 8 or 16:
// the widths whose in_data port is exactly kBytes bytes in C++; checked at compile time).
template <class V, unsigned kBytes>
class IcrcRtlOf : public IcrcCore {
  static_assert(sizeof(V::in_data) == kBytes, "IcrcRtlOf: kBytes is not the model's BYTES");

 public:
  // name: the block's scope in the waveform.
  IcrcRtlOf(RtlContext& rtl, const std::string& name) : m_(rtl, name) { reset(); }
  unsigned bytes_per_cycle() const override { return kBytes; }

  void reset() override {
    m_->in_valid = 0;
    m_.reset_cycle();
  }

  IcrcOut tick(const IcrcBeat& in) override {
    constexpr uint32_t lanes = (1u << kBytes) - 1;
    m_->in_valid = in.valid;
    m_->in_first = in.first;
    m_->in_last = in.last;
    m_->in_keep = in.keep & lanes;
    m_->in_mask = in.mask & lanes;
    if constexpr (std::is_integral_v<std::decay_t<decltype(m_->in_data)>>) {
      uint64_t d = 0;
      for (unsigned i = 0; i < kBytes; ++i) d |= uint64_t(in.data[i]) << (8 * i);
      m_->in_data = d;
    } else {  // a wide port: 32-bit words, the first bytes in word 0
      for (unsigned w = 0; w < kBytes / 4; ++w)
        m_->in_data.at(w) = uint32_t(in.data[4 * w]) | uint32_t(in.data[4 * w + 1]) << 8 |
                            uint32_t(in.data[4 * w + 2]) << 16 | uint32_t(in.data[4 * w + 3]) << 24;
    }
    m_.clock();
    IcrcOut out;
    out.valid = m_->out_valid;
    out.crc = m_->out_crc;
    return out;
  }

 private:
  VerilatedBlock<V> m_;
};

// The simulator's engine: 8 bytes per cycle. Starts reset.
class IcrcRtl : public IcrcCore {
 public:
  explicit IcrcRtl(RtlContext& rtl, const std::string& name = "icrc_engine");
  ~IcrcRtl() override;
  unsigned bytes_per_cycle() const override { return core_->bytes_per_cycle(); }
  void reset() override { core_->reset(); }
  IcrcOut tick(const IcrcBeat& in) override { return core_->tick(in); }

 private:
  std::unique_ptr<IcrcCore> core_;
};

}  // namespace fs
