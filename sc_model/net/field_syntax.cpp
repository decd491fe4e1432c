// The eth, ip, udp and tcp line syntaxes (see field_syntax.h): key=value items into a FrameSpec
// (net/frame_build.h), with the defaults of traces/FORMAT.md.
#include "net/field_syntax.h"

#include <algorithm>
#include <map>

#include "common/errors.h"
#include "fs_packet.h"
#include "net/frame_build.h"
#include "net/trace_reader.h"

namespace fs {

namespace {

// The layers a keyword describes: eth stops at Ethernet, ip at IP, udp and tcp add their header.
enum class Level { kEth, kIp, kUdp, kTcp };

// The keys each level takes, in the order messages list them.
std::vector<std::string> keys_of(Level level) {
  std::vector<std::string> k = {"src_mac", "dst_mac", "vlan"};
  if (level == Level::kEth) k.push_back("ethertype");
  if (level != Level::kEth) k.insert(k.end(), {"src_ip", "dst_ip", "ttl", "tos", "id"});
  if (level == Level::kIp) k.push_back("proto");
  if (level == Level::kUdp || level == Level::kTcp) k.insert(k.end(), {"sport", "dport"});
  if (level == Level::kTcp) k.insert(k.end(), {"seq", "ack", "flags", "window"});
  k.insert(k.end(), {"len", "payload"});
  return k;
}

// Default ports of udp and tcp lines: an ephemeral source port to the discard service, so that
// a line with no ports matches no protocol's parser rule.
constexpr uint16_t kDefaultSport = 49152, kDefaultDport = 9;
constexpr uint16_t kDefaultEthertype = 0x88b5;  // IEEE 802 local experimental ethertype 1
constexpr uint8_t kDefaultTcpFlags = 0x10;      // ACK
constexpr uint16_t kDefaultWindow = 65535;

// One line's key=value items and the checks on their values; every error names the place and
// the line's keyword.
class Items {
 public:
  Items(const std::string& keyword, const std::string& where) : kw_(keyword), where_(where) {}

  [[noreturn]] void fail(const std::string& why) const { throw InputError(where_ + ": " + kw_ + ": " + why); }
  [[noreturn]] void bad(const std::string& key, const std::string& expect) const {
    fail("bad value " + quote_token(kv_.at(key)) + " for key " + key + " (expected " + expect + ")");
  }

  void read(const std::vector<std::string>& toks, size_t first, const std::vector<std::string>& keys) {
    for (size_t i = first; i < toks.size(); ++i) {
      const size_t eq = toks[i].find('=');
      if (eq == std::string::npos || eq == 0) fail("expected key=value, got " + quote_token(toks[i]));
      const std::string key = toks[i].substr(0, eq);
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
        std::string list;
        for (const std::string& k : keys) list += (list.empty() ? "" : " ") + k;
        fail("unknown key " + quote_token(key) + " (keys: " + list + ")");
      }
      if (eq + 1 == toks[i].size()) fail("empty value for key " + key);
      if (!kv_.emplace(key, toks[i].substr(eq + 1)).second) fail("duplicate key " + key);
    }
  }

  bool has(const std::string& key) const { return kv_.count(key) != 0; }
  const std::string& text(const std::string& key) const { return kv_.at(key); }

  // A decimal or 0x-hexadecimal number no larger than max, or def when the key is absent.
  uint64_t number(const std::string& key, uint64_t max, uint64_t def) const {
    if (!has(key)) return def;
    uint64_t n = 0;
    if (!parse_token_number(kv_.at(key), max, &n)) bad(key, "0.." + std::to_string(max) + ", decimal or 0x hex");
    return n;
  }

  Mac mac(const std::string& key, const Mac& def) const {
    Mac m = def;
    if (has(key) && !parse_mac(kv_.at(key), &m)) bad(key, "a MAC address like 02:00:00:00:00:07");
    return m;
  }

  IpAddr ip(const std::string& key) const {
    IpAddr a;
    if (has(key) && !parse_ip(kv_.at(key), &a)) bad(key, "an IPv4 address like 10.0.0.1 or an IPv6 address like fd00::1");
    return a;
  }

