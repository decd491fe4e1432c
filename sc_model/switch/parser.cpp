// Parser/matcher (see parser.h).
#include "switch/parser.h"

#include <algorithm>
#include <sstream>

#include "common/errors.h"
#include "common/text.h"
#include "net/frame.h"
#include "pspin/handler_sets.h"

namespace fs {
namespace {

[[noreturn]] void bad_rule(const std::string& rule, const std::string& why) {
  throw InputError("bad value '" + rule + "' for 'parser.rules': " + why);
}

uint32_t rule_number(const std::string& rule, const std::string& field, const std::string& v, uint32_t max) {
  // Decimal, or hexadecimal with 0x (EtherTypes are usually written so); no octal surprises.
  const bool hex = v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
  char* end = nullptr;
  unsigned long n = std::strtoul(v.c_str(), &end, hex ? 16 : 10);
  if (v.empty() || *end != '\0' || !std::isxdigit(static_cast<unsigned char>(v[0])) || n > max)
    bad_rule(rule, field + " needs a number from 0 to " + std::to_string(max) + ", not '" + v + "'");
  return uint32_t(n);
}

const char* kValidFields = "ethertype, ip_proto, udp_dport, payload[OFFSET], payload[OFFSET]&MASK";

// The condition payload[OFFSET]=VALUE or payload[OFFSET]&MASK=VALUE: `field` is what stands
// before '='. OFFSET is a byte of the largest UDP payload IPv4 carries.
PayloadByteMatch payload_condition(const std::string& rule, const std::string& cond, const std::string& field,
                                   const std::string& value) {
  const size_t close = field.find(']');
  const std::string after = close == std::string::npos ? "" : trim(field.substr(close + 1));
  if (close == std::string::npos || !(after.empty() || after[0] == '&'))
    bad_rule(rule, "condition '" + cond + "' is not payload[OFFSET]=VALUE or payload[OFFSET]&MASK=VALUE");
  PayloadByteMatch m;
  m.text = cond;
  m.offset = rule_number(rule, "payload offset", trim(field.substr(8, close - 8)), uint32_t(kMaxUdpPayload - 1));
  if (!after.empty()) m.mask = uint8_t(rule_number(rule, "payload mask", trim(after.substr(1)), 0xFF));
  m.value = uint8_t(rule_number(rule, "payload value", value, 0xFF));
  if (m.value & ~m.mask)
    bad_rule(rule, "condition '" + cond + "' can never match: the value has bits outside the mask");
  return m;
}

// Two conditions on the same payload byte that want different values of a bit both look at.
void check_payload_conditions_agree(const std::string& rule, const std::vector<PayloadByteMatch>& conds) {
  for (size_t i = 0; i < conds.size(); ++i)
    for (size_t j = i + 1; j < conds.size(); ++j) {
      const PayloadByteMatch &a = conds[i], &b = conds[j];
      if (a.offset == b.offset && ((a.value ^ b.value) & a.mask & b.mask))
        bad_rule(rule, "conditions '" + a.text + "' and '" + b.text + "' can never both hold");
    }
}

}  // namespace

std::vector<MatchRule> parse_match_rules(const std::string& text) {
  std::vector<MatchRule> rules;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ';')) {
    const std::string rule = trim(item);
    if (rule.empty()) continue;
    const size_t arrow = rule.find("->");
    if (arrow == std::string::npos) bad_rule(rule, "expected 'field=value[,field=value] -> handler_set'");
    MatchRule r;
    r.text = rule;
    const std::string set = trim(rule.substr(arrow + 2));
    r.handler_set = find_handler_set(set);
    if (r.handler_set < 0) {
      std::string names;
      for (const auto& hs : handler_sets()) names += (names.empty() ? "" : ", ") + hs.name;
      bad_rule(rule, "unknown handler set '" + set + "' (valid: " + names + ")");
    }
    std::stringstream fs_(rule.substr(0, arrow));
    std::string cond;
    while (std::getline(fs_, cond, ',')) {
      cond = trim(cond);
      const size_t eq = cond.find('=');
      if (eq == std::string::npos) bad_rule(rule, "condition '" + cond + "' is not field=value");
      const std::string field = trim(cond.substr(0, eq)), value = trim(cond.substr(eq + 1));
      if (field.compare(0, 8, "payload[") == 0) {
        r.payload.push_back(payload_condition(rule, cond, field, value));
        continue;
      }
      if ((field == "ethertype" && r.ethertype) || (field == "ip_proto" && r.ip_proto) ||
          (field == "udp_dport" && r.udp_dport))
        bad_rule(rule, "field '" + field + "' given twice");
      if (field == "ethertype") r.ethertype = uint16_t(rule_number(rule, field, value, 0xFFFF));
      else if (field == "ip_proto") r.ip_proto = uint8_t(rule_number(rule, field, value, 0xFF));
      else if (field == "udp_dport") r.udp_dport = uint16_t(rule_number(rule, field, value, 0xFFFF));
      else bad_rule(rule, "unknown field '" + field + "' (valid: " + kValidFields + ")");
    }
    if (!r.ethertype && !r.ip_proto && !r.udp_dport && r.payload.empty())
      bad_rule(rule, "a rule needs at least one condition");
    check_payload_conditions_agree(rule, r.payload);
    rules.push_back(r);
  }
  return rules;
}

