// The simulator's configuration: one tree of plain structs with defaults, and the schema that
// names every key ("section.field"), documents it in one line and converts and validates its
// value. INI files and command-line overrides are read with Boost.Program_options (config_io.cpp);
// the effective configuration is echoed into every stats file so a result can be re-run.
#pragma once
#include <any>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "iss/timing.h"

namespace fs {

struct PortsConfig {
  unsigned count = 64;                   // switch ports
  double gbps = 100.0;                   // line rate of every port
  unsigned wire_overhead = 24;           // bytes per frame on the wire beyond the captured frame
  uint64_t egress_queue_bytes = 1 << 20; // per egress port; frames beyond it are dropped
};

// The parser rules the registered protocols ask for by default, ';'-separated, in the order the
// protocols are named (register_default_parser_rule below).
std::string default_parser_rules();

struct ParserConfig {
  std::string rules = default_parser_rules();  // ';'-separated match rules
  unsigned latency_cycles = 2;
  std::string icrc = "check";  // RoCEv2 invariant CRC: check | off
};

struct RoutingConfig {
  std::string routes = "";        // ';'-separated "a.b.c.d/len -> port"
  std::string default_route = "drop";  // "drop" or a port number
  unsigned latency_cycles = 2;
};

struct PacketBufferConfig {
  uint64_t bytes = 4 << 20;  // L2 packet memory
};

struct SchedulerConfig {
  std::string policy = "fcfs";  // fcfs | hier-fcfs
  unsigned subset = 1;          // S: HPUs per subset for hier-fcfs
  unsigned latency_cycles = 1;  // global scheduler decision time
};

struct PspinConfig {
  unsigned clusters = 4;
  unsigned hpus_per_cluster = 8;
  double clock_ghz = 1.0;
  uint64_t l1_bytes = 1 << 20;          // per-cluster L1 TCDM
  uint64_t l2_handler_bytes = 4 << 20;  // L2 handler memory shared by all clusters
  unsigned dispatch_cycles = 2;         // cluster scheduler: from task to HPU start of DMA
  uint64_t icache_bytes = 4096;         // iss: per-cluster instruction cache
  unsigned icache_line_bytes = 16;
  unsigned icache_ways = 4;
  unsigned icache_miss_cycles = 15;     // iss: refill from program memory
  unsigned l1_banks = 32;               // iss: word-interleaved TCDM banks per cluster
};

struct DmaConfig {
  unsigned latency_cycles = 4;   // fixed cost of an L2->L1 packet copy
  unsigned bytes_per_cycle = 16; // 1 KiB in 64 cycles
};

struct HpuConfig {
  std::string model = "iss";        // iss | native
  unsigned native_fixed_cycles = 40;  // native cost model: fixed part per handler run
  double native_cycles_per_byte = 1.0;  // native cost model: per byte of packet
  uint64_t max_cycles = 1000000;    // iss: watchdog per handler run
  std::string on_fault = "abort";   // iss: abort the run, or drop the packet and go on
  std::string interleave = "on";    // iss: interleave a cluster's HPUs in simulated-time order
  unsigned sync_cycles = 100;       // iss: how far apart clusters may run (cross-cluster ordering)
  unsigned remote_l1_cycles = 24;   // iss: extra cycles of an access to another cluster's L1
  unsigned l2_cycles = 15;          // iss: extra cycles of an access to L2 handler memory
  unsigned stack_bytes = 2048;      // iss: stack of each HPU (in L1)
  std::string handler_dir = "";     // iss: where handler ELFs are ("" = the build's)
  iss::Timing timing;               // iss: cycles per instruction class
};

struct CommandConfig {
  unsigned latency_cycles = 4;  // from the handler's command to the egress queue
};

// Closed-loop host agents attached to the switch's ports (instead of, or beside, a trace): the
// model is one a protocol provides (plugin/protocol.h); the other keys describe the allreduce
// workload every such model runs.
struct HostsConfig {
  std::string model = "none";     // none, or a host model of a protocol ('flaresim info' lists them)
  uint64_t bytes = 1 << 20;       // data per host
  unsigned elem_bytes = 1024;     // element bytes per packet
  std::string dtype = "int32";
  std::string op = "sum";
  unsigned window = 0;            // blocks in flight per host; 0 = no limit
  bool stagger = false;           // host h starts at block h * blocks / hosts (within groups)
  uint64_t timeout_ns = 100000;   // retransmit a contribution whose result is not back by then
  double loss = 0;                // probability that a host's send is lost on its link
};

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
  SchedulerConfig scheduler;
  PspinConfig pspin;
  DmaConfig dma;
  HpuConfig hpu;
  CommandConfig command;
  HostsConfig hosts;
  SectionValues sections;  // the protocols' sections (register_config_section)
  RtlChoice rtl;  // not a key (see RtlChoice)
};

// One configuration key: its name, one-line doc, and how to read and show its value.
struct ConfigKey {
  std::string name;
  std::string doc;
  std::string choices;  // human-readable list of valid values ("" = see doc)
  std::function<void(Config&, const std::string&)> set;  // throws InputError on a bad value
  std::function<std::string(const Config&)> show;
  std::function<nlohmann::json(const Config&)> json;
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

// The effective configuration as a JSON object {"section": {"key": value}}.
nlohmann::json config_to_json(const Config& cfg);

// Value parsers shared with the CLI and handler-set installers.
uint64_t parse_size(const std::string& key, const std::string& text);  // "4MiB", "1024", "64KiB"
std::vector<unsigned> parse_port_list(const std::string& key, const std::string& text);  // "0-3,7"

}  // namespace fs