 private:
  std::string kw_, where_;
  std::map<std::string, std::string> kv_;
};

// src_ip/dst_ip: both given and of one IP version, or IPv4 by the host addressing convention.
void set_addresses(const Items& it, uint16_t port, FrameSpec& s) {
  s.src_ip = it.ip("src_ip");
  s.dst_ip = it.ip("dst_ip");
  if (s.src_ip.version == 6 || s.dst_ip.version == 6) {
    if (!it.has("src_ip") || !it.has("dst_ip"))
      it.fail("an IPv6 packet needs both src_ip and dst_ip (the defaults are IPv4)");
    if (s.src_ip.version != s.dst_ip.version)
      it.fail("src_ip " + it.text("src_ip") + " and dst_ip " + it.text("dst_ip") + " are of different IP versions");
    if (it.has("id")) it.fail("key id is IPv4's identification field; an IPv6 packet has none");
    return;
  }
  if (!it.has("src_ip")) {
    s.src_ip.version = 4;
    fs_put_be32(s.src_ip.b.data(), fs_host_ipv4(port));
  }
  if (!it.has("dst_ip")) {
    s.dst_ip.version = 4;
    fs_put_be32(s.dst_ip.b.data(), FS_SWITCH_IPV4);
  }
}

// TCP flags as letters (F S R P A U E C, each at most once) or "none".
uint8_t tcp_flags(const Items& it) {
  if (!it.has("flags")) return kDefaultTcpFlags;
  const std::string& v = it.text("flags");
  if (v == "none") return 0;
  static const std::string letters = "FSRPAUEC";  // bit 0 (FIN) .. bit 7 (CWR)
  uint8_t flags = 0;
  for (char c : v) {
    const size_t bit = letters.find(c);
    if (bit == std::string::npos || (flags >> bit) & 1) it.bad("flags", "letters of FSRPAUEC, each once, or none");
    flags = uint8_t(flags | 1u << bit);
  }
  return flags;
}

Bytes payload(const Items& it) {
  if (it.has("len") && it.has("payload")) it.fail("keys len and payload exclude each other");
  if (it.has("len")) return Bytes(size_t(it.number("len", kMaxTracePacket, 0)), 0);
  Bytes p;
  std::string err;
  if (it.has("payload") && !parse_hex_token(it.text("payload"), &p, &err)) it.fail("payload: " + err);
  return p;
}

class FieldSyntax : public TraceSyntax {
 public:
  FieldSyntax(const char* keyword, Level level) : keyword_(keyword), level_(level) {}
  std::string keyword() const override { return keyword_; }
  std::string usage() const override { return keyword_ + " key=value..."; }
  Bytes build(const std::vector<std::string>& toks, size_t first, uint16_t port,
              const std::string& where) const override {
    Items it(keyword_, where);
    it.read(toks, first, keys_of(level_));
    FrameSpec s;
    Mac host, sw;
    fs_host_mac(port, host.data());
    fs_switch_mac(sw.data());
    s.src_mac = it.mac("src_mac", host);
    s.dst_mac = it.mac("dst_mac", sw);
    s.vlan = it.has("vlan") ? int(it.number("vlan", 4094, 0)) : -1;
    if (level_ == Level::kEth) {
      s.ethertype = uint16_t(it.number("ethertype", 0xFFFF, kDefaultEthertype));
      if (s.ethertype < 0x0600) it.bad("ethertype", "0x0600..0xffff: smaller values are 802.3 lengths");
      if (s.ethertype == 0x8100 || s.ethertype == 0x88a8) it.bad("ethertype", "no VLAN ethertype: use the key vlan");
    } else {
      set_addresses(it, port, s);
      s.ttl = uint8_t(it.number("ttl", 255, 64));
      s.tos = uint8_t(it.number("tos", 255, 0));
      s.ip_id = uint16_t(it.number("id", 0xFFFF, 0));
    }
    if (level_ == Level::kIp) {
      if (!it.has("proto")) it.fail("missing required key proto (the IP protocol number, e.g. 17 for UDP)");
      s.ip_proto = uint8_t(it.number("proto", 255, 0));
    }
    if (level_ == Level::kUdp || level_ == Level::kTcp) {
      s.l4 = level_ == Level::kUdp ? L4::kUdp : L4::kTcp;
      s.sport = uint16_t(it.number("sport", 0xFFFF, kDefaultSport));
      s.dport = uint16_t(it.number("dport", 0xFFFF, kDefaultDport));
    }
    if (level_ == Level::kTcp) {
      s.seq = uint32_t(it.number("seq", 0xFFFFFFFFu, 0));
      s.ack = uint32_t(it.number("ack", 0xFFFFFFFFu, 0));
      s.tcp_flags = tcp_flags(it);
      s.window = uint16_t(it.number("window", 0xFFFF, kDefaultWindow));
    }
    s.payload = payload(it);
    try {
      return build_frame(s);
    } catch (const InputError& e) {
      it.fail(e.what());
    }
  }

 private:
  std::string keyword_;
  Level level_;
};

}  // namespace

const std::vector<const TraceSyntax*>& field_trace_syntaxes() {
  static const FieldSyntax eth("eth", Level::kEth), ip("ip", Level::kIp), udp("udp", Level::kUdp),
      tcp("tcp", Level::kTcp);
  static const std::vector<const TraceSyntax*> all = {&eth, &ip, &tcp, &udp};
  return all;
}

}  // namespace fs
