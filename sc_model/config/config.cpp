// The configuration schema: every key of the core with its doc, its parser/validator and its
// printer, the sections protocols register, and the cross-key checks. Adding a parameter means
// adding a field to config.h and one line here (or, for a protocol's key, in its own section).
#include "config/config.h"

#include "config/config_keys.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "common/errors.h"
#include "common/text.h"

namespace fs {
namespace {

// The protocols' sections and default rules, filled before main() runs (function-local
// statics, so registration does not depend on the order static objects are made in).
std::map<std::string, ConfigSection>& section_registry() {
  static std::map<std::string, ConfigSection> sections;
  return sections;
}
std::vector<ConfigSection> registered_sections() {
  std::vector<ConfigSection> out;
  for (const auto& kv : section_registry()) out.push_back(kv.second);
  return out;
}
std::map<std::string, std::vector<std::string>>& default_rule_registry() {  // by owner
  static std::map<std::string, std::vector<std::string>> rules;
  return rules;
}
std::map<std::string, std::vector<KeyChoice>>& choice_registry() {  // by key
  static std::map<std::string, std::vector<KeyChoice>> choices;
  return choices;
}

#define FIELD(path) [](Config& c) -> auto& { return c.path; }

std::vector<ConfigKey> make_schema() {
  constexpr uint64_t kMaxU32 = 0xFFFFFFFFull;
  std::vector<ConfigKey> s;
  s.push_back(uint_key("sim.seed", "seed of every random choice in the run", 0, ~0ull, FIELD(seed)));

  s.push_back(uint_key("ports.count", "number of switch ports", 1, 4096, FIELD(ports.count)));
  s.push_back(double_key("ports.gbps", "line rate of every port in Gbit/s", 0.001, 1e6, FIELD(ports.gbps)));
  s.push_back(uint_key("ports.wire_overhead", "bytes a frame costs on the wire beyond its captured bytes (preamble, SFD, FCS, inter-frame gap)", 0, 1024, FIELD(ports.wire_overhead)));
  s.push_back(size_key("ports.egress_queue_bytes", "egress queue capacity per port; frames that do not fit are dropped", 1, 1ull << 40, FIELD(ports.egress_queue_bytes)));

  s.push_back(string_key("parser.rules", "match rules 'field=value[,field=value] -> handler_set' separated by ';' (fields: ethertype, ip_proto, udp_dport); unmatched frames are routed", {}, FIELD(parser.rules)));
  s.push_back(uint_key("parser.latency_cycles", "parser/matcher latency in PsPIN cycles", 0, kMaxU32, FIELD(parser.latency_cycles)));
  s.push_back(string_key("parser.icrc", "RoCEv2 frames (IPv4, VLAN-tagged or not, UDP port 4791): check their invariant CRC on the switch's one CRC engine (8 bytes a cycle, a frame at a time, after the parser's latency; frames wait for it) and drop a frame whose ICRC is wrong (drop cause icrc) or that has no room for BTH and ICRC (malformed); off: do not look", {"check", "off"}, FIELD(parser.icrc)));

  s.push_back(string_key("routing.routes", "routing table 'a.b.c.d/len -> port' separated by ';' (longest prefix wins) for frames no rule matches", {}, FIELD(routing.routes)));
  s.push_back(string_key("routing.default_route", "where unmatched, unrouted frames go: 'drop' or a port number", {}, FIELD(routing.default_route)));
  s.push_back(uint_key("routing.latency_cycles", "routing lookup latency in PsPIN cycles", 0, kMaxU32, FIELD(routing.latency_cycles)));

  s.push_back(size_key("packet_buffer.bytes", "L2 packet memory holding packets from arrival until their handler ends", 64, 1ull << 40, FIELD(packet_buffer.bytes)));

  s.push_back(string_key("scheduler.policy", "global packet scheduler policy", {"fcfs", "hier-fcfs"}, FIELD(scheduler.policy)));
  s.push_back(uint_key("scheduler.subset", "S: HPUs per scheduling subset under hier-fcfs (must divide pspin.hpus_per_cluster)", 1, 1024, FIELD(scheduler.subset)));
  s.push_back(uint_key("scheduler.latency_cycles", "global scheduler decision latency in PsPIN cycles", 0, kMaxU32, FIELD(scheduler.latency_cycles)));

  s.push_back(uint_key("pspin.clusters", "number of HPU clusters", 1, 4096, FIELD(pspin.clusters)));
  s.push_back(uint_key("pspin.hpus_per_cluster", "HPUs per cluster", 1, 1024, FIELD(pspin.hpus_per_cluster)));
  s.push_back(double_key("pspin.clock_ghz", "PsPIN clock in GHz (the period is rounded to a whole picosecond)", 0.001, 100, FIELD(pspin.clock_ghz)));
  s.push_back(size_key("pspin.l1_bytes", "L1 TCDM per cluster (handler state plus packet copies)", 4096, 1ull << 30, FIELD(pspin.l1_bytes)));
  s.push_back(size_key("pspin.l2_handler_bytes", "L2 handler memory shared by all clusters", 4096, 1ull << 30, FIELD(pspin.l2_handler_bytes)));
  s.push_back(uint_key("pspin.dispatch_cycles", "cluster scheduler: cycles from a queued task to its DMA start", 0, kMaxU32, FIELD(pspin.dispatch_cycles)));

  s.push_back(size_key("pspin.icache_bytes", "iss: instruction cache per cluster, shared by its HPUs (a power of two)", 64, 1 << 20, FIELD(pspin.icache_bytes)));
  s.push_back(uint_key("pspin.icache_line_bytes", "iss: instruction cache line (a power of two)", 4, 1024, FIELD(pspin.icache_line_bytes)));
  s.push_back(uint_key("pspin.icache_ways", "iss: instruction cache associativity (LRU)", 1, 64, FIELD(pspin.icache_ways)));
  s.push_back(uint_key("pspin.icache_miss_cycles", "iss: cycles to refill an instruction cache line from program memory", 0, 100000, FIELD(pspin.icache_miss_cycles)));
  s.push_back(uint_key("pspin.l1_banks", "iss: word-interleaved L1 TCDM banks per cluster; two HPUs on one bank in one cycle cost a stall (with hpu.interleave = on)", 1, 1024, FIELD(pspin.l1_banks)));
  s.push_back(uint_key("dma.latency_cycles", "fixed cycles of a cluster DMA L2->L1 copy", 0, kMaxU32, FIELD(dma.latency_cycles)));
  s.push_back(uint_key("dma.bytes_per_cycle", "cluster DMA bandwidth in bytes per cycle", 1, 1 << 20, FIELD(dma.bytes_per_cycle)));

  s.push_back(string_key("hpu.model", "how HPUs execute handlers: native C code with a cost model, or RISC-V code on the ISS", {"native", "iss"}, FIELD(hpu.model)));
  s.push_back(uint_key("hpu.native_fixed_cycles", "native cost model: fixed cycles per handler run", 0, kMaxU32, FIELD(hpu.native_fixed_cycles)));
  s.push_back(double_key("hpu.native_cycles_per_byte", "native cost model: cycles per packet byte", 0, 1e6, FIELD(hpu.native_cycles_per_byte)));

  s.push_back(uint_key("hpu.max_cycles", "iss: a handler run longer than this many cycles is a fault (watchdog)", 1, ~0ull >> 8, FIELD(hpu.max_cycles)));
  s.push_back(string_key("hpu.on_fault", "iss: what a handler fault does: abort the run (exit 1) or drop the packet and continue", {"abort", "drop"}, FIELD(hpu.on_fault)));
  s.push_back(string_key("hpu.interleave", "iss: run a cluster's HPUs interleaved in simulated-time order (on), or each handler to completion when it starts (off)", {"on", "off"}, FIELD(hpu.interleave)));
  s.push_back(uint_key("hpu.sync_cycles", "iss: interleaved clusters run in windows of this many cycles, so accesses from different clusters to shared memory are in time order to within it (1: cycle by cycle, slowest)", 1, 1000000, FIELD(hpu.sync_cycles)));
  s.push_back(uint_key("hpu.remote_l1_cycles", "iss: extra cycles of an access to another cluster's L1", 0, 100000, FIELD(hpu.remote_l1_cycles)));
  s.push_back(uint_key("hpu.l2_cycles", "iss: extra cycles of an access to L2 handler memory", 0, 100000, FIELD(hpu.l2_cycles)));
  s.push_back(uint_key("hpu.stack_bytes", "iss: stack of each HPU, in L1", 256, 1 << 20, FIELD(hpu.stack_bytes)));
  s.push_back(string_key("hpu.handler_dir", "iss: folder of the handler ELFs (empty: the build's handlers/elf)", {}, FIELD(hpu.handler_dir)));
#define TIMING(key, doc) s.push_back(uint_key("timing." #key, doc, 0, 100000, FIELD(hpu.timing.key)))
  TIMING(alu, "iss: cycles of an integer ALU instruction, lui/auipc, CSR access, fence");
  TIMING(load, "iss: cycles of a load (plus its memory region's extra cycles)");
  TIMING(load_use_stall, "iss: extra cycles when an instruction reads the register loaded by the one before");
  TIMING(store, "iss: cycles of a store (plus its memory region's extra cycles)");
  TIMING(branch_taken, "iss: cycles of a taken branch");
  TIMING(branch_not_taken, "iss: cycles of a branch not taken");
  TIMING(jump, "iss: cycles of jal/jalr");
  TIMING(mul, "iss: cycles of mul");
  TIMING(mulh, "iss: cycles of mulh/mulhsu/mulhu");
  TIMING(div_min, "iss: fewest cycles of div/rem (plus the dividend's bit length minus the divisor's)");
  TIMING(div_max, "iss: most cycles of div/rem");
  TIMING(misaligned, "iss: extra cycles of a load or store that is not naturally aligned");
  TIMING(atomic, "iss: cycles of lr/sc/amo (plus the region's extra cycles)");
  TIMING(fpu, "iss: cycles of fadd/fsub/fmul/fmadd family/fmin/fmax/compare/sign/move");
  TIMING(fcvt, "iss: cycles of float-integer conversions and fclass");
  TIMING(fdiv, "iss: cycles of fdiv.s");
  TIMING(fsqrt, "iss: cycles of fsqrt.s");
#undef TIMING
  s.push_back(uint_key("command.latency_cycles", "command unit: cycles from a handler's send to the egress queue", 0, kMaxU32, FIELD(command.latency_cycles)));

  {
    std::vector<std::string> models = {"none"};
    std::string doc = "closed-loop hosts on the switch's ports: none (a trace drives the switch)";
    for (const KeyChoice& m : key_choices("hosts.model")) {
      models.push_back(m.value);
      doc += ", or " + m.value + " (" + m.doc + ")";
    }
    s.push_back(string_key("hosts.model", doc, models, FIELD(hosts.model)));
  }
  s.push_back(size_key("hosts.bytes", "allreduce hosts: data per host", 1, 1ull << 32, FIELD(hosts.bytes)));
  s.push_back(uint_key("hosts.elem_bytes", "allreduce hosts: element bytes per packet", 4, 8192, FIELD(hosts.elem_bytes)));
  s.push_back(string_key("hosts.dtype", "allreduce hosts: element type", {"int32", "int16", "int8", "float32"}, FIELD(hosts.dtype)));
  s.push_back(string_key("hosts.op", "allreduce hosts: reduction operator", {"sum", "min", "max"}, FIELD(hosts.op)));
  s.push_back(uint_key("hosts.window", "allreduce hosts: blocks a host has in flight at most (sent, result not back); 0 = no limit. Hosts also send block b only once block b - T is done (T: the block states the switch has for the allreduce)", 0, kMaxU32, FIELD(hosts.window)));
  s.push_back(bool_key("hosts.stagger", "allreduce hosts: staggered sending (host h starts at another block; within groups of min(hosts.window, T / 2) blocks, T: the allreduce's block states)", FIELD(hosts.stagger)));
  s.push_back(uint_key("hosts.timeout_ns", "allreduce hosts: a contribution whose result is not back this long after it was sent is sent again", 1, 1ull << 40, FIELD(hosts.timeout_ns)));
  s.push_back(double_key("hosts.loss", "allreduce hosts: probability that a send is lost on the host's link", 0, 1, FIELD(hosts.loss)));
  for (const ConfigSection& sec : registered_sections())
    for (const ConfigKey& k : sec.keys) s.push_back(k);
  return s;
}
#undef FIELD

}  // namespace

void register_config_section(ConfigSection section) {
  const std::string name = section.name;
  if (!section_registry().emplace(name, std::move(section)).second)
    throw std::logic_error("configuration section '" + name + "' registered twice");
}

void register_default_parser_rule(const std::string& owner, const std::string& rule) {
  default_rule_registry()[owner].push_back(rule);
}

std::string default_parser_rules() {
  std::string out;
  for (const auto& kv : default_rule_registry())
    for (const std::string& r : kv.second) out += (out.empty() ? "" : "; ") + r;
  return out;
}

void register_key_choice(const std::string& key, const KeyChoice& choice) { choice_registry()[key].push_back(choice); }

const std::vector<KeyChoice>& key_choices(const std::string& key) {
  static const std::vector<KeyChoice> none;
  const auto it = choice_registry().find(key);
  return it == choice_registry().end() ? none : it->second;
}

SectionValues::SectionValues() {
  for (const auto& kv : section_registry()) values_[kv.first] = kv.second.defaults;
}

std::any& SectionValues::find(const std::string& section) {
  const auto it = values_.find(section);
  if (it == values_.end()) throw std::logic_error("configuration section '" + section + "' is not registered");
  return it->second;
}

const std::vector<ConfigKey>& config_schema() {
  static const std::vector<ConfigKey> schema = make_schema();
  return schema;
}

const ConfigKey* find_config_key(const std::string& name) {
  for (const auto& k : config_schema())
    if (k.name == name) return &k;
  return nullptr;
}

uint64_t parse_size(const std::string& key, const std::string& text) {
  std::string t = trim(text);
  uint64_t mult = 1;
  struct Suffix { const char* s; uint64_t m; };
  for (Suffix suf : {Suffix{"KiB", 1ull << 10}, Suffix{"MiB", 1ull << 20}, Suffix{"GiB", 1ull << 30}}) {
    const size_t n = std::char_traits<char>::length(suf.s);
    if (t.size() > n && t.compare(t.size() - n, n, suf.s) == 0) {
      mult = suf.m;
      t = trim(t.substr(0, t.size() - n));
      break;
    }
  }
  const char* want = "a size in bytes, optionally with a KiB, MiB or GiB suffix";
  uint64_t v = 0;
  if (!parse_decimal(t, ~0ull / mult, &v)) bad_value(key, text, want);
  return v * mult;
}

std::vector<unsigned> parse_port_list(const std::string& key, const std::string& text) {
  std::vector<unsigned> out;
  const char* want = "a port list such as 0-15 or 0,2,5-7";
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    item = trim(item);
    if (item.empty()) bad_value(key, text, want);
    size_t dash = item.find('-');
    auto num = [&](const std::string& t) {
      if (t.empty() || t.find_first_not_of("0123456789") != std::string::npos || t.size() > 5)
        bad_value(key, text, want);
      return unsigned(std::stoul(t));
    };
    unsigned a = num(trim(item.substr(0, dash)));
    unsigned b = dash == std::string::npos ? a : num(trim(item.substr(dash + 1)));
    if (b < a) bad_value(key, text, want);
    for (unsigned p = a; p <= b; ++p) {
      for (unsigned q : out)
        if (q == p) bad_value(key, text, "a port list without repeated ports");
      out.push_back(p);
    }
  }
  if (out.empty()) bad_value(key, text, want);
  return out;
}

