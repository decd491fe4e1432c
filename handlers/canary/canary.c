/* Canary's switch handlers (Canary 3.1-3.4): the descriptor table, aggregation of whatever
 * packets of a block arrive within the timeout, sending the aggregate on towards the block's
 * leader by the switch's (adaptive) routes, stragglers, the broadcast down the recorded children,
 * collisions bypassed to the leader, and restoration packets. Every packet goes through
 * canary_handler; the descriptors' timers through canary_timer. Elements are int32 sums
 * (two's complement, wrapping), as Canary's switches compute. */
#include "canary_switch.h"

#include <stddef.h>
#include <string.h>

_Static_assert(offsetof(canary_descriptor_t, frame_area) + CANARY_FRAME_SKEW + CANARY_FRAME_HEADER_BYTES ==
                   offsetof(canary_descriptor_t, data),
               "a descriptor's frame headers end where its data starts");
_Static_assert(offsetof(canary_descriptor_t, data) % 4 == 0, "the accumulator is word-aligned");

/* A descriptor's timers: the aggregation timeout, and the lifetime after it was sent on. */
enum { CANARY_TIMER_TIMEOUT = 0, CANARY_TIMER_LIFETIME = 1 };

static const canary_switch_config_t* config_of(const fs_handler_args_t* args) {
  const canary_switch_config_t* c = (const canary_switch_config_t*)args->l1; /* this cluster's copy */
  if (args->l1_size < CANARY_CONFIG_L1_BYTES || c->magic != CANARY_SWITCH_MAGIC ||
      c->by_clusters.d != args->num_clusters)
    return NULL;
  return c;
}

static uint8_t* frame_of(canary_descriptor_t* d) { return d->frame_area + CANARY_FRAME_SKEW; }

static canary_descriptor_t* descriptor_at(const canary_switch_config_t* c, uint32_t home, uint32_t slot) {
  return (canary_descriptor_t*)(fs_cluster_l1(home, NULL) + c->descriptors_offset + slot * CANARY_DESCRIPTOR_BYTES);
}

/* Block `id`'s descriptor, and its entry number in the table (home cluster x S + slot), which
 * names its timers. */
static canary_descriptor_t* descriptor_of(const canary_switch_config_t* c, uint32_t id, uint32_t* entry) {
  uint32_t home, slot;
  if (c->mapping == CANARY_MAP_STATIC) {
    /* Consecutive blocks of an application take consecutive entries of its share. */
    const uint32_t seq = canary_id_sequence(id), app = canary_id_app(id);
    const uint32_t round = fs_divide(seq, &c->by_clusters);
    home = fs_remainder(seq, round, &c->by_clusters);
    slot = fs_remainder(app, fs_divide(app, &c->by_apps), &c->by_apps) * c->app_slots +
           fs_remainder(round, fs_divide(round, &c->by_app_slots), &c->by_app_slots);
  } else {
    const uint32_t h = fs_hash(&id, 4, CANARY_HASH_SEED);
    home = fs_remainder(id, fs_divide(id, &c->by_clusters), &c->by_clusters);
    slot = fs_remainder(h, fs_divide(h, &c->by_slots), &c->by_slots);
  }
  *entry = home * c->slots + slot;
  return descriptor_at(c, home, slot);
}

static void arm(uint32_t entry, uint32_t kind, uint32_t cycles) {
  if (cycles) fs_timer_arm(entry * 2u + kind, cycles);
}

/* Sends `len` bytes of `frame` out of the port the routes give towards `destination`. */
static int forward(const uint8_t* frame, uint32_t len, uint32_t destination, int outcome) {
  const int port = fs_next_hop(destination);
  if (port < 0) return CANARY_NO_ROUTE;
  fs_send(frame, len, (uint32_t)port);
  return outcome;
}

/* Sends the descriptor's aggregate on towards the leader, from this switch, and keeps the
 * descriptor (state SENT) for stragglers and the broadcast. Under the descriptor's lock. */
static int send_on(const canary_switch_config_t* c, canary_descriptor_t* d, uint32_t entry, int outcome) {
  uint8_t* frame = frame_of(d);
  uint8_t* ip = frame + FS_ETH_BYTES;
  uint8_t* ch = frame + CANARY_PAYLOAD_OFFSET;
  fs_put_be16(ch + CANARY_OFF_COUNTER, d->counter > 0xFFFFu ? 0xFFFFu : d->counter);
  ch[CANARY_OFF_FLAGS] = 0;
  fs_put_be32(ip + 12, c->switch_ipv4);
  fs_put_be16(ip + 10, 0);
  fs_put_be16(ip + 10, fs_ipv4_checksum(ip, FS_IPV4_BYTES));
  d->state = CANARY_SENT;
  arm(entry, CANARY_TIMER_LIFETIME, c->lifetime_cycles);
  return forward(frame, CANARY_FRAME_HEADER_BYTES + d->elements * CANARY_ELEMENT_BYTES, fs_be32(ch), outcome);
}

/* The packet's elements sit 63 bytes into the HPU's packet slot (2 + 61): each load is
 * misaligned (one extra cycle on RI5CY); the accumulator's are aligned. */
