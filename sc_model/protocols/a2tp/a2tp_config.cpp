// The a2tp configuration section (see a2tp_config.h).
#include "protocols/a2tp/a2tp_config.h"

#include "a2tp/a2tp_proto.h"
#include "config/config_keys.h"

namespace fs {

#define A2TP(field) FS_SECTION_FIELD(A2tpConfig, kA2tpSection, field)

std::vector<ConfigKey> a2tp_config_keys() {
  std::vector<ConfigKey> s;
  s.push_back(string_key("a2tp.mode", "how jobs share the switch's aggregators: atp (a gradient takes the aggregator its worker hashed it to if free, else goes on to its parameter server), a2tp (the same, and the held aggregator keeps a collision bit that its result carries to its workers: A2TP 4.3.1) or static (each of a2tp.jobs jobs owns an equal share, as SwitchML)",
                         {"atp", "a2tp", "static"}, A2TP(mode)));
  s.push_back(uint_key("a2tp.aggregators", "the switch's aggregators (M), of 248 bytes of values each, cut across the clusters' L1; 0 = none (the a2tp handler set then takes no memory)", 0, 1u << 16,
                       A2TP(aggregators)));
  s.push_back(uint_key("a2tp.jobs", "a2tp.mode static: the jobs the aggregators are split between, a2tp.aggregators / a2tp.jobs each (jobs 0 to a2tp.jobs - 1; the remainder stays unused; another job's gradients go on to its parameter server)", 1, 1u << 16,
                       A2TP(jobs)));
  return s;
}

#undef A2TP

}  // namespace fs
