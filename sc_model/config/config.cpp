// The configuration schema: every key of the core with its doc, its parser/validator and its
// printer (made from the declarations in config/sections/*.def, iss/timing.def and iss/icache.def), the sections
// protocols register, and the cross-key checks.
#include "config/config.h"

#include "config/config_json.h"
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

// A key with fixed choices ("a|b|c"), to which protocols may add theirs (register_key_choice:
// hosts.model's host models), each listed in the doc with its own.
template <typename Get>
ConfigKey choice_key(const std::string& name, std::string doc, const std::string& choices, Get get) {
  std::vector<std::string> values;
  std::istringstream in(choices);
  for (std::string v; std::getline(in, v, '|');) values.push_back(v);
  for (const KeyChoice& c : key_choices(name)) {
    values.push_back(c.value);
    doc += ", or " + c.value + " (" + c.doc + ")";
  }
  return string_key(name, doc, values, get);
}

std::vector<ConfigKey> make_schema() {
  constexpr uint64_t kMaxU32 = 0xFFFFFFFFull;
  std::vector<ConfigKey> s;
  s.push_back(uint_key("sim.seed", "seed of every random choice in the run", 0, ~0ull, FIELD(seed)));

  // Every key of config/sections/*.def (and iss/timing.def, iss/icache.def), at its field of the Config tree
  // (FS_OWNER: the path of the section's struct in Config).
#define FS_UINT(sec, field, type, def, lo, hi, doc) s.push_back(uint_key(#sec "." #field, doc, lo, hi, FIELD(FS_OWNER.field)));
#define FS_SIZE(sec, field, def, lo, hi, doc) s.push_back(size_key(#sec "." #field, doc, lo, hi, FIELD(FS_OWNER.field)));
#define FS_DOUBLE(sec, field, def, lo, hi, doc) \
  s.push_back(double_key(#sec "." #field, doc, lo, hi, FIELD(FS_OWNER.field)));
#define FS_BOOL(sec, field, def, doc) s.push_back(bool_key(#sec "." #field, doc, FIELD(FS_OWNER.field)));
#define FS_STRING(sec, field, def, doc) s.push_back(string_key(#sec "." #field, doc, {}, FIELD(FS_OWNER.field)));
#define FS_CHOICE(sec, field, def, choices, doc) \
  s.push_back(choice_key(#sec "." #field, doc, choices, FIELD(FS_OWNER.field)));
#define FS_ENUM(sec, field, type, def, doc) s.push_back(enum_key(#sec "." #field, doc, FIELD(FS_OWNER.field)));
#define FS_OWNER ports
#include "config/sections/ports.def"
#undef FS_OWNER
#define FS_OWNER parser
#include "config/sections/parser.def"
#undef FS_OWNER
#define FS_OWNER routing
#include "config/sections/routing.def"
#undef FS_OWNER
#define FS_OWNER packet_buffer
#include "config/sections/packet_buffer.def"
#undef FS_OWNER
#define FS_OWNER nic
#include "config/sections/nic.def"
#undef FS_OWNER
#define FS_OWNER scheduler
#include "config/sections/scheduler.def"
#undef FS_OWNER
#define FS_OWNER pspin
#include "config/sections/pspin.def"
#undef FS_OWNER
#define FS_OWNER dma
#include "config/sections/dma.def"
#undef FS_OWNER
#define FS_OWNER hpu
#include "config/sections/hpu.def"
#undef FS_OWNER
#define FS_OWNER hpu.timing
#include "iss/timing.def"
#undef FS_OWNER
#define FS_OWNER icache
#include "iss/icache.def"
#undef FS_OWNER
#define FS_OWNER command
#include "config/sections/command.def"
#undef FS_OWNER
#define FS_OWNER hosts
#include "config/sections/hosts.def"
#undef FS_OWNER
#define FS_OWNER network
#include "config/sections/network.def"
#undef FS_OWNER
#define FS_OWNER traffic
#include "config/sections/traffic.def"
#undef FS_OWNER
#include "config/sections/undef_key_macros.h"
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
  return parse_number_list(key, text, "port");
}

std::vector<unsigned> parse_number_list(const std::string& key, const std::string& text, const std::string& noun) {
  std::vector<unsigned> out;
  const std::string want = "a " + noun + " list such as 0-15 or 0,2,5-7";
  std::vector<bool> seen(100000);  // numbers have at most 5 digits
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
    for (unsigned p = a; p <= b; ++p) {  // linear: 0-99999 is refused at once
      if (seen[p]) bad_value(key, text, "a " + noun + " list without repeated " + noun + "s");
      seen[p] = true;
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
    const uint64_t bytes = c.icache.bytes, line = c.icache.line_bytes, ways = c.icache.ways;
    auto pow2 = [](uint64_t v) { return v && !(v & (v - 1)); };
    if (!pow2(bytes) || !pow2(line) || line > bytes || (bytes / line) % ways != 0)
      throw InputError("bad instruction cache geometry: 'icache.bytes' = " + std::to_string(bytes) +
                       " and 'icache.line_bytes' = " + std::to_string(line) +
                       " must be powers of two, the line no larger than the cache, and 'icache.ways' = " +
                       std::to_string(ways) + " must divide the number of lines");
  }
  if (c.routing.default_route != "drop" && c.routing.default_route != "learn") {
    const std::string& d = c.routing.default_route;
    if (d.empty() || d.find_first_not_of("0123456789") != std::string::npos || d.size() > 5 ||
        std::stoul(d) >= c.ports.count)
      throw InputError("bad value '" + d + "' for 'routing.default_route': expected 'learn', 'drop' or a port from 0 to " +
                       std::to_string(c.ports.count - 1));
  }
}

nlohmann::json config_to_json(const Config& cfg) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& k : config_schema()) {
    const size_t dot = k.name.find('.');
    std::visit([&](const auto& v) { j[k.name.substr(0, dot)][k.name.substr(dot + 1)] = v; }, k.value(cfg));
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
