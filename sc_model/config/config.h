// The simulator's configuration: one tree of plain structs with defaults, and the schema that
// names every key ("section.field"), documents it in one line and converts and validates its
// value. Each key of the core is declared once, in config/sections/<section>.def (the ISS's
// timing and instruction cache in iss/timing.def and iss/icache.def): adding a plain parameter is one line there and its use in a block. INI files and command-line overrides are read with Boost.Program_options (config_io.cpp);
// the effective configuration is echoed into every stats file so a result can be re-run.
#pragma once
#include <any>
#include <cstdint>
#include <functional>
#include <map>
#include <variant>
#include <string>
#include <vector>


#include "config/choices.h"
#include "iss/icache.h"
#include "iss/timing.h"

namespace fs {

// The parser rules the registered protocols ask for by default, ';'-separated, in the order the
// protocols are named (register_default_parser_rule below).
std::string default_parser_rules();

// The core's sections: one struct each, whose fields and defaults come from the section's keys
// as declared in config/sections/<section>.def (each key once: field, type, default, range or
// choices, doc).
#define FS_UINT(sec, field, type, def, lo, hi, doc) type field = def;
#define FS_SIZE(sec, field, def, lo, hi, doc) uint64_t field = def;
#define FS_DOUBLE(sec, field, def, lo, hi, doc) double field = def;
#define FS_BOOL(sec, field, def, doc) bool field = def;
#define FS_STRING(sec, field, def, doc) std::string field = def;
#define FS_CHOICE(sec, field, def, choices, doc) std::string field = def;
#define FS_ENUM(sec, field, type, def, doc) type field = def;
struct PortsConfig {
#include "config/sections/ports.def"
};
struct ParserConfig {
#include "config/sections/parser.def"
};
struct RoutingConfig {
#include "config/sections/routing.def"
};
struct PacketBufferConfig {
#include "config/sections/packet_buffer.def"
};
struct NicConfig {
#include "config/sections/nic.def"
};
struct SchedulerConfig {
#include "config/sections/scheduler.def"
};
struct PspinConfig {
#include "config/sections/pspin.def"
};
struct DmaConfig {
#include "config/sections/dma.def"
};
struct HpuConfig {
#include "config/sections/hpu.def"
  iss::Timing timing;  // the timing.* keys (iss/timing.def)
};
struct CommandConfig {
#include "config/sections/command.def"
};
struct HostsConfig {
#include "config/sections/hosts.def"
};
struct NetworkConfig {
#include "config/sections/network.def"
};
struct TrafficConfig {
#include "config/sections/traffic.def"
};
#include "config/sections/undef_key_macros.h"

// Which blocks run as Verilated RTL instead of their SystemC twins (run --rtl, --vcd). Not a
// configuration key: the twins make the same decisions, so results do not depend on it, and the
// stats (which echo the keys) are the same either way.
struct RtlChoice {
  bool pkt_sched = false, cluster_sched = false, crc32 = false;
  std::string vcd;  // waveform file of the Verilated blocks ("" = none)
  bool any() const { return pkt_sched || cluster_sched || crc32; }
};
// Parses a comma-separated list of pkt_sched, cluster_sched, crc32 (or "all", or "none").
RtlChoice parse_rtl_blocks(const std::string& list);

// The configuration sections that protocols add (keys declared by the protocol, values in a
// struct of its own): one value per registered section, every Config holding all of them from
// construction on, so reading a section never changes a Config.
class SectionValues {
 public:
  SectionValues();  // the registered sections' defaults
  // The value of `section`, which must be registered with type T (else an internal error).
  template <typename T>
  T& get(const std::string& section) {
    return *std::any_cast<T>(&find(section));
  }
  template <typename T>
  const T& get(const std::string& section) const {
    return *std::any_cast<T>(&const_cast<SectionValues*>(this)->find(section));
  }

 private:
  std::any& find(const std::string& section);
  std::map<std::string, std::any> values_;
};

struct Config {
  uint64_t seed = 1;
  PortsConfig ports;
  ParserConfig parser;
  RoutingConfig routing;
  PacketBufferConfig packet_buffer;
  NicConfig nic;
  SchedulerConfig scheduler;
  PspinConfig pspin;
  DmaConfig dma;
  HpuConfig hpu;
  iss::IcacheParams icache;  // the icache.* keys (iss/icache.def)
  CommandConfig command;
  HostsConfig hosts;
  NetworkConfig network;
  TrafficConfig traffic;
  SectionValues sections;  // the protocols' sections (register_config_section)
  RtlChoice rtl;  // not a key (see RtlChoice)
};

// A key's value as the stats echo it: a whole number, a number, a truth value or text.
using ConfigValue = std::variant<uint64_t, double, bool, std::string>;

// One configuration key: its name, one-line doc, and how to read and show its value.
struct ConfigKey {
  std::string name;
  std::string doc;
  std::string choices;  // human-readable list of valid values ("" = see doc)
  std::function<void(Config&, const std::string&)> set;  // throws InputError on a bad value
  std::function<std::string(const Config&)> show;
  std::function<ConfigValue(const Config&)> value;  // for the stats' echo of the configuration
};

// A section a protocol adds: its name (the keys' prefix), the default value of its struct and its
// keys (built with config/config_keys.h, reaching the value through Config::sections). Protocols
// register theirs before main() runs (plugin/protocol.h); the core's keys come first, then the
// sections in name order.
struct ConfigSection {
  std::string name;
  std::any defaults;
  std::vector<ConfigKey> keys;
};
void register_config_section(ConfigSection section);
// A parser rule ("field=value -> handler_set") that belongs in parser.rules by default.
void register_default_parser_rule(const std::string& owner, const std::string& rule);
// A value a protocol adds to a core key's choices (hosts.model: its host models), with a doc.
struct KeyChoice {
  std::string value, doc;
};
void register_key_choice(const std::string& key, const KeyChoice& choice);
const std::vector<KeyChoice>& key_choices(const std::string& key);

// Every key of the configuration, in a fixed order (sections in declaration order).
const std::vector<ConfigKey>& config_schema();
const ConfigKey* find_config_key(const std::string& name);

// Checks relations between keys (e.g. subset divides HPUs per cluster); throws InputError.
void validate_config(const Config& cfg);


// Value parsers shared with the CLI and handler-set installers.
uint64_t parse_size(const std::string& key, const std::string& text);  // "4MiB", "1024", "64KiB"
std::vector<unsigned> parse_port_list(const std::string& key, const std::string& text);  // "0-3,7"
// The same for other numbers ("cluster", "HPU"): InputError names `key` and expects "a NOUN list".
std::vector<unsigned> parse_number_list(const std::string& key, const std::string& text, const std::string& noun);

}  // namespace fs
