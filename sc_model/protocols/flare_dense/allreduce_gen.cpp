// Allreduce workload generator and the expected-results file (see allreduce_gen.h). When and in
// which order the hosts send (stagger, gaps, losses, duplicates) is allreduce_timing.cpp's.
//
// Element values: host h draws from a splitmix64-style sequence whose state starts at
// mix(mix(seed) + h); each draw adds the golden-ratio increment to the state and returns
// mix(state). One raw 64-bit draw per element: int32/int16/int8 take its low 32/16/8 bits as a
// two's-complement value (the full dtype range); float32 takes its top 24 bits k and uses
// (k - 2^23) / 2^23, exactly representable, uniform over [-1, 1).
#include "protocols/flare_dense/allreduce_gen.h"
#include "protocols/flare_dense/flare_frame.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "common/errors.h"
#include "common/float_bits.h"
#include "common/text.h"
#include "common/interrupt.h"
#include "common/splitmix64.h"
#include "common/units.h"
#include "flare/flare_proto.h"
#include "net/frame.h"
#include "net/trace_writer.h"
#include "protocols/flare_dense/allreduce_timing.h"

namespace fs {

namespace {

float f32_at(const Bytes& b, size_t i) {
  const uint32_t bits = uint32_t(b[4 * i]) | (uint32_t(b[4 * i + 1]) << 8) |
                        (uint32_t(b[4 * i + 2]) << 16) | (uint32_t(b[4 * i + 3]) << 24);
  return float_of_bits(bits);
}

void put_f32(Bytes& b, size_t i, float f) {
  const uint32_t bits = bits_of_float(f);
  for (int k = 0; k < 4; ++k) b[4 * i + k] = uint8_t(bits >> (8 * k));
}

// Signed integer element i of width `size` bytes, little-endian.
int64_t int_at(const Bytes& b, size_t i, uint32_t size) {
  uint64_t u = 0;
  for (uint32_t k = 0; k < size; ++k) u |= uint64_t(b[size * i + k]) << (8 * k);
  const unsigned shift = 64 - 8 * size;
  return int64_t(u << shift) >> shift;  // sign-extend
}

void put_int(Bytes& b, size_t i, uint32_t size, int64_t v) {
  for (uint32_t k = 0; k < size; ++k) b[size * i + k] = uint8_t(uint64_t(v) >> (8 * k));
}

// The shortest decimal form that reads back as the same double ("0.1", "1.5", "nan").
std::string format_number(double v) {
  std::ostringstream out;
  for (int prec = 1; prec <= 17; ++prec) {
    out.str("");
    out.precision(prec);
    out << v;
    if (!std::isfinite(v) || std::strtod(out.str().c_str(), nullptr) == v) break;
  }
  return out.str();
}

// An option's error, naming the option as the user gave it (AllreduceGenOptions::names).
[[noreturn]] void bad_option(const AllreduceGenOptions& o, const std::string& field, const std::string& why) {
  const auto named = o.names.find(field);
  throw InputError("allreduce generator: " + (named == o.names.end() ? field : named->second) + ": " + why);
}

}  // namespace

void fold_elements(Bytes& acc, const Bytes& in, uint8_t dtype, uint8_t op) {
  const uint32_t size = flare_dtype_bytes(dtype);
  for (size_t i = 0; i < acc.size() / size; ++i) {
    if (dtype == FLARE_FLOAT32) {
      const float a = f32_at(acc, i), v = f32_at(in, i);
      put_f32(acc, i, op == FLARE_OP_SUM ? a + v : op == FLARE_OP_MIN ? (v < a ? v : a) : (v > a ? v : a));
    } else {
      const int64_t a = int_at(acc, i, size), v = int_at(in, i, size);
      // Sum wraps: put_int keeps the low `size` bytes of the two's-complement result.
      put_int(acc, i, size, op == FLARE_OP_SUM ? a + v : op == FLARE_OP_MIN ? std::min(a, v) : std::max(a, v));
    }
  }
}

Bytes host_elements(uint64_t seed, unsigned host, uint8_t dtype, uint64_t count) {
  return host_elements_at(seed, host, dtype, 0, count);
}

Bytes host_elements_at(uint64_t seed, unsigned host, uint8_t dtype, uint64_t first, uint64_t count) {
  const uint32_t size = flare_dtype_bytes(dtype);
  Bytes out(size_t(count) * size);
  // Element j is drawn from the counter state + (j + 1) golden steps: any range costs its length.
  uint64_t state = splitmix64_mix(splitmix64_mix(seed) + host) + first * kSplitmixGolden;
  for (uint64_t i = 0; i < count; ++i) {
    state += kSplitmixGolden;
    const uint64_t x = splitmix64_mix(state);
    if (dtype == FLARE_FLOAT32) {
      const int64_t k = int64_t(x >> 40) - (int64_t(1) << 23);
      put_f32(out, i, float(k) / 8388608.0f);
    } else {
      for (uint32_t b = 0; b < size; ++b) out[size * i + b] = uint8_t(x >> (8 * b));
    }
  }
  return out;
}

AllreduceShape check_allreduce(const AllreduceGenOptions& o) {
  if (o.num_ports < 1 || o.num_ports > 65536)
    bad_option(o, "num_ports", std::to_string(o.num_ports) + " not in 1..65536");
  if (o.hosts < 1 || o.hosts > o.num_ports)
    bad_option(o, "hosts", std::to_string(o.hosts) + " not in 1.." + std::to_string(o.num_ports));
  AllreduceShape s;
  if (!flare_dtype_from_name(o.dtype, &s.dtype))
    bad_option(o, "dtype", "unknown '" + o.dtype + "' (valid: " + kFlareDtypeChoices + ")");
  if (!flare_op_from_name(o.op, &s.op))
    bad_option(o, "op", "unknown '" + o.op + "' (valid: " + kFlareOpChoices + ")");
  const uint32_t dsize = flare_dtype_bytes(s.dtype);
  if (o.elem_bytes == 0 || o.elem_bytes % dsize != 0)
    bad_option(o, "elem_bytes", std::to_string(o.elem_bytes) + " is not a positive multiple of the " +
                                 o.dtype + " size " + std::to_string(dsize));
  if (o.elem_bytes / dsize > 65535)
    bad_option(o, "elem_bytes", std::to_string(o.elem_bytes) + " gives " +
                                 std::to_string(o.elem_bytes / dsize) +
                                 " elements per packet, over 65535");
  if (o.elem_bytes > kMaxFlareElemBytes)
    bad_option(o, "elem_bytes", std::to_string(o.elem_bytes) + " is over the " +
                                 std::to_string(kMaxFlareElemBytes) +
                                 " that fit in a 65535-byte frame");
  if (o.bytes == 0) bad_option(o, "bytes", "must be positive");
  if (o.bytes % dsize != 0)
    bad_option(o, "bytes", std::to_string(o.bytes) + " is not a multiple of the " + o.dtype +
                            " size " + std::to_string(dsize));
  s.blocks = (o.bytes + o.elem_bytes - 1) / o.elem_bytes;
  if (s.blocks > (uint64_t(1) << 32))
    bad_option(o, "bytes", std::to_string(s.blocks) + " blocks exceed the 32-bit block id");
  if (!(o.gbps > 0) || !std::isfinite(o.gbps))
    bad_option(o, "gbps", "must be a positive finite rate");
  if (o.udp_port == 0) bad_option(o, "udp_port", "must be 1..65535");
  const uint64_t full_frame = FLARE_PAYLOAD_OFFSET + FLARE_HEADER_BYTES + o.elem_bytes;
  const double full_ps = 8.0 * double(full_frame + o.wire_overhead) * 1000.0 / o.gbps;
  if (full_ps * double(s.blocks) > 1e19)
    bad_option(o, "gbps", "send times overflow 64-bit picoseconds at this rate and size");

  if (!(o.loss >= 0 && o.loss <= 1)) bad_option(o, "loss", format_number(o.loss) + " not in 0..1");
  if (!(o.duplicate >= 0 && o.duplicate <= 1))
    bad_option(o, "duplicate", format_number(o.duplicate) + " not in 0..1");
  s.total_elems = o.bytes / dsize;
  s.per_block = o.elem_bytes / dsize;
  return s;
}

uint16_t AllreduceShape::block_count(uint64_t b) const {
  return uint16_t(std::min<uint64_t>(per_block, total_elems - b * per_block));
}

Bytes contribution_frame(const AllreduceGenOptions& o, const AllreduceShape& s, unsigned rank, uint16_t port,
                         uint64_t block) {
  flare_header_t hdr{};
  hdr.version = FLARE_VERSION;
  hdr.kind = FLARE_KIND_CONTRIB;
  hdr.dtype = s.dtype;
  hdr.op = s.op;
  hdr.allreduce_id = o.allreduce_id;
  hdr.block_id = uint32_t(block);
  hdr.elem_count = s.block_count(block);
  hdr.sender_rank = uint16_t(rank);
  const Bytes elems = host_elements_at(o.seed, rank, s.dtype, block * s.per_block, hdr.elem_count);
  return build_flare_packet(hdr, port, elems.data(), elems.size(), o.udp_port);
}

Picos contribution_wire(const AllreduceGenOptions& o, const AllreduceShape& s, uint64_t block) {
  return wire_time(FLARE_PAYLOAD_OFFSET + FLARE_HEADER_BYTES + size_t(s.block_count(block)) * flare_dtype_bytes(s.dtype),
                   o.wire_overhead, o.gbps);
}

ExpectedBlock expected_block(const AllreduceGenOptions& o, const AllreduceShape& s, uint64_t block) {
  const uint16_t count = s.block_count(block);
  const uint64_t first = block * s.per_block;
  // Reduced in rank order.
  ExpectedBlock e;
  e.allreduce_id = o.allreduce_id;
  e.block_id = uint32_t(block);
  e.dtype = s.dtype;
  e.op = s.op;
  e.count = count;
  e.payload = host_elements_at(o.seed, 0, s.dtype, first, count);
  for (unsigned h = 1; h < o.hosts; ++h) fold_elements(e.payload, host_elements_at(o.seed, h, s.dtype, first, count), s.dtype, s.op);
  return e;
}

AllreduceWorkload generate_allreduce(const AllreduceGenOptions& o) {
  const AllreduceShape shape = check_allreduce(o);
  const uint64_t blocks = shape.blocks;
  // Host h's contribution to block b; every send of it (retransmission, duplicate) is this frame.
  auto frame = [&](unsigned h, uint64_t b) { return contribution_frame(o, shape, h, uint16_t(h), b); };
  auto frame_wire = [&](uint64_t b) { return contribution_wire(o, shape, b); };

  AllreduceWorkload w;
  w.udp_port = o.udp_port;
  for (unsigned h = 0; h < o.hosts; ++h) w.ports.push_back(uint16_t(h));
  const Picos wire_full = frame_wire(0), wire_last = frame_wire(blocks - 1);
  std::vector<std::vector<SendEvent>> schedule = schedule_hosts(o, blocks, wire_full, wire_last);
  for (unsigned h = 0; h < o.hosts; ++h) {
    check_interrupted("generating the hosts' packets");
    const std::vector<SendEvent>& sends = schedule[h];
    for (const SendEvent& ev : sends) {
      if (ev.lost) {
        ++w.lost;
        continue;
      }
      TraceRecord rec;
      rec.time = ev.time;
      rec.port = uint16_t(h);
      rec.data = frame(h, ev.block);
      rec.where = "allreduce generator: host " + std::to_string(h) + " block " + std::to_string(ev.block);
      if (ev.kind == SendKind::kRetransmission) rec.where += " retransmission " + std::to_string(ev.attempt);
      if (ev.kind == SendKind::kDuplicate) {
        rec.where += " duplicate";
        ++w.duplicates;
      }
      w.records.push_back(std::move(rec));
    }
    w.sends.insert(w.sends.end(), sends.begin(), sends.end());
  }
  // Each host's records are in time order; interleave the hosts (stable: a port never has two
  // packets at one time, since its transmissions do not overlap).
  std::stable_sort(w.records.begin(), w.records.end(), [](const TraceRecord& a, const TraceRecord& b) {
    return a.time != b.time ? a.time < b.time : a.port < b.port;
  });

  for (uint64_t b = 0; b < blocks; ++b) {
    check_interrupted("computing the expected blocks");
    w.expected.push_back(expected_block(o, shape, b));
  }
  return w;
}

Expected expected_of(const AllreduceWorkload& w) { return Expected{w.ports, w.expected, w.udp_port}; }

void write_expected(std::ostream& out, const Expected& e) {
  out << "# flaresim expected allreduce results (see traces/FORMAT.md): every result block must\n"
         "# reach every port on the ports line exactly once; hex= is the element payload.\n"
         "flaresim-expected 1\nports";
  for (uint16_t p : e.ports) out << ' ' << p;
  out << "\nudp_port " << e.udp_port << '\n';
  for (const ExpectedBlock& b : e.blocks)
    out << "result ar=" << b.allreduce_id << " block=" << b.block_id
        << " dtype=" << flare_dtype_name(b.dtype) << " op=" << flare_op_name(b.op)
        << " count=" << b.count << " hex=" << to_hex(b.payload.data(), b.payload.size()) << '\n';
}

void write_expected(std::ostream& out, const AllreduceWorkload& w) {
  write_expected(out, expected_of(w));
}

namespace {

bool parse_u64(const std::string& s, uint64_t max, uint64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    const uint64_t d = uint64_t(c - '0');
    if (v > (max - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

}  // namespace

Expected parse_expected(const std::string& name, const std::string& text) {
  Expected e;
  bool have_header = false;
  size_t ports_line = 0;
  bool have_udp_port = false;
  std::map<std::pair<uint32_t, uint32_t>, size_t> seen;  // (ar, block) -> line
  std::istringstream in(text);
  std::string line;
  size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    const std::string where = name + ":" + std::to_string(line_no);
    auto fail = [&](const std::string& why) { throw InputError(where + ": " + why); };
    const std::vector<std::string> toks = line_words(line);
    if (toks.empty()) continue;
    if (!have_header) {
      if (toks.size() != 2 || toks[0] != "flaresim-expected" || toks[1] != "1")
        fail("expected the header line 'flaresim-expected 1'");
      have_header = true;
      continue;
    }
    if (toks[0] == "ports") {
      if (ports_line) fail("second ports line (first on line " + std::to_string(ports_line) + ")");
      if (toks.size() < 2) fail("ports: at least one port needed");
      for (size_t i = 1; i < toks.size(); ++i) {
        uint64_t p;
        if (!parse_u64(toks[i], 65535, &p)) fail("ports: bad port '" + toks[i] + "'");
        for (uint16_t q : e.ports)
          if (q == p) fail("ports: port " + toks[i] + " listed twice");
        e.ports.push_back(uint16_t(p));
      }
      ports_line = line_no;
    } else if (toks[0] == "udp_port") {
      uint64_t port = 0;
      if (have_udp_port) fail("second udp_port line");
      if (toks.size() != 2 || !parse_u64(toks[1], 65535, &port) || port == 0)
        fail("udp_port: expected one port from 1 to 65535");
      e.udp_port = uint16_t(port);
      have_udp_port = true;
    } else if (toks[0] == "result") {
      static const char* keys[] = {"ar", "block", "dtype", "op", "count", "hex"};
      std::map<std::string, std::string> kv;
      for (size_t i = 1; i < toks.size(); ++i) {
        const size_t eq = toks[i].find('=');
        const std::string key = toks[i].substr(0, eq);
        if (eq == std::string::npos || std::find(std::begin(keys), std::end(keys), key) ==
                                           std::end(keys))
          fail("result: unknown item '" + toks[i] + "' (keys: ar block dtype op count hex)");
        if (!kv.emplace(key, toks[i].substr(eq + 1)).second) fail("result: duplicate key " + key);
      }
      for (const char* k : keys)
        if (!kv.count(k)) fail(std::string("result: missing key ") + k);
      ExpectedBlock b;
      uint64_t v;
      if (!parse_u64(kv["ar"], 0xFFFFFFFFu, &v))
        fail("result: bad value '" + kv["ar"] + "' for key ar");
      b.allreduce_id = uint32_t(v);
      if (!parse_u64(kv["block"], 0xFFFFFFFFu, &v))
        fail("result: bad value '" + kv["block"] + "' for key block");
      b.block_id = uint32_t(v);
      if (!flare_dtype_from_name(kv["dtype"], &b.dtype))
        fail("result: bad value '" + kv["dtype"] + "' for key dtype (expected " +
             kFlareDtypeChoices + ")");
      if (!flare_op_from_name(kv["op"], &b.op))
        fail("result: bad value '" + kv["op"] + "' for key op (expected " + kFlareOpChoices + ")");
      if (!parse_u64(kv["count"], 65535, &v) || v == 0)
        fail("result: bad value '" + kv["count"] + "' for key count (expected 1..65535)");
      b.count = uint16_t(v);
      std::string err;
      if (!parse_hex_token(kv["hex"], &b.payload, &err)) fail("result: hex: " + err);
      const size_t want = size_t(b.count) * flare_dtype_bytes(b.dtype);
      if (b.payload.size() != want)
        fail("result: hex has " + std::to_string(b.payload.size()) + " bytes, count=" +
             kv["count"] + " " + kv["dtype"] + " needs " + std::to_string(want));
      auto ins = seen.emplace(std::make_pair(b.allreduce_id, b.block_id), line_no);
      if (!ins.second)
        fail("result: ar=" + kv["ar"] + " block=" + kv["block"] + " already given on line " +
             std::to_string(ins.first->second));
      e.blocks.push_back(std::move(b));
    } else {
      fail("unknown line type '" + toks[0] + "' (expected ports, udp_port or result)");
    }
  }
  if (!have_header) throw InputError(name + ": empty file (no 'flaresim-expected 1' header)");
  if (!ports_line) throw InputError(name + ": missing ports line");
  if (e.blocks.empty()) throw InputError(name + ": no result lines");
  return e;
}

Expected read_expected(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path + ": is a directory");
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError(path + ": cannot open expected-results file");
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (f.bad()) throw InputError(path + ": read error");
  return parse_expected(path, text);
}

}  // namespace fs
