// Allreduce verifier (see verify.h).
#include "protocols/flare_dense/verify.h"

#include <cmath>
#include <cstring>
#include <map>
#include <sstream>

#include "flare/flare_proto.h"
#include "common/float_bits.h"
#include "protocols/flare_dense/flare_frame.h"
#include "net/frame.h"
#include "net/trace_writer.h"

namespace fs {

namespace {

constexpr size_t kMaxProblems = 20;

uint32_t le32(const uint8_t* p) {
  return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
}

int64_t as_int(const uint8_t* p, uint32_t size) {
  uint64_t u = 0;
  for (uint32_t k = 0; k < size; ++k) u |= uint64_t(p[k]) << (8 * k);
  const unsigned shift = 64 - 8 * size;
  return int64_t(u << shift) >> shift;
}

std::string fmt_float(float f) {
  std::ostringstream s;
  s.precision(9);
  s << f;
  return s.str();
}

// Empty if `got` (count elements) matches want.payload, else the first difference.
std::string compare_elements(const ExpectedBlock& want, const uint8_t* got) {
  const uint32_t size = flare_dtype_bytes(want.dtype);
  for (size_t i = 0; i < want.count; ++i) {
    const uint8_t* g = got + i * size;
    const uint8_t* w = want.payload.data() + i * size;
    if (std::memcmp(g, w, size) == 0) continue;
    if (want.dtype == FLARE_FLOAT32) {
      if (float32_matches(le32(g), le32(w))) continue;
      return "element " + std::to_string(i) + " is " + fmt_float(float_of_bits(le32(g))) + ", expected " +
             fmt_float(float_of_bits(le32(w)));
    }
    return "element " + std::to_string(i) + " is " + std::to_string(as_int(g, size)) +
           ", expected " + std::to_string(as_int(w, size));
  }
  return "";
}

// Empty if the result packet is correct, else why not.
std::string check_result(const ExpectedBlock& want, const flare_header_t& h, const uint8_t* elems,
                         size_t elem_len) {
  if (h.sender_rank != FLARE_RANK_SWITCH)
    return "rank " + std::to_string(h.sender_rank) + ", expected 65535";
  if (h.dtype != want.dtype)
    return std::string("dtype ") + flare_dtype_name(h.dtype) + "(" + std::to_string(h.dtype) +
           "), expected " + flare_dtype_name(want.dtype);
  if (h.op != want.op)
    return std::string("op ") + flare_op_name(h.op) + "(" + std::to_string(h.op) +
           "), expected " + flare_op_name(want.op);
  if (h.elem_count != want.count)
    return "count " + std::to_string(h.elem_count) + ", expected " + std::to_string(want.count);
  const size_t need = size_t(want.count) * flare_dtype_bytes(want.dtype);
  if (elem_len != need || want.payload.size() != need)
    return std::to_string(elem_len) + " element bytes, expected " + std::to_string(need);
  return compare_elements(want, elems);
}

}  // namespace

bool float32_matches(uint32_t got_bits, uint32_t want_bits) {
  if (got_bits == want_bits) return true;
  const double diff = std::fabs(double(float_of_bits(got_bits)) - double(float_of_bits(want_bits)));
  return !std::isnan(diff) && (diff <= 1e-6 || diff <= 1e-5 * std::fabs(double(float_of_bits(want_bits))));
}

FlareVerifier::FlareVerifier(Expected expected) : FlareVerifier(std::make_shared<const Expected>(std::move(expected))) {}

FlareVerifier::FlareVerifier(std::shared_ptr<const Expected> expected) : owned_(std::move(expected)), expected_(*owned_) {
  for (size_t i = 0; i < expected_.blocks.size(); ++i)
    index_.emplace(std::make_pair(expected_.blocks[i].allreduce_id, expected_.blocks[i].block_id), i);
  for (size_t i = 0; i < expected_.ports.size(); ++i) port_index_.emplace(expected_.ports[i], i);
  rep_.expected_packets = uint64_t(index_.size()) * port_index_.size();
  served_.assign(expected_.blocks.size() * expected_.ports.size(), 0);
}

void FlareVerifier::problem(const std::string& s) {
  if (rep_.problems.size() < kMaxProblems) rep_.problems.push_back(s);
}

void FlareVerifier::take(uint16_t port, Picos time, const Bytes& frame) {
  const FrameInfo f = parse_frame(frame.data(), frame.size());
  if (!f.ok || !f.udp || f.udp_dport != expected_.udp_port || f.l4_len < FLARE_HEADER_BYTES) return;
  flare_header_t h;
  flare_decode(frame.data() + f.l4_offset, &h);
  if (h.version != FLARE_VERSION || h.kind != FLARE_KIND_RESULT) return;
  auto what = [&] {
    return "port " + std::to_string(port) + " at " + format_picos_ns(time) + ": result ar=" +
           std::to_string(h.allreduce_id) + " block=" + std::to_string(h.block_id);
  };
  const auto bi = index_.find(std::make_pair(h.allreduce_id, h.block_id));
  const auto pi = port_index_.find(port);
  if (bi == index_.end() || pi == port_index_.end()) {
    ++rep_.unexpected;
    problem(what() + (bi == index_.end() ? ": unexpected (block not expected)" : ": unexpected (port is not a host port)"));
    return;
  }
  uint8_t& served = served_[bi->second * expected_.ports.size() + pi->second];
  if (served) {
    ++rep_.duplicate;
    problem(what() + ": duplicate");
    return;
  }
  const std::string why = check_result(expected_.blocks[bi->second], h, frame.data() + f.l4_offset + FLARE_HEADER_BYTES,
                                       f.l4_len - FLARE_HEADER_BYTES);
  served = why.empty() ? 1 : 2;
  if (why.empty()) {
    ++rep_.matched;
  } else {
    ++rep_.wrong;
    problem(what() + ": wrong: " + why);
  }
}

VerifyReport FlareVerifier::report() const {
  VerifyReport rep = rep_;  // the missing ones are added to a copy: report() may be asked again
  auto problem = [&rep](const std::string& s) {
    if (rep.problems.size() < kMaxProblems) rep.problems.push_back(s);
  };
  // Missing ones in expected-block order, then port order.
  for (size_t b = 0; b < expected_.blocks.size(); ++b) {
    const ExpectedBlock& eb = expected_.blocks[b];
    if (index_.at(std::make_pair(eb.allreduce_id, eb.block_id)) != b) continue;  // repeated block
    for (size_t pi = 0; pi < expected_.ports.size(); ++pi) {
      const uint16_t p = expected_.ports[pi];
      if (port_index_.at(p) != pi) continue;  // repeated port
      if (served_[b * expected_.ports.size() + pi]) continue;
      ++rep.missing;
      problem("port " + std::to_string(p) + ": missing result ar=" + std::to_string(eb.allreduce_id) +
                   " block=" + std::to_string(eb.block_id));
    }
  }
  rep.ok = rep.missing == 0 && rep.wrong == 0 && rep.duplicate == 0 && rep.unexpected == 0 &&
           rep.matched == rep.expected_packets;
  return rep;
}

VerifyReport verify_egress(const Expected& expected, const std::vector<EgressRecord>& egress) {
  FlareVerifier v(expected);
  return verify_records(v, egress);
}

}  // namespace fs
