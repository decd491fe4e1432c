// The RoCEv2 ICRC reference, the engine's byte stream for a frame, and the engine's C++ twin
// (see icrc.h).
#include "net/icrc.h"

#include <string>

#include "common/errors.h"
#include "fs_packet.h"
#include "net/crc32.h"

namespace fs {
namespace {

constexpr uint32_t kPoly = kCrc32Poly;
constexpr uint32_t kInit = kCrc32Init;

uint16_t be16(const uint8_t* p) { return uint16_t(p[0] << 8 | p[1]); }

[[noreturn]] void not_roce(const std::string& why) { throw InputError("not a RoCEv2 frame: " + why); }

// The twin's byte step, a bit at a time as rtl/icrc_engine.sv writes it.
uint32_t crc_byte_bits(uint32_t crc, uint8_t b) {
  uint32_t c = crc ^ b;
  for (int k = 0; k < 8; ++k) c = (c >> 1) ^ ((c & 1) ? kPoly : 0u);
  return c;
}

}  // namespace

bool addressed_as_roce(const uint8_t* frame, size_t len) {
  if (len < 14) return false;
  size_t ip = 14;
  uint16_t ethertype = be16(frame + 12);
  if (ethertype == 0x8100 && len >= 18) {
    ethertype = be16(frame + 16);
    ip = 18;
  }
  if (ethertype != 0x0800 || len < ip + 20 || (frame[ip] >> 4) != 4 || frame[ip + 9] != 17) return false;
  const size_t udp = ip + size_t(frame[ip] & 0xF) * 4;
  return len >= udp + 4 && be16(frame + udp + 2) == kRoceUdpPort;
}

RoceLayout roce_layout(const uint8_t* frame, size_t len) {
  if (len < 14) not_roce("frame of " + std::to_string(len) + " bytes is shorter than an Ethernet header (14)");
  RoceLayout l;
  size_t type_at = 12;
  uint16_t ethertype = be16(frame + type_at);
  if (ethertype == 0x8100) {
    if (len < 18) not_roce("frame of " + std::to_string(len) + " bytes is shorter than an 802.1Q-tagged Ethernet header (18)");
    type_at = 16;
    ethertype = be16(frame + type_at);
  }
  if (ethertype == 0x86DD) not_roce("IPv6 (ethertype 0x86dd) is not supported, only IPv4");
  if (ethertype != 0x0800) {
    static const char* hex = "0123456789abcdef";
    std::string h = "0x";
    for (int s = 12; s >= 0; s -= 4) h += hex[(ethertype >> s) & 0xF];
    not_roce("ethertype " + h + " is not IPv4 (0x0800)");
  }
  l.ip_offset = type_at + 2;
  const uint8_t* ip = frame + l.ip_offset;
  const size_t ip_avail = len - l.ip_offset;
  if (ip_avail < 20) not_roce("IPv4 header truncated (" + std::to_string(ip_avail) + " of 20 bytes)");
  if ((ip[0] >> 4) != 4) not_roce("IPv4 version field is " + std::to_string(ip[0] >> 4) + ", not 4");
  l.ip_header = size_t(ip[0] & 0xF) * 4;
  if (l.ip_header < 20) not_roce("IPv4 IHL " + std::to_string(ip[0] & 0xF) + " is below 5");
  const size_t total = be16(ip + 2);
  if (total < l.ip_header)
    not_roce("IPv4 total length " + std::to_string(total) + " is smaller than its header (" + std::to_string(l.ip_header) + ")");
  if (total > ip_avail)
    not_roce("IPv4 total length " + std::to_string(total) + " exceeds the " + std::to_string(ip_avail) + " bytes present");
  if ((be16(ip + 6) & 0x3FFF) != 0) not_roce("IPv4 fragment (MF set or offset not 0)");
  if (ip[9] != 17) not_roce("IP protocol " + std::to_string(ip[9]) + " is not UDP (17)");
  l.udp_offset = l.ip_offset + l.ip_header;
  const size_t ip_payload = total - l.ip_header;
  if (ip_payload < 8) not_roce("UDP header truncated (" + std::to_string(ip_payload) + " of 8 bytes)");
  const uint8_t* udp = frame + l.udp_offset;
  const size_t udp_len = be16(udp + 4);
  if (udp_len != ip_payload)
    not_roce("UDP length " + std::to_string(udp_len) + " does not match the IPv4 payload (" + std::to_string(ip_payload) + " bytes)");
  const uint16_t dport = be16(udp + 2);
  if (dport != kRoceUdpPort) not_roce("UDP destination port " + std::to_string(dport) + " is not 4791");
  const size_t payload = udp_len - 8;
  if (payload < kBthBytes + kIcrcBytes)
    not_roce("UDP payload of " + std::to_string(payload) + " bytes is shorter than BTH + ICRC (16)");
  l.bth_offset = l.udp_offset + 8;
  l.icrc_offset = l.udp_offset + udp_len - kIcrcBytes;
  return l;
}

IcrcStream icrc_stream(const uint8_t* frame, size_t len) {
  const RoceLayout l = roce_layout(frame, len);
  IcrcStream s;
  s.data.assign(kIcrcPrefixBytes, 0xFF);
  s.mask.assign(kIcrcPrefixBytes, 1);
  s.data.insert(s.data.end(), frame + l.ip_offset, frame + l.icrc_offset);
  s.mask.resize(s.data.size(), 0);
  const size_t ip = kIcrcPrefixBytes;  // where the IPv4 header is in the stream
  const size_t udp = ip + l.ip_header;
  for (size_t at : {ip + 1, ip + 8, ip + 10, ip + 11,   // TOS, TTL, header checksum
                    udp + 6, udp + 7,                   // UDP checksum
                    udp + 8 + 4})                       // BTH byte 4: FECN, BECN, reserved
    s.mask[at] = 1;
  return s;
}

uint32_t icrc_of_stream(const IcrcStream& s) {
  Bytes masked = s.data;
  for (size_t i = 0; i < masked.size(); ++i)
    if (s.mask[i]) masked[i] = 0xFF;
  return crc32(masked.data(), masked.size());
}

uint32_t roce_icrc(const uint8_t* frame, size_t len) { return icrc_of_stream(icrc_stream(frame, len)); }

uint32_t carried_icrc(const uint8_t* frame, size_t len) {
  return fs_le32(frame + roce_layout(frame, len).icrc_offset);
}

IcrcCore::~IcrcCore() = default;

IcrcEngineModel::IcrcEngineModel(unsigned bytes_per_cycle) : bytes_(bytes_per_cycle) {
  if (bytes_ < 1 || bytes_ > kMaxBytesPerCycle)
    throw InputError("icrc engine: " + std::to_string(bytes_) + " bytes per cycle; it takes 1 to 16");
  reset();
}

void IcrcEngineModel::reset() {
  crc_ = kInit;
  out_ = IcrcOut{};
}

IcrcOut IcrcEngineModel::tick(const IcrcBeat& in) {
  out_.valid = in.valid && in.last;
  if (in.valid) {
    uint32_t c = in.first ? kInit : crc_;
    for (unsigned i = 0; i < bytes_; ++i)
      if (in.keep >> i & 1) c = crc_byte_bits(c, (in.mask >> i & 1) ? 0xFF : in.data[i]);
    crc_ = in.last ? kInit : c;
    if (in.last) out_.crc = ~c;
  }
  return out_;
}

std::vector<IcrcBeat> icrc_beats(const IcrcStream& s, unsigned bytes_per_cycle) {
  if (bytes_per_cycle < 1 || bytes_per_cycle > IcrcCore::kMaxBytesPerCycle)
    throw InputError("icrc engine: " + std::to_string(bytes_per_cycle) + " bytes per cycle; it takes 1 to 16");
  std::vector<IcrcBeat> beats;
  for (size_t at = 0; at < s.data.size(); at += bytes_per_cycle) {
    IcrcBeat b;
    b.valid = true;
    b.first = at == 0;
    b.last = at + bytes_per_cycle >= s.data.size();
    for (unsigned i = 0; i < bytes_per_cycle && at + i < s.data.size(); ++i) {
      b.data[i] = s.data[at + i];
      b.keep |= uint16_t(1u << i);
      if (s.mask[at + i]) b.mask |= uint16_t(1u << i);
    }
    beats.push_back(b);
  }
  return beats;
}

uint32_t icrc_of_frame(IcrcCore& core, const uint8_t* frame, size_t len, uint64_t* ticks) {
  const std::vector<IcrcBeat> beats = icrc_beats(icrc_stream(frame, len), core.bytes_per_cycle());
  IcrcOut out;
  for (size_t n = 0; n < beats.size(); ++n) {
    out = core.tick(beats[n]);
    if (out.valid != beats[n].last)
      throw SimError("icrc engine: out_valid is " + std::to_string(out.valid) + " after beat " + std::to_string(n + 1) +
                     " of " + std::to_string(beats.size()));
  }
  if (ticks) *ticks = beats.size();
  return out.crc;
}

}  // namespace fs
