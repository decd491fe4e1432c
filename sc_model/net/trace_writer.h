// Output traces: the text format of traces/FORMAT.md (hex lines) and little-endian pcapng with
// one interface per switch port and picosecond timestamps. Writers take an std::ostream so that
// callers can write through fs::OutputFiles (common/output_files.h).
#pragma once
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "common/units.h"
#include "net/trace_reader.h"

namespace fs {

// "<time> <port> hex <bytes>" per record after a header comment. Times are written exactly in
// ns ("0ns", "1.25ns", "0.001ns"). Throws SimError if the records are not sorted by time (the
// reader would reject the file).
void write_text_trace(std::ostream& out, const std::vector<TraceRecord>& records);

// Exact time text in ns: 1250 ps -> "1.25ns", 3000 ps -> "3ns".
std::string format_picos_ns(Picos t);

// Lowercase hex digits without separators.
std::string to_hex(const uint8_t* data, size_t len);

// Little-endian pcapng writer. The constructor writes the Section Header Block and one Interface
// Description Block per port (linktype 1 Ethernet, snaplen 0 = unlimited, if_name "port<N>",
// if_tsresol 12 = picoseconds); write() adds an Enhanced Packet Block on interface `port`.
class PcapngWriter {
 public:
  PcapngWriter(std::ostream& out, unsigned num_ports);
  // Throws SimError if port >= num_ports or len does not fit a block.
  void write(uint16_t port, Picos time, const uint8_t* data, size_t len);

 private:
  std::ostream& out_;
  unsigned num_ports_;
};

// Convenience: every record through a PcapngWriter, in the given order.
void write_pcapng(std::ostream& out, unsigned num_ports, const std::vector<TraceRecord>& records);

// Whether a trace file name asks for pcapng (it ends in .pcapng; anything else is a text trace).
bool is_pcapng_path(const std::string& path);
// The records as the trace `path` names: pcapng (write_pcapng) or text (write_text_trace).
void write_trace(std::ostream& out, const std::string& path, unsigned num_ports, const std::vector<TraceRecord>& records);

}  // namespace fs
