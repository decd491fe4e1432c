// Explicit Congestion Notification (RFC 3168) in a frame's IP header: the two ECN bits of the
// IPv4 TOS byte or the IPv6 traffic class, what they say, and the congestion mark an egress queue
// sets (CE) on a packet that says it is ECN-capable (ECT(0) or ECT(1)); IPv4's header checksum is
// updated with it (RFC 1624's incremental form gives the same as recomputing).
#pragma once
#include <cstdint>

#include "net/packet.h"

namespace fs {

enum class Ecn : uint8_t { kNotEct = 0, kEct1 = 1, kEct0 = 2, kCe = 3 };

// The frame's ECN codepoint (kNotEct for a frame without an IPv4 or IPv6 header the switch
// accepts: walk_headers' rules).
Ecn ecn_of(const Bytes& frame);

// Sets CE if the frame is ECN-capable; true if it did. A frame already marked CE, not
// ECN-capable or without IP is left as it is.
bool mark_ce(Bytes& frame);

// Sets the frame's ECN codepoint (host models marking what they send ECN-capable); false if the
// frame has no IP header to carry it.
bool set_ecn(Bytes& frame, Ecn ecn);

}  // namespace fs
