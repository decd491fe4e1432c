// Small SystemC testbench parts shared by the block tests in tb/blocks/:
//   quiet_systemc()  - turns SystemC's copyright banner off; call it first in every test that
//                      builds modules (each test runs in its own process under ctest).
//   Script           - a module whose thread runs callbacks at given absolute times, to inject
//                      packets, release buffers or call a block's methods from simulated time.
//   RecordingSink    - a PacketSinkIf that records every packet with its arrival time.
//   make_packet(), flare_frame(), elems_*() - packets and Flare contributions.
#pragma once
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <systemc>

#include "common/sc_time_util.h"
#include "net/frame.h"
#include "protocols/flare_dense/flare_frame.h"
#include "net/packet_sink.h"

namespace fs_tb {

using fs::Picos;

inline void quiet_systemc() { setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1); }

// Runs `f` at absolute simulated time `t` (picoseconds). Steps at the same time run in the
// order they were added.
class Script : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Script);
  explicit Script(sc_core::sc_module_name name) : sc_core::sc_module(name) { SC_THREAD(run); }
  void at(Picos t, std::function<void()> f) { steps_.emplace_back(t, std::move(f)); }

 private:
  void run() {
    std::stable_sort(steps_.begin(), steps_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& s : steps_) {
      if (s.first > fs::now_ps()) wait(fs::ps_time(s.first - fs::now_ps()));
      s.second();
    }
  }
  std::vector<std::pair<Picos, std::function<void()>>> steps_;
};

struct Arrival {
  Picos time;
  fs::PacketPtr pkt;
};

class RecordingSink : public sc_core::sc_module, public fs::PacketSinkIf {
 public:
  explicit RecordingSink(sc_core::sc_module_name name) : sc_core::sc_module(name) {}
  void accept(fs::PacketPtr p) override { got.push_back(Arrival{fs::now_ps(), std::move(p)}); }
  std::vector<Arrival> got;
};

inline fs::PacketPtr make_packet(fs::Bytes data, Picos arrival = 0, uint16_t ingress_port = 0) {
  auto p = std::make_shared<fs::Packet>();
  p->data = std::move(data);
  p->arrival = arrival;
  p->received = arrival;
  p->ingress_port = ingress_port;
  return p;
}

// A Flare contribution (kind 0) from the host on `port`, elements given as raw little-endian bytes.
inline fs::Bytes flare_frame(uint32_t block, uint16_t rank, uint16_t port, uint8_t dtype, uint8_t op,
                             const fs::Bytes& elems, uint32_t allreduce = 7, uint8_t kind = FLARE_KIND_CONTRIB) {
  const uint32_t esize = flare_dtype_bytes(dtype) ? flare_dtype_bytes(dtype) : 1;
  flare_header_t h{};
  h.version = FLARE_VERSION;
  h.kind = kind;
  h.dtype = dtype;
  h.op = op;
  h.allreduce_id = allreduce;
  h.block_id = block;
  h.sender_rank = rank;
  h.elem_count = uint16_t(elems.size() / esize);
  return fs::build_flare_packet(h, port, elems.data(), elems.size());
}

template <typename T>
fs::Bytes elems_of(const std::vector<T>& v) {
  fs::Bytes b(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// The elements of a Flare frame (after the 42 header bytes and the 16-byte Flare header).
template <typename T>
std::vector<T> elems_from(const fs::Bytes& frame) {
  const size_t off = FLARE_PAYLOAD_OFFSET + FLARE_HEADER_BYTES;
  std::vector<T> v(frame.size() > off ? (frame.size() - off) / sizeof(T) : 0);
  if (!v.empty()) std::memcpy(v.data(), frame.data() + off, v.size() * sizeof(T));
  return v;
}

inline flare_header_t flare_header_of(const fs::Bytes& frame) {
  flare_header_t h{};
  flare_decode(frame.data() + FLARE_PAYLOAD_OFFSET, &h);
  return h;
}

}  // namespace fs_tb
