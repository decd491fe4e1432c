// Sparse allreduce results: expected-results file and verifier (see sparse_verify.h).
#include "protocols/flare_sparse/sparse_verify.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "common/errors.h"
#include "common/text.h"
#include "net/frame.h"
#include "net/trace_syntax.h"
#include "net/trace_writer.h"
#include "protocols/flare_dense/flare_frame.h"
#include "protocols/flare_dense/verify.h"

namespace fs {

namespace {

constexpr size_t kMaxProblems = 20;

// The sparse result packet in a frame: whether it is one (sparse_verify.h), and if so whether it
// reads back (parse_sparse_packet; `why` says why not, with the header still decoded).
struct ResultFrame {
  bool is_result = false, parsed = false;
  SparsePacket pkt;
  std::string why;
};

ResultFrame read_result_frame(const Bytes& data, uint16_t udp_port) {
  ResultFrame out;
  const FrameInfo f = parse_frame(data.data(), data.size());
  if (!f.ok || !f.udp || f.udp_dport != udp_port || f.l4_len < FLARE_SPARSE_HEADER_BYTES) return out;
  const uint8_t* u = data.data() + f.l4_offset;
  if (u[FLARE_OFF_VERSION] != FLARE_VERSION || !(u[FLARE_OFF_KIND] & FLARE_FLAG_SPARSE) ||
      (u[FLARE_OFF_KIND] & FLARE_KIND_MASK) != FLARE_KIND_RESULT)
    return out;
  out.is_result = true;
  flare_sparse_decode(u, &out.pkt.h);
  out.parsed = parse_sparse_packet(data.data(), data.size(), &out.pkt, &out.why);
  return out;
}

// What one host port got of one block.
struct Received {
  std::map<uint16_t, SparsePairs> shards;  // by shard number: the first packet with it
  uint32_t announced = 0;                  // shards, from the last packet (0 until it came)
  bool wrong = false;                      // a packet of it was wrong (its problem is listed)
};

// Empty if the packet is a well-formed result packet of `want` for a port that has `got` so far,
// else why not.
std::string check_packet(const SparseExpectedBlock& want, const ResultFrame& r, const Received& got) {
  const flare_sparse_header_t& h = r.pkt.h;
  if (h.sender_rank != FLARE_RANK_SWITCH) return "rank " + std::to_string(h.sender_rank) + ", expected 65535";
  if (h.dtype != want.dtype)
    return std::string("dtype ") + flare_dtype_name(h.dtype) + "(" + std::to_string(h.dtype) + "), expected " +
           flare_dtype_name(want.dtype);
  if (h.op != want.op)
    return std::string("op ") + flare_op_name(h.op) + "(" + std::to_string(h.op) + "), expected " +
           flare_op_name(want.op);
  if (!r.parsed) return r.why;
  const bool last = h.flags & FLARE_FLAG_LAST;
  if (last && (h.shards == 0 || h.shard >= h.shards))
    return "last packet with shard " + std::to_string(h.shard) + " of shards " + std::to_string(h.shards);
  if (!last && h.shards != 0) return "shards " + std::to_string(h.shards) + " without the last flag";
  if (last && got.announced) return "a second last packet (shard " + std::to_string(h.shard) + ")";
  for (const SparsePair& p : r.pkt.pairs)
    if (p.index >= want.length)
      return "index " + std::to_string(p.index) + " beyond the block's " + std::to_string(want.length) + " elements";
  return "";
}

// The shard numbers in `shards` as "0, 2, 5".
std::string shard_list(const std::map<uint16_t, SparsePairs>& shards) {
  std::string out;
  for (const auto& s : shards) out += (out.empty() ? "" : ", ") + std::to_string(s.first);
  return out;
}

// Empty if the merged shards equal the block as dense vectors (absent = 0), else the first
// difference by index.
std::string compare_merged(const SparseExpectedBlock& want, const Received& got) {
  std::map<uint32_t, uint32_t> merged;
  for (const auto& s : got.shards) fold_sparse_pairs(want.dtype, want.op, s.second, merged);
  return compare_sparse_block(want, merged);
}

}  // namespace

void fold_sparse_pairs(uint8_t dtype, uint8_t op, const SparsePairs& pairs, std::map<uint32_t, uint32_t>& merged) {
  for (const SparsePair& p : pairs) {
    const auto [it, fresh] = merged.emplace(p.index, p.bits);
    if (!fresh) it->second = sparse_fold(dtype, op, it->second, p.bits);
  }
}

std::string compare_sparse_pairs(uint8_t dtype, const SparsePairs& got, const SparsePairs& want) {
  auto g = got.begin();
  auto w = want.begin();
  while (g != got.end() || w != want.end()) {
    const uint32_t index = g == got.end() ? w->index : w == want.end() ? g->index : std::min(g->index, w->index);
    const uint32_t gb = g != got.end() && g->index == index ? (g++)->bits : 0;
    const uint32_t wb = w != want.end() && w->index == index ? (w++)->bits : 0;
    const bool same = dtype == FLARE_FLOAT32 ? float32_matches(gb, wb) : gb == wb;
    if (!same)
      return "index " + std::to_string(index) + " is " + sparse_value_text(dtype, gb) + ", expected " +
             sparse_value_text(dtype, wb);
  }
  return "";
}

std::string compare_sparse_block(const SparseExpectedBlock& want, const std::map<uint32_t, uint32_t>& merged) {
  SparsePairs got;
  got.reserve(merged.size());
  for (const auto& [index, bits] : merged) got.push_back({index, bits});
  return compare_sparse_pairs(want.dtype, got, want.pairs);
}

struct SparseVerifier::State {
  SparseExpected expected;
  std::map<std::pair<uint32_t, uint32_t>, size_t> index;  // (ar, block) -> expected.blocks index
  std::map<uint16_t, size_t> port_index;
  std::map<std::pair<size_t, uint16_t>, Received> received;  // (block index, port)
  VerifyReport rep;
};

namespace {
void add_problem(VerifyReport& rep, const std::string& s) {
  if (rep.problems.size() < kMaxProblems) rep.problems.push_back(s);
}
}  // namespace

SparseVerifier::SparseVerifier(SparseExpected e) : s_(std::make_unique<State>()) {
  State& st = *s_;
  st.expected = std::move(e);
  for (size_t i = 0; i < st.expected.blocks.size(); ++i)
    st.index.emplace(std::make_pair(st.expected.blocks[i].allreduce_id, st.expected.blocks[i].block_id), i);
  for (size_t i = 0; i < st.expected.ports.size(); ++i) st.port_index.emplace(st.expected.ports[i], i);
  st.rep.expected_packets = uint64_t(st.index.size()) * st.port_index.size();
}

SparseVerifier::~SparseVerifier() = default;

void SparseVerifier::take(uint16_t port, Picos time, const Bytes& frame) {
  State& st = *s_;
  VerifyReport& rep = st.rep;
  const ResultFrame f = read_result_frame(frame, st.expected.udp_port);
  if (!f.is_result) return;
  const flare_sparse_header_t& h = f.pkt.h;
  auto what = [&] {
    return "port " + std::to_string(port) + " at " + format_picos_ns(time) + ": result ar=" +
           std::to_string(h.allreduce_id) + " block=" + std::to_string(h.block_id) + " shard=" + std::to_string(h.shard);
  };
  const auto bi = st.index.find(std::make_pair(h.allreduce_id, h.block_id));
  if (bi == st.index.end() || !st.port_index.count(port)) {
    ++rep.unexpected;
    add_problem(rep, what() + (bi == st.index.end() ? ": unexpected (block not expected)"
                                                     : ": unexpected (port is not a host port)"));
    return;
  }
  Received& got = st.received[std::make_pair(bi->second, port)];
  if (got.shards.count(h.shard)) {
    ++rep.duplicate;
    add_problem(rep, what() + ": duplicate");
    return;
  }
  const std::string why = check_packet(st.expected.blocks[bi->second], f, got);
  if (!why.empty()) {
    if (!got.wrong) add_problem(rep, what() + ": wrong: " + why);
    got.wrong = true;
    return;
  }
  got.shards.emplace(h.shard, f.pkt.pairs);
  if (h.flags & FLARE_FLAG_LAST) got.announced = h.shards;
}

VerifyReport SparseVerifier::report() const {
  const State& st = *s_;
  const SparseExpected& expected = st.expected;
  VerifyReport rep = st.rep;  // the per-pair results are added to a copy: report() may be asked again
  auto problem = [&rep](const std::string& s) { add_problem(rep, s); };
  for (size_t b = 0; b < expected.blocks.size(); ++b) {
    const SparseExpectedBlock& eb = expected.blocks[b];
    if (st.index.at(std::make_pair(eb.allreduce_id, eb.block_id)) != b) continue;  // repeated block
    const std::string block = "result ar=" + std::to_string(eb.allreduce_id) + " block=" + std::to_string(eb.block_id);
    for (size_t pi = 0; pi < expected.ports.size(); ++pi) {
      const uint16_t p = expected.ports[pi];
      if (st.port_index.at(p) != pi) continue;  // repeated port
      const std::string at = "port " + std::to_string(p) + ": ";
      const auto it = st.received.find(std::make_pair(b, p));
      if (it == st.received.end()) {
        ++rep.missing;
        problem(at + "missing " + block);
        continue;
      }
      const Received& got = it->second;
      if (got.wrong) {
        ++rep.wrong;
        continue;
      }
      if (!got.announced) {
        ++rep.missing;
        problem(at + "missing " + block + ": no last packet (got shards " + shard_list(got.shards) + ")");
        continue;
      }
      if (got.shards.rbegin()->first >= got.announced) {
        ++rep.wrong;
        problem(at + "wrong " + block + ": shard " + std::to_string(got.shards.rbegin()->first) + " beyond the " +
                std::to_string(got.announced) + " shards of the last packet");
        continue;
      }
      if (got.shards.size() < got.announced) {
        std::string absent;
        for (uint32_t s = 0; s < got.announced; ++s)
          if (!got.shards.count(uint16_t(s))) absent += (absent.empty() ? "" : ", ") + std::to_string(s);
        ++rep.missing;
        problem(at + "missing " + block + ": shards " + absent + " of 0.." + std::to_string(got.announced - 1) +
                " not received");
        continue;
      }
      const std::string why = compare_merged(eb, got);
      if (why.empty()) {
        ++rep.matched;
      } else {
        ++rep.wrong;
        problem(at + "wrong " + block + ": " + why);
      }
    }
  }
  rep.ok = rep.missing == 0 && rep.wrong == 0 && rep.duplicate == 0 && rep.unexpected == 0 &&
           rep.matched == rep.expected_packets;
  return rep;
}


VerifyReport verify_sparse_egress(const SparseExpected& expected, const std::vector<EgressRecord>& egress) {
  SparseVerifier v(expected);
  return verify_records(v, egress);
}

SparseTraffic sparse_result_traffic(const SparseExpected& expected, const std::vector<EgressRecord>& egress) {
  SparseTraffic t;
  std::map<uint16_t, size_t> at;
  for (uint16_t p : expected.ports)
    if (at.emplace(p, t.ports.size()).second) t.ports.push_back(SparsePortTraffic{p, 0, 0, 0});
  std::map<std::pair<uint32_t, uint32_t>, bool> blocks;
  for (const SparseExpectedBlock& b : expected.blocks) {
    if (blocks.emplace(std::make_pair(b.allreduce_id, b.block_id), true).second) t.reference_pairs += b.pairs.size();
  }
  for (const EgressRecord& r : egress) {
    const ResultFrame f = read_result_frame(r.data, expected.udp_port);
    const auto port = at.find(r.port);
    if (!f.is_result || port == at.end() || !blocks.count(std::make_pair(f.pkt.h.allreduce_id, f.pkt.h.block_id)))
      continue;
    SparsePortTraffic& p = t.ports[port->second];
    ++p.packets;
    p.bytes += r.data.size();
    p.pairs += f.pkt.h.pair_count;
  }
  return t;
}

SparseExpected sparse_expected_of(const SparseWorkload& w, const std::vector<uint16_t>& ports, uint16_t udp_port) {
  SparseExpected e;
  e.ports = ports;
  e.udp_port = udp_port;
  e.span = w.span;
  e.elements = w.elements;
  e.blocks = w.reference;
  return e;
}

void write_sparse_expected(std::ostream& out, const SparseExpected& e) {
  out << "# flaresim expected sparse allreduce results (see traces/FORMAT.md): every port on the ports\n"
         "# line must get every block's result packets; merged, they equal pairs= (index:value, - for none).\n"
         "flaresim-expected-sparse 1\nports";
  for (uint16_t p : e.ports) out << ' ' << p;
  out << "\nudp_port " << e.udp_port << "\nspan " << e.span << "\nelements " << e.elements << '\n';
  for (const SparseExpectedBlock& b : e.blocks) {
    out << "result ar=" << b.allreduce_id << " block=" << b.block_id << " dtype=" << flare_dtype_name(b.dtype)
        << " op=" << flare_op_name(b.op) << " count=" << b.pairs.size() << " pairs=";
    if (b.pairs.empty()) out << '-';
    for (size_t i = 0; i < b.pairs.size(); ++i)
      out << (i ? "," : "") << b.pairs[i].index << ':' << sparse_value_text(b.dtype, b.pairs[i].bits);
    out << '\n';
  }
}

namespace {

// The pairs of a result line's pairs= value ("3:17,9:-2" or "-") for a block of `length`
// elements; throws the reason (without the place) as InputError.
SparsePairs parse_pairs(const std::string& text, uint8_t dtype, uint32_t length) {
  SparsePairs out;
  if (text == "-") return out;
  size_t pos = 0;
  for (size_t n = 1;; ++n) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, comma - pos);
    const std::string what = "pairs: item " + std::to_string(n) + " " + quote_token(item);
    const size_t colon = item.find(':');
    uint64_t idx = 0;
    uint32_t bits = 0;
    if (colon == std::string::npos) throw InputError(what + " is not index:value");
    if (!parse_token_uint(item.substr(0, colon), 0xFFFFFFFFu, &idx))
      throw InputError(what + ": bad index " + quote_token(item.substr(0, colon)));
    if (idx >= length)
      throw InputError(what + ": index " + std::to_string(idx) + " beyond the block's " + std::to_string(length) +
                       " elements");
    if (!out.empty() && idx <= out.back().index)
      throw InputError(what + ": index " + std::to_string(idx) + " not above the previous " +
                       std::to_string(out.back().index));
    if (!parse_sparse_value(item.substr(colon + 1), dtype, &bits))
      throw InputError(what + ": bad " + flare_dtype_name(dtype) + " value " + quote_token(item.substr(colon + 1)));
    out.push_back(SparsePair{uint32_t(idx), bits});
    if (comma == text.size()) break;
    pos = comma + 1;
  }
  return out;
}

}  // namespace