static void fold(int32_t* acc, const uint8_t* in, uint32_t n) {
  uint32_t i;
  _Pragma("GCC unroll 4")
  for (i = 0; i < n; ++i) {
    uint32_t a, b;
    memcpy(&a, &acc[i], 4);
    memcpy(&b, in + 4u * i, 4);
    a += b;
    memcpy(&acc[i], &a, 4);
  }
}

static void add_child(canary_descriptor_t* d, uint32_t port) { d->children[port >> 5] |= 1u << (port & 31u); }

/* A reduce-phase packet (3.1.1, 3.2.1): taken into its block's descriptor, aggregated, forwarded
 * as a straggler, or, on a collision, marked with this switch and port and bypassed to the leader. */
static int reduce(const canary_switch_config_t* c, const fs_handler_args_t* args, const canary_header_t* h,
                  uint32_t elements) {
  uint8_t* pkt = args->pkt;
  const uint32_t len = CANARY_FRAME_HEADER_BYTES + elements * CANARY_ELEMENT_BYTES;
  uint32_t entry, i;
  canary_descriptor_t* d = descriptor_of(c, h->id, &entry);
  int outcome;
  if (args->ingress_port >= CANARY_MAX_PORTS) return CANARY_MALFORMED;
  fs_lock(&d->lock);
  if (d->state != CANARY_FREE && d->id != h->id) {
    uint8_t* ch = pkt + CANARY_PAYLOAD_OFFSET;
    fs_unlock(&d->lock);
    fs_put_be32(ch + CANARY_OFF_CHILDREN, args->ingress_port);
    fs_put_be16(ch + CANARY_OFF_SWITCH, c->switch_address);
    ch[CANARY_OFF_FLAGS] = CANARY_FLAG_BYPASS;
    return forward(pkt, len, h->destination, CANARY_COLLISION);
  }
  if (d->state == CANARY_SENT) {
    add_child(d, args->ingress_port);
    fs_unlock(&d->lock);
    return forward(pkt, len, h->destination, CANARY_STRAGGLER);
  }
  if (d->state == CANARY_FREE) {
    fs_dma_copy(frame_of(d), pkt, len); /* the frame whole: its headers and the data */
    d->state = CANARY_AGGREGATING;
    d->id = h->id;
    d->counter = h->counter;
    d->hosts = h->hosts;
    d->elements = elements;
    for (i = 0; i < CANARY_PORT_WORDS; ++i) d->children[i] = 0;
    outcome = CANARY_ALLOCATED;
  } else {
    if (elements != d->elements || h->hosts != d->hosts) {
      fs_unlock(&d->lock);
      return CANARY_MALFORMED;
    }
    fold(d->data, pkt + CANARY_FRAME_HEADER_BYTES, elements);
    d->counter += h->counter;
    outcome = CANARY_AGGREGATED;
  }
  add_child(d, args->ingress_port);
  /* Every host's data but the leader's is in: nothing more can come, so it goes on now. */
  if (d->counter + 1u >= d->hosts)
    outcome = send_on(c, d, entry, CANARY_SENT_ON);
  else if (outcome == CANARY_ALLOCATED)
    arm(entry, CANARY_TIMER_TIMEOUT, c->timeout_cycles);
  fs_unlock(&d->lock);
  return outcome;
}

/* A broadcast-phase packet (3.1.2): out of every port the block's packets came in on, and the
 * descriptor freed; a switch that holds none for the block drops it (3.2.1). */
static int broadcast(const canary_switch_config_t* c, const fs_handler_args_t* args, const canary_header_t* h,
                     uint32_t len) {
  uint32_t entry, ports[CANARY_MAX_PORTS], n = 0, w, b, bits;
  canary_descriptor_t* d = descriptor_of(c, h->id, &entry);
  fs_lock(&d->lock);
  if (d->state == CANARY_FREE || d->id != h->id) {
    fs_unlock(&d->lock);
    return CANARY_ORPHAN;
  }
  for (w = 0; w < CANARY_PORT_WORDS; ++w) /* the set bits only: a block has a handful of children */
    for (bits = d->children[w]; bits; bits &= bits - 1u) {
      for (b = 0; !(bits >> b & 1u); ++b) {
      }
      ports[n++] = w * 32u + b;
    }
  d->state = CANARY_FREE; /* its timers, if still armed, find it free (or another block's) */
  fs_unlock(&d->lock);
  fs_multicast(args->pkt, len, ports, n);
  return CANARY_BROADCAST;
}

/* Whether the frame is Ethernet II / IPv4 without options / UDP carrying a Canary header and
 * whole int32 elements (at most CANARY_ELEMENTS); *data_bytes is then their bytes. */
