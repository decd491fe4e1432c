// The PsPIN examples' workloads and results: the traffic PsPIN's example drivers send (its
// generic driver's messages of 1024-byte IPv4/UDP packets, one every 20 ns), written as a trace
// with the message header of handlers/pspin_examples/pspin_examples.h, the results the switch
// must send back (pingpong's replies, the sums and histograms of each message), the
// expected-results file that holds them and the verifier that checks a run's egress against it.
// handlers/pspin_examples/README.md describes the traffic and the file.
#pragma once
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "common/units.h"
#include "net/packet.h"
#include "net/trace_reader.h"
#include "plugin/protocol.h"
#include "pspin_examples/pspin_examples.h"

namespace fs {

// One example: its index (enum pspin_ex_example: UDP port PSPIN_EX_UDP_PORT_BASE + index), its
// handler set and the example of spcl/pspin it follows.
struct PspinExample {
  uint32_t index;
  const char* set;
  const char* pspin;
};
// The five, in index order.
const std::vector<PspinExample>& pspin_examples();
// The example whose handler set is `set`, or nullptr.
const PspinExample* find_pspin_example(const std::string& set);
inline uint16_t pspin_example_udp_port(uint32_t index) { return uint16_t(PSPIN_EX_UDP_PORT_BASE + index); }

struct PspinGenOptions {
  uint32_t example = PSPIN_EX_EMPTY;
  // PsPIN's generic driver's options and defaults: --num-messages, --num-packets (per message),
  // --packet-size (bytes of the IPv4 packet: the frame adds a 14-byte Ethernet header),
  // --packet-delay and --message-delay (from one packet's arrival to the next's, after a packet
  // inside a message and after a message's last packet).
  uint32_t messages = 1;
  uint32_t packets = 32;
  uint32_t size = 1024;
  Picos gap = 20 * kPicosPerNs;
  Picos message_gap = 40 * kPicosPerNs;
  uint64_t seed = 1;
  // The switch ports the stream arrives on: packet k (counted over the trace) on port k mod
  // hosts, so that each port's link carries its share; 0 = the fewest ports whose links do.
  unsigned hosts = 0;
  double gbps = 100;             // each port's line rate
  uint32_t wire_overhead = 24;   // preamble, SFD, FCS and IFG bytes per frame
  unsigned num_ports = 64;
  // How the user gave each field ("hosts" -> "--hosts"), so that an error names what to change;
  // a field not listed is named as itself.
  std::map<std::string, std::string> names;
};

// What the switch must send back for a workload.
struct PspinExpected {
  uint32_t example = PSPIN_EX_EMPTY;
  struct Result {  // aggregate_global, reduce_l1, histogram_l1: one per message
    uint32_t msg = 0;
    uint16_t port = 0;            // the message's result port
    std::vector<uint32_t> words;  // the sum (1 word), the element-wise sums, the bin counts
  };
  struct Reply {  // pingpong: one per packet
    uint32_t msg = 0, index = 0;  // the packet's message and index in it
    uint16_t port = 0;            // the packet's ingress port, where the reply leaves
    Bytes frame;                  // the reply, byte for byte
  };
  std::vector<Result> results;  // by message id
  std::vector<Reply> replies;   // in trace order
};

struct PspinWorkload {
  std::vector<TraceRecord> records;  // in time order
  PspinExpected expected;
  unsigned hosts = 0;                // ports used (0 .. hosts-1)
};

// Throws InputError naming the option when an option is invalid or the ports cannot carry the
// stream.
PspinWorkload generate_pspin_workload(const PspinGenOptions& o);

// The data words of packet k (0-based over the trace) of a workload with `seed`: uniform 32-bit
// values, or for histogram_l1 bin indices uniform in 0 .. PSPIN_HISTOGRAM_BINS-1.
std::vector<uint32_t> pspin_packet_words(uint32_t example, uint64_t seed, uint64_t k, uint32_t words);

// The first line of an expected-results file.
constexpr const char* kPspinExpectedHeader = "pspin-examples-expected 1";
void write_pspin_expected(std::ostream& out, const PspinExpected& e);
// Throws InputError "file:line: reason" (or "file: reason" for the whole file).
PspinExpected read_pspin_expected(const std::string& path);
PspinExpected parse_pspin_expected(const std::string& name, const std::string& text);

// Checks the frames the switch sent (in departure order) against `e`, looking only at frames
// that parse as IPv4/UDP to the example's UDP port:
// - pingpong: every reply must leave its port exactly once, byte for byte (a frame that carries
//   the message and index of an expected reply on that port but differs is wrong);
// - aggregate_global, reduce_l1, histogram_l1: every message's result frames must reach its
//   result port, one per cluster (0 .. clusters-1, as the frames say), each with the expected
//   number of words, and their words must add up (wrapping, 32 bits) to the expected ones;
// - empty: nothing.
// One expected result is one message's frames (pingpong: one reply). Anything else to the
// example's UDP port is unexpected.
VerifyReport verify_pspin_egress(const PspinExpected& e, const std::vector<EgressRecord>& egress);

}  // namespace fs
