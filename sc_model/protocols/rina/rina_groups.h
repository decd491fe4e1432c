// Rina's groups (Rina §IV-A, IV-B): which members run the ring allreduce as one abstracted
// worker behind their rack's in-network-aggregation (INA) switch and which run as autonomous
// workers, and each chunk's steps over the ring. Arithmetic only: the jobs (rina_jobs.h) and the
// network role use it.
//
// A rack is the members whose hosts link to the same switch. A rack behind a switch that is not
// plain (an inc or calibrated switch, which runs the rina handler) with at least two members is
// an INA group, its agent its lowest-ranked member; every other member is a group of its own,
// an autonomous worker. The ring visits the groups in the order of their lowest ranks.
//
// With G groups the gradient is cut into G chunks; chunk c's step s (1 .. 2G - 1) is done by
// group (c + s - 1) mod G: steps 1 .. G add the groups' gradients in turn (the step-G group
// completes the sum), steps G .. 2G - 1 deliver the complete sum to each group's workers. So a
// chunk's dependency chain is 2G - 1 steps, where the ring allreduce of N workers has 2(N - 1).
#pragma once
#include <cstdint>
#include <vector>

#include "network/topology.h"

namespace fs {

struct RinaGroup {
  bool ina = false;             // a rack behind an INA switch (else one autonomous worker)
  unsigned tor = 0;             // ina: the rack's switch, its position in Topology::switches()
  std::vector<unsigned> ranks;  // its members' ranks, ascending: the first is the agent
};

// The groups of the members `members` (their hosts, by rank) on `t`, in ring order.
std::vector<RinaGroup> rina_groups(const Topology& t, const std::vector<unsigned>& members);

// The group that does chunk c's step s in a ring of `groups` groups; the step (1 .. G) at which
// group g adds its gradients to chunk c (it delivers chunk c's sum at that step + G, or, for the
// group that completes it, at step G itself).
inline unsigned rina_group_of_step(unsigned c, unsigned s, unsigned groups) { return (c + s - 1) % groups; }
inline unsigned rina_summing_step(unsigned g, unsigned c, unsigned groups) { return (g + groups - c) % groups + 1; }

}  // namespace fs
