// The a2tp protocol's configuration section ("a2tp"): what a switch's aggregators are (how many,
// shared by hashing as ATP and A2TP do or split statically between jobs as SwitchML does).
#pragma once
#include <string>
#include <vector>

#include "config/config.h"

namespace fs {

struct A2tpConfig {
  std::string mode = "a2tp";  // atp, a2tp or static (a2tp_switch.h's enum a2tp_mode)
  unsigned aggregators = 0;   // M, the switch's aggregators; 0: none (the handler set takes no memory)
  unsigned jobs = 1;          // static: the jobs the aggregators are split between
};
constexpr const char* kA2tpSection = "a2tp";
inline A2tpConfig& a2tp_config(Config& cfg) { return cfg.sections.get<A2tpConfig>(kA2tpSection); }
inline const A2tpConfig& a2tp_config(const Config& cfg) { return cfg.sections.get<A2tpConfig>(kA2tpSection); }
// The section's keys.
std::vector<ConfigKey> a2tp_config_keys();

}  // namespace fs
