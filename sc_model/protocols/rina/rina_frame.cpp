// rina frames (see rina_frame.h).
#include "protocols/rina/rina_frame.h"

#include "common/errors.h"
#include "net/ecn.h"

namespace fs {

std::string rina_packet_problem(const rina_header_t& h) {
  switch (rina_header_problem(&h)) {
    case RINA_FINE: return "";
    case RINA_BAD_KIND: return "kind " + std::to_string(h.kind) + " (1 TASK to 5 ACK)";
    case RINA_BAD_PADDING: return "padding bits set in the flags byte (" + std::to_string(h.flags) + ")";
    case RINA_OTHER_KINDS_FLAG:
      return "flags " + std::to_string(h.flags) + " on a packet of kind " + std::to_string(h.kind) +
             " (only DATA is FULL, only an ACK ECE, only a GRAD SUM)";
    case RINA_BAD_GROUPS:
      return std::to_string(h.groups) + " groups (1 to " + std::to_string(RINA_MAX_GROUPS) + ")";
    case RINA_BAD_STEP:
      return "step " + std::to_string(h.step) + " of a ring of " + std::to_string(h.groups) + " groups (1 to " +
             std::to_string(2 * h.groups - 1) + "; a TASK, PULL or GRAD at most " + std::to_string(h.groups) + ")";
    case RINA_BAD_CHUNK: return "chunk " + std::to_string(h.chunk) + " of " + std::to_string(h.groups);
    case RINA_BAD_MEMBERS:
      if (h.kind == RINA_ACK) return std::string("an ACK of no packets (members 0)");
      if ((h.flags & RINA_FLAG_SUM) && h.member < h.members && h.members <= RINA_MAX_MEMBERS)
        return "a sum of members " + std::to_string(h.next) + " (a bitmap) from member " + std::to_string(h.member) +
               " of a group of " + std::to_string(h.members);
      return "member " + std::to_string(h.member) + " of a group of " + std::to_string(h.members) + " (1 to " +
             std::to_string(RINA_MAX_MEMBERS) + ")";
    case RINA_STRAY_NEXT:
      if (h.kind == RINA_TASK) return "a TASK naming no next group";
      if (h.flags & RINA_FLAG_SUM) return "a SUM GRAD naming no members";
      return "a next group on a packet of kind " + std::to_string(h.kind);
    case RINA_BAD_ELEMENTS:
      return std::to_string(h.elements) + " values on a packet of kind " + std::to_string(h.kind) + " (GRAD and DATA " +
             "carry 1 to " + std::to_string(RINA_ELEMENTS) + ")";
  }
  return "an unknown problem";
}

Bytes build_rina_packet(rina_header_t hdr, unsigned from_host, uint32_t to_ipv4, const std::vector<int32_t>& values,
                        const std::vector<uint32_t>& members) {
  hdr.elements = uint16_t(values.size());
  if (hdr.kind == RINA_TASK) hdr.members = uint8_t(members.size());
  const std::string problem = values.size() > RINA_ELEMENTS || members.size() > RINA_MAX_MEMBERS
                                  ? std::string("too many values or members")
                                  : rina_packet_problem(hdr);
  if (!problem.empty()) throw InputError("rina packet: " + problem);
  Bytes payload(RINA_HEADER_BYTES + values.size() * RINA_ELEMENT_BYTES + (hdr.kind == RINA_TASK ? 4 * members.size() : 0));
  rina_encode(&hdr, payload.data());
  uint8_t* d = payload.data() + RINA_HEADER_BYTES;
  for (int32_t v : values) fs_put_le32(d, uint32_t(v)), d += RINA_ELEMENT_BYTES;
  if (hdr.kind == RINA_TASK)
    for (uint32_t m : members) fs_put_be32(d, m), d += 4;
  uint8_t src[6], dst[6];
  fs_host_mac(from_host, src);
  fs_switch_mac(dst);
  Bytes frame = build_udp_frame(src, dst, fs_host_ipv4(from_host), to_ipv4, RINA_UDP_PORT_DEFAULT,
                                RINA_UDP_PORT_DEFAULT, payload.data(), payload.size());
  if (hdr.kind == RINA_GRAD || hdr.kind == RINA_DATA) set_ecn(frame, Ecn::kEct0);
  return frame;
}

bool parse_rina_packet(const uint8_t* frame, size_t len, RinaPacket* out, std::string* why) {
  const FrameInfo f = parse_frame(frame, len);
  if (!f.ok || !f.udp) return *why = "not an IPv4/UDP frame", false;
  if (f.udp_dport != RINA_UDP_PORT_DEFAULT)
    return *why = "UDP port " + std::to_string(f.udp_dport) + ", not rina's " + std::to_string(RINA_UDP_PORT_DEFAULT),
           false;
  if (f.l4_len < RINA_HEADER_BYTES)
    return *why = "UDP payload of " + std::to_string(f.l4_len) + " bytes, shorter than the " +
                  std::to_string(RINA_HEADER_BYTES) + "-byte rina header",
           false;
  const uint8_t* u = frame + f.l4_offset;
  rina_decode(u, &out->h);
  if (fs_be16(u + RINA_OFF_RESERVED)) return *why = "reserved header bytes not 0", false;
  const std::string problem = rina_packet_problem(out->h);
  if (!problem.empty()) return *why = problem, false;
  const size_t body = out->h.kind == RINA_TASK ? 4u * out->h.members : size_t(out->h.elements) * RINA_ELEMENT_BYTES;
  if (f.l4_len - RINA_HEADER_BYTES != body)
    return *why = std::to_string(f.l4_len - RINA_HEADER_BYTES) + " bytes after the header where it says " +
                  std::to_string(body),
           false;
  out->src_ipv4 = uint32_t(fs_be32(frame + FS_ETH_BYTES + 12));
  out->dst_ipv4 = uint32_t(fs_be32(frame + FS_ETH_BYTES + 16));
  out->ce = (frame[FS_ETH_BYTES + 1] & 3u) == 3u;
  out->values.resize(out->h.kind == RINA_TASK ? 0 : out->h.elements);
  for (size_t k = 0; k < out->values.size(); ++k)
    out->values[k] = int32_t(fs_le32(u + RINA_HEADER_BYTES + k * RINA_ELEMENT_BYTES));
  out->members.resize(out->h.kind == RINA_TASK ? out->h.members : 0);
  for (size_t k = 0; k < out->members.size(); ++k) out->members[k] = uint32_t(fs_be32(u + RINA_HEADER_BYTES + 4 * k));
  return true;
}

}  // namespace fs
