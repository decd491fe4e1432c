// How the packets of a capture (classic pcap, pcapng) get their ingress ports: the rules of
// traces/FORMAT.md, "Ingress ports of captures" (TraceOptions::pcap_port, `--pcap-port`), one
// mechanism for both formats: the interface id, the source MAC's last two bytes, a fixed port,
// a table of source MACs, a table of source IP prefixes, or the VLAN id. `auto` picks one per
// file. The table files are read and checked when the rule is parsed; their errors name
// file:line.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "net/frame_fields.h"

namespace fs {

enum class PortRuleKind { kAuto, kInterface, kSrcMac, kFixed, kMacTable, kIpTable, kVlan };

// The kind of file the rule applies to, for `auto`.
enum class CaptureKind { kPcap, kPcapngOneInterface, kPcapngSeveralInterfaces, kPcapngFromFlaresim };

class PortRule {
 public:
  // Parses a pcap_port value for ports 0 .. num_ports-1; throws InputError ("pcap_port ...: why",
  // or "FILE:LINE: why" for a table).
  PortRule(const std::string& spec, unsigned num_ports);

  PortRuleKind kind() const { return kind_; }
  // `auto` made concrete for a file of this kind (other rules stay as they are).
  PortRule resolved(CaptureKind capture) const;
  // The rule as pcap_port takes it ("src-mac", "mac-table:hosts.txt").
  const std::string& spec() const { return spec_; }
  // Why `auto` chose this rule ("the default for classic pcap"), "" if it was given.
  const std::string& chosen_because() const { return chosen_because_; }
  // For messages: "pcap_port src-mac", plus ", the default for ..." when `auto` chose it.
  std::string describe() const;
  // The table file the rule reads ("" if none).
  const std::string& file() const { return file_; }

  // The ingress port of a frame captured on pcapng interface `iface` (-1: classic pcap, no
  // interface). Throws InputError "where: reason (pcap_port ...)" when the rule gives none or
  // one >= num_ports. Not for `auto`: resolve it first.
  uint16_t port_of(const uint8_t* frame, size_t len, long iface, const std::string& where) const;

 private:
  struct Tables;  // the MAC or IP table of a file, shared by copies of the rule
  [[noreturn]] void unmapped(const std::string& where, const std::string& why) const;
  uint16_t checked(long port, const std::string& where, const std::string& what) const;

  PortRuleKind kind_ = PortRuleKind::kAuto;
  std::string spec_, file_, chosen_because_;  // chosen_because_: why `auto` chose it ("" if given)
  unsigned num_ports_ = 64;
  long fixed_ = -1;      // kFixed: the port; kVlan: the port of untagged frames (-1: none)
  std::shared_ptr<const Tables> tables_;
};

// The rules pcap_port takes, for messages and --help: "auto, interface, src-mac, ...".
const char* port_rule_choices();

// The table file a pcap_port value names (mac-table:FILE, ip-table:FILE), "" if none: an input
// of the command, which no output may overwrite.
std::string port_rule_file(const std::string& spec);

}  // namespace fs