static int canary_frame_ok(const uint8_t* pkt, uint32_t pkt_len, uint32_t* data_bytes) {
  uint32_t udp_len;
  if (pkt_len < CANARY_FRAME_HEADER_BYTES || fs_be16(pkt + 12) != FS_ETHERTYPE_IPV4 || pkt[FS_ETH_BYTES] != 0x45 ||
      pkt[FS_ETH_BYTES + 9] != FS_IPPROTO_UDP)
    return 0;
  udp_len = fs_be16(pkt + FS_ETH_BYTES + FS_IPV4_BYTES + 4);
  if (udp_len < FS_UDP_BYTES + CANARY_HEADER_BYTES || CANARY_PAYLOAD_OFFSET + udp_len - FS_UDP_BYTES > pkt_len) return 0;
  *data_bytes = udp_len - FS_UDP_BYTES - CANARY_HEADER_BYTES;
  return *data_bytes % CANARY_ELEMENT_BYTES == 0 && *data_bytes <= CANARY_ELEMENTS * CANARY_ELEMENT_BYTES;
}

int canary_handler(const fs_handler_args_t* args) {
  const canary_switch_config_t* c = config_of(args);
  uint8_t* ch = args->pkt + CANARY_PAYLOAD_OFFSET;
  canary_header_t h;
  uint32_t data_bytes = 0, len;
  if (!c) return CANARY_NOT_INSTALLED;
  if (!canary_frame_ok(args->pkt, args->pkt_len, &data_bytes)) return CANARY_MALFORMED;
  canary_decode(ch, &h);
  len = CANARY_FRAME_HEADER_BYTES + data_bytes;
  if (h.flags & CANARY_FLAG_PADDING) return CANARY_MALFORMED;
  if (h.flags & CANARY_FLAG_BYPASS) {
    if ((h.flags & CANARY_FLAG_MULTICAST) && h.destination == c->switch_ipv4) {
      /* Restoration (3.2.1): this switch's broadcast out of the port a collision was met on. */
      ch[CANARY_OFF_FLAGS] = CANARY_FLAG_MULTICAST;
      return fs_send(args->pkt, len, h.children) == 0 ? CANARY_RESTORED : CANARY_MALFORMED;
    }
    return forward(args->pkt, len, h.destination, CANARY_BYPASSED);
  }
  if (h.flags & CANARY_FLAG_MULTICAST) return broadcast(c, args, &h, len);
  /* A reduce-phase packet carries data reduced from 1 to hosts - 1 hosts (the leader's is not). */
  if (data_bytes == 0 || h.counter == 0 || h.hosts < 2 || h.counter >= h.hosts) return CANARY_MALFORMED;
  return reduce(c, args, &h, data_bytes / CANARY_ELEMENT_BYTES);
}

/* A descriptor's timer (the event's id: entry x 2 + kind): the timeout sends an aggregating
 * descriptor on (3.1.1); the lifetime frees one whose broadcast never came (a lost packet, a block
 * re-issued under a new id). Any other state means the descriptor moved on since it was armed. */
int canary_timer(const fs_handler_args_t* args) {
  const canary_switch_config_t* c = config_of(args);
  const fs_timer_event_t* e = (const fs_timer_event_t*)args->pkt;
  uint32_t entry, home, kind;
  canary_descriptor_t* d;
  int outcome = CANARY_IDLE_TIMER;
  if (!c) return CANARY_NOT_INSTALLED;
  entry = e->id >> 1;
  kind = e->id & 1u;
  home = fs_divide(entry, &c->by_slots);
  if (home >= args->num_clusters) return CANARY_MALFORMED;
  d = descriptor_at(c, home, fs_remainder(entry, home, &c->by_slots));
  fs_lock(&d->lock);
  if (kind == CANARY_TIMER_TIMEOUT && d->state == CANARY_AGGREGATING) {
    outcome = send_on(c, d, entry, CANARY_TIMEOUT_SENT);
  } else if (kind == CANARY_TIMER_LIFETIME && d->state == CANARY_SENT) {
    d->state = CANARY_FREE;
    outcome = CANARY_EXPIRED;
  }
  fs_unlock(&d->lock);
  return outcome;
}

/* Names of the outcome codes, in the order of enum canary_outcome. */
static const fs_outcome_desc_t canary_outcomes[] = {
    /* name, drop, completes_block, no_block */
    {"ok", 0, 0, 1},          {"allocated", 0, 0, 0},   {"aggregated", 0, 0, 0},   {"sent_on", 0, 0, 0},
    {"straggler", 0, 0, 0},   {"collision", 0, 0, 1},   {"bypassed", 0, 0, 1},     {"broadcast", 0, 1, 0},
    {"orphan", 1, 0, 1},      {"restored", 0, 0, 1},    {"timeout_sent", 0, 0, 1}, {"expired", 0, 0, 1},
    {"idle_timer", 0, 0, 1},  {"malformed", 1, 0, 1},   {"no_route", 1, 0, 1},     {"not_installed", 1, 0, 1},
};
_Static_assert(sizeof(canary_outcomes) / sizeof(canary_outcomes[0]) == CANARY_OUTCOME_COUNT,
               "an outcome name for every code");
FS_HANDLER_SET_WITH_TIMER(canary,
                          "Canary: timeout-based aggregation on dynamic trees, with collisions bypassed to the "
                          "leader and tree restoration (int32 sums)",
                          CANARY_OFF_ID, -1, canary_outcomes);
