// a2tp's network role (see a2tp_role.h).
#include "protocols/a2tp/a2tp_role.h"

#include <string>

#include "common/errors.h"
#include "network/allreduce_run.h"
#include "protocols/a2tp/a2tp_jobs.h"
#include "protocols/a2tp/a2tp_layout.h"
#include "protocols/a2tp/a2tp_slots.h"
#include "protocols/a2tp/a2tp_tree.h"
#include "switch/router.h"
#include "a2tp/a2tp_switch.h"

namespace fs {

A2tpFabricRole::A2tpFabricRole(const Config& cfg, const Topology& t) : cfg_(cfg) {
  if (cfg.hosts.model != kA2tpModel) return;
  members_ = member_hosts(cfg.hosts.members, unsigned(t.hosts().size()));
  a2tp_check_setup(cfg);
  const std::vector<A2tpJobLayout> jobs = a2tp_job_layout(cfg, members_);
  wire_jobs_ = unsigned(jobs.size());
  if (a2tp_config(cfg).slots)  // the tables' refusal, before anything runs
    for (const A2tpJobLayout& l : jobs)
      A2tpSlotTable(l.training, a2tp_config(cfg).slots, a2tp_config(cfg).aggregators, l.shard, l.shards);
  a2tp_workload(cfg);
  a2tp_threshold(a2tp_config(cfg).threshold, a2tp_config(cfg).aggregators, wire_jobs_);
  // On one switch, which is every dedicated PS's own, the handler counts a job's every worker;
  // a colocated PS's worker never sends, so there its job's tree says whom the switch waits for.
  if (t.switches().size() == 1 && a2tp_config(cfg).ps == "dedicated") return;
  if (jobs.size() > A2TP_TREE_JOBS)
    throw InputError("hosts.groups: each switch has the trees of at most " + std::to_string(A2TP_TREE_JOBS) +
                     " a2tp jobs, not " + std::to_string(jobs.size()) +
                     (a2tp_config(cfg).ps == "colocated" ? " (a2tp.ps colocated: one for each host)" : ""));
  for (const unsigned node : t.switches()) plain_.push_back(t.nodes[node].kind == SwitchKind::kPlain);
  trees_.assign(t.switches().size(), std::vector<A2tpTreeJob>(jobs.size()));
  for (size_t j = 0; j < jobs.size(); ++j) {
    const std::vector<A2tpTreeJob> tree = a2tp_job_tree(t, jobs[j].workers, jobs[j].ps, cfg.routing.multipath);
    for (size_t s = 0; s < tree.size(); ++s) trees_[s][j] = tree[s];
    groups_.push_back(jobs[j].group);
  }
}

void A2tpFabricRole::configure_switch(unsigned index, Config& c) const {
  if (cfg_.hosts.model != kA2tpModel) return;
  if (!trees_.empty() && plain_[index]) {
    // No handler here: the routes copy each job's results to the switch's children in its tree.
    for (size_t j = 0; j < groups_.size(); ++j) {
      const std::vector<unsigned>& down = trees_[index][j].down;
      if (down.empty()) continue;
      c.routing.routes += (c.routing.routes.empty() ? "" : "; ") + multicast_route(groups_[j], down);
    }
    return;
  }
  if (!trees_.empty()) a2tp_config(c).tree = trees_[index];
  if (a2tp_config(c).mode == "static") a2tp_config(c).jobs = wire_jobs_;
  const std::string rule = "udp_dport=" + std::to_string(A2TP_UDP_PORT_DEFAULT) + " -> a2tp";
  if (c.parser.rules.find("-> a2tp") == std::string::npos)
    c.parser.rules = rule + (c.parser.rules.empty() ? "" : "; " + c.parser.rules);
}

std::unique_ptr<NetworkAllreduce> A2tpFabricRole::attach(Network& net) const {
  if (cfg_.hosts.model != kA2tpModel) return nullptr;
  return std::make_unique<A2tpJobs>("a2tp", cfg_, net, members_);
}

}  // namespace fs
