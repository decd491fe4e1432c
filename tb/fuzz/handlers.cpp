// Fuzzing harness: each protocol's packet handlers on the host (blocks/handler_harness.h), fed a
// sequence of frames under one of the protocol's configurations, state kept across the frames
// as on the switch. The input:
//   byte 0           which configuration of kSetups (modulo their number)
//   then records of  u16 length (big-endian), u8 ingress port, u8 HPU (cluster = bit 4, hpu =
//                    bits 0-1), u8 flags, then `length` bytes (cut to what is left): with flag
//                    bit 0 the bytes are the UDP payload of a frame from that port's host to the
//                    set's UDP port (what the parser hands the set), else the whole frame.
// Invariants: every handler returns one of its set's outcome codes; every frame it sends goes
// to a port of the switch and fits an Ethernet frame. A new protocol adds its configurations.
#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>

#include "blocks/handler_harness.h"
#include "config/config_io.h"
#include "fs_packet.h"
#include "fuzz/fuzz_check.h"
#include "net/frame.h"

namespace {

struct Setup {
  const char* set;  // handler set
  uint16_t udp_port;  // the UDP destination port of its traffic (its parser rule's)
  const char* ini;  // on top of the common geometry below
};

// Flare dense (handlers/flare/): its algorithms, a multi-level tree's middle switch, two
// allreduces side by side and small block buffers.
constexpr Setup kSetups[] = {
    {"flare_dense", 4950, "[flare]\nports = 0-3\nalgorithm = single\n"},
    {"flare_dense", 4950, "[flare]\nports = 0-3\nalgorithm = multi\nmulti_buffers = 2\n"},
    {"flare_dense", 4950, "[flare]\nports = 0-3\nalgorithm = tree\n"},
    {"flare_dense", 4950, "[flare]\nports = 0-2\nparent = 3\nrank = 1\n"},
    {"flare_dense", 4950, "[flare]\nports = 0-1\nmax_payload = 64\nallreduces = id=7 ports=2-3 algorithm=tree\n"},
    // PsPIN's examples (handlers/pspin_examples/): no configuration of their own; in this
    // geometry reduce_l1 has 3 message states and histogram_l1 6.
    {"pspin_empty", 9100, ""},
    {"pspin_pingpong", 9101, ""},
    {"pspin_aggregate_global", 9102, ""},
    {"pspin_reduce_l1", 9103, ""},
    {"pspin_histogram_l1", 9104, ""},
};
constexpr size_t kSetupCount = sizeof(kSetups) / sizeof(kSetups[0]);

const char* kGeometry =
    "[pspin]\nclusters = 2\nhpus_per_cluster = 4\nl1_bytes = 64KiB\nl2_handler_bytes = 64KiB\n[ports]\ncount = 8\n";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const Setup& setup = kSetups[data[0] % kSetupCount];
  fs::Config cfg;
  std::istringstream ini(std::string(kGeometry) + setup.ini);
  fs::apply_ini(cfg, "handlers-fuzz.ini", ini);  // the setups are valid: an error here is a finding
  fs_tb::HandlerHarness harness(cfg, setup.set);
  size_t at = 1;
  while (at + 5 <= size) {
    const size_t length = (size_t(data[at]) << 8) | data[at + 1];
    const uint32_t port = data[at + 2] % cfg.ports.count;
    const uint32_t cluster = (data[at + 3] >> 4) & 1, hpu = data[at + 3] & 3;
    const bool udp = data[at + 4] & 1;
    at += 5;
    const size_t n = std::min(length, size - at);
    fs::Bytes frame;
    if (udp) {
      uint8_t src[6], dst[6];
      fs_host_mac(port, src);
      fs_switch_mac(dst);
      const size_t payload = std::min<size_t>(n, fs::kMaxSlotFrameBytes - FS_UDP_PAYLOAD_OFFSET);
      frame = fs::build_udp_frame(src, dst, fs_host_ipv4(port), FS_SWITCH_IPV4, setup.udp_port, setup.udp_port,
                                  data + at, payload);
    } else {
      frame.assign(data + at, data + at + std::min<size_t>(n, fs::kMaxSlotFrameBytes));
    }
    at += n;
    const fs_tb::HandlerCall call = harness.run(frame, port, cluster, hpu);
    FUZZ_CHECK(call.outcome >= 0 && size_t(call.outcome) < harness.set().outcomes.size());
    for (const fs_tb::SentFrame& sent : call.sent) {
      for (uint32_t p : sent.ports) FUZZ_CHECK(p < cfg.ports.count);
      FUZZ_CHECK(sent.data.size() <= 65535);
    }
  }
  return 0;
}
