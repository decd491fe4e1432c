// Ethernet/IPv4/UDP frame handling for everything outside the switch pipeline: a parser that
// never throws and reports the first problem it finds, builders for UDP and Flare frames that
// follow the host addressing convention of flare_proto.h, and the dtype/op names used by the
// text formats (traces, expected results).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "flare_proto.h"
#include "net/packet.h"

namespace fs {

// What parse_frame learned about a frame. Only the fields of the layers found are set; the
// others stay zero/false. l4_offset/l4_len describe the UDP payload (after the 8-byte UDP
// header, bounded by the UDP length so Ethernet padding is excluded) and are 0 when udp=false.
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

// Parses an Ethernet II frame (no FCS). Never throws. Malformed frames give ok=false:
//   frame shorter than 14 bytes; IPv4 header truncated, version != 4, IHL < 5, total length
//   smaller than the header or larger than the bytes present, bad header checksum; UDP header
//   truncated, UDP length < 8 or larger than the IP payload.
// Non-IPv4 ethertypes are ok with ipv4=false. IPv4 fragments (MF set or offset != 0) are ok
// with udp=false: their L4 header cannot be checked on its own. The UDP checksum is not checked.
FrameInfo parse_frame(const uint8_t* data, size_t len);

// Largest UDP payload an IPv4 packet without options can carry (65535 - 20 - 8).
constexpr size_t kMaxUdpPayload = 65507;

// Most element bytes a Flare frame may carry so that the whole frame fits in 65535 bytes (the
// largest packet of a trace): 65535 - 42 header bytes - 16 Flare header bytes.
constexpr size_t kMaxFlareElemBytes = 65535 - FLARE_PAYLOAD_OFFSET - FLARE_HEADER_BYTES;

// Ethernet II + IPv4 (no options, identification 0, no flags, TTL 64, header checksum set)
// + UDP (checksum 0) + payload. Throws InputError if len > kMaxUdpPayload.
Bytes build_udp_frame(const uint8_t src_mac[6], const uint8_t dst_mac[6], uint32_t src_ip,
                      uint32_t dst_ip, uint16_t sport, uint16_t dport, const uint8_t* payload,
                      size_t len);

// A Flare packet: the 16-byte header `hdr` written as given (flare_encode), then elem_len bytes
// of elements. Addressing follows flare_proto.h: a contribution (kind 0, or any kind other than
// result) goes from the host on `port` (its MAC and IP) to the switch (MAC 02:00:00:ff:ff:ff,
// IP 10.0.0.1); a result (kind 1) goes from the switch to the broadcast MAC and 10.1.255.255.
// UDP source and destination port are both udp_port. Throws InputError if too large.
Bytes build_flare_packet(const flare_header_t& hdr, uint16_t port, const uint8_t* elems,
                         size_t elem_len, uint16_t udp_port = FLARE_UDP_PORT_DEFAULT);

// Text names of Flare dtypes and ops: int32 int16 int8 float32 / sum min max.
// *_name returns "?" for an unknown code; *_from_name returns false for an unknown name.
const char* flare_dtype_name(uint8_t dtype);
const char* flare_op_name(uint8_t op);
bool flare_dtype_from_name(const std::string& name, uint8_t* dtype);
bool flare_op_from_name(const std::string& name, uint8_t* op);
constexpr const char* kFlareDtypeChoices = "int32, int16, int8 or float32";
constexpr const char* kFlareOpChoices = "sum, min or max";

}  // namespace fs
