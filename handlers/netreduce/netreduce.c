/* NetReduce's switch handler (NetReduce 3.1-3.3): RDMA write packets of the ring's reliable
 * connections are found their message and position through the connection lookup table, kept
 * in their aggregator's slot for their sender's rank, and, once every rank is in, sent back into
 * every connection with the ring's sum in place of their elements (the command unit stamps the
 * new ICRC, command.icrc = stamp). Elements are int32, little-endian, summed wrapping, as the
 * workers' gradients are (sc_model/protocols/netreduce/netreduce_ring.h).
 *
 * A packet's message and position: a first packet (its data starts with the InetTag) carries
 * them in its INA header and moves its connection's CLT entry on (to a later PSN only); any
 * other packet is d = PSN - PSN0 past its connection's entry: position d of that message if
 * d < MsgLen, dropped if d >= MsgLen once it has waited for the message's first packet
 * (another HPU may be handling it) and it has not come (it was lost), and, if d < 0, a
 * packet of an earlier message (a resend, or a packet whose handler ran after the next first
 * packet's): the messages before the entry's are full, MsgLen packets each.
 *
 * An aggregator takes a message newer than the one it holds by starting over (MsgID + 2N: every
 * worker has had the result of the one it held, since each sent MsgID + N) and forwards packets
 * of older ones unchanged (their receiver has them and acknowledges the duplicate). Completing
 * message m's aggregator at position k releases position k of message m - N, one window back:
 * its every worker has that result, because each sent m. Writing a slot again is idempotent.
 *
 * A ring over several racks (3.3; netreduce_switch.h's roles): a leaf's complete aggregator
 * sends its rack's sum up to the root and waits; the root's sends the sum of its leaves' sums
 * down to each; a leaf's result from the root goes into the connections that end in its rack,
 * and completes it there. A connection from one rack to another gets its result from the
 * receiver's leaf, which knows its headers from the notices the sender's leaf sent on for the
 * first and the last packet of each message (a middle packet's are the first's with the
 * opcode, the PSN and the lengths changed). Resends recover what is lost: a resend to a waiting
 * aggregator sends the sum up again, the root answers a leaf's sum again with the result, and a
 * resend to a complete aggregator sends its sender's result into its connection end to end.
 *
 * HPUs finish packets in any order, where the paper's pipeline keeps them in order; a receiver
 * takes a connection's packets only in PSN order and answers a gap with a NAK that sends the
 * sender back N. With netreduce.in_order each connection's results leave in its PSN order: each
 * completer (a leaf's: each result from the root) waits for its turn on each connection
 * (emit_in_turn). */
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

/* Sets the IPv4 total length, its checksum and the UDP length of a frame's headers for an RDMA
 * payload of `data_bytes` behind `header_bytes` of headers (and the ICRC after it). */
