// Editing traces as `flaresim trace merge|shift|filter` does (sc_model/app/cmd_trace.cpp,
// traces/FORMAT.md "Trace tools"): several traces merged into one in time order, times shifted,
// packets kept by port, time window, index range and header fields. Records keep their `where`,
// so that every error names the input packet it is about.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/units.h"
#include "net/frame_fields.h"
#include "net/trace_reader.h"

namespace fs {

// One input of a merge: its records (in time order, as read) and how its ports change:
// `port_offset` added, or `port_map` applied (ports it does not name stay).
struct MergeInput {
  std::vector<TraceRecord> records;
  unsigned port_offset = 0;
  std::map<unsigned, unsigned> port_map;
};

// The inputs' records in time order; records of equal time keep the order of the inputs, then
// their order in their input. Throws InputError "where: reason" for a port that ends up >= num_ports.
std::vector<TraceRecord> merge_traces(std::vector<MergeInput> inputs, unsigned num_ports);

// A signed time: "-1.5us", "+2ns", "3ps" (the trace time syntax with an optional sign).
struct TimeShift {
  bool negative = false;
  Picos amount = 0;
};
bool parse_time_shift(const std::string& tok, TimeShift* out, std::string* err);
std::string format_time_shift(const TimeShift& s);  // "-1.5ns"

// Every record moved by `by`. Throws InputError "where: reason" for a time that would be negative
// or pass 2^64-1 ps.
void shift_trace(std::vector<TraceRecord>& records, const TimeShift& by);

// A header field test of `trace filter --match FIELD=VALUE` (frame_fields.h): ethertype, vlan
// (a VLAN id or none), ip_proto (a number or udp, tcp, icmp, icmpv6), src_ip and dst_ip (an
// address or a prefix), sport and dport (UDP or TCP), src_mac and dst_mac.
class FieldMatch {
 public:
  // Sets *err to a short reason (without the option) when `text` is no FIELD=VALUE it knows.
  static bool parse(const std::string& text, FieldMatch* out, std::string* err);
  bool matches(const FrameFields& f) const;

 private:
  std::string field_;
  uint64_t number_ = 0;  // ethertype, vlan, ip_proto, sport, dport
  bool untagged_ = false;  // vlan=none
  IpPrefix prefix_;
  Mac mac_{};
};

// Which records `trace filter` keeps: all of its tests must pass. Indexes count the records from
// 1 in trace order (as read: captures sorted by time); the time window is [from, to).
struct TraceFilter {
  std::vector<unsigned> ports;  // empty: every port
  Picos from = 0, to = ~Picos(0);
  bool to_given = false;  // else `to` is no limit (a packet at 2^64-1 ps passes)
  uint64_t first_index = 1, last_index = ~uint64_t(0);
  std::vector<FieldMatch> matches;
};

std::vector<TraceRecord> filter_trace(std::vector<TraceRecord> records, const TraceFilter& filter);

}  // namespace fs
