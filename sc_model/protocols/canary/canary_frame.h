// Canary frames (handlers/canary/canary_proto.h) for the simulator side of the canary protocol:
// building a packet from its header and int32 elements, and reading one back with the checks a
// receiver makes; the hosts (canary_allreduce.h) and the tests build and read theirs with it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "canary/canary_proto.h"
#include "net/frame.h"

namespace fs {

// A Canary packet from network host `from_host` (its MAC and IPv4 address, fs_packet.h) to the
// block's leader, hdr.destination, over UDP to `udp_port`, carrying `elements` (little-endian
// int32). Throws InputError if the frame would exceed what IPv4 carries.
Bytes build_canary_packet(const canary_header_t& hdr, unsigned from_host, const std::vector<int32_t>& elements,
                          uint16_t udp_port = CANARY_UDP_PORT_DEFAULT);

struct CanaryPacket {
  canary_header_t h{};
  std::vector<int32_t> elements;
};
// Reads the Canary packet in `frame` (IPv4/UDP to `udp_port`). False, with the reason in *why, if
// it is not one: not IPv4/UDP, another UDP port, a payload shorter than the header, data that is
// not whole int32 elements, or padding bits set.
bool parse_canary_packet(const uint8_t* frame, size_t len, CanaryPacket* out, std::string* why,
                         uint16_t udp_port = CANARY_UDP_PORT_DEFAULT);

}  // namespace fs
