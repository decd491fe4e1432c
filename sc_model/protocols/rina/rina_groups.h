// Rina's groups (Rina §IV-A, IV-B): which members run the ring allreduce as one abstracted
// worker behind their rack's in-network-aggregation (INA) switch and which run as autonomous
// workers, and each chunk's steps over the ring. Arithmetic only: the jobs (rina_jobs.h) and the
// network role use it.
//
// An INA switch (one that is not plain: an inc or calibrated switch, which runs the rina handler)
// makes the members nearest it, those the fewest hops away (its rack for a top-of-rack switch;
// for a fat tree's aggregation switch its pod's racks, for a core every rack), one INA group if
// there are at least two, its agent the lowest-ranked (Rina §IV-D: an INA switch and all the
// workers below it run as a single worker). The INA switches with the most members nearest them
// make their groups first; a switch whose members are in a group already (of a switch above it,
// or of one beside it with the same members) makes none. Every other member is a group of its
// own, an autonomous worker. The ring visits the groups in the order of their lowest ranks. A
// member that failed (rina.failed) takes no part from its failure on.
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
  bool ina = false;             // the members nearest an INA switch (else one autonomous worker)
  unsigned tor = 0;             // ina: the group's switch, its position in Topology::switches()
  bool above_racks = false;     // ina: not every member's host links to the group's switch
  std::vector<unsigned> ranks;  // its members' ranks, ascending: the first is the agent
};

// The groups of the members `members` (their hosts, by rank) on `t`, in ring order. With
// `failed` (by rank; empty: none), the failed members take no part (Rina §IV-C2): a switch's
// members whose agent failed make no group there (a rack's run as autonomous workers, as plain
// ring members); a group that lost other members runs without them (excluded by its agent), as
// autonomous workers once its agent is alone.
std::vector<RinaGroup> rina_groups(const Topology& t, const std::vector<unsigned>& members,
                                   const std::vector<bool>& failed = {});

// The ring of one iteration: its groups, each rank's group (-1: failed), and the gradient's cut
// into one chunk a group, each chunk into packets of at most `per_packet` values.
struct RinaRing {
  std::vector<RinaGroup> groups;
  std::vector<int> group_of_rank;
  uint64_t elements = 0;
  unsigned per_packet = 1;
  uint32_t most_packets = 0;  // P: the most packets a chunk has

  RinaRing() = default;
  RinaRing(std::vector<RinaGroup> g, size_t ranks, uint64_t elements, unsigned per_packet);
  unsigned size() const { return unsigned(groups.size()); }
  uint64_t chunk_start(unsigned c) const { return elements * c / groups.size(); }
  uint32_t chunk_packets(unsigned c) const;
  unsigned packet_elements(unsigned c, uint32_t j) const;
  uint64_t packets() const;  // of every chunk
};

// The group that does chunk c's step s in a ring of `groups` groups; the step (1 .. G) at which
// group g adds its gradients to chunk c (it delivers chunk c's sum at that step + G, or, for the
// group that completes it, at step G itself).
inline unsigned rina_group_of_step(unsigned c, unsigned s, unsigned groups) { return (c + s - 1) % groups; }
inline unsigned rina_summing_step(unsigned g, unsigned c, unsigned groups) { return (g + groups - c) % groups + 1; }

}  // namespace fs
