/* NetReduce's switch handler (NetReduce 3.1-3.2): RDMA write packets of the ring's reliable
 * connections are found their message and position through the connection lookup table, kept
 * in their aggregator's slot for their sender's rank, and, once every rank is in, sent back into
 * every connection with the ring's sum in place of their elements (the command unit stamps the
 * new ICRC, command.icrc = stamp). Elements are int32, little-endian, summed wrapping, as the
 * workers' gradients are (sc_model/protocols/netreduce/netreduce_ring.h).
 *
 * A packet's message and position: a first packet (its data starts with the InetTag) carries
 * them in its INA header and moves its connection's CLT entry on (to a later PSN only); any
 * other packet is d = PSN - PSN0 past its connection's entry: position d of that message if
 * d < MsgLen, dropped if d >= MsgLen (the message's first packet was lost), and, if d < 0, a
 * packet of an earlier message (a resend, or a packet whose handler ran after the next first
 * packet's): the messages before the entry's are full, MsgLen packets each.
 *
 * An aggregator takes a message newer than the one it holds by starting over (MsgID + 2N: every
 * worker has had the result of the one it held, since each sent MsgID + N) and forwards packets
 * of older ones unchanged (their receiver has them and acknowledges the duplicate). Completing
 * message m's aggregator at position k releases position k of message m - N, one window back:
 * its every worker has that result, because each sent m. Writing a slot again is idempotent.
 *
 * HPUs finish packets in any order, where the paper's pipeline keeps them in order; a receiver
 * takes a connection's packets only in PSN order and answers a gap with a NAK that sends the
 * sender back N. With netreduce.in_order results leave in the ring's order: the
 * handler that completes the aggregator at the ring's emission point sends it and every complete
 * one behind it (emit_in_order). */
#include <string.h>

#include "netreduce_switch.h"

/* Where a packet's headers end and its elements start. */
typedef struct packet_view {
  roce_bth_t bth;
  uint32_t src_ip, dst_ip;
  uint32_t data_offset; /* bytes of headers before the RDMA payload */
  uint32_t data_bytes;  /* RDMA payload (INA header included) */
} packet_view_t;

/* This cluster's copy of the configuration (local L1: read by every packet). */
static const netreduce_switch_config_t* config_of(const fs_handler_args_t* args) {
  const netreduce_switch_config_t* c = (const netreduce_switch_config_t*)args->l1;
  if (args->l1_size < NETREDUCE_CONFIG_L1_BYTES || c->magic != NETREDUCE_SWITCH_MAGIC) return NULL;
  return c;
}

/* Reads the frame's IPv4 addresses and BTH and finds its payload; 0 if it is no RoCEv2 RC write
 * this handler can take whole (an IPv4 header with options, a pad count, a cut frame). */
static int view_of(const uint8_t* pkt, uint32_t len, packet_view_t* v) {
  uint32_t end;
  if (len < ROCE_BTH_OFFSET + ROCE_BTH_BYTES + ROCE_ICRC_BYTES || pkt[FS_ETH_BYTES] != 0x45u) return 0;
  end = FS_ETH_BYTES + fs_be16(pkt + FS_ETH_BYTES + 2);
  if (end > len || end < ROCE_BTH_OFFSET + ROCE_BTH_BYTES + ROCE_ICRC_BYTES) return 0;
  roce_bth_decode(pkt + ROCE_BTH_OFFSET, &v->bth);
  v->src_ip = fs_be32(pkt + FS_ETH_BYTES + 12);
  v->dst_ip = fs_be32(pkt + FS_ETH_BYTES + 16);
  v->data_offset = ROCE_BTH_OFFSET + ROCE_BTH_BYTES + roce_extension_bytes(v->bth.opcode);
  if (v->data_offset + ROCE_ICRC_BYTES > end || v->bth.pad_count) return 0;
  v->data_bytes = end - v->data_offset - ROCE_ICRC_BYTES;
  return 1;
}

static int forward(const uint8_t* frame, uint32_t len, uint32_t dst_ip, int outcome) {
  const int port = fs_next_hop(dst_ip);
  if (port < 0) return NETREDUCE_NO_ROUTE;
  fs_send(frame, len, (uint32_t)port);
  return outcome;
}

/* The packet sent on as it came (other traffic, a resend its receiver has). */
static int pass_on(const fs_handler_args_t* args, const packet_view_t* v, int outcome) {
  return forward(args->pkt, v->data_offset + v->data_bytes + ROCE_ICRC_BYTES, v->dst_ip, outcome);
}

