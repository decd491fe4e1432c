// Training jobs on a network's hosts (hosts.model a2tp: ATP and A2TP, A2TP 4.2-4.3; SwitchML's
// static shares as the baseline). hosts.members is cut into hosts.groups training jobs of
// consecutive ranks, and each is one a2tp job or several (a2tp_layout.h: a2tp.ps dedicated, the
// job's last host its parameter server (PS), the others its workers, rank r worker r, 1 to 128
// of them; colocated, a job for each host's share, the PS on that host). The network's switches
// with a PsPIN unit run the a2tp handler (a2tp.c), which the role configures; on a network of
// several switches (and with colocated PSes on one) the ones on a job's paths to its PS aggregate
// it as a tree (a2tp_tree.h).
//
// An iteration: every worker computes (the model's time), then pushes its gradients, F fragments
// of a2tp.fragment_bytes (the last may be shorter), or its shard's share of them; fragment f of
// iteration i has sequence i F + f (F the job's share) and goes to the PS's address, aggregated
// on the way. A host starts an iteration's compute once each of its workers (one for each
// shard, colocated) has its previous iteration's results. The worker on its shard's PS host
// hands its gradients to the PS there and gets the result from it, with no packet sent. The aggregator a worker names is a hash
// of (job, sequence) mod a2tp.aggregators (atp, a2tp), or, with a2tp.slots, the fragment's entry
// in its job's table (ATP's dynamic allocation, a2tp_slots.h: the PS moves an entry whose
// fragment collided, and its result tells the workers), or the sequence mod the job's share
// (static: M / jobs, the slot in its share). With a table or a share a worker sends fragment s
// only once s - T is answered (T the table's or share's length), so that two fragments of a job
// never name one aggregator at once. The ACK of a fragment is its result: the PS sends it once, to the
// job's group address (a2tp_group_ipv4 of the first worker's host), and the switch copies it to
// every worker. An iteration ends for a worker with its last result; it then computes the next.
//
// Windows (a2tp_windows.h), by a2tp.mode: atp: ATP's window bounds the fragments in flight, all
// to the switch; a2tp: a fragment goes to the switch while fewer than ACW of the worker's are
// there, else straight to the PS (RESEND) while fewer than LCW are in flight; static: ATP's
// window, at most the job's share. A round is one LCW of gradients sent (A2TP 4.3.2: "once for
// every LCW data, roughly one RTT"); an iteration's end ends one too. What the ACKs received in
// it said (how many came for gradients sent to the switch and of those how many with Col; how
// many with ECE or CE; losses) updates the windows (Eq. 1-6, H = a2tp.threshold), so h and e are
// fractions of the round's ACKs. Eq. 3's n, the ACKs of one RTT, is the round's ACKs scaled
// from the round's length to the least RTT the worker has seen: a job held back by a straggler
// gets its ACKs at the straggler's pace while its LCW stays, so its gamma falls below 1.
//
// Reliability: a fragment without its result for the retransmission timeout (RFC 6298's, from
// the worker's RTT samples, at least hosts.timeout_ns, doubled by each timeout since the last
// sample) is sent again straight to the PS (RESEND) and counts as a loss in its round; after
// kA2tpMaxSends sends it is given up. The PS
// (a2tp_ps.h) sums what the switch did not and sends a result again to a worker whose gradient
// comes for a complete fragment; with a2tp.ps_gbps it sums what arrives one packet at a time at
// that rate (a server's aggregation rate), sending a switch's whole result on at once.
//
// Stragglers (a2tp.stragglers): a worker paces its sends at LEVEL x its link's rate (A2TP's
// straggling level: its available bandwidth over the leader's).
//
// Every result is checked against the sum computed here. Each job reports its mean iteration time
// (from the first worker's compute start to the last worker's last result) and its aggregation
// throughput (a worker's gradient bytes, every iteration, over the time its pushes took: from the
// end of the compute to the last result, summed over iterations). With a2tp.sample_us, every
// sample period each job's aggregation throughput over the period (its first worker's results),
// and its workers' mean gamma (of their last round), ACW and LCW, are sampled.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "a2tp/a2tp_proto.h"
#include "config/config.h"
#include "network/allreduce_run.h"
#include "network/network.h"
#include "network/traffic.h"
#include "network/training_models.h"
#include "plugin/protocol.h"
#include "protocols/a2tp/a2tp_config.h"

