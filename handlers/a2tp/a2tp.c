/* The a2tp switch handler (ATP; A2TP §4.2-4.3 and §5; static partitioning as SwitchML's): a
 * gradient takes its aggregator if it is free, is summed in if the aggregator holds its job's
 * fragment, and otherwise collides: it goes on to the job's PS flagged COLLISION, and in A2TP mode
 * the aggregator remembers it (Col) and tells the holder's workers in its result. An aggregation
 * with every worker in sends its result to the PS (the packet's IPv4 destination) and keeps its
 * aggregator, as ATP's does, until the PS's result passes on its way to the workers (released):
 * an aggregator is held for about an RTT, and a worker's late copy of a gradient is a duplicate.
 * The PS's result goes to one worker, or to the job's group address, which the switch copies to
 * each of the job's workers; a collision while the aggregator was held after completion sets
 * COL in it on its way. A RESEND gradient (a worker's retransmission, or one A2TP sends
 * outside its ACW) goes on to the PS; if the switch holds its fragment's aggregation, the partial
 * sum (or the whole result, if the first copy was lost) follows it to the PS and the aggregator
 * is freed, so that the PS completes what the switch could not (the PS counts each worker once:
 * the partial may hold the resender's own gradient). An aggregator remembers the last fragment
 * that collided there or was resent past it, and sends that fragment's later gradients on to
 * the PS too (bypassed) until its result passes or another fragment takes its place: otherwise
 * they could take the aggregator once free and start an aggregation that could never complete
 * here, since part of the fragment is at the PS. With static shares, a job that has none sends
 * its gradients on to its PS. On a tree of switches (a2tp_switch.h) a switch other than the
 * PS's own sends a complete sum of its mask's workers on towards the PS as one gradient and frees
 * the aggregator (passed on), a partial sum flushed by a RESEND goes on flagged RESEND (so that
 * a switch above flushes its own too rather than take it for the PS's result), and the job's
 * results go out of the ports its gradients came in on. Values are int32 sums, wrapping. */
#include "a2tp_switch.h"

#include <stddef.h>
#include <string.h>

/* Where the values start in a frame of a job of `workers` workers. */
static uint32_t values_offset(uint32_t workers) { return A2TP_PAYLOAD_OFFSET + a2tp_header_bytes(workers); }

static const a2tp_switch_config_t* config_of(const fs_handler_args_t* args) {
  const a2tp_switch_config_t* c = (const a2tp_switch_config_t*)args->l1; /* this cluster's copy */
  if (args->l1_size < A2TP_CONFIG_L1_BYTES || c->magic != A2TP_SWITCH_MAGIC || c->by_clusters.d != args->num_clusters)
    return NULL;
  return c;
}

/* Job j's entry in this switch's tree, or NULL (a single switch, or a job without one). */
static const a2tp_tree_job_t* tree_of(const a2tp_switch_config_t* c, const fs_handler_args_t* args, uint32_t job) {
  const uint32_t end = c->tree_offset + c->tree_jobs * (uint32_t)sizeof(a2tp_tree_job_t);
  if (job >= c->tree_jobs || end > args->handler_mem_size) return NULL;
  return (const a2tp_tree_job_t*)(args->handler_mem + c->tree_offset) + job;
}

/* The frame's header, if it is an IPv4 (no options) UDP frame holding a whole a2tp packet of at
 * most an aggregator's values and a well-formed header; 0 if not. */
static int read_packet(const uint8_t* pkt, uint32_t len, a2tp_header_t* h) {
  uint32_t udp_len, values;
  if (len < A2TP_PAYLOAD_OFFSET + A2TP_HEADER_BYTES || fs_be16(pkt + 12) != FS_ETHERTYPE_IPV4 ||
      pkt[FS_ETH_BYTES] != 0x45 || pkt[FS_ETH_BYTES + 9] != FS_IPPROTO_UDP)
    return 0;
  values = values_offset(pkt[A2TP_PAYLOAD_OFFSET + A2TP_OFF_WORKERS]);
  if (len < values) return 0;
  udp_len = fs_be16(pkt + FS_ETH_BYTES + FS_IPV4_BYTES + 4);
  a2tp_decode(pkt + A2TP_PAYLOAD_OFFSET, h);
  if (h->elements > A2TP_ELEMENTS || udp_len != FS_UDP_BYTES + (values - A2TP_PAYLOAD_OFFSET) + h->elements * A2TP_ELEMENT_BYTES ||
      values + h->elements * A2TP_ELEMENT_BYTES > len || pkt[A2TP_PAYLOAD_OFFSET + A2TP_OFF_RESERVED])
    return 0;
  return a2tp_header_problem(h) == A2TP_FINE;
}

