// The collectives' configuration section (see collectives_config.h).
#include "protocols/collectives/collectives_config.h"

#include "config/config_keys.h"

namespace fs {

#define COLLECTIVES(field) FS_SECTION_FIELD(CollectivesConfig, kCollectivesSection, field)

std::vector<ConfigKey> collectives_config_keys() {
  std::vector<ConfigKey> s;
  s.push_back(uint_key("collectives.window", "hosts.model ps and hierarchical_ring: the packets each transfer may have unacknowledged (its receiver acknowledges every half window); several senders to one member (the parameter server's) share its link and queue", 1, 1u << 16,
                       COLLECTIVES(window)));
  return s;
}

#undef COLLECTIVES

}  // namespace fs
