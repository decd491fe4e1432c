// Ingress port rules for captures and their table files (see port_rule.h, traces/FORMAT.md).
#include "net/port_rule.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/errors.h"
#include "common/text.h"
#include "fs_packet.h"
#include "net/trace_syntax.h"

namespace fs {

namespace {

struct Entry {
  uint16_t port;
  size_t line;
};

// A table file's lines as (line number, tokens), '#' comments and blank lines left out.
std::vector<std::pair<size_t, std::vector<std::string>>> table_lines(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0)
    throw InputError(path + ": cannot open port table (" + std::strerror(errno) + ")");
  if (S_ISDIR(st.st_mode)) throw InputError(path + ": is a directory, not a port table");
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open port table");
  std::vector<std::pair<size_t, std::vector<std::string>>> out;
  std::string line;
  for (size_t n = 1; std::getline(in, line); ++n) {
    std::vector<std::string> toks = line_words(line);
    if (!toks.empty()) out.emplace_back(n, std::move(toks));
  }
  if (in.bad()) throw InputError(path + ": read error");
  return out;
}

}  // namespace

struct PortRule::Tables {
  std::map<Mac, Entry> macs;
  // IP prefixes by (version, length) and address; lookups try the longest length first.
  std::map<std::pair<int, unsigned>, std::map<std::array<uint8_t, 16>, Entry>> prefixes;
  long default_port = -1;
  size_t default_line = 0;

  // Reads `path`: lines "KEY PORT" (KEY a MAC or an IP prefix) and at most one "default PORT".
  Tables(const std::string& path, bool ip, unsigned num_ports) {
    const char* form = ip ? "'PREFIX PORT' or 'default PORT'" : "'MAC PORT' or 'default PORT'";
    for (const auto& [n, toks] : table_lines(path)) {
      const std::string where = path + ":" + std::to_string(n);
      if (toks.size() != 2) throw InputError(where + ": expected " + form);
      uint64_t port;
      if (!parse_token_uint(toks[1], 0xFFFFFFFFull, &port))
        throw InputError(where + ": bad port " + quote_token(toks[1]) + " (expected a decimal number)");
      if (port >= num_ports)
        throw InputError(where + ": port " + std::to_string(port) + " >= num_ports " + std::to_string(num_ports));
      const Entry e{uint16_t(port), n};
      if (toks[0] == "default") {
        if (default_port >= 0)
          throw InputError(where + ": a second default line (the first is line " + std::to_string(default_line) + ")");
        default_port = long(port);
        default_line = n;
      } else if (ip) {
        IpPrefix p;
        std::string err;
        if (!parse_ip_prefix(toks[0], &p, &err)) throw InputError(where + ": " + err);
        const auto [it, added] = prefixes[{p.addr.version, p.len}].emplace(p.addr.b, e);
        if (!added)
          throw InputError(where + ": " + toks[0] + " is already on line " + std::to_string(it->second.line));
      } else {
        Mac m;
        if (!parse_mac(toks[0], &m))
          throw InputError(where + ": bad MAC address " + quote_token(toks[0]) + " (expected six hex bytes like 02:00:00:00:00:07)");
        const auto [it, added] = macs.emplace(m, e);
        if (!added)
          throw InputError(where + ": " + format_mac(m) + " is already on line " + std::to_string(it->second.line));
      }
    }
    if (macs.empty() && prefixes.empty() && default_port < 0)
      throw InputError(path + ": no entries (lines " + form + ")");
  }

  const Entry* mac(const Mac& m) const {
    const auto it = macs.find(m);
    return it == macs.end() ? nullptr : &it->second;
  }

  const Entry* ip(const IpAddr& a) const {
    for (auto group = prefixes.rbegin(); group != prefixes.rend(); ++group) {
      if (group->first.first != a.version) continue;
      IpPrefix p;
      p.addr = a;
      p.len = group->first.second;
      for (unsigned bit = p.len; bit < 128; ++bit) p.addr.b[bit / 8] &= uint8_t(~(0x80u >> (bit % 8)));
      const auto it = group->second.find(p.addr.b);
      if (it != group->second.end()) return &it->second;
    }
    return nullptr;
  }
};

const char* port_rule_choices() {
  return "auto, interface, src-mac, a port number, mac-table:FILE, ip-table:FILE, vlan or vlan:untagged=PORT";
}

std::string port_rule_file(const std::string& spec) {
  for (const char* prefix : {"mac-table:", "ip-table:"})
    if (spec.rfind(prefix, 0) == 0) return spec.substr(std::strlen(prefix));
  return "";
}

