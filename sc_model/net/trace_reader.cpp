// Trace reader (see trace_reader.h): format detection, the text format of traces/FORMAT.md,
// classic pcap and pcapng. All bounds are checked before any read so that no input can crash it.
#include "net/trace_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <map>

#include "common/errors.h"
#include "common/interrupt.h"
#include "fs_packet.h"
#include "net/port_rule.h"
#include "net/trace_syntax.h"

namespace fs {

namespace {

__extension__ typedef unsigned __int128 u128;  // GCC/Clang 128-bit integers
__extension__ typedef __int128 i128;
constexpr u128 kMaxPicos = std::numeric_limits<uint64_t>::max();



int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

bool parse_time_token(const std::string& tok, Picos* out, std::string* err) {
  size_t i = 0;
  if (!tok.empty() && tok[0] == '-') {
    *err = "negative time " + quote_token(tok);
    return false;
  }
  const size_t int_start = i;
  while (i < tok.size() && tok[i] >= '0' && tok[i] <= '9') ++i;
  const std::string int_part = tok.substr(int_start, i - int_start);
  std::string frac;
  if (i < tok.size() && tok[i] == '.') {
    const size_t f = ++i;
    while (i < tok.size() && tok[i] >= '0' && tok[i] <= '9') ++i;
    frac = tok.substr(f, i - f);
    if (frac.empty()) {
      *err = "bad time " + quote_token(tok) + ": no digits after '.'";
      return false;
    }
  }
  if (int_part.empty()) {
    *err = "bad time " + quote_token(tok) + ": expected a decimal number with a unit, e.g. 1.25us";
    return false;
  }
  const std::string unit = tok.substr(i);
  int exp;
  if (unit == "ps") exp = 0;
  else if (unit == "ns") exp = 3;
  else if (unit == "us") exp = 6;
  else if (unit == "ms") exp = 9;
  else if (unit == "s") exp = 12;
  else {
    *err = unit.empty() ? "time " + quote_token(tok) + " has no unit (use ps, ns, us, ms or s)"
                        : "time " + quote_token(tok) + " has unknown unit " + quote_token(unit) +
                              " (use ps, ns, us, ms or s)";
    return false;
  }
  u128 v = 0;
  for (char c : int_part) {
    v = v * 10 + unsigned(c - '0');
    if (v > kMaxPicos) break;
  }
  for (int k = 0; k < exp && v <= kMaxPicos; ++k) v *= 10;
  u128 place = 1;
  for (int k = 0; k < exp; ++k) place *= 10;
  for (size_t k = 0; k < frac.size(); ++k) {
    place /= 10;  // value of this digit's position in ps (0 once past picoseconds)
    const unsigned d = unsigned(frac[k] - '0');
    if (d != 0 && place == 0) {
      *err = "time " + quote_token(tok) + " is finer than a picosecond";
      return false;
    }
    v += place * d;
  }
  if (v > kMaxPicos) {
    *err = "time " + quote_token(tok) + " overflows 64-bit picoseconds";
    return false;
  }
  *out = Picos(v);
  return true;
}

bool parse_hex_token(const std::string& tok, Bytes* out, std::string* err) {
  out->clear();
  size_t digits = 0, group = 0;  // digits in total and since the last ':'
  int pending = -1;
  for (size_t i = 0; i < tok.size(); ++i) {
    const char c = tok[i];
    if (c == ':') {
      if (group == 0 || group % 2 != 0 || i + 1 == tok.size()) {
        *err = "misplaced ':' at character " + std::to_string(i + 1) +
               " (only between byte pairs)";
        return false;
      }
      group = 0;
      continue;
    }
    const int v = hex_value(c);
    if (v < 0) {
      *err = "bad hex digit " + quote_token(std::string(1, c)) + " at character " +
             std::to_string(i + 1);
      return false;
    }
    ++digits;
    ++group;
    if (pending < 0) {
      pending = v;
    } else {
      out->push_back(uint8_t(pending * 16 + v));
      pending = -1;
    }
  }
  if (digits % 2 != 0) {
    *err = "odd number of hex digits (" + std::to_string(digits) + ")";
    return false;
  }
  return true;
}

namespace {

[[noreturn]] void fail_at(const std::string& where, const std::string& why) {
  throw InputError(where + ": " + why);
}

void check_packet_size(const std::string& where, size_t n) {
  if (n == 0) fail_at(where, "empty packet");
  if (n > kMaxTracePacket)
    fail_at(where, "packet of " + std::to_string(n) + " bytes exceeds " +
                       std::to_string(kMaxTracePacket));
}

// ---- text traces ----

// The line forms a text trace may use: hex, and every registered syntax; syntaxes whose usage
// continues alike after their keyword share one form ('eth|ip|tcp|udp key=value...').
std::string line_forms() {
  std::vector<std::pair<std::string, std::string>> forms;  // (keywords, the usage after the keyword)
  for (const TraceSyntax* t : trace_syntaxes()) {
    const std::string usage = t->usage(), kw = t->keyword();
    const bool keyword_first = usage.rfind(kw + " ", 0) == 0;
    const std::string rest = keyword_first ? usage.substr(kw.size()) : "";
    auto same = std::find_if(forms.begin(), forms.end(), [&](const auto& f) { return keyword_first && f.second == rest; });
    if (same != forms.end())
      same->first += "|" + kw;
    else
      forms.emplace_back(keyword_first ? kw : usage, rest);
  }
  std::string out = "expected '<time> <port> hex <bytes>'";
  for (const auto& [keywords, rest] : forms) out += " or '<time> <port> " + keywords + rest + "'";
  return out;
}

std::vector<TraceRecord> parse_text(const std::string& name, const uint8_t* data, size_t len,
                                    const TraceOptions& opts) {
  std::vector<TraceRecord> out;
  size_t line_no = 0, pos = 0;
  std::string prev_tok;
  size_t prev_line = 0;
  while (pos < len) {
    size_t end = pos;
    while (end < len && data[end] != '\n') ++end;
    ++line_no;
    const std::string where = name + ":" + std::to_string(line_no);
    std::vector<std::string> toks;
    std::string cur;
    for (size_t i = pos; i < end && data[i] != '#'; ++i) {
      const char c = char(data[i]);
      if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
        if (!cur.empty()) toks.push_back(std::move(cur));
        cur.clear();
      } else {
        cur += c;
      }
    }
    if (!cur.empty()) toks.push_back(std::move(cur));
    pos = end + 1;
    if (toks.empty()) continue;
    if (toks.size() < 3) fail_at(where, line_forms());
    TraceRecord rec;
    rec.where = where;
    std::string err;
    if (!parse_time_token(toks[0], &rec.time, &err)) fail_at(where, err);
    if (!out.empty() && rec.time < out.back().time)
      fail_at(where, "time " + toks[0] + " goes backwards (previous packet at " + prev_tok +
                         ", line " + std::to_string(prev_line) + ")");
    uint64_t port;
    if (!parse_token_uint(toks[1], 0xFFFFFFFFull, &port)) {
      if (token_is_digits(toks[1]))
        fail_at(where, "port " + toks[1] + " >= num_ports " + std::to_string(opts.num_ports));
      fail_at(where, "bad port " + quote_token(toks[1]) + " (expected a decimal number)");
    }
    if (port >= opts.num_ports)
      fail_at(where, "port " + std::to_string(port) + " >= num_ports " +
                         std::to_string(opts.num_ports));
    rec.port = uint16_t(port);
    if (toks[2] == "hex") {
      if (toks.size() < 4) fail_at(where, "hex: missing packet bytes");
      if (toks.size() > 4)
        fail_at(where, "unexpected token " + quote_token(toks[4]) + " after hex bytes");
      if (!parse_hex_token(toks[3], &rec.data, &err)) fail_at(where, "hex: " + err);
    } else if (const TraceSyntax* syntax = find_trace_syntax(toks[2])) {
      rec.data = syntax->build(toks, 3, rec.port, where);
    } else {
      std::string valid = "hex";
      for (const TraceSyntax* t : trace_syntaxes()) valid += " or " + t->keyword();
      fail_at(where, "unknown token " + quote_token(toks[2]) + " (expected " + valid + ")");
    }
    check_packet_size(where, rec.data.size());
    rec.size = uint32_t(rec.data.size());
    prev_tok = toks[0];
    prev_line = line_no;
    out.push_back(std::move(rec));
  }
  return out;
}

// ---- binary helpers ----

struct Reader {
  const uint8_t* p;
  bool be;
  uint32_t u16(size_t off) const {
    return be ? (uint32_t(p[off]) << 8) | p[off + 1] : (uint32_t(p[off + 1]) << 8) | p[off];
  }
  uint32_t u32(size_t off) const {
    return be ? fs_be32(p + off)
              : (uint32_t(p[off + 3]) << 24) | (uint32_t(p[off + 2]) << 16) |
                    (uint32_t(p[off + 1]) << 8) | p[off];
  }
};

std::string at_block(const std::string& f, size_t o) {
  return f + ": block at offset " + std::to_string(o);
}
std::string at_packet(const std::string& f, uint64_t n) {
  return f + ": packet " + std::to_string(n);
}

// A capture record's place: its `where`, or (read for replay, frames left in the file) its
// packet number's.
std::string where_of(const std::string& name, const TraceRecord& r) {
  return r.where.empty() ? at_packet(name, r.number) : r.where;
}

// How a capture parser keeps each record's frame: a copy (read_trace), or where it is in the
// file (open_trace), telling the mapping how far it has read so that the pages behind can go.
struct Frames {
  bool copy = true;
  std::function<void(size_t)> release;  // bytes of the file read to the end, in file order
  std::function<void()> restart;        // reading again from the file's start
  void take(TraceRecord& rec, const uint8_t* d, size_t off, uint32_t len, uint64_t number,
            const std::string& where) const {
    rec.size = len;
    if (copy) {
      rec.data.assign(d + off, d + off + len);
      rec.where = where;
    } else {
      rec.offset = off;
      rec.number = number;
    }
  }
  void consumed(size_t off) const {
    if (release) release(off);
  }
  void again() const {
    if (restart) restart();
  }
};

// Turns capture timestamps into model times: relative to the capture's earliest packet, or as
// they are. Either must fit in 64-bit picoseconds (about 213 days).
void set_capture_times(std::vector<TraceRecord>& out, const std::vector<i128>& absolute, bool relative,
                       const std::string& name) {
  if (out.empty()) return;
  const i128 first = relative ? *std::min_element(absolute.begin(), absolute.end()) : 0;
  for (size_t k = 0; k < out.size(); ++k) {
    const i128 t = absolute[k] - first;
    if (t < 0 || t > i128(kMaxPicos))
      fail_at(where_of(name, out[k]), relative ? "packet comes more than 2^64 ps (about 213 days) after the capture's first packet"
                                     : "timestamp does not fit in 64-bit picoseconds (about 213 days)");
    out[k].time = Picos(t);
  }
}

void stable_sort_by_time(std::vector<TraceRecord>& v) {
  std::stable_sort(v.begin(), v.end(),
                   [](const TraceRecord& a, const TraceRecord& b) { return a.time < b.time; });
}

// Why a capture of link type `linktype` cannot be read, and what to do; "" for Ethernet.
std::string linktype_problem(uint32_t linktype) {
  if (linktype == 1) return "";
  const std::string only = "only Ethernet (linktype 1) is read";
  if (linktype == 113 || linktype == 276)
    return "linktype " + std::to_string(linktype) + (linktype == 113 ? " (LINUX_SLL" : " (LINUX_SLL2") +
           ", a Linux cooked capture such as tcpdump -i any writes) has no Ethernet header; " + only +
           ": capture on one Ethernet interface (tcpdump -i eth0)";
  static const std::map<uint32_t, const char*> names = {
      {0, "NULL, BSD loopback"}, {101, "RAW, IP without a link layer"}, {105, "IEEE802_11, Wi-Fi"},
      {127, "IEEE802_11_RADIOTAP, Wi-Fi"}, {228, "IPV4, IP without a link layer"}, {229, "IPV6, IP without a link layer"}};
  const auto it = names.find(linktype);
  return "unsupported linktype " + std::to_string(linktype) + (it == names.end() ? "" : std::string(" (") + it->second + ")") +
         "; " + only + ": capture on an Ethernet interface";
}

// ---- classic pcap ----

std::vector<TraceRecord> parse_pcap(const std::string& name, const uint8_t* d, size_t n,
                                    const TraceOptions& opts, const PortRule& rule, const Frames& frames) {
  if (n < 24) fail_at(at_block(name, 0), "truncated pcap file header");
  const uint32_t le_magic = Reader{d, false}.u32(0);
  const bool be = (le_magic == 0xd4c3b2a1u || le_magic == 0x4d3cb2a1u);
  const Reader r{d, be};
  const bool nano = r.u32(0) == 0xa1b23c4du;
  if (r.u16(4) != 2)
    fail_at(at_block(name, 0), "unsupported pcap version " + std::to_string(r.u16(4)) + "." +
                                   std::to_string(r.u16(6)));
  const uint32_t linktype = r.u32(20);
  if (linktype != 1) fail_at(at_block(name, 0), linktype_problem(linktype));
  if (rule.kind() == PortRuleKind::kInterface)
    fail_at(at_block(name, 0), "pcap_port interface: a classic pcap has no interfaces (traces/FORMAT.md lists the other rules)");
  std::vector<TraceRecord> out;
  std::vector<i128> absolute;  // capture timestamps, parallel to out
  size_t off = 24;
  uint64_t pkt = 0;
  while (off < n) {
    ++pkt;
    const std::string where = at_packet(name, pkt);
    if (n - off < 16)
      fail_at(where, "truncated record header at offset " + std::to_string(off));
    const uint64_t sec = r.u32(off), frac = r.u32(off + 4);
    const uint32_t incl = r.u32(off + 8), orig = r.u32(off + 12);
    off += 16;
    if (incl > n - off)
      fail_at(where, "truncated packet data: " + std::to_string(incl) + " bytes announced, " +
                         std::to_string(n - off) + " present");
    check_packet_size(where, incl);
    if (incl < orig)
      fail_at(where, "captured length " + std::to_string(incl) + " < original length " +
                         std::to_string(orig) + " (packet was cut by the snapshot length)");
    TraceRecord rec;
    if (frac >= (nano ? 1000000000u : 1000000u))
      fail_at(where, "timestamp fraction " + std::to_string(frac) + " is not below one second (" +
                         (nano ? "nanoseconds" : "microseconds") + ")");
    absolute.push_back(i128(u128(sec) * kPicosPerS + u128(frac) * (nano ? 1000u : 1000000u)));
    frames.take(rec, d, off, incl, pkt, where);
    rec.port = rule.port_of(d + off, incl, -1, where);
    off += incl;
    frames.consumed(off);
    out.push_back(std::move(rec));
  }
  set_capture_times(out, absolute, opts.relative_capture_times, name);
  stable_sort_by_time(out);
  return out;
}

// ---- pcapng ----

struct Iface {
  bool pow2 = false;   // if_tsresol: units of 2^-exp instead of 10^-exp seconds
  unsigned exp = 6;    // default: microseconds
  int64_t offset = 0;  // if_tsoffset, seconds
};

// Timestamp units -> picoseconds (rounded down), false if out of 64-bit range.
// A capture timestamp in picoseconds since the epoch of the capture (may exceed 64 bits).
i128 ts_to_picos(uint64_t ts, const Iface& i) {
  u128 v;
  if (i.pow2) {
    v = (u128(ts) * kPicosPerS) >> i.exp;  // exp <= 127, product < 2^104
  } else if (i.exp <= 12) {
    v = ts;
    for (unsigned k = i.exp; k < 12; ++k) v *= 10;
  } else {
    v = ts;
    for (unsigned k = 12; k < i.exp && v != 0; ++k) v /= 10;
  }
  return i128(v) + i128(i.offset) * i128(kPicosPerS);
}


// The kind of pcapng file, for pcap_port auto: `most_interfaces` is the largest number of
// interfaces a section declares, `from_flaresim` whether the first section's shb_userappl is
// "flaresim".
CaptureKind pcapng_kind(size_t most_interfaces, bool from_flaresim) {
  if (from_flaresim) return CaptureKind::kPcapngFromFlaresim;
  return most_interfaces > 1 ? CaptureKind::kPcapngSeveralInterfaces : CaptureKind::kPcapngOneInterface;
}

std::vector<TraceRecord> parse_pcapng(const std::string& name, const uint8_t* d, size_t n,
                                      const TraceOptions& opts, PortRule& rule, const Frames& frames) {
  std::vector<TraceRecord> out;
  std::vector<i128> absolute;  // capture timestamps, parallel to out
  std::vector<uint32_t> if_ids;  // interface ids, parallel to out
  std::vector<Iface> ifaces;
  size_t most_interfaces = 0, sections = 0;
  bool from_flaresim = false;
  Reader r{d, false};
  uint64_t pkt = 0;
  size_t off = 0;
  while (off < n) {
    const std::string where = at_block(name, off);
    if (n - off < 12)
      fail_at(where, "truncated block header (" + std::to_string(n - off) + " bytes left)");
    uint32_t type = r.u32(off);
    if (type == 0x0A0D0D0Au) {  // Section Header Block: fixes the byte order
      const uint32_t bom = Reader{d, false}.u32(off + 8);
      if (bom == 0x1A2B3C4Du) r.be = false;
      else if (bom == 0x4D3C2B1Au) r.be = true;
      else fail_at(where, "bad byte-order magic in section header");
      ifaces.clear();
    }
    const uint32_t blen = r.u32(off + 4);
    if (blen < 12 || blen % 4 != 0)
      fail_at(where, "bad block length " + std::to_string(blen));
    if (blen > n - off)
      fail_at(where, "truncated block: length " + std::to_string(blen) + ", " +
                         std::to_string(n - off) + " bytes left");
    if (r.u32(off + blen - 4) != blen)
      fail_at(where, "trailing block length " + std::to_string(r.u32(off + blen - 4)) +
                         " != leading length " + std::to_string(blen));
    const size_t body = off + 8, body_len = blen - 12;
    // Options from `start` to the end of the body: calls fn(code, value offset, value length).
    auto options = [&](size_t start, auto fn) {
      size_t o = start;
      while (o + 4 <= body + body_len) {
        const uint32_t code = r.u16(o), olen = r.u16(o + 2);
        if (code == 0) return;
        const size_t padded = (size_t(olen) + 3) & ~size_t(3);
        if (padded > body + body_len - (o + 4))
          fail_at(where, "option " + std::to_string(code) + " runs past the end of the block");
        fn(code, o + 4, olen);
        o += 4 + padded;
      }
    };
    if (type == 0x0A0D0D0Au) {
      if (body_len < 16) fail_at(where, "section header block too short");
      if (r.u16(body + 4) != 1)
        fail_at(where, "unsupported pcapng version " + std::to_string(r.u16(body + 4)) + "." +
                           std::to_string(r.u16(body + 6)));
      if (++sections == 1)
        options(body + 16, [&](uint32_t code, size_t v, uint32_t vlen) {
          if (code == 4) from_flaresim = std::string(reinterpret_cast<const char*>(d + v), vlen) == "flaresim";  // shb_userappl
        });
    } else if (type == 1) {  // Interface Description Block
      if (body_len < 8) fail_at(where, "interface description block too short");
      const uint32_t linktype = r.u16(body);
      if (linktype != 1) fail_at(where, "interface " + std::to_string(ifaces.size()) + ": " + linktype_problem(linktype));
      Iface iface;
      options(body + 8, [&](uint32_t code, size_t v, uint32_t vlen) {
        if (code == 9) {  // if_tsresol
          if (vlen != 1) fail_at(where, "if_tsresol option of length " + std::to_string(vlen));
          iface.pow2 = (d[v] & 0x80) != 0;
          iface.exp = d[v] & 0x7F;
        } else if (code == 14) {  // if_tsoffset
          if (vlen != 8) fail_at(where, "if_tsoffset option of length " + std::to_string(vlen));
          iface.offset = int64_t((uint64_t(r.u32(r.be ? v : v + 4)) << 32) |
                                 r.u32(r.be ? v + 4 : v));
        }
      });
      ifaces.push_back(iface);
      most_interfaces = std::max(most_interfaces, ifaces.size());
    } else if (type == 6) {  // Enhanced Packet Block
      ++pkt;
      const std::string pwhere = at_packet(name, pkt);
      if (body_len < 20) fail_at(where, "enhanced packet block too short");
      const uint32_t if_id = r.u32(body);
      if (if_id >= ifaces.size())
        fail_at(pwhere, "enhanced packet block on undeclared interface " + std::to_string(if_id) +
                            " (" + std::to_string(ifaces.size()) + " declared in this section)");
      const uint64_t ts = (uint64_t(r.u32(body + 4)) << 32) | r.u32(body + 8);
      const uint32_t cap = r.u32(body + 12), orig = r.u32(body + 16);
      if (cap > body_len - 20)
        fail_at(where, "captured length " + std::to_string(cap) + " runs past the block's end");
      check_packet_size(pwhere, cap);
      if (cap < orig)
        fail_at(pwhere, "captured length " + std::to_string(cap) + " < original length " +
                            std::to_string(orig) + " (packet was cut by the snapshot length)");
      TraceRecord rec;
      frames.take(rec, d, body + 20, cap, pkt, pwhere);
      if_ids.push_back(if_id);
      absolute.push_back(ts_to_picos(ts, ifaces[if_id]));
      out.push_back(std::move(rec));
    } else if (type == 3) {
      fail_at(where, "Simple Packet Block not supported (it has no interface or timestamp)");
    } else if (type == 2) {
      fail_at(where, "obsolete Packet Block not supported (use Enhanced Packet Blocks)");
    }
    off += blen;
    frames.consumed(off);
  }
  rule = rule.resolved(pcapng_kind(most_interfaces, from_flaresim));
  frames.again();
  for (size_t k = 0; k < out.size(); ++k) {
    const TraceRecord& rec = out[k];
    const uint8_t* frame = rec.data.empty() ? d + rec.offset : rec.data.data();
    out[k].port = rule.port_of(frame, rec.size, long(if_ids[k]), where_of(name, rec));
    frames.consumed(size_t(rec.offset + rec.size));  // the ports are read in file order
  }
  set_capture_times(out, absolute, opts.relative_capture_times, name);
  stable_sort_by_time(out);
  return out;
}

}  // namespace

TraceFormat trace_format(const uint8_t* data, size_t len) {
  if (len < 4) return TraceFormat::kText;
  const uint32_t be = fs_be32(data);
  if (be == 0x0A0D0D0Au) return TraceFormat::kPcapng;
  if (be == 0xa1b2c3d4u || be == 0xa1b23c4du || be == 0xd4c3b2a1u || be == 0x4d3cb2a1u) return TraceFormat::kPcap;
  return TraceFormat::kText;
}

bool looks_like_trace(const uint8_t* data, size_t len) {
  return len < 4 || trace_format(data, len) != TraceFormat::kText || std::memchr(data, 0, len) == nullptr;
}

namespace {

std::vector<TraceRecord> parse_any(const std::string& name, const uint8_t* data, size_t len, const TraceOptions& opts,
                                   TraceInfo* info, const Frames& frames) {
  if (opts.num_ports < 1 || opts.num_ports > 65536)
    throw InputError("num_ports " + std::to_string(opts.num_ports) + " not in 1..65536");
  PortRule rule(opts.pcap_port, opts.num_ports);  // a bad rule or table is refused whatever the format
  const TraceFormat format = trace_format(data, len);
  std::vector<TraceRecord> out;
  switch (format) {
    case TraceFormat::kPcapng: out = parse_pcapng(name, data, len, opts, rule, frames); break;
    case TraceFormat::kPcap:
      rule = rule.resolved(CaptureKind::kPcap);
      out = parse_pcap(name, data, len, opts, rule, frames);
      break;
    case TraceFormat::kText: out = parse_text(name, data, len, opts); break;
  }
  if (info) {
    info->format = format;
    info->port_rule = format == TraceFormat::kText ? "" : rule.spec();
    info->port_rule_why = format == TraceFormat::kText ? "" : rule.chosen_because();
  }
  return out;
}

}  // namespace

std::vector<TraceRecord> parse_trace(const std::string& name, const uint8_t* data, size_t len,
                                     const TraceOptions& opts, TraceInfo* info) {
  return parse_any(name, data, len, opts, info, Frames{});
}

std::vector<TraceRecord> read_trace(const std::string& path, const TraceOptions& opts, TraceInfo* info) {
  const Bytes content = read_trace_bytes(path);
  return parse_trace(path, content.data(), content.size(), opts, info);
}

Bytes read_trace_bytes(const std::string& path) {
  // A regular file, or a stream (a FIFO, a character device, standard input as /dev/stdin):
  // read to its end either way, in chunks, so that a signal can stop a read that waits.
  struct stat st;
  if (stat(path.c_str(), &st) != 0) throw InputError(path + ": cannot open trace file (" + std::strerror(errno) + ")");
  if (S_ISDIR(st.st_mode)) throw InputError(path + ": is a directory");
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode))
    throw InputError(path + ": not a regular file or a stream");
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    check_interrupted("opening the trace " + path);
    throw InputError(path + ": cannot open trace file (" + std::strerror(err) + ")");
  }
  Bytes content;
  if (S_ISREG(st.st_mode)) content.reserve(size_t(st.st_size));
  uint8_t chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR && !pending_interrupt()) continue;
    if (n < 0) {
      const int err = errno;
      close(fd);
      check_interrupted("reading the trace " + path);
      throw InputError(path + ": read error (" + std::strerror(err) + ")");
    }
    if (n == 0) break;
    content.insert(content.end(), chunk, chunk + n);
    // A stream that is not a trace (/dev/zero, /dev/urandom) is refused from its first bytes, not
    // read for ever: a trace is pcapng, pcap or text, and text has no NUL byte.
    if (!looks_like_trace(content.data(), content.size())) {
      close(fd);
      throw InputError(path + ": not a trace (neither pcapng, pcap nor text: it holds NUL bytes)");
    }
    if (content.size() > kMaxTraceBytes) {
      close(fd);
      throw InputError(path + ": larger than " + std::to_string(kMaxTraceBytes >> 30) + " GiB; split the trace");
    }
    if (pending_interrupt()) {
      close(fd);
      check_interrupted("reading the trace " + path);
    }
  }
  close(fd);
  return content;
}

