// The sparse allreduce trace generator behind `flaresim gen flare-sparse`: every host sends the
// sparse workload's contribution packets (sparse_workload.h), by default back to back at line
// rate, a block's packets one after the other; the send schedule (stagger, window and block
// states, losses and retransmissions, duplicates) is the dense generator's
// (allreduce_timing.h), applied per block: one send of a block is all of its packets.
#pragma once
#include <cstdint>
#include <vector>

#include "net/trace_reader.h"
#include "protocols/flare_dense/allreduce_gen.h"
#include "protocols/flare_sparse/sparse_workload.h"

namespace fs {

struct SparseGenOptions {
  SparseWorkloadOptions workload;  // host h sits on port h with rank h
  // The send schedule: hosts, seed, gbps, wire_overhead, num_ports, stagger, loss, timeout,
  // duplicate, window, states, result_latency and udp_port are read (AllreduceGenOptions' meaning);
  // hosts and seed are the workload's.
  AllreduceGenOptions schedule;
};

struct SparseTrace {
  SparseWorkload workload;
  std::vector<uint16_t> ports;       // the host ports, ascending
  std::vector<TraceRecord> records;  // sorted by (time, port)
  uint64_t lost = 0;                 // block sends that lost one of their packets (each block sent again)
  uint64_t duplicates = 0;           // block sends repeated right after themselves
};

// Throws InputError naming the option when an option is invalid. A lost send of a block loses
// one of its packets (draw block x 16 + attempt + 1 of stream "spkt" of the host picks which);
// the retransmission sends all of them again.
SparseTrace generate_sparse_trace(const SparseGenOptions& o);

}  // namespace fs