/* A CLT entry's lock is a ticket lock: the packets of a connection, many at once on as many
 * HPUs, take it in the order they ask for it, so none waits for ever while others keep taking it
 * (a spin lock's swap lets the HPU that happens to retry first win each time). */
static void entry_lock(netreduce_clt_entry_t* e) {
  const uint32_t mine = __atomic_fetch_add(&e->ticket, 1u, __ATOMIC_RELAXED);
  while (__atomic_load_n(&e->serving, __ATOMIC_ACQUIRE) != mine) {
  }
}
static void entry_unlock(netreduce_clt_entry_t* e) {
  __atomic_store_n(&e->serving, __atomic_load_n(&e->serving, __ATOMIC_RELAXED) + 1u, __ATOMIC_RELEASE);
}

static netreduce_clt_entry_t* clt(const netreduce_switch_config_t* c, const fs_handler_args_t* args) {
  return (netreduce_clt_entry_t*)(args->handler_mem + c->clt_offset);
}

/* The connection's CLT entry, locked: its own, or a free one taken for it (NULL if none is
 * free). Linear probing from the hash of the key. */
static netreduce_clt_entry_t* clt_find(const netreduce_switch_config_t* c, const fs_handler_args_t* args,
                                       const packet_view_t* v) {
  const uint32_t key[3] = {v->src_ip, v->dst_ip, v->bth.dest_qp};
  const uint32_t mask = c->clt_entries - 1u;
  uint32_t i = fs_hash(key, sizeof(key), NETREDUCE_CLT_SEED) & mask, n;
  for (n = 0; n < c->clt_entries; ++n, i = (i + 1u) & mask) {
    netreduce_clt_entry_t* e = clt(c, args) + i;
    entry_lock(e);
    if (e->used && e->src_ip == key[0] && e->dst_ip == key[1] && e->dst_qp == key[2]) return e;
    if (!e->used) {
      e->used = 1, e->anchored = 0, e->plain = 0, e->src_ip = key[0], e->dst_ip = key[1], e->dst_qp = key[2];
      return e;
    }
    entry_unlock(e);
  }
  return NULL;
}

static netreduce_aggregator_t* aggregator(const netreduce_switch_config_t* c, const fs_handler_args_t* args,
                                          uint32_t index) {
  return (netreduce_aggregator_t*)(args->handler_mem + c->aggregators_offset + index * c->aggregator_bytes);
}

/* Packet k of message msg_id's aggregator. */
static netreduce_aggregator_t* aggregator_at(const netreduce_switch_config_t* c, const fs_handler_args_t* args,
                                             uint32_t msg_id, uint32_t k) {
  return aggregator(c, args, (msg_id & (2u * c->window - 1u)) * c->msg_packets + k);
}

/* The result area, and rank r's slot after it (in both, headers end and elements start
 * NETREDUCE_HEADER_MAX bytes in; the result area has the ICRC's 4 bytes more). */
static uint8_t* result_area(netreduce_aggregator_t* a) { return (uint8_t*)a + NETREDUCE_AGGREGATOR_HEAD; }
static uint8_t* slot_of(const netreduce_switch_config_t* c, netreduce_aggregator_t* a, uint32_t r) {
  return result_area(a) + c->slot_bytes + ROCE_ICRC_BYTES + r * c->slot_bytes;
}

/* Sums the ranks' elements into this packet's own (in the HPU's L1 packet slot), fetching the
 * other ranks' slots from L2 one at a time into the HPU's L1 buffer with the cluster DMA, and
 * copies the sum into the result area. */
static void sum_slots(const netreduce_switch_config_t* c, const fs_handler_args_t* args, netreduce_aggregator_t* a,
                      uint32_t rank) {
  uint32_t* acc = (uint32_t*)(args->pkt + a->header_bytes); /* word-aligned: FS_PKT_FRAME_OFFSET */
  uint32_t* buf = (uint32_t*)(args->l1 + NETREDUCE_CONFIG_L1_BYTES + args->hpu_id * c->mtu);
  const uint32_t n = a->data_bytes / 4u;
  uint32_t i, r;
  for (r = 0; r < c->ranks; ++r) {
    if (r == rank) continue;
    fs_dma_copy(buf, slot_of(c, a, r) + NETREDUCE_HEADER_MAX, a->data_bytes);
    _Pragma("GCC unroll 4")
    for (i = 0; i < n; ++i) acc[i] += buf[i];
  }
  fs_dma_copy(result_area(a) + NETREDUCE_HEADER_MAX, acc, a->data_bytes);
}

