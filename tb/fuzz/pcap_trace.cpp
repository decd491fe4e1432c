// Fuzzing harness: the pcap and pcapng readers (net/trace_reader.h) and the ingress port rules
// (net/port_rule.h). Each input is read three times: with the defaults (pcap_port auto, times
// relative to the first packet), with every packet on port 3 and absolute times, and with ports
// from the VLAN ids (untagged frames on port 1). Accepted captures: every packet on a port below
// ports.count, at most kMaxTracePacket bytes, in time order, the first at time 0 when times are
// relative; with a fixed port, every packet on it, whatever the format.
#include <cstdint>

#include "fuzz/fuzz_check.h"
#include "net/trace_reader.h"

namespace {

void read_as(const uint8_t* data, size_t size, const fs::TraceOptions& opts) {
  fs::fuzz::accepts([&] {
    const std::vector<fs::TraceRecord> records = fs::parse_trace("fuzz.pcapng", data, size, opts);
    for (size_t i = 0; i < records.size(); ++i) {
      FUZZ_CHECK(records[i].port < opts.num_ports);
      if (opts.pcap_port == "3") FUZZ_CHECK(records[i].port == 3);
      FUZZ_CHECK(records[i].data.size() <= fs::kMaxTracePacket);
      FUZZ_CHECK(i == 0 || records[i].time >= records[i - 1].time);
    }
    if (opts.relative_capture_times && !records.empty()) FUZZ_CHECK(records.front().time == 0);
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fs::TraceOptions opts;
  opts.num_ports = 8;
  read_as(data, size, opts);
  opts.pcap_port = "3";
  opts.relative_capture_times = false;
  read_as(data, size, opts);
  opts.pcap_port = "vlan:untagged=1";
  read_as(data, size, opts);
  return 0;
}
