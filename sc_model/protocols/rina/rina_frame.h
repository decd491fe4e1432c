// rina frames (handlers/rina/rina_proto.h) for the simulator side of the protocol: building a
// packet of any kind from its header and payload, and reading one back with every check a
// receiver makes. The agents, workers and tests build and read theirs here.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "net/frame.h"
#include "rina/rina_proto.h"

namespace fs {

// A rina packet from network host `from_host` to IPv4 address `to_ipv4` (a host's, or a switch's
// fs_fabric_switch_ipv4), over UDP to RINA_UDP_PORT_DEFAULT. GRAD and DATA carry `values`
// (hdr.elements is set from them); a TASK carries `members`, the group's workers' IPv4 addresses
// (hdr.members is set from them); GRAD and DATA are ECN-capable (ECT(0)). Throws InputError for
// a header rina_packet_problem refuses.
Bytes build_rina_packet(rina_header_t hdr, unsigned from_host, uint32_t to_ipv4, const std::vector<int32_t>& values,
                        const std::vector<uint32_t>& members = {});

struct RinaPacket {
  rina_header_t h{};
  uint32_t src_ipv4 = 0, dst_ipv4 = 0;
  bool ce = false;                 // it arrived ECN-marked (CE)
  std::vector<int32_t> values;     // GRAD, DATA
  std::vector<uint32_t> members;   // TASK
};
// Reads the rina packet in `frame`. False, with the reason in *why, if it is not a well-formed
// one: not IPv4/UDP to rina's port, shorter than the header, a length that is not the header and
// its payload, reserved bits set, or a header rina_packet_problem refuses.
bool parse_rina_packet(const uint8_t* frame, size_t len, RinaPacket* out, std::string* why);

// What is wrong with a header, or "" if nothing.
std::string rina_packet_problem(const rina_header_t& h);

}  // namespace fs