SparseExpected parse_sparse_expected(const std::string& name, const std::string& text) {
  SparseExpected e;
  bool have_header = false, have_udp_port = false;
  size_t ports_line = 0, span_line = 0, elements_line = 0;
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
      if (toks.size() != 2 || toks[0] != "flaresim-expected-sparse" || toks[1] != "1")
        fail("expected the header line 'flaresim-expected-sparse 1'");
      have_header = true;
      continue;
    }
    auto one_number = [&](uint64_t lo, uint64_t hi, size_t* line_of) {
      if (*line_of) fail("second " + toks[0] + " line (first on line " + std::to_string(*line_of) + ")");
      uint64_t v = 0;
      if (toks.size() != 2 || !parse_token_uint(toks[1], hi, &v) || v < lo)
        fail(toks[0] + ": expected one number from " + std::to_string(lo) + " to " + std::to_string(hi));
      *line_of = line_no;
      return v;
    };
    if (toks[0] == "ports") {
      if (ports_line) fail("second ports line (first on line " + std::to_string(ports_line) + ")");
      if (toks.size() < 2) fail("ports: at least one port needed");
      for (size_t i = 1; i < toks.size(); ++i) {
        uint64_t p;
        if (!parse_token_uint(toks[i], 65535, &p)) fail("ports: bad port " + quote_token(toks[i]));
        if (std::find(e.ports.begin(), e.ports.end(), uint16_t(p)) != e.ports.end())
          fail("ports: port " + toks[i] + " listed twice");
        e.ports.push_back(uint16_t(p));
      }
      ports_line = line_no;
    } else if (toks[0] == "udp_port") {
      if (have_udp_port) fail("second udp_port line");
      uint64_t port = 0;
      if (toks.size() != 2 || !parse_token_uint(toks[1], 65535, &port) || port == 0)
        fail("udp_port: expected one port from 1 to 65535");
      e.udp_port = uint16_t(port);
      have_udp_port = true;
    } else if (toks[0] == "span") {
      e.span = uint32_t(one_number(1, 0xFFFFFFFFu, &span_line));
    } else if (toks[0] == "elements") {
      e.elements = one_number(1, ~uint64_t(0) >> 1, &elements_line);
    } else if (toks[0] == "result") {
      if (!span_line || !elements_line) fail("result: before the span and elements lines");
      static const char* keys[] = {"ar", "block", "dtype", "op", "count", "pairs"};
      std::map<std::string, std::string> kv;
      for (size_t i = 1; i < toks.size(); ++i) {
        const size_t eq = toks[i].find('=');
        const std::string key = toks[i].substr(0, eq);
        if (eq == std::string::npos || std::find(std::begin(keys), std::end(keys), key) == std::end(keys))
          fail("result: unknown item " + quote_token(toks[i]) + " (keys: ar block dtype op count pairs)");
        if (!kv.emplace(key, toks[i].substr(eq + 1)).second) fail("result: duplicate key " + key);
      }
      for (const char* k : keys)
        if (!kv.count(k)) fail(std::string("result: missing key ") + k);
      SparseExpectedBlock b;
      uint64_t v = 0;
      if (!parse_token_uint(kv["ar"], 0xFFFFFFFFu, &v)) fail("result: bad value " + quote_token(kv["ar"]) + " for key ar");
      b.allreduce_id = uint32_t(v);
      const uint64_t nblocks = (e.elements + e.span - 1) / e.span;
      if (!parse_token_uint(kv["block"], 0xFFFFFFFFu, &v) || v >= nblocks)
        fail("result: bad value " + quote_token(kv["block"]) + " for key block (expected 0.." +
             std::to_string(nblocks - 1) + ": " + std::to_string(e.elements) + " elements in blocks of " +
             std::to_string(e.span) + ")");
      b.block_id = uint32_t(v);
      b.length = uint32_t(std::min<uint64_t>(e.span, e.elements - v * e.span));
      if (!flare_dtype_from_name(kv["dtype"], &b.dtype))
        fail("result: bad value " + quote_token(kv["dtype"]) + " for key dtype (expected " + kFlareDtypeChoices + ")");
      if (!flare_op_from_name(kv["op"], &b.op))
        fail("result: bad value " + quote_token(kv["op"]) + " for key op (expected " + kFlareOpChoices + ")");
      uint64_t count = 0;
      if (!parse_token_uint(kv["count"], 0xFFFFFFFFu, &count))
        fail("result: bad value " + quote_token(kv["count"]) + " for key count");
      try {
        b.pairs = parse_pairs(kv["pairs"], b.dtype, b.length);
      } catch (const InputError& err) {
        fail(std::string("result: ") + err.what());
      }
      if (b.pairs.size() != count)
        fail("result: count=" + kv["count"] + " but pairs= lists " + std::to_string(b.pairs.size()));
      const auto ins = seen.emplace(std::make_pair(b.allreduce_id, b.block_id), line_no);
      if (!ins.second)
        fail("result: ar=" + kv["ar"] + " block=" + kv["block"] + " already given on line " +
             std::to_string(ins.first->second));
      e.blocks.push_back(std::move(b));
    } else {
      fail("unknown line type " + quote_token(toks[0]) + " (expected ports, udp_port, span, elements or result)");
    }
  }
  if (!have_header) throw InputError(name + ": empty file (no 'flaresim-expected-sparse 1' header)");
  if (!ports_line) throw InputError(name + ": missing ports line");
  if (e.blocks.empty()) throw InputError(name + ": no result lines");
  return e;
}

SparseExpected read_sparse_expected(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path + ": is a directory");
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError(path + ": cannot open expected-results file");
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (f.bad()) throw InputError(path + ": read error");
  return parse_sparse_expected(path, text);
}

}  // namespace fs
