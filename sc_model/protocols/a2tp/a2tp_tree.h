// A job's tree on a network of several switches: the switches its workers' gradients pass on
// their way to its parameter server (PS), each with its part (A2tpTreeJob: the workers whose
// gradients pass it, the ports they come in on, whether it is the PS's own switch). The paths
// are the routes the network installs (network/topology.h's next hops); where a route has
// several ports, routing.multipath dst picks one by the PS's address alone, so every worker's
// path is fixed and, since each switch sends all of a job's gradients on by the same port, the
// paths together form a tree rooted at the PS's switch. What the a2tp role installs in each
// switch (a2tp_switch.h) and routes a plain switch's copies of the job's results by.
#pragma once
#include <vector>

#include "config/choices.h"
#include "network/topology.h"
#include "protocols/a2tp/a2tp_config.h"

namespace fs {

// The parts, by switch (Topology::switches() order; a switch off the tree has mask 0), of the
// job whose workers (by rank) are the hosts `workers` and whose PS is host `ps` (a worker on the
// PS's own host, a2tp.ps colocated, sends nothing over the network and is on no switch's mask).
// InputError
// naming routing.multipath if a worker's path to the PS is not fixed (a choice among ports,
// other than dst).
std::vector<A2tpTreeJob> a2tp_job_tree(const Topology& t, const std::vector<unsigned>& workers, unsigned ps,
                                       PathChoice multipath);

}  // namespace fs
