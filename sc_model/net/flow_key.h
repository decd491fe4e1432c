// Flow keys for the flow scheduling policy (scheduler.policy = flow): which header fields name a
// packet's flow (scheduler.flow_key) and the 32-bit hash of them that the packet scheduler
// places by (cluster = hash mod clusters, so every packet of a flow goes to one cluster).
//
// The key is the concatenation of the fields' bytes, in the order given, as the frame carries
// them (network byte order):
//   src_ip, dst_ip   the IPv4 (4 bytes) or IPv6 (16 bytes) address; nothing without IP
//   ip_proto         1 byte: IPv4's protocol, IPv6's last next header; nothing without IP
//   src_port, dst_port  2 bytes each, for TCP and UDP outside fragments; nothing otherwise
//   vlan             2 bytes: the outer VLAN tag's id (0 untagged)
//   src_mac, dst_mac 6 bytes
//   payload[O:L]     L bytes (1..64) of the UDP or TCP payload from byte O (0..65535); a frame
//                    without them has no key (the parser drops it as malformed)
// and 5tuple stands for src_ip,dst_ip,ip_proto,src_port,dst_port (the default). VLAN tags are
// seen through. The hash is the CRC-32 of the key (net/crc32.h; zlib's crc32): a frame whose
// fields are all absent (5tuple of a non-IP frame) has the empty key, hash 0.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "net/headers.h"
#include "net/packet.h"

namespace fs {

struct FlowField {
  enum class Kind { kSrcIp, kDstIp, kIpProto, kSrcPort, kDstPort, kVlan, kSrcMac, kDstMac, kPayload };
  Kind kind;
  uint32_t offset = 0, length = 0;  // kPayload
};

struct FlowKey {
  std::vector<FlowField> fields;
  std::string text;  // as configured
};

// Parses scheduler.flow_key: '5tuple' or a comma-separated list of the fields above. Throws
// InputError naming 'scheduler.flow_key', the value and the reason.
FlowKey parse_flow_key(const std::string& text);

// The key's bytes for a frame walked into `h` (ok). False if a payload[O:L] field is not in the
// frame (*why says so).
bool flow_key_bytes(const FlowKey& key, const Headers& h, const uint8_t* frame, Bytes* out, std::string* why);

// The flow hash of a key: its CRC-32.
uint32_t flow_hash(const Bytes& key_bytes);

}  // namespace fs