PortRule::PortRule(const std::string& spec, unsigned num_ports) : spec_(spec), num_ports_(num_ports) {
  auto port_number = [&](const std::string& text, const std::string& what) {
    uint64_t v;
    if (!parse_token_uint(text, 0xFFFFFFFFull, &v))
      throw InputError("pcap_port " + quote_token(spec) + ": expected " + what);
    if (v >= num_ports) throw InputError("pcap_port " + spec + " >= num_ports " + std::to_string(num_ports));
    return long(v);
  };
  const size_t colon = spec.find(':');
  const std::string name = spec.substr(0, colon), arg = colon == std::string::npos ? "" : spec.substr(colon + 1);
  if (spec == "auto") {
    kind_ = PortRuleKind::kAuto;
  } else if (spec == "interface") {
    kind_ = PortRuleKind::kInterface;
  } else if (spec == "src-mac") {
    kind_ = PortRuleKind::kSrcMac;
  } else if (spec == "vlan") {
    kind_ = PortRuleKind::kVlan;
  } else if (name == "vlan" && arg.rfind("untagged=", 0) == 0) {
    kind_ = PortRuleKind::kVlan;
    fixed_ = port_number(arg.substr(9), "vlan:untagged=PORT with a decimal port number");
  } else if ((name == "mac-table" || name == "ip-table") && !arg.empty()) {
    kind_ = name == "ip-table" ? PortRuleKind::kIpTable : PortRuleKind::kMacTable;
    file_ = arg;
    tables_ = std::make_shared<const Tables>(file_, kind_ == PortRuleKind::kIpTable, num_ports);
  } else if (token_is_digits(spec)) {
    kind_ = PortRuleKind::kFixed;
    fixed_ = port_number(spec, "a port number");
  } else {
    throw InputError("pcap_port " + quote_token(spec) + ": expected " + port_rule_choices());
  }
}

PortRule PortRule::resolved(CaptureKind capture) const {
  if (kind_ != PortRuleKind::kAuto) return *this;
  const bool interfaces = capture == CaptureKind::kPcapngSeveralInterfaces || capture == CaptureKind::kPcapngFromFlaresim;
  PortRule r(interfaces ? "interface" : "src-mac", num_ports_);
  switch (capture) {
    case CaptureKind::kPcap: r.chosen_because_ = "the default for classic pcap"; break;
    case CaptureKind::kPcapngOneInterface: r.chosen_because_ = "the default for a one-interface pcapng"; break;
    case CaptureKind::kPcapngSeveralInterfaces: r.chosen_because_ = "the default for a pcapng with several interfaces"; break;
    case CaptureKind::kPcapngFromFlaresim: r.chosen_because_ = "the default for a pcapng written by flaresim"; break;
  }
  return r;
}

std::string PortRule::describe() const {
  return "pcap_port " + spec_ + (chosen_because_.empty() ? "" : ", " + chosen_because_ + "; other rules: traces/FORMAT.md");
}

void PortRule::unmapped(const std::string& where, const std::string& why) const {
  throw InputError(where + ": " + why + " (" + describe() + ")");
}

uint16_t PortRule::checked(long port, const std::string& where, const std::string& what) const {
  if (port >= long(num_ports_)) unmapped(where, what + " >= num_ports " + std::to_string(num_ports_));
  return uint16_t(port);
}

uint16_t PortRule::port_of(const uint8_t* frame, size_t len, long iface, const std::string& where) const {
  const FrameFields f = frame_fields(frame, len);
  auto no_mac = [&] {
    unmapped(where, "packet of " + std::to_string(len) + " bytes has no source MAC to take the port from");
  };
  switch (kind_) {
    case PortRuleKind::kAuto:
      break;
    case PortRuleKind::kFixed:
      return uint16_t(fixed_);
    case PortRuleKind::kInterface:
      return checked(iface, where, "interface " + std::to_string(iface));
    case PortRuleKind::kSrcMac: {
      if (!f.eth) no_mac();
      const long port = long(fs_be16(&f.src_mac[4]));
      return checked(port, where, "port " + std::to_string(port) + " from the source MAC " + format_mac(f.src_mac));
    }
    case PortRuleKind::kMacTable: {
      if (const Entry* e = f.eth ? tables_->mac(f.src_mac) : nullptr) return e->port;
      if (tables_->default_port >= 0) return uint16_t(tables_->default_port);
      if (!f.eth) no_mac();
      unmapped(where, "source MAC " + format_mac(f.src_mac) + " is not in " + file_ + ", which has no default line");
    }
    case PortRuleKind::kIpTable: {
      if (const Entry* e = f.src_ip.version ? tables_->ip(f.src_ip) : nullptr) return e->port;
      if (tables_->default_port >= 0) return uint16_t(tables_->default_port);
      if (f.src_ip.version == 0) {
        char type[8];
        std::snprintf(type, sizeof type, "0x%04x", unsigned(f.ethertype));
        unmapped(where, (f.eth ? "no IPv4 or IPv6 header (ethertype " + std::string(type) + ")" : "no Ethernet header") +
                            " to take the source IP from, and " + file_ + " has no default line");
      }
      unmapped(where, "source IP " + format_ip(f.src_ip) + " matches no prefix in " + file_ + ", which has no default line");
    }
    case PortRuleKind::kVlan: {
      if (f.vlan > 0) return checked(f.vlan, where, "VLAN " + std::to_string(f.vlan));
      if (fixed_ >= 0) return uint16_t(fixed_);
      unmapped(where, std::string(f.vlan == 0 ? "priority-tagged frame (VLAN 0)" : "untagged frame") +
                          " and no port for untagged frames (vlan:untagged=PORT gives one)");
    }
  }
  throw InputError(where + ": pcap_port auto was not resolved for the file");  // not reached
}

}  // namespace fs
