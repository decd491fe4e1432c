// Ethernet/IPv4/UDP frame handling for everything outside the switch pipeline: a view of a
// frame's headers (walked by net/headers.h) that never throws and reports the first problem it
// finds, and a UDP frame builder. Frames follow the host addressing convention of fs_packet.h;
// protocols build their own formats on top.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "fs_packet.h"
#include "net/packet.h"

namespace fs {

// What parse_frame learned about a frame: a short view of walk_headers (net/headers.h), for
// code outside the switch pipeline that wants a frame's UDP payload. Only the fields of the
// layers found are set; the others stay zero/false. ethertype is the one after any VLAN tags;
// src_ip/dst_ip are set for IPv4 only; udp is a UDP header over IPv4 or IPv6, not in a
// fragment. l4_offset/l4_len describe the UDP payload (after the 8-byte UDP header, bounded by
// the UDP length so Ethernet padding is excluded) and are 0 when udp=false.
struct FrameInfo {
  bool ok = false;
  std::string error;  // short reason when ok=false, empty otherwise
  uint16_t ethertype = 0;
  bool ipv4 = false;
  uint8_t ip_proto = 0;
  uint32_t src_ip = 0, dst_ip = 0;
  bool udp = false;
  uint16_t udp_sport = 0, udp_dport = 0;
  uint32_t l4_offset = 0;  // UDP payload start, from the first byte of the frame
  uint32_t l4_len = 0;     // UDP payload length
};

// Parses an Ethernet II frame (no FCS) with walk_headers: never throws; a malformed frame (see
// walk_headers for every case and its reason) gives ok=false. The UDP checksum is not checked.
FrameInfo parse_frame(const uint8_t* data, size_t len);

// Largest UDP payload an IPv4 packet without options can carry (65535 - 20 - 8).
constexpr size_t kMaxUdpPayload = 65507;

// Ethernet II + IPv4 (no options, identification 0, no flags, TTL 64, header checksum set)
// + UDP (checksum 0) + payload. Throws InputError if len > kMaxUdpPayload.
Bytes build_udp_frame(const uint8_t src_mac[6], const uint8_t dst_mac[6], uint32_t src_ip,
                      uint32_t dst_ip, uint16_t sport, uint16_t dport, const uint8_t* payload,
                      size_t len);

}  // namespace fs
