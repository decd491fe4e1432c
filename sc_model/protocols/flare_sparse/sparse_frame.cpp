// Sparse Flare frames (see sparse_frame.h).
#include "protocols/flare_sparse/sparse_frame.h"

#include "common/errors.h"
#include "fs_packet.h"

namespace fs {

Bytes build_sparse_packet(flare_sparse_header_t hdr, uint16_t port, const std::vector<SparsePair>& pairs,
                          uint16_t udp_port) {
  const uint32_t pair_bytes = flare_pair_bytes(hdr.dtype), vbytes = flare_dtype_bytes(hdr.dtype);
  if (!pair_bytes) throw InputError("sparse Flare packet with unknown dtype " + std::to_string(hdr.dtype));
  const size_t len = FLARE_SPARSE_HEADER_BYTES + pairs.size() * pair_bytes;
  if (pairs.size() > 0xFFFF || len > kMaxUdpPayload)
    throw InputError("sparse Flare packet with " + std::to_string(pairs.size()) + " pairs exceeds the IPv4 limit of " +
                     std::to_string((kMaxUdpPayload - FLARE_SPARSE_HEADER_BYTES) / pair_bytes) + " " +
                     std::to_string(pair_bytes) + "-byte pairs");
  hdr.pair_count = uint16_t(pairs.size());
  Bytes payload(len);
  flare_sparse_encode(&hdr, payload.data());
  uint8_t* p = payload.data() + FLARE_SPARSE_HEADER_BYTES;
  for (const SparsePair& e : pairs) {
    for (unsigned k = 0; k < 4; ++k) *p++ = uint8_t(e.index >> (8 * k));
    for (unsigned k = 0; k < vbytes; ++k) *p++ = uint8_t(e.bits >> (8 * k));
  }
  uint8_t host_mac[6], switch_mac[6];
  fs_host_mac(port, host_mac);
  fs_switch_mac(switch_mac);
  if (hdr.kind == FLARE_KIND_RESULT) {
    const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    return build_udp_frame(switch_mac, bcast, FS_SWITCH_IPV4, FS_HOSTS_BROADCAST_IPV4, udp_port, udp_port,
                           payload.data(), payload.size());
  }
  return build_udp_frame(host_mac, switch_mac, fs_host_ipv4(port), FS_SWITCH_IPV4, udp_port, udp_port, payload.data(),
                         payload.size());
}

bool parse_sparse_packet(const uint8_t* frame, size_t len, SparsePacket* out, std::string* why) {
  const FrameInfo f = parse_frame(frame, len);
  if (!f.ok || !f.udp) {
    *why = f.ok ? "not UDP" : f.error;
    return false;
  }
  if (f.l4_len < FLARE_SPARSE_HEADER_BYTES) {
    *why = "UDP payload of " + std::to_string(f.l4_len) + " bytes, shorter than the 20-byte sparse header";
    return false;
  }
  const uint8_t* u = frame + f.l4_offset;
  if (!(u[FLARE_OFF_KIND] & FLARE_FLAG_SPARSE)) {
    *why = "no sparse flag";
    return false;
  }
  flare_sparse_decode(u, &out->h);
  if (out->h.version != FLARE_VERSION) {
    *why = "version " + std::to_string(out->h.version);
    return false;
  }
  const uint32_t pair_bytes = flare_pair_bytes(out->h.dtype), vbytes = flare_dtype_bytes(out->h.dtype);
  if (!pair_bytes) {
    *why = "unknown dtype " + std::to_string(out->h.dtype);
    return false;
  }
  if (size_t(FLARE_SPARSE_HEADER_BYTES) + size_t(out->h.pair_count) * pair_bytes != f.l4_len) {
    *why = std::to_string(out->h.pair_count) + " pairs need " +
           std::to_string(FLARE_SPARSE_HEADER_BYTES + size_t(out->h.pair_count) * pair_bytes) +
           " UDP payload bytes, the packet has " + std::to_string(f.l4_len);
    return false;
  }
  out->pairs.resize(out->h.pair_count);
  const uint8_t* p = u + FLARE_SPARSE_HEADER_BYTES;
  for (SparsePair& e : out->pairs) {
    e.index = fs_le32(p);
    p += 4;
    e.bits = 0;
    for (unsigned k = 0; k < vbytes; ++k) e.bits |= uint32_t(*p++) << (8 * k);
  }
  return true;
}

}  // namespace fs
