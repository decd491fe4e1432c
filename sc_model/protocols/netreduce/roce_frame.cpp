// RoCEv2 frames (see roce_frame.h).
#include "protocols/netreduce/roce_frame.h"

#include <algorithm>

#include "common/errors.h"
#include "net/frame.h"
#include "net/icrc.h"

namespace fs {
namespace {

bool known_opcode(uint8_t op) { return roce_is_write(op) || op == ROCE_RC_ACK; }

}  // namespace

Bytes build_roce_frame(const RocePacket& p, unsigned from_host, uint32_t to_ip, uint16_t udp_sport) {
  const uint8_t op = p.bth.opcode;
  if (!known_opcode(op)) throw InputError("RoCEv2 opcode " + std::to_string(op) + " is not one NetReduce's hosts use");
  const size_t pad = (4 - p.payload.size() % 4) % 4;
  const size_t l4 = ROCE_BTH_BYTES + roce_extension_bytes(op) + p.payload.size() + pad + ROCE_ICRC_BYTES;
  if (l4 > kMaxUdpPayload)
    throw InputError("RoCEv2 packet of " + std::to_string(p.payload.size()) + " payload bytes exceeds what IPv4 carries");
  Bytes l4_bytes(l4, 0);
  roce_bth_t bth = p.bth;
  bth.pad_count = uint8_t(pad);
  uint8_t* at = l4_bytes.data();
  roce_bth_encode(&bth, at);
  at += ROCE_BTH_BYTES;
  if (roce_has_reth(op)) roce_reth_encode(&p.reth, at), at += ROCE_RETH_BYTES;
  if (roce_has_imm(op)) fs_put_be32(at, p.imm), at += ROCE_IMM_BYTES;
  if (roce_has_aeth(op)) roce_aeth_encode(&p.aeth, at), at += ROCE_AETH_BYTES;
  std::copy(p.payload.begin(), p.payload.end(), at);
  uint8_t src[6], dst[6];
  fs_host_mac(from_host, src);
  fs_switch_mac(dst);
  Bytes frame = build_udp_frame(src, dst, fs_host_ipv4(from_host), to_ip, udp_sport, ROCE_UDP_PORT, l4_bytes.data(),
                                l4_bytes.size());
  const uint32_t icrc = roce_icrc(frame.data(), frame.size());
  for (unsigned b = 0; b < ROCE_ICRC_BYTES; ++b) frame[frame.size() - ROCE_ICRC_BYTES + b] = uint8_t(icrc >> (8 * b));
  return frame;
}

bool parse_roce_frame(const uint8_t* frame, size_t len, RocePacket* out, std::string* why) {
  RoceLayout l;
  try {
    l = roce_layout(frame, len);
  } catch (const InputError& e) {
    return *why = e.what(), false;
  }
  const uint8_t* at = frame + l.bth_offset;
  roce_bth_decode(at, &out->bth);
  const uint8_t op = out->bth.opcode;
  if (!known_opcode(op)) return *why = "RoCEv2 opcode " + std::to_string(op) + ", not one NetReduce uses", false;
  const size_t room = l.icrc_offset - l.bth_offset - ROCE_BTH_BYTES;  // extension headers, payload, pad
  if (room < roce_extension_bytes(op))
    return *why = "opcode " + std::to_string(op) + " needs " + std::to_string(roce_extension_bytes(op)) +
                  " bytes of extension headers; the packet has " + std::to_string(room) + " after the BTH",
           false;
  const size_t payload = room - roce_extension_bytes(op);
  if (out->bth.pad_count > payload)
    return *why = "pad count " + std::to_string(out->bth.pad_count) + " exceeds the " + std::to_string(payload) +
                  "-byte payload",
           false;
  if (roce_icrc(frame, len) != carried_icrc(frame, len)) return *why = "wrong ICRC", false;
  at += ROCE_BTH_BYTES;
  if (roce_has_reth(op)) roce_reth_decode(at, &out->reth), at += ROCE_RETH_BYTES;
  if (roce_has_imm(op)) out->imm = uint32_t(fs_be32(at)), at += ROCE_IMM_BYTES;
  if (roce_has_aeth(op)) roce_aeth_decode(at, &out->aeth), at += ROCE_AETH_BYTES;
  out->payload.assign(at, at + (payload - out->bth.pad_count));
  return true;
}

}  // namespace fs
