// Flare frames for the simulator side of the flare_dense protocol (traces, generator, hosts,
// verifier): the builder that wraps a Flare header and elements in a UDP frame following the host
// addressing convention, and the text names of Flare's dtypes and operators.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "flare/flare_proto.h"
#include "net/frame.h"

namespace fs {

// Most element bytes a Flare frame may carry so that the whole frame fits in 65535 bytes (the
// largest packet of a trace): 65535 - 42 header bytes - 16 Flare header bytes.
constexpr size_t kMaxFlareElemBytes = 65535 - FLARE_PAYLOAD_OFFSET - FLARE_HEADER_BYTES;

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
