// Canary frames (see canary_frame.h).
#include "protocols/canary/canary_frame.h"

#include "common/errors.h"

namespace fs {

Bytes build_canary_packet(const canary_header_t& hdr, unsigned from_host, const std::vector<int32_t>& elements,
                          uint16_t udp_port) {
  const size_t data = elements.size() * CANARY_ELEMENT_BYTES;
  if (data > kMaxUdpPayload - CANARY_HEADER_BYTES)
    throw InputError("Canary packet with " + std::to_string(elements.size()) + " elements exceeds the IPv4 limit of " +
                     std::to_string((kMaxUdpPayload - CANARY_HEADER_BYTES) / CANARY_ELEMENT_BYTES));
  Bytes payload(CANARY_HEADER_BYTES + data);
  canary_encode(&hdr, payload.data());
  uint8_t* d = payload.data() + CANARY_HEADER_BYTES;
  for (int32_t e : elements) fs_put_le32(d, uint32_t(e)), d += CANARY_ELEMENT_BYTES;
  uint8_t src[6], dst[6];
  fs_host_mac(from_host, src);
  fs_switch_mac(dst);  // the next hop: a host's frames all go to its switch
  return build_udp_frame(src, dst, fs_host_ipv4(from_host), hdr.destination, udp_port, udp_port, payload.data(),
                         payload.size());
}

bool parse_canary_packet(const uint8_t* frame, size_t len, CanaryPacket* out, std::string* why, uint16_t udp_port) {
  const FrameInfo f = parse_frame(frame, len);
  if (!f.ok || !f.udp) return *why = "not an IPv4/UDP frame", false;
  if (f.udp_dport != udp_port)
    return *why = "UDP port " + std::to_string(f.udp_dport) + ", not Canary's " + std::to_string(udp_port), false;
  if (f.l4_len < CANARY_HEADER_BYTES)
    return *why = "UDP payload of " + std::to_string(f.l4_len) + " bytes, shorter than the " +
                  std::to_string(CANARY_HEADER_BYTES) + "-byte Canary header",
           false;
  const uint8_t* u = frame + f.l4_offset;
  canary_decode(u, &out->h);
  const size_t data = f.l4_len - CANARY_HEADER_BYTES;
  if (data % CANARY_ELEMENT_BYTES)
    return *why = std::to_string(data) + " data bytes, not whole int32 elements", false;
  if (out->h.flags & CANARY_FLAG_PADDING)
    return *why = "padding bits set in the flags byte (" + std::to_string(out->h.flags) + ")", false;
  out->elements.clear();
  for (size_t k = 0; k < data / CANARY_ELEMENT_BYTES; ++k) {
    const uint8_t* e = u + CANARY_HEADER_BYTES + k * CANARY_ELEMENT_BYTES;
    out->elements.push_back(int32_t(fs_le32(e)));
  }
  return true;
}

}  // namespace fs
