/* The a2tp switch side (ATP, A2TP, and static partitioning as in SwitchML): the configuration the
 * control plane installs (shared by the C handler and the simulator's installer), the aggregator
 * kept in cluster L1, and the handler's outcome codes. The switch's M aggregators are cut across
 * the clusters: aggregator i lives in cluster i mod C, at slot i / C there. Which aggregator a
 * gradient uses: with hashing (ATP, A2TP) the index its worker put in the header, mod M; with
 * static partitioning, job j of J owns aggregators [j S, (j + 1) S) with S = M / J (the last M mod
 * J stay unused), and takes the header's index mod S in its own share, so that no job ever touches
 * another's.
 *
 * On a network of several switches a job's gradients meet on their way to its PS: every
 * worker's path to the PS is fixed (routing.multipath dst), so the switches on them form a tree
 * rooted at the PS's own switch. The control plane tells each switch, per job, which of the job's
 * workers its gradients come from (its mask) and on which ports (its children, where the job's
 * results go back out). A switch other than the PS's own sends a fragment's sum on towards the PS
 * as one gradient of every worker of its mask once all of them are in, and frees the aggregator;
 * the PS's own switch keeps the aggregator until the PS's result passes, as on a single switch. */
#ifndef A2TP_SWITCH_H
#define A2TP_SWITCH_H

#include <stdint.h>

#include "a2tp_proto.h"
#include "fs_divide.h"
#include "fs_handler.h"

#ifdef __cplusplus
extern "C" {
#endif

#define A2TP_SWITCH_MAGIC 0x41325431u /* "A2T1" */

enum a2tp_mode {
  A2TP_MODE_ATP = 0,    /* hashed aggregators; a collision goes on to the PS, the holder never hears of it */
  A2TP_MODE_A2TP = 1,   /* the same, and the held aggregator keeps a Col bit for its result (A2TP §4.3.1) */
  A2TP_MODE_STATIC = 2  /* each job its own share of the aggregators (SwitchML-style, A2TP §6.1) */
};

/* What every packet reads: the installer writes it at offset 0 of L2 handler memory and a copy at
 * the start of the set's share of every cluster's L1 state area. */
typedef struct a2tp_switch_config {
  uint32_t magic;
  uint32_t mode;           /* enum a2tp_mode */
  uint32_t aggregators;    /* M */
  uint32_t jobs;           /* static partitioning: J, the jobs sharing the aggregators (jobs 0..J-1) */
  uint32_t share;          /* static partitioning: S = M / J */
  uint32_t per_cluster;    /* aggregator slots in each cluster: ceil(M / C) */
  fs_divisor_t by_clusters;    /* divides by C */
  fs_divisor_t by_aggregators; /* by M */
  fs_divisor_t by_share;       /* by S */
  uint32_t aggregators_offset; /* where the aggregators start in each cluster's L1 share */
  uint32_t tree_jobs;          /* jobs 0..tree_jobs-1 have an a2tp_tree_job_t (0: none, a single switch) */
  uint32_t tree_offset;        /* where their entries start in L2 handler memory */
} a2tp_switch_config_t;
#define A2TP_CONFIG_L1_BYTES ((uint32_t)((sizeof(a2tp_switch_config_t) + 63u) & ~63u))

/* A job's part of this switch in the job's tree (on a network of several switches). */
#define A2TP_TREE_JOBS 128u /* jobs a switch can have tree entries for (a2tp.ps colocated: one per PS) */
typedef struct a2tp_tree_job {
  uint32_t mask[A2TP_BITMAP_WORDS]; /* the job's workers whose gradients pass this switch: a sum of them all is complete */
  uint32_t passes_on; /* 1: not the PS's switch: a complete sum goes on to the PS, the aggregator freed */
  uint32_t children;  /* ports in `down` */
  uint16_t down[A2TP_MAX_WORKERS]; /* the ports the job's gradients come in on: where its results go out */
} a2tp_tree_job_t;

/* An aggregator (A2TP §4.3.1: bitmap, counter, ECN and Col, job and sequence, the values). Free
 * when `busy` is 0; held from a fragment's first gradient until the PS's result for it passes
 * (or a RESEND flushes it), its result kept once every worker is in. */
typedef struct a2tp_aggregator {
  uint32_t lock;      /* spin lock over the whole aggregator */
  uint32_t busy;
  uint32_t job, sequence;
  uint32_t bitmap[A2TP_BITMAP_WORDS]; /* workers summed in */
  uint32_t workers;   /* the job's fan-in */
  uint32_t elements;  /* values per fragment of this aggregation */
  uint32_t col;       /* A2TP: another aggregation's gradient met this one here */
  uint32_t ece;       /* a gradient summed in arrived CE-marked */
  /* A fragment whose gradients go on to its PS, flagged bypass_flags, instead of being aggregated
   * here (0: none): the last to collide here (COLLISION), or the last one whose RESEND gradient
   * passed here (RESEND); until another takes its place or its result passes. */
  uint32_t bypass_flags, bypass_job, bypass_sequence;
  int32_t values[A2TP_ELEMENTS];
} a2tp_aggregator_t;
#define A2TP_AGGREGATOR_BYTES ((uint32_t)sizeof(a2tp_aggregator_t))

/* Outcome codes, in the order of a2tp_outcomes[] (a2tp.c). */
enum a2tp_outcome {
  A2TP_OK = 0,
  A2TP_TAKEN,          /* a free aggregator taken by the gradient: the packet dropped */
  A2TP_AGGREGATED,     /* summed into its aggregation: the packet dropped */
  A2TP_COMPLETED,      /* summed in, every worker's now in: the result sent to the PS, the aggregator kept
                          until the PS's result passes */
  A2TP_DUPLICATE,      /* its worker's gradient is in the aggregation already: dropped */
  A2TP_COLLISION,      /* the aggregator holds another aggregation: flagged COLLISION and sent on to the PS */
  A2TP_RESENT,         /* a RESEND gradient sent on to the PS */
  A2TP_FLUSHED,        /* a RESEND gradient whose aggregation the switch held: sent on to the PS, then the
                          partial sum, and the aggregator freed */
  A2TP_BYPASSED,       /* a gradient of its aggregator's bypass fragment (one that collided there or was
                          resent past it): sent on to the PS flagged as that was, not aggregated anew */
  A2TP_PASSED_ON,      /* summed in, every worker of the switch's mask now in: the sum sent on towards the PS
                          as one gradient, the aggregator freed (not the PS's switch, on a tree) */
  A2TP_FORWARDED,      /* a result, forwarded by the routes */
  A2TP_RELEASED,       /* a result from the PS that freed its fragment's aggregator, forwarded */
  A2TP_NO_SHARE,       /* static shares: a gradient of a job that has none, sent on to its PS */
  A2TP_MALFORMED,      /* not an a2tp packet this switch can take: dropped */
  A2TP_NO_ROUTE,       /* no route towards the packet's destination: dropped */
  A2TP_NOT_INSTALLED,  /* the handler set's memory holds no a2tp configuration: dropped */
  A2TP_OUTCOME_COUNT
};

#ifdef __cplusplus
}
#endif
#endif /* A2TP_SWITCH_H */
