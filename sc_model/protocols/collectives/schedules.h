// The host baselines' schedules (collective.h) over N members and B blocks, Rina §VI-A4's:
//   ps: the parameter server, co-located (every member is the server of one shard, 1/N of the
//     blocks): each member sends each shard to its server, which sums them and sends the sum
//     back to every member. 2 steps.
//   hierarchical_ring (H-AR, Rina §III-A): the members of a rack (those behind one switch; every
//     rack the same size n) reduce-scatter their vector around the rack's ring, each then holding
//     the rack's sum of one shard (1/n); the members holding the same shard in the R racks run a
//     ring allreduce of it (reduce-scatter and allgather of R parts); each rack then allgathers
//     the shards around its ring. 2(n - 1) + 2(R - 1) steps.
//   ring: the ring allreduce of the N members, for the engine's tests (hosts.model ring has its
//     own). 2(N - 1) steps.
// A shard or part of m of B blocks is blocks [i B / m, (i + 1) B / m).
#pragma once
#include <cstdint>
#include <vector>

#include "protocols/collectives/collective.h"

namespace fs {

CollectiveSchedule ps_schedule(unsigned members, uint64_t blocks);
// `racks`: each rack's ranks, in the order of its ring; every rack of the same size.
CollectiveSchedule hierarchical_schedule(const std::vector<std::vector<unsigned>>& racks, uint64_t blocks);
CollectiveSchedule ring_schedule(const std::vector<unsigned>& ranks, uint64_t blocks);

}  // namespace fs
