// The rina protocol's configuration section ("rina"): what an in-network-aggregation switch of
// Rina holds (its aggregator slots, its address) and what the training jobs on a network's hosts
// do (hosts.model rina: rina_jobs.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "config/config.h"

namespace fs {

// A switch's part in a group above it (rina_switch.h's rina_sum_part_t), which the role works out.
struct RinaSumPart {
  uint32_t group_switch = 0, group_address = 0, mask = 0;
  std::vector<unsigned> down;
};

struct RinaConfig {
  unsigned aggregators = 0;      // S, a switch's slots; 0: none (the handler set takes no memory)
  unsigned switch_address = 0;   // the switch's fabric address (fs_fabric_switch_ipv4); the role sets it
  // The jobs (hosts.model rina).
  std::string model = "custom";  // a network/training_models.h preset, or custom (hosts.bytes, compute_us)
  double compute_us = 0;         // custom: compute time per iteration
  double scale = 1;              // a preset's gradient bytes and compute time times this
  double batch = 64;             // samples an iteration, for a preset's compute time and the throughput
  unsigned iterations = 1;
  unsigned packet_bytes = 1024;  // int32 values in a full packet
  unsigned window = 64;          // a sender's ScatterReduce window at the start, in packets
  double rate_gbps = 0;          // "full speed": senders pace at it and windows stop growing at it (0: the link's)
  std::string failed;            // 'HOST@ITERATION,...': members that fail (rina_jobs.h)
  unsigned ack_every = 16;       // packets an ACK covers at most
  uint64_t ack_delay_ns = 1000;  // an ACK waits at most this long for more packets of its row
  std::vector<RinaSumPart> sum_parts;  // not a key: the role's, for a switch below a group above racks
};
constexpr const char* kRinaSection = "rina";
inline RinaConfig& rina_config(Config& cfg) { return cfg.sections.get<RinaConfig>(kRinaSection); }
inline const RinaConfig& rina_config(const Config& cfg) { return cfg.sections.get<RinaConfig>(kRinaSection); }
std::vector<ConfigKey> rina_config_keys();

}  // namespace fs