/* Sends rank r's packet with the sum: its headers put in front of the result area's elements,
 * 4 bytes for the ICRC after them. */
static int send_result(const netreduce_switch_config_t* c, netreduce_aggregator_t* a, uint32_t r) {
  uint8_t* frame = result_area(a) + NETREDUCE_HEADER_MAX - a->header_bytes;
  fs_dma_copy(frame, slot_of(c, a, r) + NETREDUCE_HEADER_MAX - a->header_bytes, a->header_bytes);
  return forward(frame, a->header_bytes + a->data_bytes + ROCE_ICRC_BYTES, fs_be32(frame + FS_ETH_BYTES + 16),
                 NETREDUCE_OK);
}

/* Sends every rank's result of a complete aggregator; NETREDUCE_NO_ROUTE if one had no route. */
static int emit_all(const netreduce_switch_config_t* c, netreduce_aggregator_t* a) {
  int outcome = NETREDUCE_OK;
  uint32_t r;
  for (r = 0; r < c->ranks; ++r)
    if (send_result(c, a, r) != NETREDUCE_OK) outcome = NETREDUCE_NO_ROUTE;
  a->emitted = 1;
  return outcome;
}

/* netreduce.in_order: sends the results of the complete aggregators from the ring's emission
 * point on, in the ring's order (message by message, packet by packet), and moves the point past
 * them; it stops at the first aggregator still waiting for a rank. Whoever completes the
 * aggregator at the point sends it and those that completed behind it. */
static void emit_in_order(const netreduce_switch_config_t* c, const fs_handler_args_t* args) {
  netreduce_switch_config_t* ring = (netreduce_switch_config_t*)args->handler_mem;
  int ready = 1;
  fs_lock(&ring->emit_lock);
  while (ready) {
    netreduce_aggregator_t* a = aggregator(c, args, ring->emit_slot * c->msg_packets + ring->emit_k);
    fs_lock(&a->lock);
    ready = a->state == NETREDUCE_COMPLETE && !a->emitted;
    if (ready) {
      emit_all(c, a);
      if (++ring->emit_k >= a->msg_len) ring->emit_k = 0, ring->emit_slot = (ring->emit_slot + 1u) & (2u * c->window - 1u);
    }
    fs_unlock(&a->lock);
  }
  fs_unlock(&ring->emit_lock);
}

static int has_rank(const netreduce_aggregator_t* a, uint32_t r) { return (a->bitmap[r >> 5] >> (r & 31u)) & 1u; }

static int all_in(const netreduce_switch_config_t* c, const netreduce_aggregator_t* a) {
  uint32_t r;
  for (r = 0; r < c->ranks; ++r)
    if (!has_rank(a, r)) return 0;
  return 1;
}

/* Releases position k of message msg_id - N (the aggregator msg_id + N mod 2N), if it holds it. */
static void release_behind(const netreduce_switch_config_t* c, const fs_handler_args_t* args, uint32_t msg_id,
                           uint32_t k) {
  const uint32_t behind = (msg_id - c->window) & 0xFFu;
  netreduce_aggregator_t* b = aggregator_at(c, args, behind, k);
  fs_lock(&b->lock);
  if (b->state == NETREDUCE_COMPLETE && b->msg_id == behind) b->state = NETREDUCE_RELEASED;
  fs_unlock(&b->lock);
}

/* Rank `rank`'s packet at position k of message msg_id, whose headers are the first
 * `header_bytes` of the frame (the INA header included on a first packet). */
