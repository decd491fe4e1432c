// The rina configuration section (see rina_config.h).
#include "protocols/rina/rina_config.h"

#include "config/config_keys.h"
#include "network/training_models.h"
#include "rina/rina_proto.h"

namespace fs {

#define RINA(field) FS_SECTION_FIELD(RinaConfig, kRinaSection, field)

std::vector<ConfigKey> rina_config_keys() {
  std::vector<ConfigKey> s;
  s.push_back(uint_key("rina.aggregators", "an in-network-aggregation switch's aggregator slots for its rack's sums, of 1 KiB of values each, cut across the clusters' L1; 0 = none (the rina handler set then takes no memory)", 0, 1u << 16,
                       RINA(aggregators)));
  s.push_back(uint_key("rina.switch_address", "the switch's fabric address (its IPv4 address is 10.2.x.y of it); network runs with hosts.model rina number their switches 1, 2, ... in topology order", 0, 65535,
                       RINA(switch_address)));
  s.push_back(string_key("rina.model", "hosts.model rina: what the workers train: custom (hosts.bytes of gradients and rina.compute_us of compute an iteration) or a preset (docs/PROTOCOLS.md, \"Training-model presets\"; compute times for rina.batch samples)",
                         training_model_choices(), RINA(model)));
  s.push_back(double_key("rina.compute_us", "hosts.model rina, rina.model custom: the workers' compute time an iteration, before they reduce its gradients", 0, 1e9,
                         RINA(compute_us)));
  s.push_back(double_key("rina.scale", "hosts.model rina: a preset's gradient bytes and compute time are multiplied by this", 1e-9, 1,
                         RINA(scale)));
  s.push_back(double_key("rina.batch", "hosts.model rina: samples a worker trains an iteration (a preset's compute time is for them; the training throughput counts them); Rina 6.1 uses 64 for images, 12 for BERT", 1, 1e6,
                         RINA(batch)));
  s.push_back(uint_key("rina.iterations", "hosts.model rina: training iterations", 1, 1u << 16, RINA(iterations)));
  s.push_back(uint_key("rina.packet_bytes", "hosts.model rina: bytes of int32 values in a full packet (a multiple of 4)", 4, RINA_ELEMENTS * RINA_ELEMENT_BYTES,
                       RINA(packet_bytes)));
  s.push_back(uint_key("rina.window", "hosts.model rina: a sender's ScatterReduce window at the start, the packets it may have unacknowledged (AIMD on the ACKs: +1 a round trip up to full speed, halved by ECN once a round trip; an AllGather window starts at 1)", 1, 1u << 16, RINA(window)));
  s.push_back(double_key("rina.rate_gbps", "hosts.model rina: Rina's full speed, the rate the INA switches aggregate at: senders pace their packets at it and their windows stop growing at its bandwidth-delay product; 0 = each sender's link rate", 0, 1e6,
                         RINA(rate_gbps)));
  s.push_back(string_key("rina.failed", "hosts.model rina: members that fail: 'HOST@ITERATION' entries separated by ',' (host numbers of hosts.members); a member is down from that iteration on (the first is 0): a rack whose agent failed falls back to the plain ring, one that lost another worker runs without it (Rina 4.3.2)",
                         {}, RINA(failed)));
  s.push_back(uint_key("rina.ack_every", "hosts.model rina: the most packets of a sender's stream (a chunk's step) one ACK covers: a group's entry acknowledges a row of them once this many came, the chunk's last came, the row broke or rina.ack_delay_ns passed", 1, 255,
                       RINA(ack_every)));
  s.push_back(uint_key("rina.ack_delay_ns", "hosts.model rina: how long an ACK waits for more packets of its row", 1, 1ull << 32,
                       RINA(ack_delay_ns)));
  return s;
}

#undef RINA

}  // namespace fs
