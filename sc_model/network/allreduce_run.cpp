// The stats and members of a network allreduce (see allreduce_run.h).
#include "network/allreduce_run.h"

#include <algorithm>

#include "common/errors.h"
#include "common/splitmix64.h"
#include "config/config.h"

namespace fs {

void AllreduceStats::conclude(Picos done_at, bool right) {
  const bool done = unfinished_ranks == 0;
  done_us = done ? double(done_at) / double(kPicosPerUs) : 0.0;
  // Every member's data over the time to the last result (Gbit/s = bits per ns).
  allreduce_gbps = done && done_at ? double(hosts) * double(bytes) * 8.0 * 1e3 / double(done_at) : 0.0;
  goodput_gbps = done && done_at ? double(bytes) * 8.0 * 1e3 / double(done_at) : 0.0;
  results_ok = done && right;
}

void AllreduceStats::report(StatsTree& out) const {
  out["model"] = model;
  out["hosts"] = hosts, out["bytes"] = bytes, out["groups"] = groups;
  out["trees"] = trees, out["levels"] = levels;
  out["packets_sent"] = packets_sent, out["bytes_sent"] = bytes_sent, out["acks_sent"] = acks_sent;
  out["retransmissions"] = retransmissions, out["gave_up"] = gave_up;
  out["stray_packets"] = stray_packets;
  out["unfinished_ranks"] = unfinished_ranks;
  out["done_us"] = done_us;
  out["allreduce_gbps"] = allreduce_gbps;
  out["goodput_gbps"] = goodput_gbps;
  out["results_ok"] = results_ok;
  out["details"].make_object() = details;
  StatsTree& list = out["jobs"].make_array();
  for (const auto& job : jobs) list.append() = job;
  StatsTree& samples = out["series"].make_array();
  for (const auto& sample : series) samples.append() = sample;
}

int32_t member_value(uint64_t values_seed, unsigned group, unsigned rank, uint64_t at) {
  return int32_t(uint32_t(splitmix64_mix(splitmix64_mix(values_seed ^ (uint64_t(group) << 32 | rank)) +
                                         at * kSplitmixGolden)));
}

AllreduceStats combine_groups(const std::vector<AllreduceStats>& groups) {
  AllreduceStats all = groups.at(0);
  all.groups = groups.size();
  all.goodput_gbps = 0;
  bool done = true, right = true;
  for (size_t g = 0; g < groups.size(); ++g) {
    const AllreduceStats& s = groups[g];
    done = done && s.unfinished_ranks == 0;
    right = right && s.results_ok;
    all.done_us = std::max(all.done_us, s.done_us);
    all.goodput_gbps += s.goodput_gbps / double(groups.size());
    if (g == 0) continue;
    all.hosts += s.hosts, all.trees += s.trees, all.levels = std::max(all.levels, s.levels);
    all.packets_sent += s.packets_sent, all.bytes_sent += s.bytes_sent, all.acks_sent += s.acks_sent;
    all.retransmissions += s.retransmissions, all.gave_up += s.gave_up, all.stray_packets += s.stray_packets;
    all.unfinished_ranks += s.unfinished_ranks;
    for (const auto& [key, count] : s.details) all.details[key] += count;
    all.jobs.insert(all.jobs.end(), s.jobs.begin(), s.jobs.end());
    all.series.insert(all.series.end(), s.series.begin(), s.series.end());
  }
  if (!done) all.done_us = 0;
  all.allreduce_gbps = all.done_us > 0 ? double(all.hosts) * double(all.bytes) * 8.0 / (all.done_us * 1e3) : 0.0;
  all.results_ok = done && right;
  return all;
}

AllreduceStats GroupedAllreduce::stats() const {
  std::vector<AllreduceStats> each;
  for (const auto& g : groups_) each.push_back(g->stats());
  return combine_groups(each);
}

std::string GroupedAllreduce::failure() const {
  for (size_t g = 0; g < groups_.size(); ++g)
    if (const std::string why = groups_[g]->failure(); !why.empty())
      return "allreduce group " + std::to_string(g) + " (hosts.groups): " + why;
  return "";
}

std::unique_ptr<NetworkAllreduce> grouped(std::vector<std::unique_ptr<NetworkAllreduce>> groups) {
  if (groups.size() == 1) return std::move(groups[0]);
  return std::make_unique<GroupedAllreduce>(std::move(groups));
}

std::vector<std::vector<unsigned>> member_groups(const std::vector<unsigned>& members, unsigned groups, unsigned least,
                                                 const std::string& model) {
  if (uint64_t(groups) * least > members.size())
    throw InputError("hosts.groups: " + std::to_string(groups) + " " + model + " allreduces of at least " +
                     std::to_string(least) + (least == 1 ? " host" : " hosts") + " need " + std::to_string(uint64_t(groups) * least) +
                     " members; hosts.members has " + std::to_string(members.size()));
  std::vector<std::vector<unsigned>> out(groups);
  for (unsigned g = 0; g < groups; ++g) {
    const size_t first = g * members.size() / groups, end = (g + 1) * members.size() / groups;
    out[g].assign(members.begin() + long(first), members.begin() + long(end));
  }
  return out;
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