namespace fs {

class A2tpSlotTable;

constexpr const char* kA2tpModel = "a2tp";
static_assert(A2TP_UDP_PORT_DEFAULT != kTrafficUdpPort, "a2tp's frames share a host's UDP port");
constexpr unsigned kA2tpMaxSends = 16;  // sends of one fragment without a result, then it is given up
constexpr double kA2tpBatch = 32;       // samples an iteration a preset's compute time is estimated for

// a2tp.stragglers: a worker's straggling levels from given times on.
struct A2tpStraggler {
  unsigned job = 0, worker = 0;
  std::vector<std::pair<Picos, double>> levels;  // (from, level), in time order, the first from 0
};
// Reads a2tp.stragglers; InputError naming the key and the entry.
std::vector<A2tpStraggler> parse_a2tp_stragglers(const std::string& text);
// Reads a2tp.threshold for `aggregators` aggregators and `jobs` jobs; InputError naming the key.
double a2tp_threshold(const std::string& text, unsigned aggregators, unsigned jobs);

// What the jobs did, beyond the AllreduceStats every model reports (its details).
struct A2tpJobCounts {
  uint64_t to_switch = 0;     // gradient packets sent within the switch's window
  uint64_t to_ps = 0;         // sent straight to the PS: outside ACW (a2tp mode)
  uint64_t col_acks = 0;      // results with the Col bit, for fragments first sent to the switch
  uint64_t ecn_acks = 0;      // results with ECE or arriving CE-marked
  uint64_t rounds = 0;        // window updates
  uint64_t duplicate_results = 0;
  uint64_t ps_results = 0;    // results the PSes sent to their groups
  uint64_t ps_resends = 0;    // results a PS sent again to one worker
  uint64_t ps_refused = 0;    // packets a PS refused
  uint64_t ps_queue_max = 0;  // the most packets waiting at a PS (a2tp.ps_gbps)
  uint64_t ps_moves = 0;      // a2tp.slots: results that moved their fragment's table entry
};

class A2tpJobs : public sc_core::sc_module, public NetworkAllreduce {
 public:
  SC_HAS_PROCESS(A2tpJobs);
  // On the hosts `members`; InputError naming the key for a set-up the jobs cannot run.
  A2tpJobs(sc_core::sc_module_name name, const Config& cfg, Network& net, const std::vector<unsigned>& members);
  ~A2tpJobs() override;

  AllreduceStats stats() const override;
  std::string failure() const override;
  const A2tpJobCounts& counts() const { return counts_; }

  uint64_t fragments() const { return fragments_; }  // per iteration
  unsigned elements(unsigned job, uint32_t sequence) const;  // values in the job's fragment
  uint64_t job_bytes(unsigned job) const;                    // a worker's gradient bytes of an iteration in the job
  // Value i of worker w's gradient in fragment `sequence` of job j, and the job's sum of it.
  int32_t value(unsigned job, unsigned worker, uint32_t sequence, unsigned i) const;
  std::vector<int32_t> reduction(unsigned job, uint32_t sequence) const;

 private:
  class Worker;
  class Server;
  class Inbox;
  friend class Worker;
  friend class Server;
  friend class Inbox;
  struct Job {
    std::vector<unsigned> workers;  // hosts, by rank
    unsigned ps = 0;                // the PS's host
    unsigned training = 0;          // the training job it is (a share of)
    int local = -1;                 // the rank on the PS's host (a2tp.ps colocated); -1: none
    Worker* local_worker = nullptr;
    uint32_t group = 0;             // its results' group address
    uint64_t first = 0, fragments = 0;  // its share of an iteration's fragments
    unsigned shard = 0, shards = 1;     // which share (a2tp_layout.h)
    std::vector<Picos> started, ended;  // per iteration: first compute start, last result
    std::vector<Picos> pushed;          // per iteration: the end of the compute (the push's start)
    unsigned done = 0;                  // workers with every iteration
    uint64_t col_acks = 0;              // its workers' results with the Col bit (A2tpJobCounts')
  };
  void iteration_started(unsigned job, unsigned iteration, Picos compute_end);
  void sample();  // the thread taking a2tp.sample_us's samples while workers run
  void iteration_ended(unsigned job, unsigned iteration);
  void check(unsigned job, unsigned worker, uint32_t sequence, const std::vector<int32_t>& got);
  // a2tp.slots: the job's table (its training job's, its shard's part of it: a2tp_slots.h).
  std::unique_ptr<A2tpSlotTable> slot_table(unsigned job) const;
  // Whether every worker on `host` has `iterations` iterations done (a host computes once for all).
  bool host_done(unsigned host, unsigned iterations) const;

  const Config cfg_;
  Network& net_;
  std::string mode_;
  uint64_t gradient_bytes_ = 0, fragments_ = 0;
  unsigned per_fragment_ = 0, aggregators_ = 0, share_ = 0, iterations_ = 0, slots_ = 0;
  double threshold_ = 0, ps_gbps_ = 0;
  Picos compute_ = 0, timeout_ = 0, sample_every_ = 0;
  std::vector<std::map<std::string, double>> series_;
  std::vector<uint64_t> sampled_bytes_;  // per job: its first worker's acked bytes at the last sample
  uint64_t values_seed_ = 0;
  std::vector<A2tpStraggler> stragglers_;
  std::vector<Job> jobs_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::unique_ptr<Server>> servers_;
  std::map<unsigned, std::vector<Worker*>> on_host_;  // the workers on each host
  std::map<std::pair<unsigned, unsigned>, Worker*> worker_at_;  // by (job, host)
  std::map<unsigned, std::unique_ptr<Inbox>> inboxes_;          // by host
  std::map<unsigned, std::unique_ptr<sc_core::sc_event>> host_iteration_;  // a worker there finished one
  unsigned training_jobs_ = 0, worker_hosts_ = 0;
  Picos done_at_ = 0;
  AllreduceStats base_;
  A2tpJobCounts counts_;
  uint64_t wrong_ = 0;
  std::string first_problem_;
};

// The set-up checks every a2tp run makes (InputError naming the key), shared with the role
// (a2tp_role.h), and the gradient bytes and compute time of an iteration, as a2tp.model says.
void a2tp_check_setup(const Config& cfg);
TrainingWorkload a2tp_workload(const Config& cfg);

}  // namespace fs
