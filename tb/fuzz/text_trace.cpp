// Fuzzing harness: the text-trace reader (net/trace_reader.h, traces/FORMAT.md). Inputs that
// start like a pcap or pcapng file belong to the pcap_trace harness and are passed over.
// Accepted traces: every packet on a port below ports.count, at most kMaxTracePacket bytes, at
// a time no earlier than the one before it, with its line named.
#include <cstdint>

#include "fuzz/fuzz_check.h"
#include "net/trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (fs::trace_format(data, size) != fs::TraceFormat::kText) return 0;
  fs::TraceOptions opts;
  opts.num_ports = 8;
  fs::fuzz::accepts([&] {
    const std::vector<fs::TraceRecord> records = fs::parse_trace("fuzz.txt", data, size, opts);
    for (size_t i = 0; i < records.size(); ++i) {
      FUZZ_CHECK(records[i].port < opts.num_ports);
      FUZZ_CHECK(records[i].data.size() <= fs::kMaxTracePacket);
      FUZZ_CHECK(i == 0 || records[i].time >= records[i - 1].time);
      FUZZ_CHECK(records[i].where.rfind("fuzz.txt:", 0) == 0);
    }
  });
  return 0;
}
