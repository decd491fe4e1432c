// How a run's a2tp training jobs sit on its hosts: hosts.members is cut into hosts.groups
// training jobs of consecutive ranks, and each becomes one or more a2tp jobs on the wire (each
// with its own job number, aggregators, tree of switches and group address), by a2tp.ps:
// - dedicated: the training job's last host is its parameter server (PS), the others its
//   workers (rank r is worker r); one a2tp job with all of the training job's fragments;
// - colocated: every host of a training job of n is a worker, and the PS of one n-th of its
//   fragments (its shard, as PS-based training spreads the model over co-located PSes): n a2tp
//   jobs, shard s's PS on the job's host s. The worker on a shard's PS host hands its gradients
//   to the PS there instead of sending them, so the switches count the shard's other n - 1
//   workers and its results go out to them alone.
// Used by the role (trees and routes) and by the jobs (workers and PSes) alike.
#pragma once
#include <cstdint>
#include <vector>

#include "config/config.h"

namespace fs {

struct A2tpJobLayout {
  unsigned training = 0;          // the training job (its index in hosts.groups' cut)
  std::vector<unsigned> workers;  // hosts, by rank
  unsigned ps = 0;                // the PS's host
  int local = -1;                 // colocated: the rank on the PS's own host; -1: none (dedicated)
  unsigned shard = 0, shards = 1; // the part of the training job's fragments it carries, of how many
  uint32_t group = 0;             // the group address the PS sends its results to (a2tp_group_ipv4)
};

// The a2tp jobs, in job-number order (a training job's shards one after another). InputError
// naming the key for a job the switches cannot serve (more than A2TP_MAX_WORKERS workers, workers
// not on consecutive hosts, or a colocated job of one host).
std::vector<A2tpJobLayout> a2tp_job_layout(const Config& cfg, const std::vector<unsigned>& members);

// The first of the `fragments` fragments of an iteration shard `shard` of `shards` carries, and
// how many: fragments split in order, the first shards one more each where they do not divide.
uint64_t a2tp_shard_first(uint64_t fragments, unsigned shard, unsigned shards);
uint64_t a2tp_shard_fragments(uint64_t fragments, unsigned shard, unsigned shards);

}  // namespace fs
