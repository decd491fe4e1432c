// a2tp frames (handlers/a2tp/a2tp_proto.h) for the simulator side of the protocol: building a
// gradient or result packet from its header and int32 values, and reading one back with every
// check a receiver makes. The workers, parameter servers and tests build and read theirs here.
#pragma once
#include <bitset>
#include <cstdint>
#include <string>
#include <vector>

#include "a2tp/a2tp_proto.h"
#include "net/frame.h"

namespace fs {

// An a2tp packet from network host `from_host` to host address `to_ipv4` (a gradient's or a
// switch result's: the job's PS; a PS result's: a worker), over UDP to `udp_port`, carrying
// `values` (hdr.elements is set from them). ECN-capable (ECT(0)) if `ecn_capable`. Throws
// InputError if the packet would break the format (a2tp_packet_problem) or exceed IPv4's limit.
// (The wire format allows any number of values up to that; the switch's aggregators take
// gradients of 1 to A2TP_ELEMENTS and drop others as malformed.)
Bytes build_a2tp_packet(a2tp_header_t hdr, unsigned from_host, uint32_t to_ipv4, const std::vector<int32_t>& values,
                        bool ecn_capable = true, uint16_t udp_port = A2TP_UDP_PORT_DEFAULT);

// A bitmap of workers (worker w: bit w), as a header's words hold it.
using A2tpBitmap = std::bitset<A2TP_MAX_WORKERS>;
A2tpBitmap a2tp_bitmap(const uint32_t (&words)[A2TP_BITMAP_WORDS]);
void a2tp_set_bitmap(uint32_t (&words)[A2TP_BITMAP_WORDS], const A2tpBitmap& b);
// A bitmap as a hex number of 8 digits for each of the words a job of `workers` workers uses
// (the highest first): "0x00000005" in a job of up to 32.
std::string a2tp_bitmap_text(const uint32_t (&words)[A2TP_BITMAP_WORDS], unsigned workers);

struct A2tpPacket {
  a2tp_header_t h{};
  std::vector<int32_t> values;
};
// Reads the a2tp packet in `frame` (IPv4/UDP to `udp_port`). False, with the reason in *why, if
// it is not a well-formed one: not IPv4/UDP, another port, shorter than the header, a length
// that is not the header and `elements` values, reserved or padding bits set, or a header that
// a2tp_packet_problem refuses.
bool parse_a2tp_packet(const uint8_t* frame, size_t len, A2tpPacket* out, std::string* why,
                       uint16_t udp_port = A2TP_UDP_PORT_DEFAULT);

// What is wrong with a header, or "" if nothing: a fan-in of 0 or above 128; a worker outside it;
// bitmap bits outside it; a gradient whose bitmap is not its worker's bit alone, or that carries
// COL, ECE or MOVE (results' flags); a result with COLLISION or RESEND (gradients' flags) or with
// an empty bitmap; padding flags; a next aggregator without MOVE.
std::string a2tp_packet_problem(const a2tp_header_t& h);

}  // namespace fs
