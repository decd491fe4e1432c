// Allreduce workload generator: every host sends its data as Flare contribution packets, by
// default back to back at line rate, with deterministic pseudo-random elements; the expected
// reduced blocks come with it. Optionally staggered block orders, exponential gaps, lost and
// retransmitted or duplicated packets (the send schedule: allreduce_timing.h). Also the
// expected-results file (traces/FORMAT.md) that the verifier reads.
#pragma once
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "net/packet.h"
#include "net/trace_reader.h"

namespace fs {

struct AllreduceGenOptions {
  unsigned hosts = 0;               // host h sits on port h with rank h
  uint64_t bytes = 0;               // data bytes per host
  uint32_t elem_bytes = 1024;       // element bytes per packet (the last block may be shorter)
  std::string dtype = "int32";      // int32 int16 int8 float32
  std::string op = "sum";           // sum min max
  uint64_t seed = 1;
  uint32_t allreduce_id = 0;
  double gbps = 100;                // host link rate
  uint32_t wire_overhead = 24;      // preamble, SFD, FCS and IFG bytes per frame
  uint16_t udp_port = 4950;
  unsigned num_ports = 64;
  // The send schedule (allreduce_timing.h, traces/FORMAT.md). Defaults: today's back-to-back
  // order with no gaps, losses or duplicates.
  bool stagger = false;               // host h sends blocks (h*blocks/hosts + k) mod blocks
  Picos mean_gap = 0;                 // mean exponential gap before each original packet; 0 = none
  double loss = 0;                    // probability that one send of a contribution is lost (0..1)
  Picos timeout = 100 * kPicosPerUs;  // retransmission timer, from the end of the lost send
  double duplicate = 0;               // probability that a delivered packet is sent twice (0..1)
  // Flare 4.3: a host has at most `window` blocks in flight (sent, result not yet received);
  // 0 = no limit. The switch has `states` block states for the allreduce (0: as many as the
  // window), block b in state b mod states, so block b also waits for block b - states's
  // result. A block's result is taken to reach the hosts result_latency after the last host's
  // contribution to it has arrived.
  unsigned window = 0;
  unsigned states = 0;
  Picos result_latency = 10 * kPicosPerUs;
  // How the user gave each field (e.g. "elem_bytes" -> "hosts.elem_bytes" or "--elem-bytes"),
  // so an error names what to change; a field not listed is named as itself.
  std::map<std::string, std::string> names;
};

// One transmission of a contribution by a host, lost or not.
enum class SendKind : uint8_t { kOriginal, kRetransmission, kDuplicate };
struct SendEvent {
  Picos time = 0;       // the first bit leaves the host (= reaches the switch port, if not lost)
  Picos wire = 0;       // wire time of the frame, overhead included
  uint32_t block = 0;
  uint16_t host = 0;
  uint8_t attempt = 0;  // 0 = first send of the block, n = n-th retransmission (a duplicate
                        // carries the attempt it copies)
  SendKind kind = SendKind::kOriginal;
  bool lost = false;    // lost before the switch: occupies the host's wire, not in the trace
};

// One reduced block as every host should receive it. payload holds the count elements
// (little-endian), without the Flare header.
struct ExpectedBlock {
  uint32_t allreduce_id = 0, block_id = 0;
  uint8_t dtype = 0, op = 0;
  uint16_t count = 0;
  Bytes payload;
};

struct AllreduceWorkload {
  std::vector<TraceRecord> records;    // sorted by (time, port)
  std::vector<uint16_t> ports;         // the host ports, ascending
  std::vector<ExpectedBlock> expected; // by block id
  uint16_t udp_port = 4950;            // the Flare UDP port the packets use
  std::vector<SendEvent> sends;        // every transmission, hosts ascending, each in send order
  uint64_t lost = 0;                   // lost sends (each is retransmitted once)
  uint64_t duplicates = 0;             // duplicate frames in records
};

// What the verifier needs: the host ports every block must reach and the blocks.
struct Expected {
  std::vector<uint16_t> ports;
  std::vector<ExpectedBlock> blocks;
  uint16_t udp_port = 4950;  // results are Flare packets to this UDP port
};

// Throws InputError naming the option when an option is invalid.
AllreduceWorkload generate_allreduce(const AllreduceGenOptions& opts);

// What the options make of the data, once checked: generate_allreduce's pieces, which a host
// that builds its frames as it sends them (allreduce_hosts.h) uses alone.
struct AllreduceShape {
  uint8_t dtype = 0, op = 0;
  uint32_t per_block = 0;     // elements of a full block
  uint64_t total_elems = 0;   // per host
  uint64_t blocks = 0;
  uint16_t block_count(uint64_t block) const;  // the last block may have fewer
};
// Throws InputError naming the option when an option is invalid (as generate_allreduce does).
AllreduceShape check_allreduce(const AllreduceGenOptions& opts);
// Host `rank`'s contribution to `block`, from `port` (fs_packet.h's addressing): every send of it
// is this frame. Builds only this block's elements.
Bytes contribution_frame(const AllreduceGenOptions& opts, const AllreduceShape& shape, unsigned rank, uint16_t port,
                         uint64_t block);
// Its wire time at opts.gbps, opts.wire_overhead included.
Picos contribution_wire(const AllreduceGenOptions& opts, const AllreduceShape& shape, uint64_t block);
// The block every host should receive: the hosts' contributions reduced in rank order.
ExpectedBlock expected_block(const AllreduceGenOptions& opts, const AllreduceShape& shape, uint64_t block);

// The element values host `host` contributes (count elements of dtype, little-endian): the same
// values generate_allreduce puts in that host's packets, in order.
Bytes host_elements(uint64_t seed, unsigned host, uint8_t dtype, uint64_t count);
// acc op= in, element by element (acc.size() bytes of dtype; in at least as long): integer sums
// wrap as two's complement, float32 sums add in float.
void fold_elements(Bytes& acc, const Bytes& in, uint8_t dtype, uint8_t op);
// Elements first .. first + count - 1 of that sequence, without drawing the ones before.
Bytes host_elements_at(uint64_t seed, unsigned host, uint8_t dtype, uint64_t first, uint64_t count);

Expected expected_of(const AllreduceWorkload& w);
void write_expected(std::ostream& out, const Expected& e);
void write_expected(std::ostream& out, const AllreduceWorkload& w);
// Throws InputError "file:line: reason" (or "file: reason" for whole-file problems).
Expected read_expected(const std::string& path);
Expected parse_expected(const std::string& name, const std::string& text);

}  // namespace fs
