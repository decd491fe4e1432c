// Input traces: reads a text trace (traces/FORMAT.md), a classic pcap or a pcapng file into
// timed packets on ingress ports. The format is detected from the first bytes. Every problem
// throws fs::InputError naming the place: "file:line: reason" for text, "file: block at offset
// N: reason" or "file: packet N: reason" (N counts packets from 1) for pcap/pcapng.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/units.h"
#include "net/packet.h"

namespace fs {

struct TraceRecord {
  Picos time = 0;
  uint16_t port = 0;
  Bytes data;         // the frame from the destination MAC on, without FCS
  std::string where;  // "file:line" (text) or "file: packet N" (pcap, pcapng)
  uint32_t size = 0;  // the frame's bytes
  // open_trace's capture records leave data and where empty: the frame is at `offset` in the
  // file, and the record is packet `number` (from 1).
  uint64_t offset = 0, number = 0;
};

struct TraceOptions {
  unsigned num_ports = 64;  // ports are 0..num_ports-1 (1..65536)
  // How a capture's packets get their ingress ports (net/port_rule.h, traces/FORMAT.md "Ingress
  // ports of captures"): auto, interface, src-mac, a port number, mac-table:FILE, ip-table:FILE,
  // vlan or vlan:untagged=PORT. auto: the interface id for a pcapng with several interfaces or
  // written by flaresim, the source MAC's last two bytes otherwise. Text traces name their ports.
  std::string pcap_port = "auto";
  // pcap/pcapng timestamps are wall-clock times: by default the model's time 0 is the capture's
  // earliest packet. false takes the timestamps as they are (they must fit in 64-bit ps).
  bool relative_capture_times = true;
};

// A trace's format, from its first four bytes (pcapng's and pcap's magic numbers); text otherwise.
enum class TraceFormat { kPcapng, kPcap, kText };

// What reading a trace decided, for the stats and messages of its command.
struct TraceInfo {
  TraceFormat format = TraceFormat::kText;
  std::string port_rule;      // the rule that gave a capture's packets their ports ("" for text)
  std::string port_rule_why;  // why pcap_port auto chose it, e.g. "the default for classic pcap" ("" if given)
};

// Largest packet a trace may hold.
constexpr size_t kMaxTracePacket = 65535;

// Reads the trace at `path`. Text traces keep file order (times must be non-decreasing);
// pcap/pcapng records are stably sorted by time.
std::vector<TraceRecord> read_trace(const std::string& path, const TraceOptions& opts, TraceInfo* info = nullptr);
// The bytes of a trace file or stream (a FIFO, a character device), read to the end; InputError
// for a directory, a stream that is no trace (NUL bytes in what is not pcapng or pcap) or one
// over kMaxTraceBytes; Interrupted (common/interrupt.h) when a signal stops the read.
constexpr size_t kMaxTraceBytes = size_t(4) << 30;
Bytes read_trace_bytes(const std::string& path);
TraceFormat trace_format(const uint8_t* data, size_t len);
// False if the first `len` bytes read cannot start a trace: not pcapng or pcap, and a NUL byte.
bool looks_like_trace(const uint8_t* data, size_t len);

// A trace read for replay without holding its frames: every record checked as read_trace
// checks it (the same errors), and its time, port, size and place in the file kept in replay
// order; frame(i) reads record i's bytes when the replay needs them. A pcap or pcapng regular
// file is indexed through a mapping it lets go of as it reads (memory does not grow with the
// trace but for 24 bytes a record); text traces and streams are read whole, as read_trace does.
// A record later than `max_time` is an error naming it.
class TraceFrames {
 public:
  struct Entry {
    Picos time;
    uint64_t offset;
    uint32_t size;
    uint16_t port;
  };
  TraceFrames() = default;
  TraceFrames(TraceFrames&& o) noexcept;
  TraceFrames& operator=(TraceFrames&&) = delete;
  ~TraceFrames();
  std::vector<Entry> entries;  // in read_trace's order
  // Record i's frame; each is taken once (text and streams hand over the bytes they hold).
  // Empty, with the reason in error(), if the file can no longer be read (it was cut or removed
  // while the run read it).
  Bytes frame(size_t i);
  const std::string& error() const { return error_; }

 private:
  friend TraceFrames open_trace(const std::string&, const TraceOptions&, TraceInfo*, Picos);
  std::string name_;
  int fd_ = -1;               // the capture's file; -1: the frames are in kept_
  std::vector<Bytes> kept_;
  std::string error_;
};
TraceFrames open_trace(const std::string& path, const TraceOptions& opts, TraceInfo* info, Picos max_time);

// Same, from bytes already in memory; `name` is used in messages and `where`.
std::vector<TraceRecord> parse_trace(const std::string& name, const uint8_t* data, size_t len,
                                     const TraceOptions& opts, TraceInfo* info = nullptr);

// Helpers shared with the other text formats. Each returns false and sets *err to a short
// reason (without a place) on bad input.
//   parse_time_token: "<decimal><unit>", unit ps ns us ms s, exact integer picoseconds.
//   parse_hex_token: hex digit pairs, ':' allowed between byte pairs; may give an empty result.
bool parse_time_token(const std::string& tok, Picos* out, std::string* err);
bool parse_hex_token(const std::string& tok, Bytes* out, std::string* err);

}  // namespace fs