Parser::Parser(sc_core::sc_module_name name, const ParserConfig& cfg, Clock clock, DropLedger& drops,
               std::unique_ptr<IcrcCore> icrc)
    : sc_core::sc_module(name),
      rules_(parse_match_rules(cfg.rules)),
      icrc_(std::move(icrc)),
      cycle_ps_(clock.period_ps),
      icrc_stage_("icrc_stage",
                  [this](PacketPtr p) {
                    const Headers h = walk_headers(p->data.data(), p->data.size());
                    match(std::move(p), h);
                  }),
      drops_(drops),
      stage_("stage", clock.cycles_ps(cfg.latency_cycles), [this](PacketPtr p) { classify(std::move(p)); }) {}

bool Parser::payload_holds(const std::vector<PayloadByteMatch>& conds, const Headers& h, const uint8_t* frame) {
  for (const PayloadByteMatch& c : conds)
    if (!h.udp || c.offset >= h.payload_len || (frame[h.payload_offset + c.offset] & c.mask) != c.value) return false;
  return true;
}

std::vector<int> Parser::handler_sets_used() const {
  std::vector<int> used;
  for (const MatchRule& r : rules_)
    if (std::find(used.begin(), used.end(), r.handler_set) == used.end()) used.push_back(r.handler_set);
  return used;
}

void Parser::accept(PacketPtr p) { stage_.push(std::move(p)); }

void Parser::classify(PacketPtr p) {
  const Headers h = walk_headers(p->data.data(), p->data.size());
  if (!h.ok) {
    drops_.count("malformed");
    return;
  }
  if (icrc_ && addressed_as_roce(p->data.data(), p->data.size())) {  // VLAN-tagged too
    uint64_t cycles = 0;
    uint32_t want = 0;
    try {
      want = icrc_of_frame(*icrc_, p->data.data(), p->data.size(), &cycles);
    } catch (const InputError&) {  // not a RoCEv2 frame after all: no room for BTH and ICRC, a fragment, ...
      drops_.count("malformed");
      return;
    }
    ++icrc_checked;
    icrc_engine_cycles += cycles;
    const Picos now = now_ps();
    Picos& free = engine_free_[p->ingress_port];
    free = std::max(free, now) + cycles * cycle_ps_;
    icrc_wait_ps += free - now;
    if (want != carried_icrc(p->data.data(), p->data.size())) {
      drops_.count("icrc");
      return;
    }
    icrc_stage_.push_at(std::move(p), free);
    return;
  }
  match(std::move(p), h);
}

void Parser::match(PacketPtr p, const Headers& h) {
  if (learn.size()) learn->learn(*p, h);
  for (const MatchRule& r : rules_) {
    if (r.ethertype && h.ethertype != *r.ethertype) continue;
    if (r.ip_proto && (h.ip == IpVersion::kNone || h.ip_proto != *r.ip_proto)) continue;
    if (r.udp_dport && (!h.udp || h.dst_port != *r.udp_dport)) continue;
    if (!payload_holds(r.payload, h, p->data.data())) continue;
    const HandlerSet& hs = handler_sets()[size_t(r.handler_set)];
    p->handler_set = r.handler_set;
    p->payload_offset = h.udp ? h.payload_offset : 0;
    if (hs.block_id_offset >= 0) {
      // The block id (and group) must be inside the UDP payload; a frame too short to carry them
      // is malformed.
      const uint32_t need = uint32_t(std::max(hs.block_id_offset, hs.block_group_offset)) + 4;
      if (!h.udp || h.payload_len < need) {
        drops_.count("malformed");
        return;
      }
      auto be32 = [&](int off) {
        const uint8_t* b = p->data.data() + h.payload_offset + off;
        return (uint32_t(b[0]) << 24) | (uint32_t(b[1]) << 16) | (uint32_t(b[2]) << 8) | b[3];
      };
      p->block_id = be32(hs.block_id_offset);
      if (hs.block_group_offset >= 0) p->block_group = be32(hs.block_group_offset);
    }
    if (flow_key_) {
      std::string why;
      if (!flow_key_bytes(*flow_key_, h, p->data.data(), &key_bytes_, &why)) {
        drops_.count("malformed");
        return;
      }
      p->flow_hash = flow_hash(key_bytes_);
    }
    ++matched;
    to_pspin->accept(std::move(p));
    return;
  }
  ++routed;
  to_router->accept(std::move(p));
}

}  // namespace fs
