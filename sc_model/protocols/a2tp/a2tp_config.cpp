// The a2tp configuration section (see a2tp_config.h).
#include "protocols/a2tp/a2tp_config.h"

#include "a2tp/a2tp_proto.h"
#include "config/config_keys.h"
#include "network/training_models.h"

namespace fs {

#define A2TP(field) FS_SECTION_FIELD(A2tpConfig, kA2tpSection, field)

std::vector<ConfigKey> a2tp_config_keys() {
  std::vector<ConfigKey> s;
  s.push_back(string_key("a2tp.mode", "how jobs share the switch's aggregators: atp (a gradient takes the aggregator its worker hashed it to if free, else goes on to its parameter server), a2tp (the same, and the held aggregator keeps a collision bit that its result carries to its workers: A2TP 4.3.1) or static (each of a2tp.jobs jobs owns an equal share, as SwitchML)",
                         {"atp", "a2tp", "static"}, A2TP(mode)));
  s.push_back(uint_key("a2tp.aggregators", "the switch's aggregators (M), of 248 bytes of values each, cut across the clusters' L1; 0 = none (the a2tp handler set then takes no memory)", 0, 1u << 16,
                       A2TP(aggregators)));
  s.push_back(uint_key("a2tp.jobs", "a2tp.mode static: the jobs the aggregators are split between, a2tp.aggregators / a2tp.jobs each (jobs 0 to a2tp.jobs - 1; the remainder stays unused; another job's gradients go on to its parameter server)", 1, 1u << 16,
                       A2TP(jobs)));
  s.push_back(string_key("a2tp.ps", "hosts.model a2tp: where each training job's parameter server is: dedicated (the job's last host, the others its workers) or colocated (every host of the job is a worker and the PS of an equal share of its fragments, each share an a2tp job of its own with its own aggregators and tree: PS-based training with co-located PSes)",
                         {"dedicated", "colocated"}, A2TP(ps)));
  s.push_back(string_key("a2tp.model", "hosts.model a2tp: what each job trains: custom (hosts.bytes of gradients and a2tp.compute_us of compute an iteration) or a preset (docs/PROTOCOLS.md, \"Training-model presets\", gives their sizes, times and sources; compute times for a batch of 32)",
                         training_model_choices(), A2TP(model)));
  s.push_back(double_key("a2tp.compute_us", "hosts.model a2tp, a2tp.model custom: the workers' compute time an iteration, before they push its gradients", 0, 1e9,
                         A2TP(compute_us)));
  s.push_back(double_key("a2tp.scale", "hosts.model a2tp: a preset's gradient bytes and compute time are multiplied by this (a shorter run with the same ratio of computing to communicating)", 1e-9, 1,
                         A2TP(scale)));
  s.push_back(uint_key("a2tp.iterations", "hosts.model a2tp: training iterations each job runs", 1, 1u << 20, A2TP(iterations)));
  s.push_back(string_key("a2tp.threshold", "hosts.model a2tp, a2tp.mode a2tp: the aggregator congestion threshold H (0 <= H < 1), or auto: the least H by which Eq. 14's C_min is not negative for a2tp.aggregators aggregators and hosts.groups jobs (A2TP 4.4)",
                         {}, A2TP(threshold)));
  s.push_back(uint_key("a2tp.window", "hosts.model a2tp: the workers' windows (ATP's, A2TP's ACW and LCW) at the start, in gradient packets", 1, 1u << 16,
                       A2TP(window)));
  s.push_back(uint_key("a2tp.slots", "hosts.model a2tp, a2tp.mode atp or a2tp: ATP's dynamic aggregator allocation: each job's fragments cycle through a table of this many aggregators (fragment s names entry s mod a2tp.slots, hashed from the job and the entry at first, none twice; a worker sends fragment s only once s - a2tp.slots is answered), and a fragment that collided has its entry moved by its PS to an aggregator none of the job's packets named (docs/PROTOCOLS.md); 0 = every fragment hashes job and sequence anew; at most a2tp.aggregators", 0, 1u << 16,
                       A2TP(slots)));
  s.push_back(uint_key("a2tp.fragment_bytes", "hosts.model a2tp: bytes of int32 values in a full gradient packet (a multiple of 4; an aggregator holds 248)", 4, A2TP_ELEMENTS * A2TP_ELEMENT_BYTES,
                       A2TP(fragment_bytes)));
  s.push_back(string_key("a2tp.stragglers", "hosts.model a2tp: workers with less bandwidth: 'JOB.WORKER=LEVEL' entries separated by ';', LEVEL (0 < LEVEL <= 1) the share of its link's rate the worker sends at (A2TP's straggling level); 'JOB.WORKER=LEVEL@TIME,LEVEL@TIME...' changes it at those times (e.g. '1.3=0.2' or '0.0=1@0,0.5@2ms')",
                         {}, A2TP(stragglers)));
  s.push_back(double_key("a2tp.ps_gbps", "hosts.model a2tp: a parameter server sums what arrives for it (collided and resent gradients, partial sums) one packet at a time at this rate, in Gbit/s of frames (its aggregation rate; packets queue in front of it), and sends a switch's whole result on at once; 0 = everything at once", 0, 1e6,
                         A2TP(ps_gbps)));
  s.push_back(double_key("a2tp.sample_us", "hosts.model a2tp: every this long, each job's aggregation throughput since the last sample, its workers' mean straggling estimate (gamma) and windows go into the stats' allreduce.series; 0 = no samples", 0, 1e9,
                         A2TP(sample_us)));
  return s;
}

#undef A2TP

}  // namespace fs
