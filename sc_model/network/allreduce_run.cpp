// The stats and members of a network allreduce (see allreduce_run.h).
#include "network/allreduce_run.h"

#include "common/errors.h"
#include "config/config.h"

namespace fs {

void AllreduceStats::conclude(Picos done_at, bool right) {
  const bool done = unfinished_ranks == 0;
  done_us = done ? double(done_at) / double(kPicosPerUs) : 0.0;
  // Every member's data over the time to the last result (Gbit/s = bits per ns).
  allreduce_gbps = done && done_at ? double(hosts) * double(bytes) * 8.0 * 1e3 / double(done_at) : 0.0;
  results_ok = done && right;
}

void AllreduceStats::report(StatsTree& out) const {
  out["model"] = model;
  out["hosts"] = hosts, out["bytes"] = bytes;
  out["trees"] = trees, out["levels"] = levels;
  out["packets_sent"] = packets_sent, out["bytes_sent"] = bytes_sent, out["acks_sent"] = acks_sent;
  out["retransmissions"] = retransmissions, out["gave_up"] = gave_up;
  out["stray_packets"] = stray_packets;
  out["unfinished_ranks"] = unfinished_ranks;
  out["done_us"] = done_us;
  out["allreduce_gbps"] = allreduce_gbps;
  out["results_ok"] = results_ok;
  out["details"].make_object() = details;
}

std::vector<unsigned> member_hosts(const std::string& text, unsigned hosts) {
  std::vector<unsigned> members;
  if (text == "all") {
    for (unsigned h = 0; h < hosts; ++h) members.push_back(h);
    return members;
  }
  members = parse_number_list("hosts.members", text, "host");  // which refuses a host twice
  for (unsigned m : members)
    if (m >= hosts)
      throw InputError("bad value '" + text + "' for 'hosts.members': host " + std::to_string(m) +
                       " does not exist (the network has " + std::to_string(hosts) + " hosts, 0-" +
                       std::to_string(hosts - 1) + ")");
  return members;
}

}  // namespace fs
