// The collectives' configuration section ("collectives"): how the host baselines (hosts.model ps,
// hierarchical_ring: schedules.h) send.
#pragma once
#include <vector>

#include "config/config.h"

namespace fs {

struct CollectivesConfig {
  unsigned window = 8;   // packets a transfer may have unacknowledged
};
constexpr const char* kCollectivesSection = "collectives";
inline const CollectivesConfig& collectives_config(const Config& cfg) {
  return cfg.sections.get<CollectivesConfig>(kCollectivesSection);
}
inline unsigned collectives_window(const Config& cfg) { return collectives_config(cfg).window; }
std::vector<ConfigKey> collectives_config_keys();

}  // namespace fs