/* The aggregator of the packet's fragment, or NULL for a job with no share (static shares). */
static a2tp_aggregator_t* aggregator_of(const a2tp_switch_config_t* c, const a2tp_header_t* h) {
  uint32_t index, home;
  if (c->mode == A2TP_MODE_STATIC) {
    if (h->job >= c->jobs) return NULL;
    index = h->job * c->share + fs_remainder(h->aggregator, fs_divide(h->aggregator, &c->by_share), &c->by_share);
  } else {
    index = fs_remainder(h->aggregator, fs_divide(h->aggregator, &c->by_aggregators), &c->by_aggregators);
  }
  home = fs_remainder(index, fs_divide(index, &c->by_clusters), &c->by_clusters);
  return (a2tp_aggregator_t*)(fs_cluster_l1(home, NULL) + c->aggregators_offset +
                              fs_divide(index, &c->by_clusters) * A2TP_AGGREGATOR_BYTES);
}

/* Sends `len` bytes of `frame` towards its IPv4 destination. */
static int forward(const uint8_t* frame, uint32_t len, int outcome) {
  const int port = fs_next_hop((uint32_t)fs_be32(frame + FS_ETH_BYTES + 16));
  if (port < 0 || fs_send(frame, len, (uint32_t)port) != 0) return A2TP_NO_ROUTE;
  return outcome;
}

static int ce_marked(const uint8_t* pkt) { return (pkt[FS_ETH_BYTES + 1] & 3u) == 3u; }

/* Turns the packet in `pkt` (a gradient of the aggregation `a` holds) into the aggregation's
 * sum from this switch, flagged `kind` (RESULT: the PS's switch's result; SUM: a tree switch's
 * sum going on as a gradient; SUM and RESEND: a flushed partial), with `a`'s bitmap, Col, ECE and values;
 * ECN-capable again if the gradient was. Under `a`'s lock. */
static void write_sum(uint8_t* pkt, const a2tp_aggregator_t* a, uint32_t kind) {
  uint8_t* ip = pkt + FS_ETH_BYTES;
  uint8_t* h = pkt + A2TP_PAYLOAD_OFFSET;
  h[A2TP_OFF_FLAGS] = (uint8_t)(kind | (a->col ? A2TP_FLAG_COL : 0u) | (a->ece ? A2TP_FLAG_ECE : 0u));
  h[A2TP_OFF_WORKER] = (uint8_t)(kind & A2TP_FLAG_SUM ? a2tp_bitmap_lowest(a->bitmap) : 0);
  a2tp_put_bitmap(h, a->bitmap, a->workers);
  memcpy(pkt + values_offset(a->workers), a->values, a->elements * A2TP_ELEMENT_BYTES);
  if (ip[1] & 3u) ip[1] = (uint8_t)((ip[1] & ~3u) | 2u); /* ECT(0): the mark is in ECE now */
  fs_put_be32(ip + 12, FS_SWITCH_IPV4);
  fs_put_be16(ip + 10, 0);
  fs_put_be16(ip + 10, fs_ipv4_checksum(ip, FS_IPV4_BYTES));
}

/* Adds the packet's values into `a`'s. Both little-endian int32; sums wrap. */
static void sum_into(a2tp_aggregator_t* a, const uint8_t* in) {
  uint32_t i;
  for (i = 0; i < a->elements; ++i) {
    uint32_t x, y;
    memcpy(&x, &a->values[i], 4);
    y = (uint32_t)fs_le32(in + 4u * i);
    x += y;
    memcpy(&a->values[i], &x, 4);
  }
}

static void take(a2tp_aggregator_t* a, const a2tp_header_t* h, const uint8_t* pkt) {
  uint32_t i;
  a->busy = 1;
  a->job = h->job, a->sequence = h->sequence, a->workers = h->workers;
  for (i = 0; i < a2tp_bitmap_words(h->workers); ++i) a->bitmap[i] = h->bitmap[i];
  a->elements = h->elements, a->col = (h->flags & A2TP_FLAG_COL) != 0;
  a->ece = ce_marked(pkt) || (h->flags & A2TP_FLAG_ECE);
  for (i = 0; i < h->elements; ++i) a->values[i] = (int32_t)fs_le32(pkt + values_offset(h->workers) + 4u * i);
}

/* Gradients of h's fragment reaching `a` from now on go on to the PS flagged `flags`. */
static void bypass(a2tp_aggregator_t* a, const a2tp_header_t* h, uint32_t flags) {
  a->bypass_flags = flags, a->bypass_job = h->job, a->bypass_sequence = h->sequence;
}

