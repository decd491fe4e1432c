// The a2tp protocol's configuration section ("a2tp"): what a switch's aggregators are (how many,
// shared by hashing as ATP and A2TP do or split statically between jobs as SwitchML does), and
// what the training jobs on a network's hosts do (hosts.model a2tp: a2tp_jobs.h).
#pragma once
#include <bitset>
#include <cstdint>
#include <string>
#include <vector>

#include "a2tp/a2tp_proto.h"
#include "config/config.h"

namespace fs {

// A switch's part in one job's tree (a2tp_switch.h's a2tp_tree_job_t), on a network of several
// switches.
struct A2tpTreeJob {
  std::bitset<A2TP_MAX_WORKERS> mask;  // the job's workers whose gradients pass the switch
  bool passes_on = false;     // not the PS's switch
  std::vector<unsigned> down;  // the ports they come in on
};

struct A2tpConfig {
  std::string mode = "a2tp";  // atp, a2tp or static (a2tp_switch.h's enum a2tp_mode)
  unsigned aggregators = 0;   // M, the switch's aggregators; 0: none (the handler set takes no memory)
  unsigned jobs = 1;          // static: the jobs the aggregators are split between
  // The jobs (hosts.model a2tp).
  std::string ps = "dedicated";  // where a training job's PS is: its last host, or colocated on each (a2tp_layout.h)
  std::string model = "custom";  // a network/training_models.h preset, or custom (hosts.bytes, compute_us)
  double compute_us = 0;         // custom: compute time per iteration
  double scale = 1;              // a preset's gradient bytes and compute time times this
  unsigned iterations = 1;
  std::string threshold = "auto";  // H, or auto: the least Eq. 14 allows (a2tp_model.h)
  unsigned window = 8;             // the workers' windows at the start, in fragments
  unsigned slots = 0;              // ATP's dynamic allocation: a job's table of aggregators (a2tp_slots.h); 0: none
  unsigned fragment_bytes = 248;   // values in a full gradient packet
  std::string stragglers;          // 'JOB.WORKER=LEVEL[@TIME]...' (a2tp_jobs.h)
  double ps_gbps = 0;              // a PS takes packets at this rate (0: at once)
  double sample_us = 0;            // every this long, each job's numbers into the stats' series (0: none)
  // Not a key: what the a2tp role works out for each switch of a network of several (per job).
  std::vector<A2tpTreeJob> tree;
};
constexpr const char* kA2tpSection = "a2tp";
inline A2tpConfig& a2tp_config(Config& cfg) { return cfg.sections.get<A2tpConfig>(kA2tpSection); }
inline const A2tpConfig& a2tp_config(const Config& cfg) { return cfg.sections.get<A2tpConfig>(kA2tpSection); }
// The section's keys.
std::vector<ConfigKey> a2tp_config_keys();

}  // namespace fs
