// The a2tp jobs' places on the hosts (see a2tp_layout.h).
#include "protocols/a2tp/a2tp_layout.h"

#include <algorithm>

#include "a2tp/a2tp_proto.h"
#include "common/errors.h"
#include "network/allreduce_run.h"
#include "protocols/a2tp/a2tp_config.h"

namespace fs {

std::vector<A2tpJobLayout> a2tp_job_layout(const Config& cfg, const std::vector<unsigned>& members) {
  const bool colocated = a2tp_config(cfg).ps == "colocated";
  const std::vector<std::vector<unsigned>> cut = member_groups(members, cfg.hosts.groups, 2, "a2tp training job");
  std::vector<A2tpJobLayout> out;
  for (size_t j = 0; j < cut.size(); ++j) {
    const std::vector<unsigned>& hosts = cut[j];
    const size_t workers = colocated ? hosts.size() : hosts.size() - 1;
    if (workers > A2TP_MAX_WORKERS)
      throw InputError("hosts.groups: job " + std::to_string(j) + " would have " + std::to_string(workers) +
                       " workers; a job has 1 to " + std::to_string(A2TP_MAX_WORKERS) +
                       (colocated ? " (a2tp.ps colocated: each of them a PS too)" : " (and its PS)"));
    for (size_t r = 1; r < workers; ++r)
      if (hosts[r] != hosts[0] + r)
        throw InputError("hosts.members: job " + std::to_string(j) + "'s workers must be consecutive hosts (its " +
                         "results go to a group address the switch expands to them), not host " +
                         std::to_string(hosts[r]) + " after " + std::to_string(hosts[r - 1]));
    A2tpJobLayout a;
    a.training = unsigned(j);
    a.workers.assign(hosts.begin(), hosts.begin() + long(workers));
    if (!colocated) {
      a.ps = hosts.back();
      a.group = a2tp_group_ipv4(a.workers.front());
      out.push_back(a);
      continue;
    }
    a.shards = unsigned(workers);
    for (unsigned s = 0; s < a.shards; ++s) {
      a.shard = s, a.ps = a.workers[s], a.local = int(s);
      a.group = a2tp_group_ipv4(a.ps);  // one per PS host: every shard has its own tree
      out.push_back(a);
    }
  }
  return out;
}

uint64_t a2tp_shard_first(uint64_t fragments, unsigned shard, unsigned shards) {
  const uint64_t each = fragments / shards, extra = fragments % shards;
  return shard * each + std::min<uint64_t>(shard, extra);
}

uint64_t a2tp_shard_fragments(uint64_t fragments, unsigned shard, unsigned shards) {
  return fragments / shards + (shard < fragments % shards ? 1 : 0);
}

}  // namespace fs