void validate_config(const Config& c) {
  // Every HPU is a SystemC process with its own stack: keep the model within what one machine runs.
  constexpr uint64_t kMaxHpus = 16384;
  if (uint64_t(c.pspin.clusters) * c.pspin.hpus_per_cluster > kMaxHpus)
    throw InputError("'pspin.clusters' x 'pspin.hpus_per_cluster' = " + std::to_string(c.pspin.clusters) + " x " +
                     std::to_string(c.pspin.hpus_per_cluster) + " HPUs; at most " + std::to_string(kMaxHpus) +
                     " are supported");
  if (c.pspin.hpus_per_cluster % c.scheduler.subset != 0)
    throw InputError("bad value '" + std::to_string(c.scheduler.subset) +
                     "' for 'scheduler.subset': must divide pspin.hpus_per_cluster (" +
                     std::to_string(c.pspin.hpus_per_cluster) + ")");
  {
    const uint64_t bytes = c.pspin.icache_bytes, line = c.pspin.icache_line_bytes, ways = c.pspin.icache_ways;
    auto pow2 = [](uint64_t v) { return v && !(v & (v - 1)); };
    if (!pow2(bytes) || !pow2(line) || line > bytes || (bytes / line) % ways != 0)
      throw InputError("bad instruction cache geometry: 'pspin.icache_bytes' = " + std::to_string(bytes) +
                       " and 'pspin.icache_line_bytes' = " + std::to_string(line) +
                       " must be powers of two, the line no larger than the cache, and 'pspin.icache_ways' = " +
                       std::to_string(ways) + " must divide the number of lines");
  }
  if (c.routing.default_route != "drop") {
    const std::string& d = c.routing.default_route;
    if (d.empty() || d.find_first_not_of("0123456789") != std::string::npos || d.size() > 5 ||
        std::stoul(d) >= c.ports.count)
      throw InputError("bad value '" + d + "' for 'routing.default_route': expected 'drop' or a port from 0 to " +
                       std::to_string(c.ports.count - 1));
  }
}

nlohmann::json config_to_json(const Config& cfg) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& k : config_schema()) {
    const size_t dot = k.name.find('.');
    j[k.name.substr(0, dot)][k.name.substr(dot + 1)] = k.json(cfg);
  }
  return j;
}

RtlChoice parse_rtl_blocks(const std::string& list) {
  RtlChoice r;
  std::istringstream in(list);
  for (std::string raw; std::getline(in, raw, ',');) {
    const std::string b = trim(raw);
    if (b == "pkt_sched") r.pkt_sched = true;
    else if (b == "cluster_sched") r.cluster_sched = true;
    else if (b == "crc32") r.crc32 = true;
    else if (b == "all") r.pkt_sched = r.cluster_sched = r.crc32 = true;
    else if (b == "none" || b.empty()) continue;
    else
      throw InputError("--rtl: unknown block '" + b + "': expected a comma-separated list of pkt_sched, cluster_sched, "
                       "crc32, or all, or none");
  }
  return r;
}

}  // namespace fs
