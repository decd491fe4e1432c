// The canary protocol's configuration section ("canary"): what a switch's Canary handlers are
// given (its address, the descriptor table and its mapping, the aggregation timeout and the
// descriptors' lifetime) and what the Canary hosts do (their application id, attempts before the
// host-based fallback, the noise of Canary 5.2.5).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "config/config.h"

namespace fs {

struct CanaryConfig {
  // The switch (a network sets switch_address per switch).
  unsigned switch_address = 0;    // 1..65535: what a collision reports (its IPv4: fs_fabric_switch_ipv4);
                                  // 0: the switch takes part in no Canary (the handler set takes no memory)
  unsigned descriptors = 0;       // descriptors per cluster; 0 = as many as the L1 state area holds
  std::string mapping = "hash";   // hash (slot = hash of the id) or static (per-application shares, 3.2)
  unsigned apps = 1;              // static mapping: applications the table is shared between
  uint64_t timeout_ns = 1000;     // the aggregation timeout (3.1.1)
  uint64_t lifetime_ns = 1000000; // a descriptor sent on is freed this long after if no broadcast came; 0 = never
  // The hosts (hosts.model = canary on a network).
  unsigned app = 1;               // application id of the first allreduce (ids: app << 24 | sequence)
  unsigned max_attempts = 3;      // ids a block is tried under in the network before the host-based reduction
  double noise = 0;               // probability that a host delays a packet by noise_ns before sending it
  uint64_t noise_ns = 1000;
};
constexpr const char* kCanarySection = "canary";
inline CanaryConfig& canary_config(Config& cfg) { return cfg.sections.get<CanaryConfig>(kCanarySection); }
inline const CanaryConfig& canary_config(const Config& cfg) { return cfg.sections.get<CanaryConfig>(kCanarySection); }
// The section's keys.
std::vector<ConfigKey> canary_config_keys();

}  // namespace fs
