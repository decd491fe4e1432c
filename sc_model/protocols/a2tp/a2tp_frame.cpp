// a2tp frames (see a2tp_frame.h).
#include "protocols/a2tp/a2tp_frame.h"

#include "common/errors.h"
#include "common/text.h"
#include "net/ecn.h"

namespace fs {

A2tpBitmap a2tp_bitmap(const uint32_t (&words)[A2TP_BITMAP_WORDS]) {
  A2tpBitmap b;
  for (unsigned w = 0; w < A2TP_MAX_WORKERS; ++w) b[w] = a2tp_bitmap_has(words, w);
  return b;
}

void a2tp_set_bitmap(uint32_t (&words)[A2TP_BITMAP_WORDS], const A2tpBitmap& b) {
  for (uint32_t& w : words) w = 0;
  for (unsigned w = 0; w < A2TP_MAX_WORKERS; ++w)
    if (b[w]) a2tp_bitmap_set(words, w);
}

std::string a2tp_bitmap_text(const uint32_t (&words)[A2TP_BITMAP_WORDS], unsigned workers) {
  std::string out = "0x";
  for (unsigned k = a2tp_bitmap_words(workers); k-- > 0;) out += hex32(words[k]).substr(2);
  return out;
}

std::string a2tp_packet_problem(const a2tp_header_t& h) {
  switch (a2tp_header_problem(&h)) {
    case A2TP_FINE: return "";
    case A2TP_BAD_FAN_IN:
      return "a fan-in of " + std::to_string(h.workers) + " workers (1 to " + std::to_string(A2TP_MAX_WORKERS) + ")";
    case A2TP_BAD_WORKER:
      return "worker " + std::to_string(h.worker) + " of a job of " + std::to_string(h.workers) + " workers";
    case A2TP_BITMAP_BEYOND:
      return "bitmap " + a2tp_bitmap_text(h.bitmap, h.workers) + " names workers beyond the job's " +
             std::to_string(h.workers);
    case A2TP_BAD_PADDING: return "padding bits set in the flags byte (" + std::to_string(h.flags) + ")";
    case A2TP_RESULT_AS_GRADIENT: return "a result flagged COLLISION, RESEND or SUM";
    case A2TP_EMPTY_RESULT: return "a result with an empty bitmap";
    case A2TP_GRADIENT_AS_RESULT: return "a gradient flagged MOVE, or COL or ECE without SUM (results' flags)";
    case A2TP_GRADIENT_BITMAP:
      return "a gradient of worker " + std::to_string(h.worker) + " with bitmap " + a2tp_bitmap_text(h.bitmap, h.workers);
    case A2TP_STRAY_NEXT: return "next aggregator " + std::to_string(h.next) + " in a packet not flagged MOVE";
  }
  return "an unknown problem";
}

Bytes build_a2tp_packet(a2tp_header_t hdr, unsigned from_host, uint32_t to_ipv4, const std::vector<int32_t>& values,
                        bool ecn_capable, uint16_t udp_port) {
  const size_t header = a2tp_header_bytes(hdr.workers);
  const size_t most = (kMaxUdpPayload - header) / A2TP_ELEMENT_BYTES;
  if (values.size() > most)
    throw InputError("a2tp packet with " + std::to_string(values.size()) + " values exceeds the IPv4 limit of " +
                     std::to_string(most));
  hdr.elements = uint16_t(values.size());
  const std::string problem = a2tp_packet_problem(hdr);
  if (!problem.empty()) throw InputError("a2tp packet of job " + std::to_string(hdr.job) + ": " + problem);
  Bytes payload(header + values.size() * A2TP_ELEMENT_BYTES);
  a2tp_encode(&hdr, payload.data());
  uint8_t* d = payload.data() + header;
  for (int32_t v : values) fs_put_le32(d, uint32_t(v)), d += A2TP_ELEMENT_BYTES;
  uint8_t src[6], dst[6];
  fs_host_mac(from_host, src);
  fs_switch_mac(dst);  // the next hop: a host's frames all go to its switch
  Bytes frame = build_udp_frame(src, dst, fs_host_ipv4(from_host), to_ipv4, udp_port, udp_port, payload.data(),
                                payload.size());
  if (ecn_capable) set_ecn(frame, Ecn::kEct0);
  return frame;
}

bool parse_a2tp_packet(const uint8_t* frame, size_t len, A2tpPacket* out, std::string* why, uint16_t udp_port) {
  const FrameInfo f = parse_frame(frame, len);
  if (!f.ok || !f.udp) return *why = "not an IPv4/UDP frame", false;
  if (f.udp_dport != udp_port)
    return *why = "UDP port " + std::to_string(f.udp_dport) + ", not a2tp's " + std::to_string(udp_port), false;
  if (f.l4_len < A2TP_HEADER_BYTES)
    return *why = "UDP payload of " + std::to_string(f.l4_len) + " bytes, shorter than the " +
                  std::to_string(A2TP_HEADER_BYTES) + "-byte a2tp header",
           false;
  const uint8_t* u = frame + f.l4_offset;
  const size_t header = a2tp_header_bytes(u[A2TP_OFF_WORKERS]);
  if (f.l4_len < header)
    return *why = "UDP payload of " + std::to_string(f.l4_len) + " bytes, shorter than the " + std::to_string(header) +
                  "-byte a2tp header of a job of " + std::to_string(u[A2TP_OFF_WORKERS]) + " workers",
           false;
  a2tp_decode(u, &out->h);
  const size_t data = f.l4_len - header;
  if (data != size_t(out->h.elements) * A2TP_ELEMENT_BYTES)
    return *why = std::to_string(data) + " bytes of values where the header says " + std::to_string(out->h.elements) +
                  " int32 values",
           false;
  if (u[A2TP_OFF_RESERVED]) return *why = "reserved header byte not 0", false;
  const std::string problem = a2tp_packet_problem(out->h);
  if (!problem.empty()) return *why = problem, false;
  out->values.resize(out->h.elements);
  for (size_t k = 0; k < out->values.size(); ++k)
    out->values[k] = int32_t(fs_le32(u + header + k * A2TP_ELEMENT_BYTES));
  return true;
}

}  // namespace fs
