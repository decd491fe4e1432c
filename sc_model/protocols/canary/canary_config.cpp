// The canary configuration section (see canary_config.h).
#include "protocols/canary/canary_config.h"

#include "canary/canary_proto.h"
#include "config/config_keys.h"

namespace fs {

#define CANARY(field) FS_SECTION_FIELD(CanaryConfig, kCanarySection, field)

std::vector<ConfigKey> canary_config_keys() {
  std::vector<ConfigKey> s;
  s.push_back(uint_key("canary.switch_address", "the switch's Canary address, reported by its collisions; 0 = the switch takes part in no Canary allreduce (the canary handler set then takes no memory). Network runs with hosts.model canary number their switches 1, 2, ... in topology order", 0, 65535,
                       CANARY(switch_address)));
  s.push_back(uint_key("canary.descriptors", "block descriptors in each cluster's L1 (the table has clusters x this many); 0 = as many as the L1 state area holds", 0, 1u << 20,
                       CANARY(descriptors)));
  s.push_back(string_key("canary.mapping", "where a block's descriptor goes: hash (its slot is a hash of the block id; different ids may collide) or static (each of canary.apps applications has an equal share of the slots, its consecutive blocks in consecutive slots: Canary 3.2)",
                         {"hash", "static"}, CANARY(mapping)));
  s.push_back(uint_key("canary.apps", "static mapping: applications sharing the descriptor table (application id mod apps picks the share)", 1, 1u << CANARY_APP_BITS,
                       CANARY(apps)));
  s.push_back(uint_key("canary.timeout_ns", "the switches' aggregation timeout: a block's descriptor is sent on this long after its first packet arrived (Canary 3.1.1)", 1, 1ull << 32,
                       CANARY(timeout_ns)));
  s.push_back(uint_key("canary.lifetime_ns", "a descriptor sent on but never freed by its broadcast (a lost packet, a block re-issued) is freed this long after it was sent; 0 = never", 0, 1ull << 32,
                       CANARY(lifetime_ns)));
  s.push_back(uint_key("canary.app", "hosts: the application id of the allreduce (with hosts.groups: of group g, canary.app + g), in the high bits of its block ids (Canary 3.4)", 0, (1u << CANARY_APP_BITS) - 1,
                       CANARY(app)));
  s.push_back(uint_key("canary.max_attempts", "hosts: ids a block is reduced under in the network (a failure broadcast starts the next) before its hosts fall back to reducing it through the leader alone", 1, 64,
                       CANARY(max_attempts)));
  s.push_back(double_key("canary.noise", "hosts: probability that a host delays a packet by canary.noise_ns before sending it (Canary 5.2.5)", 0, 1,
                         CANARY(noise)));
  s.push_back(uint_key("canary.noise_ns", "hosts: the delay canary.noise adds", 0, 1ull << 32, CANARY(noise_ns)));
  return s;
}

#undef CANARY

}  // namespace fs