static int aggregate(const netreduce_switch_config_t* c, const fs_handler_args_t* args, const packet_view_t* v,
                     uint32_t rank, uint32_t msg_id, uint32_t msg_len, uint32_t k, uint32_t header_bytes) {
  const uint32_t data_bytes = v->data_offset + v->data_bytes - header_bytes;
  netreduce_aggregator_t* a = aggregator_at(c, args, msg_id, k);
  uint8_t* slot;
  uint32_t age;
  int outcome, completed = 0;
  if (data_bytes > c->mtu || data_bytes % 4u || header_bytes > NETREDUCE_HEADER_MAX) return NETREDUCE_MALFORMED;
  fs_lock(&a->lock);
  age = (msg_id - a->msg_id) & 0xFFu; /* how many messages newer than the one it holds */
  if (a->state == NETREDUCE_FREE || (age != 0 && age <= 2u * c->window)) {
    a->state = NETREDUCE_FILLING, a->msg_id = msg_id, a->msg_len = msg_len, a->emitted = 0;
    a->header_bytes = header_bytes, a->data_bytes = data_bytes;
    memset(a->bitmap, 0, sizeof(a->bitmap));
  } else if (age != 0 || a->state == NETREDUCE_RELEASED) {
    fs_unlock(&a->lock);
    return pass_on(args, v, NETREDUCE_STALE);
  }
  if (a->header_bytes != header_bytes || a->data_bytes != data_bytes) {
    fs_unlock(&a->lock);
    return NETREDUCE_MALFORMED;
  }
  slot = slot_of(c, a, rank);
  fs_dma_copy(slot + NETREDUCE_HEADER_MAX - header_bytes, args->pkt, header_bytes + data_bytes); /* into L2 */
  if (a->state == NETREDUCE_COMPLETE && a->emitted) {
    outcome = send_result(c, a, rank) == NETREDUCE_OK ? NETREDUCE_RESULT_RESENT : NETREDUCE_NO_ROUTE;
  } else if (has_rank(a, rank)) { /* (a complete one whose results wait for their turn, too) */
    outcome = NETREDUCE_DUPLICATE;
  } else {
    a->bitmap[rank >> 5] |= 1u << (rank & 31u);
    outcome = NETREDUCE_AGGREGATED;
    if (all_in(c, a)) {
      completed = 1;
      a->state = NETREDUCE_COMPLETE;
      sum_slots(c, args, a, rank);
      outcome = NETREDUCE_COMPLETED;
      if (!c->in_order && emit_all(c, a) != NETREDUCE_OK) outcome = NETREDUCE_NO_ROUTE;
    }
  }
  fs_unlock(&a->lock);
  if (completed) {
    if (c->in_order) emit_in_order(c, args);
    release_behind(c, args, msg_id, k);
  }
  return outcome;
}

/* Where a packet goes: its sender's rank, its message and the message's packets, its position. */
typedef struct position {
  uint32_t rank, msg_id, msg_len, k;
} position_t;

/* Whether the packet may take its connection's CLT step: the entry is plain, or anchored with
 * every earlier PSN's step taken, or not anchored and this is a first packet (`ina`). */
static int step_ready(const netreduce_clt_entry_t* e, const packet_view_t* v, const netreduce_ina_t* ina) {
  if (__atomic_load_n(&e->plain, __ATOMIC_RELAXED)) return 1;
  if (!__atomic_load_n(&e->anchored, __ATOMIC_RELAXED)) return ina != NULL || roce_has_reth(v->bth.opcode);
  return roce_psn_diff(v->bth.psn, __atomic_load_n(&e->next_psn, __ATOMIC_RELAXED)) <= 0;
}

/* The packet's CLT step (3.2), in its connection's PSN order: it waits up to order_spins turns
 * for its connection's earlier packets, which other HPUs may be handling, to take theirs (after
 * that they count as lost). A first packet (`ina`) moves the entry on to its message (to a later
 * PSN only); any other packet finds its position from the entry: d = PSN - PSN0 past it,
 * position d of that message if d < MsgLen, dropped if d >= MsgLen (the message's first packet
 * was lost), an earlier message's if d < 0 (the messages before the entry's are full). Returns
 * -1 with the position, or the outcome of a packet that goes no further. */
