// The instruction trace's filters and lines (see insn_trace.h).
#include "pspin/insn_trace.h"

#include <cstdio>
#include <utility>

#include "iss/insn.h"

namespace fs {

bool InsnTraceOptions::takes(unsigned cluster, unsigned hpu, const std::string& set, uint64_t packet,
                             bool timer) const {
  if (!clusters.empty() && !clusters.count(cluster)) return false;
  if (!hpus.empty() && !hpus.count(hpu)) return false;
  if (!sets.empty() && !sets.count(set)) return false;
  const bool all_packets = first_packet == 0 && last_packet == std::numeric_limits<uint64_t>::max();
  if (timer) return all_packets;
  return packet >= first_packet && packet <= last_packet;
}

InsnTrace::InsnTrace(std::ostream& out, InsnTraceOptions options) : out_(out), options_(std::move(options)) {}

const char* InsnTrace::header() {
  return "# cycle cluster hpu handler pc instruction disassembly [register=value] [mem=address] "
         "[<function+offset> file:line]\n"
         "# marker lines: '# cycle cluster hpu handler start|end|FAULT ...'";
}

bool InsnTrace::take_line() {
  if (lines_ < options_.max_lines) {
    ++lines_;
    return true;
  }
  if (!stopped_) {
    out_ << "# the trace stops here: " << options_.max_lines << " instruction lines (--trace-limit); fault markers "
         << "still follow\n";
    stopped_ = true;
  }
  return false;
}

InsnTraceRun::InsnTraceRun(InsnTrace& trace, const Who& who, uint64_t start_cycle, Picos period_ps,
                           const iss::DebugInfo& debug)
    : trace_(trace), who_(who), start_(start_cycle), period_(period_ps), debug_(debug) {}

bool InsnTraceRun::in_window(uint64_t cycle) const {
  const Picos at = Picos(start_ + cycle) * period_;
  return at >= trace_.options_.from && at <= trace_.options_.to;
}

void InsnTraceRun::marker(uint64_t cycle, const std::string& text) {
  char head[96];
  std::snprintf(head, sizeof head, "# %llu %u %u ", (unsigned long long)(start_ + cycle), who_.cluster, who_.hpu);
  if (!started_) {
    started_ = true;
    char start[160];
    if (who_.timer)
      std::snprintf(start, sizeof start, " start timer (run from cycle %llu)", (unsigned long long)start_);
    else
      std::snprintf(start, sizeof start, " start packet %llu port %u len %u (run from cycle %llu)",
                    (unsigned long long)who_.packet, who_.ingress_port, who_.pkt_len, (unsigned long long)start_);
    trace_.out_ << head << who_.set << start << '\n';
  }
  if (!text.empty()) trace_.out_ << head << who_.set << ' ' << text << '\n';
}

void InsnTraceRun::retired(uint64_t cycle, uint32_t pc, const iss::Insn& in, uint8_t dst, uint32_t value,
                           uint64_t mem_addr) {
  if (!in_window(cycle) || trace_.stopped_) return;
  if (!started_) marker(cycle, "");
  if (!trace_.take_line()) return;
  char line[320];
  const std::string text = iss::disassemble(in, pc);
  int n = std::snprintf(line, sizeof line, "%llu %u %u %s 0x%08x %0*x %-32s", (unsigned long long)(start_ + cycle),
                        who_.cluster, who_.hpu, who_.set.c_str(), pc, in.len == 2 ? 4 : 8, in.raw, text.c_str());
  const auto room = [&] { return n > 0 && size_t(n) < sizeof line ? sizeof line - size_t(n) : size_t(0); };
  if (dst != iss::kNoReg && room()) n += std::snprintf(line + n, room(), " %s=0x%08x", iss::reg_name(dst), value);
  if (mem_addr != kNoAccess && room()) n += std::snprintf(line + n, room(), " mem=0x%08x", unsigned(mem_addr));
  if (trace_.options_.symbols) {
    const std::string fn = debug_.symbolise(pc);
    const iss::SourceLine* src = debug_.line_at(pc);
    if (!fn.empty() && room()) n += std::snprintf(line + n, room(), " <%s>", fn.c_str());
    if (src && room()) {
      const size_t slash = src->file.rfind('/');
      n += std::snprintf(line + n, room(), " %s:%u", src->file.c_str() + (slash == std::string::npos ? 0 : slash + 1),
                         src->line);
    }
  }
  trace_.out_ << line << '\n';
}

void InsnTraceRun::ended(uint64_t cycle, const std::string& outcome) {
  if (started_) marker(cycle, "end " + outcome + " after " + std::to_string(cycle) + " cycles");
}

void InsnTraceRun::faulted(uint64_t cycle, const std::string& fault) {
  marker(cycle, "FAULT after " + std::to_string(cycle) + " cycles: " + fault);
}

}  // namespace fs
