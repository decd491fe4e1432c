/* Wire format of the a2tp protocol (ATP and A2TP, A2TP §4.3 and §5), shared by the C handlers
 * (host and RISC-V builds) and the simulator's workers and parameter servers. Carried over
 * Ethernet II, IPv4 without options and UDP (fs_packet.h) to A2TP_UDP_PORT_DEFAULT; a gradient's
 * IPv4 destination is its job's parameter server (PS), and the switch aggregates it on the way.
 * ECN travels in the IPv4 header as usual. The 22-byte header, big-endian fields:
 *   0 job | 4 sequence (the gradient fragment's number, unique within the job's run) | 8
 *   aggregator (the index the worker hashed job and sequence to, or its fragment's entry in its
 *   job's table of aggregators, or the slot in its job's static share) | 10 flags | 11 worker
 *   (the sender's rank in its job, its bit in the bitmap) | 12 bitmap (the workers whose values
 *   the packet holds: workers 0-31, worker w the bit 1 << w) | 16 elements (int32 values that
 *   follow) | 18 workers (the job's fan-in, 1..128) | 19 reserved (0) | 20 next (in a result
 *   flagged MOVE, the aggregator the fragment's table entry moves to; 0 otherwise)
 * and, in a job of more than 32 workers, the rest of the bitmap: ceil(workers / 32) - 1 more
 * 32-bit words at 22, 26 and 30, the k-th holding workers 32k to 32k + 31 in the same order
 * (a2tp_header_bytes: 22 to 34 bytes in all). Then the values: little-endian int32,
 * A2TP_ELEMENTS in a full fragment (248 bytes, what an A2TP aggregator holds, §4.3), from byte 64
 * of the frame in a job of up to 32 workers. Flags:
 *   RESULT     an aggregation result (from the switch to the PS, from the PS to the workers: the
 *              ACK of A2TP §4.2)
 *   COLLISION  this gradient found its aggregator held by another aggregation: the PS sums it
 *   COL        in a result: its aggregator saw a collision while it held it (A2TP's Col bit)
 *   RESEND     sent straight to the PS (A2TP §5's is_resend): the switch forwards it, first sending
 *              the partial sum of its fragment to the PS if an aggregator holds it
 *   ECE        in a result: a gradient summed into it arrived ECN-marked (CE)
 *   MOVE       in a PS's result: a gradient of the fragment collided, and its job's workers name
 *              `next` for the fragment's table entry from now on (ATP's dynamic allocation:
 *              sc_model/protocols/a2tp/a2tp_slots.h); `aggregator` is still the old one, which
 *              the switch the result passes frees if it holds the fragment there
 *   SUM        a gradient that is a switch's sum of the workers in its bitmap (worker: the lowest
 *              of them), on its way to the PS: on a tree of switches, a complete sum of a switch
 *              below, or (with RESEND) a partial one a RESEND flushed; COL and ECE as in a result
 * The low bit is padding, 0. Job and sequence are the block group and id flaresim's
 * block statistics read. */
#ifndef A2TP_PROTO_H
#define A2TP_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "fs_packet.h"

