// ECN codepoints in IPv4 and IPv6 headers (see ecn.h).
#include "net/ecn.h"

#include "net/headers.h"

namespace fs {
namespace {

// Where the byte holding the ECN bits is (-1: no IP header) and how far they are shifted in it:
// IPv4's TOS byte (bits 1..0), IPv6's traffic class, whose low bits sit in the upper nibble of
// the header's second byte.
struct EcnField {
  long offset = -1;
  unsigned shift = 0;
  bool ipv4 = false;
  uint32_t l3 = 0;
};

EcnField field_of(const Bytes& frame) {
  const Headers h = walk_headers(frame.data(), frame.size());
  EcnField f;
  if (!h.ok) return f;
  if (h.ip == IpVersion::kIpv4) f.offset = long(h.l3_offset) + 1, f.shift = 0, f.ipv4 = true;
  if (h.ip == IpVersion::kIpv6) f.offset = long(h.l3_offset) + 1, f.shift = 4;
  f.l3 = h.l3_offset;
  return f;
}

// Replaces the IPv4 header checksum after the 16-bit word at `word_offset` changed from `old_word`
// (RFC 1624, eqn. 3: HC' = ~(~HC + ~m + m')).
void update_ipv4_checksum(Bytes& frame, uint32_t l3, uint16_t old_word, uint16_t new_word) {
  uint8_t* c = frame.data() + l3 + 10;
  uint32_t sum = uint16_t(~((c[0] << 8) | c[1])) + uint16_t(~old_word) + new_word;
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  const uint16_t hc = uint16_t(~sum);
  c[0] = uint8_t(hc >> 8), c[1] = uint8_t(hc);
}

void write(Bytes& frame, const EcnField& f, Ecn ecn) {
  uint8_t& b = frame[size_t(f.offset)];
  const uint8_t old = b;
  b = uint8_t((b & ~(3u << f.shift)) | (unsigned(ecn) << f.shift));
  if (f.ipv4) {
    const uint16_t before = uint16_t((frame[f.l3] << 8) | old), after = uint16_t((frame[f.l3] << 8) | b);
    update_ipv4_checksum(frame, f.l3, before, after);
  }
}

}  // namespace

Ecn ecn_of(const Bytes& frame) {
  const EcnField f = field_of(frame);
  if (f.offset < 0) return Ecn::kNotEct;
  return Ecn((frame[size_t(f.offset)] >> f.shift) & 3);
}

bool mark_ce(Bytes& frame) {
  const EcnField f = field_of(frame);
  if (f.offset < 0) return false;
  const Ecn e = Ecn((frame[size_t(f.offset)] >> f.shift) & 3);
  if (e != Ecn::kEct0 && e != Ecn::kEct1) return false;
  write(frame, f, Ecn::kCe);
  return true;
}

bool set_ecn(Bytes& frame, Ecn ecn) {
  const EcnField f = field_of(frame);
  if (f.offset < 0) return false;
  write(frame, f, ecn);
  return true;
}

}  // namespace fs
