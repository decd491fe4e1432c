// Flow keys and the flow hash (see flow_key.h).
#include "net/flow_key.h"

#include <sstream>

#include "common/errors.h"
#include "common/text.h"
#include "net/crc32.h"

namespace fs {
namespace {

using Kind = FlowField::Kind;

const char* kValid = "5tuple, src_ip, dst_ip, ip_proto, src_port, dst_port, vlan, src_mac, dst_mac, payload[OFFSET:LENGTH]";

[[noreturn]] void bad_key(const std::string& text, const std::string& why) {
  throw InputError("bad value '" + text + "' for 'scheduler.flow_key': " + why);
}

// "payload[O:L]".
FlowField payload_field(const std::string& text, const std::string& item) {
  const std::string want = "'" + item + "' needs payload[OFFSET:LENGTH], OFFSET 0-65535 and LENGTH 1-64";
  if (item.size() < 10 || item.back() != ']') bad_key(text, want);
  const std::string inside = item.substr(8, item.size() - 9);
  const size_t colon = inside.find(':');
  uint64_t offset = 0, length = 0;
  if (colon == std::string::npos || !parse_decimal(inside.substr(0, colon), 65535, &offset) ||
      !parse_decimal(inside.substr(colon + 1), 64, &length) || length == 0)
    bad_key(text, want);
  FlowField f{Kind::kPayload};
  f.offset = uint32_t(offset);
  f.length = uint32_t(length);
  return f;
}

void put(Bytes* out, const uint8_t* p, size_t n) { out->insert(out->end(), p, p + n); }
void put16(Bytes* out, uint16_t v) { out->push_back(uint8_t(v >> 8)), out->push_back(uint8_t(v)); }
void put48(Bytes* out, uint64_t v) {
  for (int s = 40; s >= 0; s -= 8) out->push_back(uint8_t(v >> s));
}

}  // namespace

FlowKey parse_flow_key(const std::string& text) {
  static const std::pair<const char*, Kind> kNamed[] = {
      {"src_ip", Kind::kSrcIp},     {"dst_ip", Kind::kDstIp},   {"ip_proto", Kind::kIpProto},
      {"src_port", Kind::kSrcPort}, {"dst_port", Kind::kDstPort}, {"vlan", Kind::kVlan},
      {"src_mac", Kind::kSrcMac},   {"dst_mac", Kind::kDstMac}};
  FlowKey key;
  key.text = text;
  std::stringstream ss(text);
  for (std::string raw; std::getline(ss, raw, ',');) {
    const std::string item = trim(raw);
    if (item.empty()) bad_key(text, "an empty field (valid: " + std::string(kValid) + ")");
    if (item == "5tuple") {
      for (Kind k : {Kind::kSrcIp, Kind::kDstIp, Kind::kIpProto, Kind::kSrcPort, Kind::kDstPort})
        key.fields.push_back(FlowField{k});
      continue;
    }
    if (item.compare(0, 8, "payload[") == 0) {
      key.fields.push_back(payload_field(text, item));
      continue;
    }
    bool found = false;
    for (const auto& n : kNamed)
      if (item == n.first) key.fields.push_back(FlowField{n.second}), found = true;
    if (!found) bad_key(text, "unknown field '" + item + "' (valid: " + kValid + ")");
  }
  if (key.fields.empty()) bad_key(text, "no field (valid: " + std::string(kValid) + ")");
  return key;
}

bool flow_key_bytes(const FlowKey& key, const Headers& h, const uint8_t* frame, Bytes* out, std::string* why) {
  out->clear();
  const bool ip = h.ip != IpVersion::kNone;
  for (const FlowField& f : key.fields) {
    switch (f.kind) {
      case Kind::kSrcIp: put(out, h.src_ip, h.ip_bytes()); break;
      case Kind::kDstIp: put(out, h.dst_ip, h.ip_bytes()); break;
      case Kind::kIpProto:
        if (ip) out->push_back(h.ip_proto);
        break;
      case Kind::kSrcPort:
        if (h.ports()) put16(out, h.src_port);
        break;
      case Kind::kDstPort:
        if (h.ports()) put16(out, h.dst_port);
        break;
      case Kind::kVlan: put16(out, h.outer_vid); break;
      case Kind::kSrcMac: put48(out, h.src_mac); break;
      case Kind::kDstMac: put48(out, h.dst_mac); break;
      case Kind::kPayload:
        if (!h.ports() || uint64_t(f.offset) + f.length > h.payload_len) {
          *why = "payload[" + std::to_string(f.offset) + ":" + std::to_string(f.length) + "] is not in the frame";
          return false;
        }
        put(out, frame + h.payload_offset + f.offset, f.length);
        break;
    }
  }
  return true;
}

uint32_t flow_hash(const Bytes& key_bytes) { return crc32(key_bytes.data(), key_bytes.size()); }

}  // namespace fs