#ifdef __cplusplus
extern "C" {
#endif

#define A2TP_UDP_PORT_DEFAULT 4960u
#define A2TP_HEADER_BYTES 22u /* the fixed part: the whole header of a job of up to 32 workers */
#define A2TP_ELEMENTS 62u /* int32 values of a full fragment: 248 bytes */
#define A2TP_ELEMENT_BYTES 4u
#define A2TP_MAX_WORKERS 128u
#define A2TP_BITMAP_WORDS 4u /* 32-bit words of a bitmap of A2TP_MAX_WORKERS */

#define A2TP_PAYLOAD_OFFSET FS_UDP_PAYLOAD_OFFSET /* where the header starts in a frame */

#define A2TP_OFF_JOB 0u
#define A2TP_OFF_SEQUENCE 4u
#define A2TP_OFF_AGGREGATOR 8u
#define A2TP_OFF_FLAGS 10u
#define A2TP_OFF_WORKER 11u
#define A2TP_OFF_BITMAP 12u
#define A2TP_OFF_ELEMENTS 16u
#define A2TP_OFF_WORKERS 18u
#define A2TP_OFF_RESERVED 19u
#define A2TP_OFF_NEXT 20u

#define A2TP_FLAG_RESULT 0x80u
#define A2TP_FLAG_COLLISION 0x40u
#define A2TP_FLAG_COL 0x20u
#define A2TP_FLAG_RESEND 0x10u
#define A2TP_FLAG_ECE 0x08u
#define A2TP_FLAG_MOVE 0x04u
#define A2TP_FLAG_SUM 0x02u
#define A2TP_FLAG_PADDING 0x01u /* must be 0 */

typedef struct a2tp_header {
  uint32_t job, sequence;
  uint16_t aggregator;
  uint8_t flags, worker;
  uint32_t bitmap[A2TP_BITMAP_WORDS]; /* word k: workers 32k..32k+31; 0 beyond the fan-in's words */
  uint16_t elements;
  uint8_t workers;
  uint16_t next;
} a2tp_header_t;

/* The 32-bit words of the bitmap of a job of `workers` workers: 1 to A2TP_BITMAP_WORDS. A fan-in
 * out of range (0, or above A2TP_MAX_WORKERS) has the one word of the fixed header, so that a
 * reader of such a header finds that fault rather than a short packet. */
static inline uint32_t a2tp_bitmap_words(uint32_t workers) {
  return workers == 0u || workers > A2TP_MAX_WORKERS ? 1u : (workers + 31u) / 32u;
}
/* The header's bytes in a job of `workers` workers: where the values start after it. */
static inline uint32_t a2tp_header_bytes(uint32_t workers) {
  return A2TP_HEADER_BYTES + 4u * (a2tp_bitmap_words(workers) - 1u);
}

/* Reads a header; the caller has checked that a2tp_header_bytes(h[A2TP_OFF_WORKERS]) bytes are
 * there. */
static inline void a2tp_decode(const uint8_t* h, a2tp_header_t* out) {
  uint32_t k;
  out->job = (uint32_t)fs_be32(h + A2TP_OFF_JOB);
  out->sequence = (uint32_t)fs_be32(h + A2TP_OFF_SEQUENCE);
  out->aggregator = (uint16_t)fs_be16(h + A2TP_OFF_AGGREGATOR);
  out->flags = h[A2TP_OFF_FLAGS];
  out->worker = h[A2TP_OFF_WORKER];
  out->elements = (uint16_t)fs_be16(h + A2TP_OFF_ELEMENTS);
  out->workers = h[A2TP_OFF_WORKERS];
  out->next = (uint16_t)fs_be16(h + A2TP_OFF_NEXT);
  out->bitmap[0] = (uint32_t)fs_be32(h + A2TP_OFF_BITMAP);
  out->bitmap[1] = out->bitmap[2] = out->bitmap[3] = 0;
  for (k = 1; k < a2tp_bitmap_words(out->workers); ++k)
    out->bitmap[k] = (uint32_t)fs_be32(h + A2TP_HEADER_BYTES + 4u * (k - 1u));
}

/* Writes a bitmap's words into a header of a job of `workers` workers. */
static inline void a2tp_put_bitmap(uint8_t* h, const uint32_t* bitmap, uint32_t workers) {
  uint32_t k;
  fs_put_be32(h + A2TP_OFF_BITMAP, bitmap[0]);
  for (k = 1; k < a2tp_bitmap_words(workers); ++k) fs_put_be32(h + A2TP_HEADER_BYTES + 4u * (k - 1u), bitmap[k]);
}

/* Writes the header (a2tp_header_bytes(in->workers) bytes), the reserved byte 0. */
static inline void a2tp_encode(const a2tp_header_t* in, uint8_t* h) {
  fs_put_be32(h + A2TP_OFF_JOB, in->job);
  fs_put_be32(h + A2TP_OFF_SEQUENCE, in->sequence);
  fs_put_be16(h + A2TP_OFF_AGGREGATOR, in->aggregator);
  h[A2TP_OFF_FLAGS] = in->flags;
  h[A2TP_OFF_WORKER] = in->worker;
  fs_put_be16(h + A2TP_OFF_ELEMENTS, in->elements);
  h[A2TP_OFF_WORKERS] = in->workers;
  h[A2TP_OFF_RESERVED] = 0;
  fs_put_be16(h + A2TP_OFF_NEXT, in->next);
  a2tp_put_bitmap(h, in->bitmap, in->workers);
}

/* Bitmaps of A2TP_BITMAP_WORDS words (written out for 4 words, so that a handler's loops over
 * them unroll). */
#if A2TP_BITMAP_WORDS != 4
#error "a2tp_decode and the bitmap helpers are written for 4 words"
#endif
static inline int a2tp_bitmap_has(const uint32_t* b, uint32_t worker) {
  return worker < A2TP_MAX_WORKERS && ((b[worker / 32u] >> (worker % 32u)) & 1u);
}
static inline void a2tp_bitmap_set(uint32_t* b, uint32_t worker) {
  if (worker < A2TP_MAX_WORKERS) b[worker / 32u] |= 1u << (worker % 32u);
}
static inline int a2tp_bitmap_empty(const uint32_t* b) {
  uint32_t k, any = 0;
  for (k = 0; k < A2TP_BITMAP_WORDS; ++k) any |= b[k];
  return any == 0u;
}
/* These three look at the first `words` words alone (a2tp_bitmap_words of the job's fan-in: the
 * switch keeps no more of an aggregation's bitmap than that). */
static inline int a2tp_bitmap_equal(const uint32_t* a, const uint32_t* b, uint32_t words) {
  uint32_t k, diff = 0;
  for (k = 0; k < words; ++k) diff |= a[k] ^ b[k];
  return diff == 0u;
}
static inline int a2tp_bitmaps_meet(const uint32_t* a, const uint32_t* b, uint32_t words) {
  uint32_t k, both = 0;
  for (k = 0; k < words; ++k) both |= a[k] & b[k];
  return both != 0u;
}
static inline void a2tp_bitmap_or(uint32_t* into, const uint32_t* b, uint32_t words) {
  uint32_t k;
  for (k = 0; k < words; ++k) into[k] |= b[k];
}
/* The lowest worker in a non-empty bitmap. */
static inline uint32_t a2tp_bitmap_lowest(const uint32_t* b) {
  uint32_t k = 0, w = 0;
  while (k + 1u < A2TP_BITMAP_WORDS && !b[k]) ++k;
  while (w < 31u && !((b[k] >> w) & 1u)) ++w;
  return 32u * k + w;
}
/* Word k of the bitmap of a job of `workers` workers when every one has contributed. */
static inline uint32_t a2tp_full_word(uint32_t workers, uint32_t k) {
  const uint32_t below = workers > 32u * k ? workers - 32u * k : 0u;
  return below >= 32u ? 0xFFFFFFFFu : ((1u << below) - 1u);
}
/* `b` becomes the bitmap of a job of `workers` workers when every one has contributed. */
static inline void a2tp_full_bitmap(uint32_t* b, uint32_t workers) {
  uint32_t k;
  for (k = 0; k < A2TP_BITMAP_WORDS; ++k) b[k] = a2tp_full_word(workers, k);
}
/* Whether `b`'s first a2tp_bitmap_words(workers) words are the whole of a job of `workers`. */
static inline int a2tp_bitmap_full(const uint32_t* b, uint32_t workers) {
  uint32_t k, diff = 0;
  for (k = 0; k < a2tp_bitmap_words(workers); ++k) diff |= b[k] ^ a2tp_full_word(workers, k);
  return diff == 0u;
}
/* Whether `b` names only workers below `workers`. */
static inline int a2tp_bitmap_within(const uint32_t* b, uint32_t workers) {
  const uint32_t last = a2tp_bitmap_words(workers) - 1u; /* the words before it may hold anything */
  uint32_t k, beyond = b[last] & ~a2tp_full_word(workers, last);
  for (k = last + 1u; k < A2TP_BITMAP_WORDS; ++k) beyond |= b[k];
  return beyond == 0u;
}
/* Whether `b` names `worker` and no other. */
static inline int a2tp_bitmap_only(const uint32_t* b, uint32_t worker) {
  uint32_t k, diff = 0;
  for (k = 0; k < A2TP_BITMAP_WORDS; ++k) diff |= b[k] ^ (k == worker / 32u ? 1u << (worker % 32u) : 0u);
  return diff == 0u;
}

/* A job's group address: the PS sends a result to it once, and the switch sends a copy to each
 * of the job's workers, hosts first_worker_host .. first_worker_host + workers - 1 (their
 * fs_host_ipv4 addresses): 239.0.0.0/16 with the first worker's host number in the low 16 bits.
 * A job with a tree of switches (a2tp_switch.h) has its copies go to its children ports instead;
 * a shard of a job with co-located PSes has its PS's host number there, one address a PS. */
#define A2TP_GROUP_PREFIX 0xEF000000u
static inline uint32_t a2tp_group_ipv4(uint32_t first_worker_host) {
  return A2TP_GROUP_PREFIX | (first_worker_host & 0xFFFFu);
}
static inline int a2tp_is_group(uint32_t ipv4) { return (ipv4 & 0xFFFF0000u) == A2TP_GROUP_PREFIX; }

/* What is wrong with a header, the first of these that applies (the switch drops such a packet;
 * the simulator's reader names the problem: a2tp_frame.cpp). */
enum a2tp_problem {
  A2TP_FINE = 0,
  A2TP_BAD_FAN_IN,          /* workers 0 or above A2TP_MAX_WORKERS */
  A2TP_BAD_WORKER,          /* worker >= workers */
  A2TP_BITMAP_BEYOND,       /* bitmap bits at or above workers */
  A2TP_BAD_PADDING,         /* padding flags set */
  A2TP_RESULT_AS_GRADIENT,  /* a result flagged COLLISION, RESEND or SUM */
  A2TP_EMPTY_RESULT,        /* a result with an empty bitmap */
  A2TP_GRADIENT_AS_RESULT,  /* a gradient flagged MOVE, or COL or ECE without SUM */
  A2TP_GRADIENT_BITMAP,     /* a gradient whose bitmap is not its worker's bit alone (SUM: does not hold it) */
  A2TP_STRAY_NEXT           /* `next` set in a packet not flagged MOVE */
};

static inline int a2tp_header_problem(const a2tp_header_t* h) {
  if (h->workers == 0 || h->workers > A2TP_MAX_WORKERS) return A2TP_BAD_FAN_IN;
  if (h->worker >= h->workers) return A2TP_BAD_WORKER;
  if (!a2tp_bitmap_within(h->bitmap, h->workers)) return A2TP_BITMAP_BEYOND;
  if (h->flags & A2TP_FLAG_PADDING) return A2TP_BAD_PADDING;
  if (h->flags & A2TP_FLAG_RESULT) {
    if (h->flags & (A2TP_FLAG_COLLISION | A2TP_FLAG_RESEND | A2TP_FLAG_SUM)) return A2TP_RESULT_AS_GRADIENT;
    if (a2tp_bitmap_empty(h->bitmap)) return A2TP_EMPTY_RESULT;
  } else if (h->flags & A2TP_FLAG_SUM) {
    if (h->flags & A2TP_FLAG_MOVE) return A2TP_GRADIENT_AS_RESULT;
    if (!a2tp_bitmap_has(h->bitmap, h->worker)) return A2TP_GRADIENT_BITMAP;
  } else {
    if (h->flags & (A2TP_FLAG_COL | A2TP_FLAG_ECE | A2TP_FLAG_MOVE)) return A2TP_GRADIENT_AS_RESULT;
    if (!a2tp_bitmap_only(h->bitmap, h->worker)) return A2TP_GRADIENT_BITMAP;
  }
  if (h->next && !(h->flags & A2TP_FLAG_MOVE)) return A2TP_STRAY_NEXT;
  return A2TP_FINE;
}

#ifdef __cplusplus
}
#endif

#endif /* A2TP_PROTO_H */