static int clt_step(const netreduce_switch_config_t* c, const fs_handler_args_t* args, const packet_view_t* v,
                    const netreduce_ina_t* ina, position_t* at) {
  const int untagged_first = !ina && roce_has_reth(v->bth.opcode);
  netreduce_clt_entry_t* e = clt_find(c, args, v);
  uint32_t turns;
  int32_t d;
  if (!e) return NETREDUCE_CLT_FULL;
  for (turns = 0; turns < c->order_spins && !step_ready(e, v, ina);) {
    entry_unlock(e); /* wait without the lock, which the earlier packets need */
    while (turns < c->order_spins && !step_ready(e, v, ina)) ++turns;
    entry_lock(e);
  }
  if (untagged_first && !e->anchored) e->plain = 1; /* a write that is no NetReduce message */
  if (untagged_first && !e->plain) {
    entry_unlock(e);
    return NETREDUCE_MALFORMED;
  }
  if (e->plain || (!e->anchored && !ina)) { /* other RoCE traffic, or a connection never anchored */
    entry_unlock(e);
    return pass_on(args, v, NETREDUCE_PASSED);
  }
  if (!e->anchored || roce_psn_diff(v->bth.psn, e->next_psn) >= 0) e->next_psn = (v->bth.psn + 1u) & ROCE_PSN_MASK;
  if (ina) {
    if (!e->anchored || roce_psn_diff(v->bth.psn, e->psn0) > 0)
      e->anchored = 1, e->rank = ina->rank, e->msg_id = ina->msg_id, e->msg_len = ina->msg_len, e->psn0 = v->bth.psn;
    entry_unlock(e);
    at->rank = ina->rank, at->msg_id = ina->msg_id, at->msg_len = ina->msg_len, at->k = 0;
    return -1;
  }
  d = roce_psn_diff(v->bth.psn, e->psn0);
  at->rank = e->rank, at->msg_id = e->msg_id, at->msg_len = e->msg_len;
  entry_unlock(e);
  if (d >= (int32_t)at->msg_len) return NETREDUCE_FIRST_LOST;
  if (d >= 0) {
    at->k = (uint32_t)d;
  } else {
    const uint32_t back = ((uint32_t)-d + c->msg_packets - 1u) / c->msg_packets;
    if (back > 2u * c->window) /* older than any aggregator holds: its receiver has it */
      return pass_on(args, v, NETREDUCE_STALE);
    at->k = (uint32_t)(d + (int32_t)(back * c->msg_packets));
    at->msg_id = (at->msg_id - back) & 0xFFu, at->msg_len = c->msg_packets;
  }
  return at->k == 0 ? NETREDUCE_MALFORMED : -1; /* a message's first position, without an INA header */
}

int netreduce_handler(const fs_handler_args_t* args) {
  const netreduce_switch_config_t* c = config_of(args);
  packet_view_t v;
  netreduce_ina_t ina;
  position_t at;
  int outcome, first;
  if (!c) return NETREDUCE_NOT_INSTALLED;
  if (!view_of(args->pkt, args->pkt_len, &v)) return NETREDUCE_MALFORMED;
  first = roce_has_reth(v.bth.opcode) && v.data_bytes >= NETREDUCE_INA_BYTES &&
          fs_be32(args->pkt + v.data_offset) == NETREDUCE_INET_TAG;
  if (first) netreduce_ina_decode(args->pkt + v.data_offset, &ina);
  if (!roce_is_write(v.bth.opcode) || (first && ina.ring_id != c->ring_id))
    return pass_on(args, &v, NETREDUCE_PASSED);
  if (first && (ina.rank >= c->ranks || ina.msg_len == 0 || ina.msg_len > c->msg_packets)) return NETREDUCE_MALFORMED;
  outcome = clt_step(c, args, &v, first ? &ina : NULL, &at);
  if (outcome >= 0) return outcome;
  return aggregate(c, args, &v, at.rank, at.msg_id, at.msg_len, at.k,
                   v.data_offset + (first ? NETREDUCE_INA_BYTES : 0u));
}

static const fs_outcome_desc_t netreduce_outcomes[] = {
    /* name, drop, completes_block, no_block */
    {"ok", 0, 0, 1},          {"aggregated", 0, 0, 1},     {"completed", 0, 0, 1},   {"duplicate", 0, 0, 1},
    {"result_resent", 0, 0, 1}, {"stale", 0, 0, 1},        {"passed", 0, 0, 1},      {"first_lost", 1, 0, 1},
    {"malformed", 1, 0, 1},   {"clt_full", 1, 0, 1},       {"no_route", 1, 0, 1},    {"not_installed", 1, 0, 1},
};
_Static_assert(sizeof(netreduce_outcomes) / sizeof(netreduce_outcomes[0]) == NETREDUCE_OUTCOME_COUNT,
               "an outcome name for every code");
FS_HANDLER_SET(netreduce,
               "NetReduce: aggregation of a ring's RDMA writes inside the switch, transparent to RoCEv2 (connection "
               "lookup table, aggregators per message and position, results into every connection; int32 sums)",
               -1, -1, netreduce_outcomes);
