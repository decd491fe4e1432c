// Trace merge, shift and filter (see trace_edit.h).
#include "net/trace_edit.h"

#include <algorithm>

#include "common/errors.h"
#include "net/trace_syntax.h"
#include "net/trace_writer.h"

namespace fs {

namespace {

constexpr Picos kMaxPicos = ~Picos(0);

void stable_sort_by_time(std::vector<TraceRecord>& v) {
  std::stable_sort(v.begin(), v.end(), [](const TraceRecord& a, const TraceRecord& b) { return a.time < b.time; });
}

}  // namespace

std::vector<TraceRecord> merge_traces(std::vector<MergeInput> inputs, unsigned num_ports) {
  std::vector<TraceRecord> out;
  for (MergeInput& in : inputs) {
    for (TraceRecord& r : in.records) {
      const auto mapped = in.port_map.find(r.port);
      const uint64_t port = mapped != in.port_map.end() ? mapped->second : uint64_t(r.port) + in.port_offset;
      if (port >= num_ports)
        throw InputError(r.where + ": port " + std::to_string(r.port) +
                         (mapped != in.port_map.end() ? " mapped to "
                                                      : " + port offset " + std::to_string(in.port_offset) + " = ") +
                         std::to_string(port) + " >= num_ports " + std::to_string(num_ports));
      r.port = uint16_t(port);
      out.push_back(std::move(r));
    }
  }
  stable_sort_by_time(out);  // each input is in time order: equal times keep input order
  return out;
}

bool parse_time_shift(const std::string& tok, TimeShift* out, std::string* err) {
  TimeShift s;
  std::string t = tok;
  if (!t.empty() && (t[0] == '-' || t[0] == '+')) {
    s.negative = t[0] == '-';
    t = t.substr(1);
  }
  if (!parse_time_token(t, &s.amount, err)) return false;
  if (s.amount == 0) s.negative = false;
  *out = s;
  return true;
}

std::string format_time_shift(const TimeShift& s) {
  return (s.negative ? "-" : "+") + format_picos_ns(s.amount);
}

void shift_trace(std::vector<TraceRecord>& records, const TimeShift& by) {
  for (TraceRecord& r : records) {
    const std::string what = "time " + format_picos_ns(r.time) + " shifted by " + format_time_shift(by);
    if (by.negative && r.time < by.amount) throw InputError(r.where + ": " + what + " would be negative");
    if (!by.negative && r.time > kMaxPicos - by.amount)
      throw InputError(r.where + ": " + what + " would pass 2^64-1 ps");
    r.time = by.negative ? r.time - by.amount : r.time + by.amount;
  }
}

bool FieldMatch::parse(const std::string& text, FieldMatch* out, std::string* err) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    *err = "expected FIELD=VALUE";
    return false;
  }
  FieldMatch m;
  m.field_ = text.substr(0, eq);
  const std::string v = text.substr(eq + 1);
  auto number = [&](uint64_t max) {
    if (parse_token_number(v, max, &m.number_)) return true;
    *err = "bad value " + quote_token(v) + " for " + m.field_ + " (expected 0.." + std::to_string(max) + ", decimal or 0x hex)";
    return false;
  };
  bool ok;
  if (m.field_ == "ethertype") {
    ok = number(0xFFFF);
  } else if (m.field_ == "vlan") {
    m.untagged_ = v == "none";
    ok = m.untagged_ || number(4095);
  } else if (m.field_ == "ip_proto") {
    static const std::map<std::string, uint64_t> names = {{"icmp", 1}, {"tcp", 6}, {"udp", 17}, {"icmpv6", 58}};
    const auto it = names.find(v);
    if (it != names.end()) m.number_ = it->second;
    ok = it != names.end() || number(255);
  } else if (m.field_ == "sport" || m.field_ == "dport") {
    ok = number(0xFFFF);
  } else if (m.field_ == "src_ip" || m.field_ == "dst_ip") {
    ok = parse_ip_prefix(v, &m.prefix_, err);
  } else if (m.field_ == "src_mac" || m.field_ == "dst_mac") {
    ok = parse_mac(v, &m.mac_);
    if (!ok) *err = "bad MAC address " + quote_token(v) + " (expected six hex bytes like 02:00:00:00:00:07)";
  } else {
    *err = "unknown field " + quote_token(m.field_) +
           " (fields: ethertype vlan ip_proto src_ip dst_ip sport dport src_mac dst_mac)";
    return false;
  }
  if (ok) *out = m;
  return ok;
}

bool FieldMatch::matches(const FrameFields& f) const {
  if (!f.eth) return false;
  if (field_ == "ethertype") return f.ethertype == number_;
  if (field_ == "vlan") return untagged_ ? f.vlan < 0 : f.vlan == long(number_);
  if (field_ == "ip_proto") return f.ip_proto == long(number_);
  if (field_ == "sport") return f.l4_ports && f.sport == number_;
  if (field_ == "dport") return f.l4_ports && f.dport == number_;
  if (field_ == "src_ip") return prefix_.contains(f.src_ip);
  if (field_ == "dst_ip") return prefix_.contains(f.dst_ip);
  if (field_ == "src_mac") return f.src_mac == mac_;
  return f.dst_mac == mac_;  // dst_mac
}

std::vector<TraceRecord> filter_trace(std::vector<TraceRecord> records, const TraceFilter& filter) {
  std::vector<TraceRecord> out;
  for (size_t i = 0; i < records.size(); ++i) {
    TraceRecord& r = records[i];
    const uint64_t index = i + 1;
    if (index < filter.first_index || index > filter.last_index) continue;
    if (r.time < filter.from || (filter.to_given && r.time >= filter.to)) continue;
    if (!filter.ports.empty() && std::find(filter.ports.begin(), filter.ports.end(), r.port) == filter.ports.end())
      continue;
    if (!filter.matches.empty()) {
      const FrameFields f = frame_fields(r.data.data(), r.data.size());
      if (!std::all_of(filter.matches.begin(), filter.matches.end(), [&](const FieldMatch& m) { return m.matches(f); }))
        continue;
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace fs
