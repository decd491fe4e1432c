// The sparse allreduce trace generator (see sparse_gen.h): the workload's frames placed on the
// dense generator's send schedule, one send of a block being its packets back to back.
#include "protocols/flare_sparse/sparse_gen.h"

#include <algorithm>
#include <cmath>

#include "common/errors.h"
#include "common/interrupt.h"
#include "common/units.h"
#include "config/config_keys.h"
#include "flare/flare_sparse.h"
#include "protocols/flare_dense/allreduce_timing.h"

namespace fs {

namespace {

__extension__ typedef unsigned __int128 u128;  // GCC/Clang 128-bit integers

constexpr uint64_t kLostPacketStream = 0x73706b74;  // "spkt": which packet of a lost block send

std::string named(const SparseGenOptions& o, const std::string& field) {
  const auto it = o.workload.names.find(field);
  return it == o.workload.names.end() ? field : it->second;
}

[[noreturn]] void bad_option(const SparseGenOptions& o, const std::string& field, const std::string& why) {
  throw InputError("sparse generator: " + named(o, field) + ": " + why);
}

}  // namespace

SparseTrace generate_sparse_trace(const SparseGenOptions& o) {
  const AllreduceGenOptions& s = o.schedule;
  if (s.num_ports < 1 || s.num_ports > 65536) bad_option(o, "num_ports", std::to_string(s.num_ports) + " not in 1..65536");
  if (o.workload.hosts < 1 || o.workload.hosts > std::min<unsigned>(s.num_ports, FLARE_SPARSE_MAX_CHILDREN))
    bad_option(o, "hosts", std::to_string(o.workload.hosts) + " not in 1.." +
                               std::to_string(std::min<unsigned>(s.num_ports, FLARE_SPARSE_MAX_CHILDREN)) +
                               " (the switch's ports, at most " + std::to_string(FLARE_SPARSE_MAX_CHILDREN) +
                               " children of a sparse allreduce)");
  if (!(s.gbps > 0) || !std::isfinite(s.gbps)) bad_option(o, "gbps", "must be a positive finite rate");
  if (!(s.loss >= 0 && s.loss <= 1)) bad_option(o, "loss", show_double(s.loss) + " not in 0..1");
  if (!(s.duplicate >= 0 && s.duplicate <= 1)) bad_option(o, "duplicate", show_double(s.duplicate) + " not in 0..1");
  if (s.udp_port == 0) bad_option(o, "udp_port", "must be 1..65535");

  SparseTrace t;
  t.workload = make_sparse_workload(o.workload);
  const SparseWorkload& w = t.workload;
  const unsigned hosts = o.workload.hosts;
  for (unsigned h = 0; h < hosts; ++h) t.ports.push_back(uint16_t(h));
  // Every host's frames by block, and the wire time of a send of each (all of its packets).
  std::vector<std::vector<std::vector<Bytes>>> frames(hosts);
  std::vector<std::vector<Picos>> burst(hosts);
  for (unsigned h = 0; h < hosts; ++h) {
    check_interrupted("building the hosts' sparse packets");
    frames[h].resize(size_t(w.blocks()));
    burst[h].resize(size_t(w.blocks()));
    for (uint64_t b = 0; b < w.blocks(); ++b) {
      frames[h][b] = sparse_block_frames(w, h, uint32_t(b), uint16_t(h), s.udp_port);
      for (const Bytes& f : frames[h][b]) burst[h][b] += wire_time(f.size(), s.wire_overhead, s.gbps);
    }
  }
  AllreduceGenOptions sched = s;
  sched.hosts = hosts;
  sched.seed = o.workload.seed;
  sched.mean_gap = 0;  // back to back
  const std::vector<std::vector<SendEvent>> schedule =
      schedule_hosts(sched, w.blocks(), [&](unsigned h, uint64_t b) { return burst[h][b]; });

  for (unsigned h = 0; h < hosts; ++h) {
    check_interrupted("generating the hosts' packets");
    for (const SendEvent& ev : schedule[h]) {
      const std::vector<Bytes>& packets = frames[h][ev.block];
      size_t lost_packet = packets.size();
      if (ev.lost) {
        ++t.lost;
        const uint64_t x = timing_draw(sched.seed, kLostPacketStream, h, uint64_t(ev.block) * kMaxSendAttempts + ev.attempt + 1);
        lost_packet = size_t((u128(x) * packets.size()) >> 64);
      }
      if (ev.kind == SendKind::kDuplicate) ++t.duplicates;
      Picos at = ev.time;
      for (size_t k = 0; k < packets.size(); ++k) {
        if (k != lost_packet) {
          TraceRecord rec;
          rec.time = at;
          rec.port = uint16_t(h);
          rec.data = packets[k];
          rec.where = "sparse generator: host " + std::to_string(h) + " block " + std::to_string(ev.block) +
                      " packet " + std::to_string(k);
          if (ev.kind == SendKind::kRetransmission) rec.where += " retransmission " + std::to_string(ev.attempt);
          if (ev.kind == SendKind::kDuplicate) rec.where += " duplicate";
          t.records.push_back(std::move(rec));
        }
        at += wire_time(packets[k].size(), s.wire_overhead, s.gbps);
      }
    }
  }
  // Each host's records are in time order; interleave the hosts (stable: a port never has two
  // packets at one time, since its transmissions do not overlap).
  std::stable_sort(t.records.begin(), t.records.end(), [](const TraceRecord& a, const TraceRecord& b) {
    return a.time != b.time ? a.time < b.time : a.port < b.port;
  });
  return t;
}

}  // namespace fs
