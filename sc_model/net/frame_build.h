// Frames of ordinary traffic built from their fields, for the text trace's eth/ip/udp/tcp lines
// (net/field_syntax.h): Ethernet II with an optional 802.1Q tag, IPv4 without options or IPv6
// without extension headers, UDP or TCP without options, every checksum computed.
#pragma once
#include <cstdint>

#include "net/frame_fields.h"
#include "net/packet.h"

namespace fs {

enum class L4 { kNone, kUdp, kTcp };

struct FrameSpec {
  Mac src_mac{}, dst_mac{};
  int vlan = -1;               // 0..4095: an 802.1Q tag (priority 0, DEI 0) with this VLAN id
  uint16_t ethertype = 0;      // without IP (src_ip.version 0): the ethertype after the tag
  IpAddr src_ip, dst_ip;       // both IPv4 or both IPv6; version 0 = no IP layer
  uint8_t ttl = 64, tos = 0;   // IPv4 TTL and type of service; IPv6 hop limit and traffic class
  uint16_t ip_id = 0;          // IPv4 identification (flags and fragment offset stay 0)
  uint8_t ip_proto = 0;        // with L4::kNone: the IPv4 protocol / IPv6 next header
  L4 l4 = L4::kNone;
  uint16_t sport = 0, dport = 0;
  uint32_t seq = 0, ack = 0;   // TCP
  uint8_t tcp_flags = 0;       // TCP: FIN 0x01, SYN 0x02, RST 0x04, PSH 0x08, ACK 0x10, URG 0x20, ECE 0x40, CWR 0x80
  uint16_t window = 0;         // TCP
  Bytes payload;               // after the last header
};

// The frame, without FCS and without padding to Ethernet's 60-byte minimum. Throws InputError
// with a short reason (no place) if it would exceed 65535 bytes.
Bytes build_frame(const FrameSpec& s);

}  // namespace fs