/* Whether every worker `a` waits for here is in: the switch's mask on a tree, the job's fan-in
 * on a single switch. */
static int complete(const a2tp_aggregator_t* a, const a2tp_tree_job_t* t) {
  return t ? a2tp_bitmap_equal(a->bitmap, t->mask, a2tp_bitmap_words(a->workers)) : a2tp_bitmap_full(a->bitmap, a->workers);
}

static int gradient(const a2tp_switch_config_t* c, const fs_handler_args_t* args, const a2tp_header_t* h,
                    a2tp_aggregator_t* a, uint32_t len) {
  uint8_t* pkt = args->pkt;
  const a2tp_tree_job_t* t = tree_of(c, args, h->job);
  int outcome;
  fs_lock(&a->lock);
  if (a->bypass_flags && a->bypass_job == h->job && a->bypass_sequence == h->sequence) {
    pkt[A2TP_PAYLOAD_OFFSET + A2TP_OFF_FLAGS] |= (uint8_t)a->bypass_flags;
    fs_unlock(&a->lock);
    return forward(pkt, len, A2TP_BYPASSED);
  }
  if (!a->busy) {
    take(a, h, pkt);
    outcome = A2TP_TAKEN;
  } else if (a->job == h->job && a->sequence == h->sequence) {
    if (a->elements != h->elements || a->workers != h->workers) {
      fs_unlock(&a->lock);
      return A2TP_MALFORMED;
    }
    if (a2tp_bitmaps_meet(a->bitmap, h->bitmap, a2tp_bitmap_words(a->workers))) {
      fs_unlock(&a->lock);
      return A2TP_DUPLICATE;
    }
    sum_into(a, pkt + values_offset(h->workers));
    a2tp_bitmap_or(a->bitmap, h->bitmap, a2tp_bitmap_words(a->workers));
    a->ece |= ce_marked(pkt) || (h->flags & A2TP_FLAG_ECE);
    a->col |= (h->flags & A2TP_FLAG_COL) != 0;
    outcome = A2TP_AGGREGATED;
  } else {
    if (c->mode == A2TP_MODE_A2TP) a->col = 1;
    bypass(a, h, A2TP_FLAG_COLLISION);
    fs_unlock(&a->lock);
    pkt[A2TP_PAYLOAD_OFFSET + A2TP_OFF_FLAGS] |= A2TP_FLAG_COLLISION;
    return forward(pkt, len, A2TP_COLLISION);
  }
  if (complete(a, t)) {
    if (t && t->passes_on) {
      write_sum(pkt, a, A2TP_FLAG_SUM);
      a->busy = 0;
      fs_unlock(&a->lock);
      return forward(pkt, len, A2TP_PASSED_ON);
    }
    write_sum(pkt, a, A2TP_FLAG_RESULT); /* the aggregator keeps it until the PS's result passes */
    fs_unlock(&a->lock);
    return forward(pkt, len, A2TP_COMPLETED);
  }
  fs_unlock(&a->lock);
  return outcome;
}

/* A RESEND gradient: to the PS, and after it the partial sum of its fragment's aggregation, if
 * the switch holds it. */
static int resend(const fs_handler_args_t* args, const a2tp_header_t* h, a2tp_aggregator_t* a, uint32_t len) {
  uint8_t* pkt = args->pkt;
  int outcome = forward(pkt, len, A2TP_RESENT);
  if (outcome != A2TP_RESENT) return outcome;
  fs_lock(&a->lock);
  bypass(a, h, A2TP_FLAG_RESEND); /* the fragment is at the PS now: its other gradients follow */
  if (a->busy && a->job == h->job && a->sequence == h->sequence && a->elements == h->elements) {
    write_sum(pkt, a, A2TP_FLAG_RESEND | A2TP_FLAG_SUM); /* a switch above flushes its own partial too */
    a->busy = 0;
    fs_unlock(&a->lock);
    return forward(pkt, len, A2TP_FLUSHED);
  }
  fs_unlock(&a->lock);
  return outcome;
}

/* A result to a job's group address: a copy out of each port that leads to one of its workers
 * (a2tp_group_ipv4; on a tree, each of the job's children here), the ingress port aside. */