TraceFrames::~TraceFrames() {
  if (fd_ >= 0) close(fd_);
}

TraceFrames::TraceFrames(TraceFrames&& o) noexcept
    : entries(std::move(o.entries)), name_(std::move(o.name_)), fd_(o.fd_), kept_(std::move(o.kept_)),
      error_(std::move(o.error_)) {
  o.fd_ = -1;
}

Bytes TraceFrames::frame(size_t i) {
  if (fd_ < 0) return std::move(kept_.at(i));
  const Entry& e = entries.at(i);
  Bytes out(e.size);
  size_t done = 0;
  while (done < e.size) {
    const ssize_t n = pread(fd_, out.data() + done, e.size - done, off_t(e.offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {  // the file changed under the run: its frames are no longer those the index read
      if (error_.empty())
        error_ = name_ + ": cannot read the packet bytes at offset " + std::to_string(e.offset + done) + " (" +
                 (n < 0 ? std::strerror(errno) : "the file got shorter while the run read it") + ")";
      return Bytes();
    }
    done += size_t(n);
  }
  return out;
}

TraceFrames open_trace(const std::string& path, const TraceOptions& opts, TraceInfo* info, Picos max_time) {
  TraceFrames t;
  t.name_ = path;
  auto add = [&](std::vector<TraceRecord>& records, const std::string& name, bool keep) {
    t.entries.reserve(records.size());
    if (keep) t.kept_.reserve(records.size());
    for (TraceRecord& r : records) {
      if (r.time > max_time)
        throw InputError(where_of(name, r) + ": time " + std::to_string(r.time) +
                         " ps is beyond the longest trace the model runs (2^62 ps, about 53 days)");
      t.entries.push_back(TraceFrames::Entry{r.time, r.offset, r.size, r.port});
      if (keep) t.kept_.push_back(std::move(r.data));
    }
    std::vector<TraceRecord>().swap(records);
  };
  // A regular file that is a capture is mapped and indexed, its frames left where they are; text
  // traces and streams are read whole, as read_trace does.
  struct stat st;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 4) {
    uint8_t magic[4];
    if (pread(fd, magic, 4, 0) == 4 && trace_format(magic, 4) != TraceFormat::kText) {
      const size_t len = size_t(st.st_size);
      if (len > kMaxTraceBytes) {
        close(fd);
        throw InputError(path + ": larger than " + std::to_string(kMaxTraceBytes >> 30) + " GiB; split the trace");
      }
      void* map = mmap(nullptr, len, PROT_READ, MAP_PRIVATE, fd, 0);
      if (map != MAP_FAILED) {
        const uint8_t* d = static_cast<const uint8_t*>(map);
        madvise(map, len, MADV_SEQUENTIAL);
        // Pages read are let go every 32 MiB, so the mapping does not hold the whole file.
        size_t released = 0;
        Frames frames;
        frames.copy = false;
        frames.release = [&](size_t off) {
          const size_t page = size_t(sysconf(_SC_PAGESIZE));
          const size_t upto = off / page * page;
          if (upto >= released + (size_t(32) << 20)) {
            madvise(const_cast<uint8_t*>(d) + released, upto - released, MADV_DONTNEED);
            released = upto;
            check_interrupted("reading the trace " + path);
          }
        };
        frames.restart = [&] {
          madvise(map, len, MADV_DONTNEED);
          released = 0;
        };
        std::vector<TraceRecord> records;
        try {
          records = parse_any(path, d, len, opts, info, frames);
        } catch (...) {
          munmap(map, len);
          close(fd);
          throw;
        }
        munmap(map, len);
        add(records, path, false);
        t.fd_ = fd;
        return t;
      }
    }
  }
  if (fd >= 0) close(fd);
  std::vector<TraceRecord> records = read_trace(path, opts, info);
  add(records, path, true);
  return t;
}

}  // namespace fs