static void set_lengths(uint8_t* frame, uint32_t header_bytes, uint32_t data_bytes) {
  uint8_t* ip = frame + FS_ETH_BYTES;
  const uint32_t ip_bytes = header_bytes - FS_ETH_BYTES + data_bytes + ROCE_ICRC_BYTES;
  fs_put_be16(ip + 2, ip_bytes);
  fs_put_be16(ip + 10, 0);
  fs_put_be16(ip + 10, fs_ipv4_checksum(ip, FS_IPV4_BYTES));
  fs_put_be16(ip + FS_IPV4_BYTES + 4, ip_bytes - FS_IPV4_BYTES);
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

static int same_key(const netreduce_clt_entry_t* e, const uint32_t key[3]) {
  return e->src_ip == key[0] && e->dst_ip == key[1] && e->dst_qp == key[2];
}

/* The connection's CLT entry: its own, or a free one filled with its key (under the entry's lock,
 * which tells two HPUs filling it at once apart); NULL if none is free. Linear probing from the
 * hash of the key; a used entry's key never changes, so finding one takes no lock. */
static netreduce_clt_entry_t* clt_find(const netreduce_switch_config_t* c, const fs_handler_args_t* args,
                                       const packet_view_t* v) {
  const uint32_t key[3] = {v->src_ip, v->dst_ip, v->bth.dest_qp};
  const uint32_t mask = c->clt_entries - 1u;
  uint32_t i = fs_hash(key, sizeof(key), NETREDUCE_CLT_SEED) & mask, n;
  for (n = 0; n < c->clt_entries; ++n, i = (i + 1u) & mask) {
    netreduce_clt_entry_t* e = clt(c, args) + i;
    int mine;
    if (__atomic_load_n(&e->used, __ATOMIC_ACQUIRE)) {
      if (same_key(e, key)) return e;
      continue;
    }
    entry_lock(e);
    mine = !e->used || same_key(e, key);
    if (!e->used) {
      e->anchored = 0, e->plain = 0, e->src_ip = key[0], e->dst_ip = key[1], e->dst_qp = key[2];
      __atomic_store_n(&e->used, 1u, __ATOMIC_RELEASE);
    }
    entry_unlock(e);
    if (mine) return e;
  }
  return NULL;
}

static netreduce_aggregator_t* aggregator(const netreduce_switch_config_t* c, const fs_handler_args_t* args,
                                          uint32_t index) {
  return (netreduce_aggregator_t*)(args->handler_mem + c->aggregators_offset + index * c->aggregator_bytes);
}

/* The index of packet k of message msg_id's aggregator: (MsgID mod 2N) x MsgLen + k ... */
static uint32_t aggregator_index(const netreduce_switch_config_t* c, uint32_t msg_id, uint32_t k) {
  return (msg_id & (2u * c->window - 1u)) * c->msg_packets + k;
}
/* ... and the aggregator. */
static netreduce_aggregator_t* aggregator_at(const netreduce_switch_config_t* c, const fs_handler_args_t* args,
                                             uint32_t msg_id, uint32_t k) {
  return aggregator(c, args, aggregator_index(c, msg_id, k));
}

/* The result area, and slot s's after it (in both, headers end and elements start
 * NETREDUCE_HEADER_MAX bytes in; the result area has the ICRC's 4 bytes more). */
static uint8_t* result_area(netreduce_aggregator_t* a) { return (uint8_t*)a + NETREDUCE_AGGREGATOR_HEAD; }
static uint8_t* slot_of(const netreduce_switch_config_t* c, netreduce_aggregator_t* a, uint32_t s) {
  return result_area(a) + c->slot_bytes + ROCE_ICRC_BYTES + s * c->slot_bytes;
}

static int bit(const uint32_t* bits, uint32_t i) { return (bits[i >> 5] >> (i & 31u)) & 1u; }
/* Whether rank r's connection ends here (every rank's, on a rack switch). */
static int delivers(const netreduce_switch_config_t* c, uint32_t r) { return c->receiver_leaf[r] == c->leaf; }
static void set_bit(uint32_t* bits, uint32_t i) { bits[i >> 5] |= 1u << (i & 31u); }

/* Takes aggregator `a` for message msg_id if it holds an older one (or none): 1 if it holds
 * msg_id now, 0 if msg_id is older than what it holds, or released (every worker has it). */
static int take(const netreduce_switch_config_t* c, netreduce_aggregator_t* a, uint32_t msg_id, uint32_t msg_len) {
  const uint32_t age = (msg_id - a->msg_id) & 0xFFu; /* how many messages newer than the one it holds */
  if (a->state == NETREDUCE_FREE || (age != 0 && age <= 2u * c->window)) {
    a->state = NETREDUCE_FILLING, a->msg_id = msg_id, a->msg_len = msg_len;
    a->header_bytes = 0, a->data_bytes = 0;
    memset(a->bitmap, 0, sizeof(a->bitmap));
    memset(a->sent, 0, sizeof(a->sent));
    memset(a->headers, 0, sizeof(a->headers));
    return 1;
  }
  return age == 0 && a->state != NETREDUCE_RELEASED;
}

/* Sums the sources' elements into this packet's own (in the HPU's L1 packet slot, slot `mine`'s),
 * fetching the other slots from L2 one at a time into the HPU's L1 buffer with the cluster DMA,
 * and copies the sum into the result area. */
static void sum_slots(const netreduce_switch_config_t* c, const fs_handler_args_t* args, netreduce_aggregator_t* a,
                      uint32_t mine) {
  uint32_t* acc = (uint32_t*)(args->pkt + a->header_bytes); /* word-aligned: FS_PKT_FRAME_OFFSET */
  uint32_t* buf = (uint32_t*)(args->l1 + NETREDUCE_CONFIG_L1_BYTES + args->hpu_id * c->mtu);
  const uint32_t n = a->data_bytes / 4u;
  uint32_t i, s;
  for (s = 0; s < c->sources; ++s) {
    if (s == mine) continue;
    fs_dma_copy(buf, slot_of(c, a, s) + NETREDUCE_HEADER_MAX, a->data_bytes);
    _Pragma("GCC unroll 4")
    for (i = 0; i < n; ++i) acc[i] += buf[i];
  }
  fs_dma_copy(result_area(a) + NETREDUCE_HEADER_MAX, acc, a->data_bytes);
}

/* A middle packet's headers (`out`, a->header_bytes of them) on a connection from another rack:
 * its message's first packet's, as the first's notice announced them, with the opcode, the PSN
 * (PSN0 + k) and the lengths of position k. 0 if that notice has not come. Called with a's lock
 * held (k > 0: the first position's lock is taken after a later one's, never the other way). */
static int middle_headers(const netreduce_switch_config_t* c, const fs_handler_args_t* args,
                          const netreduce_aggregator_t* a, uint32_t s, uint32_t k, uint8_t* out) {
  netreduce_aggregator_t* first = aggregator_at(c, args, a->msg_id, 0);
  const uint32_t bth_end = ROCE_BTH_OFFSET + ROCE_BTH_BYTES;
  roce_bth_t bth;
  int ok;
  if (k == 0 || k + 1u >= a->msg_len || a->header_bytes != bth_end) return 0;
  fs_lock(&first->lock);
  ok = first->msg_id == a->msg_id && first->state != NETREDUCE_FREE && bit(first->headers, s) &&
       first->header_bytes >= bth_end;
  if (ok) fs_dma_copy(out, slot_of(c, first, s) + NETREDUCE_HEADER_MAX - first->header_bytes, bth_end);
  fs_unlock(&first->lock);
  if (!ok) return 0;
  roce_bth_decode(out + ROCE_BTH_OFFSET, &bth);
  bth.opcode = ROCE_RC_WRITE_MIDDLE, bth.ack_request = 0, bth.psn = (bth.psn + k) & ROCE_PSN_MASK;
  roce_bth_encode(&bth, out + ROCE_BTH_OFFSET);
  return 1;
}

/* Sends the result of aggregator `a` (position k) into rank r's connection: the headers of its
 * slot in front of the result area's elements, 4 bytes for the ICRC after them. A slot that
 * holds only headers (a sender in another rack: its notice's) gets the lengths set; a middle
 * position without any takes the first's (middle_headers). NETREDUCE_NO_ROUTE if the headers
 * have no route, NETREDUCE_RESULT_PARTLY if there are none yet. */
static int send_result(const netreduce_switch_config_t* c, const fs_handler_args_t* args, netreduce_aggregator_t* a,
                       uint32_t r, uint32_t k) {
  const uint32_t s = c->slot_of_rank[r], hb = a->header_bytes;
  uint8_t* frame = result_area(a) + NETREDUCE_HEADER_MAX - hb;
  uint32_t local[NETREDUCE_HEADER_MAX / 4u];
  if (s < c->sources) {
    fs_dma_copy(frame, slot_of(c, a, s) + NETREDUCE_HEADER_MAX - hb, hb);
  } else {
    if (bit(a->headers, s))
      fs_dma_copy(local, slot_of(c, a, s) + NETREDUCE_HEADER_MAX - hb, hb);
    else if (!middle_headers(c, args, a, s, k, (uint8_t*)local))
      return NETREDUCE_RESULT_PARTLY;
    set_lengths((uint8_t*)local, hb, a->data_bytes);
    fs_dma_copy(frame, local, hb);
  }
  return forward(frame, hb + a->data_bytes + ROCE_ICRC_BYTES, fs_be32(frame + FS_ETH_BYTES + 16), NETREDUCE_OK);
}

/* A packet on a virtual switch-to-switch connection (3.3) from this switch: to `to`, for
 * position k of message msg_id (msg_len packets), its INA header's tag and rank, `payload_bytes`
 * of payload and the RETH's DMA length. */
typedef struct fabric_packet {
  uint32_t to, tag, rank, msg_id, msg_len, k, payload_bytes, dma_length;
} fabric_packet_t;

/* Its headers (NETREDUCE_FABRIC_HEADER_BYTES), from and to the switches' MAC address. */
static void fabric_headers(const netreduce_switch_config_t* c, const fabric_packet_t* f, uint8_t* out) {
  uint8_t* ip = out + FS_ETH_BYTES;
  roce_bth_t bth = {ROCE_RC_WRITE_ONLY, 0, 0, 0, ROCE_DEFAULT_PKEY, NETREDUCE_FABRIC_QP, 0, 0};
  roce_reth_t reth = {0, 0, 0};
  netreduce_ina_t ina;
  fs_switch_mac(out);
  fs_switch_mac(out + 6);
  fs_put_be16(out + 12, FS_ETHERTYPE_IPV4);
  memset(ip, 0, FS_IPV4_BYTES + FS_UDP_BYTES);
  ip[0] = 0x45u, ip[8] = 64u, ip[9] = FS_IPPROTO_UDP;
  fs_put_be32(ip + 12, c->switch_ipv4);
  fs_put_be32(ip + 16, f->to);
  fs_put_be16(ip + FS_IPV4_BYTES, 0xC000u | c->ring_id);
  fs_put_be16(ip + FS_IPV4_BYTES + 2, ROCE_UDP_PORT);
  bth.psn = (f->msg_id << 8) | f->k;
  roce_bth_encode(&bth, out + ROCE_BTH_OFFSET);
  reth.virtual_address = (uint64_t)f->k * c->mtu, reth.dma_length = f->dma_length;
  roce_reth_encode(&reth, out + ROCE_BTH_OFFSET + ROCE_BTH_BYTES);
  ina.inet_tag = f->tag, ina.ring_id = (uint8_t)c->ring_id, ina.msg_id = (uint8_t)f->msg_id;
  ina.msg_len = (uint8_t)f->msg_len, ina.rank = (uint8_t)f->rank;
  netreduce_ina_encode(&ina, out + ROCE_BTH_OFFSET + ROCE_BTH_BYTES + ROCE_RETH_BYTES);
  set_lengths(out, NETREDUCE_FABRIC_HEADER_BYTES, f->payload_bytes);
}

/* Sends the result area's elements to switch `to` on a virtual connection (a leaf's sum up, the
 * root's result down), as its slot `slot` there. */
static int send_fabric(const netreduce_switch_config_t* c, netreduce_aggregator_t* a, uint32_t k, uint32_t to,
                       uint32_t slot) {
  const fabric_packet_t f = {to, NETREDUCE_INET_TAG, slot, a->msg_id, a->msg_len, k, a->data_bytes, a->data_bytes};
  uint32_t local[(NETREDUCE_FABRIC_HEADER_BYTES + 3u) / 4u];
  uint8_t* frame = result_area(a) + NETREDUCE_HEADER_MAX - NETREDUCE_FABRIC_HEADER_BYTES;
  fabric_headers(c, &f, (uint8_t*)local);
  fs_dma_copy(frame, local, NETREDUCE_FABRIC_HEADER_BYTES);
  return forward(frame, NETREDUCE_FABRIC_HEADER_BYTES + a->data_bytes + ROCE_ICRC_BYTES, to, NETREDUCE_OK);
}

/* The connections whose results this switch sends: on the root each leaf's (i: its slot), on the
 * others each rank's whose connection ends here (i: the rank). */
static uint32_t connections(const netreduce_switch_config_t* c) {
  return c->role == NETREDUCE_ROLE_ROOT ? c->sources : c->ranks;
}
static int ends_here(const netreduce_switch_config_t* c, uint32_t i) {
  return c->role == NETREDUCE_ROLE_ROOT || delivers(c, i);
}

/* Sends aggregator a's result (position k) into connection i and marks it sent (also when it has
 * no headers yet: its sender resends); the outcome of the send. */
static int emit_to(const netreduce_switch_config_t* c, const fs_handler_args_t* args, netreduce_aggregator_t* a,
                   uint32_t i, uint32_t k) {
  const int sent = c->role == NETREDUCE_ROLE_ROOT ? send_fabric(c, a, k, c->leaf_ipv4[i], i)
                                                  : send_result(c, args, a, i, k);
  set_bit(a->sent, i);
  return sent;
}

/* Sends a complete aggregator's results into every connection that ends here (the root: down to
 * every leaf). NETREDUCE_NO_ROUTE if one had no route, else NETREDUCE_RESULT_PARTLY if one had no
 * headers yet, else NETREDUCE_OK. */
static int emit_all(const netreduce_switch_config_t* c, const fs_handler_args_t* args, netreduce_aggregator_t* a,
                    uint32_t k) {
  int outcome = NETREDUCE_OK, sent;
  uint32_t i;
  for (i = 0; i < connections(c); ++i) {
    if (!ends_here(c, i)) continue;
    sent = emit_to(c, args, a, i, k);
    if (sent == NETREDUCE_NO_ROUTE || (sent != NETREDUCE_OK && outcome == NETREDUCE_OK)) outcome = sent;
  }
  return outcome;
}

/* An emission point: the message and the aggregator index a connection's next result comes from. */
static uint32_t emission_point(uint32_t msg_id, uint32_t index) { return (msg_id & 0xFFu) << 16 | index; }

/* netreduce.in_order, for connection i: its results leave in its PSN order, message by message
 * and packet by packet, which its emission point (emit_at[i]: the message and the aggregator
 * whose result goes next) keeps; each connection has its own, so different HPUs send different
 * connections' results at once. On RISC-V, where HPUs run at once, the completer of aggregator
 * `index` (holding message msg_id) waits for its turn, sends its result (unless a resend's answer
 * already did) and moves the point on; a result whose rank's packet is lost holds the ones behind
 * it until the resend completes it, as a pipeline's would. Natively, where handlers run one at a
 * time, a completer whose turn it is not leaves at once, and the one whose turn it is goes on
 * with the complete aggregators after its own, up to the first one not complete for the message
 * the point expects. */
static void emit_in_turn(const netreduce_switch_config_t* c, const fs_handler_args_t* args, uint32_t i,
                         uint32_t msg_id, uint32_t index) {
  netreduce_switch_config_t* ring = (netreduce_switch_config_t*)args->handler_mem;
  const uint32_t slots = 2u * c->window;
  while (__atomic_load_n(&ring->emit_at[i], __ATOMIC_ACQUIRE) != emission_point(msg_id, index)) {
#if !defined(__riscv)
    return;
#endif
  }
  for (;;) {
    netreduce_aggregator_t* a = aggregator(c, args, index);
    const uint32_t k = index % c->msg_packets;
    int ready;
    fs_lock(&a->lock);
    ready = a->state == NETREDUCE_COMPLETE && a->msg_id == msg_id;
    if (ready) {
      if (!bit(a->sent, i)) emit_to(c, args, a, i, k);
      if (k + 1u >= a->msg_len)
        index = ((index / c->msg_packets + 1u) & (slots - 1u)) * c->msg_packets, msg_id = (msg_id + 1u) & 0xFFu;
      else
        ++index;
      __atomic_store_n(&ring->emit_at[i], emission_point(msg_id, index), __ATOMIC_SEQ_CST);
    }
    fs_unlock(&a->lock);
#if defined(__riscv)
    return; /* every completer waits for its own turn: none goes on for another */
#else
    if (!ready) return;
#endif
  }
}

/* netreduce.in_order: aggregator `index`'s results (message msg_id), each connection's in turn. */
static void emit_in_order(const netreduce_switch_config_t* c, const fs_handler_args_t* args, uint32_t msg_id,
                          uint32_t index) {
  uint32_t i;
  for (i = 0; i < connections(c); ++i)
    if (ends_here(c, i)) emit_in_turn(c, args, i, msg_id, index);
}

static int all_in(const netreduce_switch_config_t* c, const netreduce_aggregator_t* a) {
  uint32_t s;
  for (s = 0; s < c->sources; ++s)
    if (!bit(a->bitmap, s)) return 0;
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

/* The last source of aggregator `a` (position k) is in, its slot `mine`: the sum made, and sent
 * into the connections (rack switch; in order, after the lock, with in_order), down to the
 * leaves (root) or up to the root (leaf). Called with a's lock held. */
static int complete(const netreduce_switch_config_t* c, const fs_handler_args_t* args, netreduce_aggregator_t* a,
                    uint32_t mine, uint32_t k) {
  sum_slots(c, args, a, mine);
  if (c->role == NETREDUCE_ROLE_LEAF) {
    a->state = NETREDUCE_WAITING;
    return send_fabric(c, a, k, c->parent_ipv4, c->leaf) == NETREDUCE_OK ? NETREDUCE_SENT_UP
                                                                              : NETREDUCE_NO_ROUTE;
  }
  a->state = NETREDUCE_COMPLETE;
  if (c->in_order) return NETREDUCE_COMPLETED;
  return emit_all(c, args, a, k) == NETREDUCE_NO_ROUTE ? NETREDUCE_NO_ROUTE : NETREDUCE_COMPLETED;
}

/* A resend to a slot already in: a complete aggregator answers it with its result (the root: a
 * leaf's sum, with the result down to that leaf) once that connection's has gone out here, or at
 * once if it ends elsewhere (a leaf's connection to another rack: end to end); a leaf's waiting
 * one sends its sum up again; otherwise it is kept again (a result waiting for its turn, too). */
static int answer_resend(const netreduce_switch_config_t* c, const fs_handler_args_t* args, netreduce_aggregator_t* a,
                         uint32_t slot, uint32_t rank, uint32_t k) {
  int sent;
  if (a->state == NETREDUCE_WAITING) {
    sent = send_fabric(c, a, k, c->parent_ipv4, c->leaf);
    return sent == NETREDUCE_OK ? NETREDUCE_UP_RESENT : sent;
  }
  if (c->role == NETREDUCE_ROLE_ROOT) rank = slot;
  if (a->state != NETREDUCE_COMPLETE || (ends_here(c, rank) && !bit(a->sent, rank))) return NETREDUCE_DUPLICATE;
  if (c->role == NETREDUCE_ROLE_ROOT) sent = send_fabric(c, a, k, c->leaf_ipv4[slot], slot);
  else sent = send_result(c, args, a, rank, k);
  return sent == NETREDUCE_OK ? NETREDUCE_RESULT_RESENT : sent;
}

/* A source's packet at position k of message msg_id, in slot `slot` (rank `rank`'s: the root's
 * slots are its leaves), whose headers are the first `header_bytes` of the frame (the INA header
 * included on a first packet). */
static int aggregate(const netreduce_switch_config_t* c, const fs_handler_args_t* args, const packet_view_t* v,
                     uint32_t slot, uint32_t rank, uint32_t msg_id, uint32_t msg_len, uint32_t k, uint32_t header_bytes) {
  const uint32_t data_bytes = v->data_offset + v->data_bytes - header_bytes;
  netreduce_aggregator_t* a = aggregator_at(c, args, msg_id, k);
  int outcome, completed = 0;
  if (data_bytes > c->mtu || data_bytes == 0 || data_bytes % 4u || header_bytes > NETREDUCE_HEADER_MAX)
    return NETREDUCE_MALFORMED;
  fs_lock(&a->lock);
  if (!take(c, a, msg_id, msg_len)) {
    fs_unlock(&a->lock);
    return c->role == NETREDUCE_ROLE_ROOT ? NETREDUCE_LATE : pass_on(args, v, NETREDUCE_STALE);
  }
  if ((a->header_bytes && a->header_bytes != header_bytes) || (a->data_bytes && a->data_bytes != data_bytes)) {
    fs_unlock(&a->lock);
    return NETREDUCE_MALFORMED;
  }
  a->header_bytes = header_bytes, a->data_bytes = data_bytes;
  fs_dma_copy(slot_of(c, a, slot) + NETREDUCE_HEADER_MAX - header_bytes, args->pkt, header_bytes + data_bytes); /* into L2 */
  set_bit(a->headers, slot);
  if (bit(a->bitmap, slot)) {
    outcome = answer_resend(c, args, a, slot, rank, k);
  } else {
    set_bit(a->bitmap, slot);
    outcome = NETREDUCE_AGGREGATED;
    if (all_in(c, a)) completed = 1, outcome = complete(c, args, a, slot, k);
  }
  fs_unlock(&a->lock);
  if (completed && c->in_order && c->role != NETREDUCE_ROLE_LEAF) /* (a leaf's: when the result comes down) */
    emit_in_order(c, args, msg_id, aggregator_index(c, msg_id, k));
  if (completed && c->role != NETREDUCE_ROLE_LEAF) release_behind(c, args, msg_id, k);
  return outcome;
}

/* Where a packet goes: its sender's rank, its message and the message's packets, its position. */
typedef struct position {
  uint32_t rank, msg_id, msg_len, k;
} position_t;

/* What an anchored entry says of its latest message (psn_msg and info read as a whole). */
typedef struct anchor {
  uint32_t psn0, msg_id, msg_len, rank;
} anchor_t;

static anchor_t read_anchor(const netreduce_clt_entry_t* e) {
  anchor_t a;
  uint32_t psn_msg, info;
  do {
    psn_msg = __atomic_load_n(&e->psn_msg, __ATOMIC_ACQUIRE);
    info = __atomic_load_n(&e->info, __ATOMIC_ACQUIRE);
  } while ((psn_msg & 0xFFu) != (info & 0xFFu));
  a.psn0 = psn_msg >> 8, a.msg_id = psn_msg & 0xFFu, a.msg_len = (info >> 8) & 0xFFu, a.rank = (info >> 16) & 0xFFu;
  return a;
}

/* A first packet's CLT step: it anchors the entry, or moves it on to its message if that is later
 * than the one anchored (a resend of an earlier first packet leaves it). The first first packet
 * decides whether the connection is plain: an RDMA write that is no NetReduce message
 * (`ina` NULL), or one whose sender has no slot for elements here (a leaf's connection from
 * another rack, whose results pass through). Returns 1 if the connection is plain. */
static int anchor_first(const netreduce_switch_config_t* c, netreduce_clt_entry_t* e, const packet_view_t* v,
                        const netreduce_ina_t* ina) {
  int plain;
  entry_lock(e);
  if (!e->anchored && (!ina || c->slot_of_rank[ina->rank] >= c->sources)) e->plain = 1;
  if (ina && !e->plain && (!e->anchored || roce_psn_diff(v->bth.psn, e->psn_msg >> 8) > 0)) {
    __atomic_store_n(&e->info, (uint32_t)ina->msg_id | (uint32_t)ina->msg_len << 8 | (uint32_t)ina->rank << 16,
                     __ATOMIC_RELEASE);
    __atomic_store_n(&e->psn_msg, v->bth.psn << 8 | ina->msg_id, __ATOMIC_RELEASE);
    __atomic_store_n(&e->anchored, 1u, __ATOMIC_RELEASE);
  }
  plain = (int)e->plain;
  entry_unlock(e);
  return plain;
}

/* The packet's CLT step (3.2). A first packet (`ina`) anchors its connection's entry or moves it
 * on (anchor_first). Any other packet finds its position from the entry without its lock: d = PSN
 * - PSN0 past it, position d of that message if d < MsgLen, an earlier message's if d < 0 (the
 * messages before the entry's are full). At d >= MsgLen its message's first packet has not taken
 * its step: another HPU may still be handling it, so the packet waits for it up to order_spins
 * turns; after that it was lost, and the packet is dropped. Returns -1 with the position, or the
 * outcome of a packet that goes no further. */
static int clt_step(const netreduce_switch_config_t* c, const fs_handler_args_t* args, const packet_view_t* v,
                    const netreduce_ina_t* ina, position_t* at) {
  netreduce_clt_entry_t* e = clt_find(c, args, v);
  uint32_t turns;
  anchor_t an = {0, 0, 0, 0};
  int32_t d = 0;
  if (!e) return NETREDUCE_CLT_FULL;
  if (__atomic_load_n(&e->plain, __ATOMIC_ACQUIRE)) return pass_on(args, v, NETREDUCE_PASSED);
  if (ina || roce_has_reth(v->bth.opcode)) { /* a first packet, or an untagged one: no NetReduce message */
    if (anchor_first(c, e, v, ina)) return pass_on(args, v, NETREDUCE_PASSED);
    if (!ina) return NETREDUCE_MALFORMED;
    at->rank = ina->rank, at->msg_id = ina->msg_id, at->msg_len = ina->msg_len, at->k = 0;
    return -1;
  }
  for (turns = 0;; ++turns) {
    if (__atomic_load_n(&e->anchored, __ATOMIC_ACQUIRE)) {
      an = read_anchor(e);
      d = roce_psn_diff(v->bth.psn, an.psn0);
      if (d < (int32_t)an.msg_len) break;
    }
    if (turns >= c->order_spins) break;
    if (__atomic_load_n(&e->plain, __ATOMIC_ACQUIRE)) break;
  }
  if (__atomic_load_n(&e->plain, __ATOMIC_ACQUIRE) || !__atomic_load_n(&e->anchored, __ATOMIC_ACQUIRE))
    return pass_on(args, v, NETREDUCE_PASSED); /* plain, or a connection never anchored */
  at->rank = an.rank, at->msg_id = an.msg_id, at->msg_len = an.msg_len;
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

/* A leaf: sends the headers of the first or last packet of its rack's connection `at` that ends
 * in another rack to the receiver's leaf as a notice (netreduce_switch.h), so that that leaf can
 * send the connection its results (3.3). */
static void send_notice(const netreduce_switch_config_t* c, const fs_handler_args_t* args, const position_t* at,
                        uint32_t header_bytes) {
  const fabric_packet_t f = {c->leaf_ipv4[c->receiver_leaf[at->rank]], NETREDUCE_NOTICE_TAG, at->rank, at->msg_id,
                             at->msg_len, at->k, NETREDUCE_HEADER_MAX, header_bytes};
  uint32_t local[(NETREDUCE_FABRIC_HEADER_BYTES + NETREDUCE_HEADER_MAX + ROCE_ICRC_BYTES + 3u) / 4u];
  uint8_t* notice = (uint8_t*)local;
  uint8_t* payload = notice + NETREDUCE_FABRIC_HEADER_BYTES;
  if (header_bytes > NETREDUCE_HEADER_MAX) return;
  fabric_headers(c, &f, notice);
  memset(payload, 0, NETREDUCE_HEADER_MAX - header_bytes);
  memcpy(payload + NETREDUCE_HEADER_MAX - header_bytes, args->pkt, header_bytes);
  memset(payload + NETREDUCE_HEADER_MAX, 0, ROCE_ICRC_BYTES);
  forward(notice, NETREDUCE_FABRIC_HEADER_BYTES + NETREDUCE_HEADER_MAX + ROCE_ICRC_BYTES, f.to, NETREDUCE_OK);
}

/* The header bytes of position k's packets of a message of msg_len packets, for the headers at
 * the end of `h` (NETREDUCE_HEADER_MAX bytes) that claim to be `claimed` long; 0 if they are not
 * a first packet's (k = 0) or a last's of that length. */
static uint32_t notice_header_bytes(const uint8_t* h, uint32_t claimed, uint32_t k, uint32_t msg_len) {
  uint8_t op;
  if (claimed < ROCE_BTH_OFFSET + ROCE_BTH_BYTES || claimed > NETREDUCE_HEADER_MAX) return 0;
  op = h[NETREDUCE_HEADER_MAX - claimed + ROCE_BTH_OFFSET];
  if (k == 0 ? !roce_has_reth(op) : (k + 1u != msg_len || (op != ROCE_RC_WRITE_LAST && op != ROCE_RC_WRITE_LAST_IMM)))
    return 0;
  return ROCE_BTH_OFFSET + ROCE_BTH_BYTES + roce_extension_bytes(op) + (k == 0 ? NETREDUCE_INA_BYTES : 0u) == claimed
             ? claimed : 0;
}

/* A leaf: a notice (send_notice) of rank `rank`'s connection, from another rack into this one:
 * the headers kept in the rank's headers-only slot at the message's first or last position; a
 * result that came before them goes out now. */
static int take_notice(const netreduce_switch_config_t* c, const fs_handler_args_t* args, const packet_view_t* v,
                       const netreduce_ina_t* ina, uint32_t k) {
  const uint8_t* h = args->pkt + NETREDUCE_FABRIC_HEADER_BYTES;
  roce_reth_t reth;
  netreduce_aggregator_t* a;
  uint32_t s, hb;
  int outcome = NETREDUCE_NOTICE;
  roce_reth_decode(args->pkt + ROCE_BTH_OFFSET + ROCE_BTH_BYTES, &reth);
  hb = notice_header_bytes(h, reth.dma_length, k, ina->msg_len);
  s = ina->rank < c->ranks ? c->slot_of_rank[ina->rank] : NETREDUCE_NO_SLOT;
  if (v->data_bytes != NETREDUCE_INA_BYTES + NETREDUCE_HEADER_MAX || !hb || s == NETREDUCE_NO_SLOT || s < c->sources ||
      !delivers(c, ina->rank))
    return NETREDUCE_MALFORMED;
  a = aggregator_at(c, args, ina->msg_id, k);
  fs_lock(&a->lock);
  if (!take(c, a, ina->msg_id, ina->msg_len)) {
    outcome = NETREDUCE_LATE;
  } else if (a->header_bytes && a->header_bytes != hb) {
    outcome = NETREDUCE_MALFORMED;
  } else {
    a->header_bytes = hb;
    fs_dma_copy(slot_of(c, a, s), h, NETREDUCE_HEADER_MAX);
    set_bit(a->headers, s);
    if (a->state == NETREDUCE_COMPLETE && bit(a->sent, ina->rank) && send_result(c, args, a, ina->rank, k) == NETREDUCE_NO_ROUTE)
      outcome = NETREDUCE_NO_ROUTE;
  }
  fs_unlock(&a->lock);
  return outcome;
}

/* A leaf: the root's result for position k of message msg_id: into the result area, and sent
 * into every connection that ends in the rack; the aggregator completes here. */
static int result_down(const netreduce_switch_config_t* c, const fs_handler_args_t* args, const packet_view_t* v,
                       uint32_t msg_id, uint32_t k) {
  const uint32_t data_bytes = v->data_bytes - NETREDUCE_INA_BYTES;
  netreduce_aggregator_t* a = aggregator_at(c, args, msg_id, k);
  int outcome, emitted, again;
  fs_lock(&a->lock);
  if (a->msg_id != msg_id || (a->state != NETREDUCE_WAITING && a->state != NETREDUCE_COMPLETE)) {
    fs_unlock(&a->lock);
    return NETREDUCE_LATE;
  }
  if (data_bytes != a->data_bytes) {
    fs_unlock(&a->lock);
    return NETREDUCE_MALFORMED;
  }
  again = a->state == NETREDUCE_COMPLETE; /* the root answered a sum sent up again */
  fs_dma_copy(result_area(a) + NETREDUCE_HEADER_MAX, args->pkt + NETREDUCE_FABRIC_HEADER_BYTES, data_bytes);
  a->state = NETREDUCE_COMPLETE;
  outcome = NETREDUCE_RESULT_DOWN;
  if (!c->in_order || again) { /* (in order, a first result waits for its turns) */
    emitted = emit_all(c, args, a, k);
    if (emitted != NETREDUCE_OK) outcome = emitted;
  }
  fs_unlock(&a->lock);
  if (c->in_order && !again) emit_in_order(c, args, msg_id, aggregator_index(c, msg_id, k));
  release_behind(c, args, msg_id, k);
  return outcome;
}

/* A packet on a virtual connection to this switch (3.3): a leaf's sum at the root, the root's
 * result or another leaf's notice at a leaf. Its INA header says the message (and, at the root,
 * the leaf's slot; in a notice, the sender's rank), its PSN MsgID << 8 | position. */
static int from_fabric(const netreduce_switch_config_t* c, const fs_handler_args_t* args, const packet_view_t* v) {
  netreduce_ina_t ina;
  uint32_t k;
  if (v->bth.opcode != ROCE_RC_WRITE_ONLY || v->bth.dest_qp != NETREDUCE_FABRIC_QP ||
      v->data_offset + NETREDUCE_INA_BYTES != NETREDUCE_FABRIC_HEADER_BYTES || v->data_bytes < NETREDUCE_INA_BYTES)
    return NETREDUCE_MALFORMED;
  netreduce_ina_decode(args->pkt + v->data_offset, &ina);
  k = v->bth.psn & 0xFFu;
  if ((ina.inet_tag != NETREDUCE_INET_TAG && ina.inet_tag != NETREDUCE_NOTICE_TAG) || ina.ring_id != c->ring_id ||
      ((v->bth.psn >> 8) & 0xFFu) != ina.msg_id || ina.msg_len == 0 || ina.msg_len > c->msg_packets || k >= ina.msg_len)
    return NETREDUCE_MALFORMED;
  if (ina.inet_tag == NETREDUCE_NOTICE_TAG)
    return c->role == NETREDUCE_ROLE_LEAF ? take_notice(c, args, v, &ina, k) : NETREDUCE_MALFORMED;
  if (c->role == NETREDUCE_ROLE_ROOT) {
    if (ina.rank >= c->sources || v->src_ip != c->leaf_ipv4[ina.rank]) return NETREDUCE_MALFORMED;
    return aggregate(c, args, v, ina.rank, ina.rank, ina.msg_id, ina.msg_len, k, NETREDUCE_FABRIC_HEADER_BYTES);
  }
  if (v->src_ip != c->parent_ipv4) return NETREDUCE_MALFORMED;
  return result_down(c, args, v, ina.msg_id, k);
}

int netreduce_handler(const fs_handler_args_t* args) {
  const netreduce_switch_config_t* c = config_of(args);
  packet_view_t v;
  netreduce_ina_t ina;
  position_t at;
  int outcome, first;
  uint32_t header_bytes;
  if (!c) return NETREDUCE_NOT_INSTALLED;
  if (!view_of(args->pkt, args->pkt_len, &v)) return NETREDUCE_MALFORMED;
  if (c->role != NETREDUCE_ROLE_RACK && v.dst_ip == c->switch_ipv4) return from_fabric(c, args, &v);
  if (c->role == NETREDUCE_ROLE_ROOT) return pass_on(args, &v, NETREDUCE_PASSED); /* the leaves take the hosts' */
  first = roce_has_reth(v.bth.opcode) && v.data_bytes >= NETREDUCE_INA_BYTES &&
          fs_be32(args->pkt + v.data_offset) == NETREDUCE_INET_TAG;
  if (first) netreduce_ina_decode(args->pkt + v.data_offset, &ina);
  if (!roce_is_write(v.bth.opcode) || (first && ina.ring_id != c->ring_id))
    return pass_on(args, &v, NETREDUCE_PASSED);
  if (first && (ina.rank >= c->ranks || ina.msg_len == 0 || ina.msg_len > c->msg_packets)) return NETREDUCE_MALFORMED;
  outcome = clt_step(c, args, &v, first ? &ina : NULL, &at);
  if (outcome >= 0) return outcome;
  if (c->slot_of_rank[at.rank] >= c->sources) return NETREDUCE_MALFORMED; /* its first packet named another rank */
  header_bytes = v.data_offset + (first ? NETREDUCE_INA_BYTES : 0u);
  if (!delivers(c, at.rank) && (at.k == 0 || at.k + 1u == at.msg_len)) send_notice(c, args, &at, header_bytes);
  return aggregate(c, args, &v, c->slot_of_rank[at.rank], at.rank, at.msg_id, at.msg_len, at.k, header_bytes);
}

static const fs_outcome_desc_t netreduce_outcomes[] = {
    /* name, drop, completes_block, no_block */
    {"ok", 0, 0, 1},            {"aggregated", 0, 0, 1},    {"completed", 0, 0, 1},    {"duplicate", 0, 0, 1},
    {"result_resent", 0, 0, 1}, {"stale", 0, 0, 1},         {"passed", 0, 0, 1},       {"first_lost", 1, 0, 1},
    {"malformed", 1, 0, 1},     {"clt_full", 1, 0, 1},      {"no_route", 1, 0, 1},     {"not_installed", 1, 0, 1},
    {"sent_up", 0, 0, 1},       {"up_resent", 0, 0, 1},     {"result_down", 0, 0, 1},  {"result_partly", 0, 0, 1},
    {"notice", 0, 0, 1},        {"late", 1, 0, 1},
};
_Static_assert(sizeof(netreduce_outcomes) / sizeof(netreduce_outcomes[0]) == NETREDUCE_OUTCOME_COUNT,
               "an outcome name for every code");
FS_HANDLER_SET(netreduce,
               "NetReduce: aggregation of a ring's RDMA writes inside the switch, transparent to RoCEv2 (connection "
               "lookup table, aggregators per message and position, results into every connection; int32 sums; "
               "across racks, leaves and a root on virtual switch-to-switch connections)",
               -1, -1, netreduce_outcomes);