static int to_group(const fs_handler_args_t* args, const a2tp_tree_job_t* t, const a2tp_header_t* h, uint32_t len,
                    int outcome) {
  const uint32_t first = (uint32_t)fs_be32(args->pkt + FS_ETH_BYTES + 16) & 0xFFFFu;
  uint32_t ports[A2TP_MAX_WORKERS], n = 0, r, k;
  if (t) {
    for (k = 0; k < t->children && k < A2TP_MAX_WORKERS; ++k)
      if (t->down[k] != args->ingress_port) ports[n++] = t->down[k];
    if (n && fs_multicast(args->pkt, len, ports, n) != 0) return A2TP_NO_ROUTE;
    return outcome;
  }
  for (r = 0; r < h->workers; ++r) {
    const int port = fs_next_hop(fs_host_ipv4(first + r));
    if (port < 0) return A2TP_NO_ROUTE;
    for (k = 0; k < n && ports[k] != (uint32_t)port; ++k) {
    }
    if (k == n && (uint32_t)port != args->ingress_port) ports[n++] = (uint32_t)port;
  }
  if (n && fs_multicast(args->pkt, len, ports, n) != 0) return A2TP_NO_ROUTE;
  return outcome;
}

/* A result on its way (from a PS to its workers, or to one of them): frees the aggregation of its
 * fragment still here. */
static int result(const a2tp_switch_config_t* c, const fs_handler_args_t* args, const a2tp_header_t* h,
                  a2tp_aggregator_t* a, uint32_t len) {
  int released = 0, outcome;
  if (a) {
    fs_lock(&a->lock);
    if (a->busy && a->job == h->job && a->sequence == h->sequence) {
      /* A collision while the result was held here reaches the holder's workers in this one. */
      if (a->col) args->pkt[A2TP_PAYLOAD_OFFSET + A2TP_OFF_FLAGS] |= A2TP_FLAG_COL;
      a->busy = 0, released = 1;
    }
    if (a->bypass_flags && a->bypass_job == h->job && a->bypass_sequence == h->sequence) a->bypass_flags = 0;
    fs_unlock(&a->lock);
  }
  outcome = released ? A2TP_RELEASED : A2TP_FORWARDED;
  if (a2tp_is_group((uint32_t)fs_be32(args->pkt + FS_ETH_BYTES + 16))) return to_group(args, tree_of(c, args, h->job), h, len, outcome);
  return forward(args->pkt, len, outcome);
}

int a2tp_handler(const fs_handler_args_t* args) {
  const a2tp_switch_config_t* c = config_of(args);
  a2tp_header_t h;
  a2tp_aggregator_t* a;
  uint32_t len;
  if (!c) return A2TP_NOT_INSTALLED;
  if (!read_packet(args->pkt, args->pkt_len, &h)) return A2TP_MALFORMED;
  len = values_offset(h.workers) + h.elements * A2TP_ELEMENT_BYTES;
  a = aggregator_of(c, &h);
  if (h.flags & A2TP_FLAG_RESULT) return result(c, args, &h, a, len);
  if (h.flags & A2TP_FLAG_COLLISION) return forward(args->pkt, len, A2TP_COLLISION);
  if (!a) return forward(args->pkt, len, A2TP_NO_SHARE);
  if (h.flags & A2TP_FLAG_RESEND) return resend(args, &h, a, len);
  if (h.elements == 0) return A2TP_MALFORMED;
  return gradient(c, args, &h, a, len);
}

/* Names of the outcome codes, in the order of enum a2tp_outcome. */
static const fs_outcome_desc_t a2tp_outcomes[] = {
    /* name, drop, completes_block, no_block */
    {"ok", 0, 0, 1},        {"taken", 0, 0, 0},     {"aggregated", 0, 0, 0}, {"completed", 0, 0, 0},
    {"duplicate", 1, 0, 1}, {"collision", 0, 0, 1}, {"resent", 0, 0, 1},     {"flushed", 0, 1, 0},
    {"bypassed", 0, 0, 1},  {"passed_on", 0, 1, 0},
    {"forwarded", 0, 0, 1}, {"released", 0, 1, 0},  {"no_share", 0, 0, 1},   {"malformed", 1, 0, 1},
    {"no_route", 1, 0, 1},  {"not_installed", 1, 0, 1},
};
_Static_assert(sizeof(a2tp_outcomes) / sizeof(a2tp_outcomes[0]) == A2TP_OUTCOME_COUNT, "an outcome name for every code");
FS_HANDLER_SET(a2tp,
               "ATP and A2TP: gradients of several jobs aggregated in hashed (or statically shared) aggregators, "
               "collisions and the rest to each job's parameter server, A2TP's Col bit (int32 sums)",
               A2TP_OFF_SEQUENCE, A2TP_OFF_JOB, a2tp_outcomes);
