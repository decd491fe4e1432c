/* The rina switch handler (Rina §IV-B3, IV-B4): the in-network aggregation (INA) switch of a rack
 * that runs as one group of the ring allreduce. An agent's TASK sets up the group (its workers,
 * the next group's entry) and is multicast to the rack as a PULL; each worker's GRAD is summed
 * into the slot it names, and when every worker is in the sum goes on as DATA to the next
 * group's entry (at the chunk's last summing step, G, it is the complete sum: FULL, and it is
 * also multicast to the rack, AllGather's first delivery). A FULL DATA coming to this group's
 * agent (or, for a group above racks, to the switch itself, its entry) is multicast to the rack
 * and, unless it is the chunk's last step, sent on to the next group; a partial sum coming to the
 * switch as entry goes on to the agent. Below a group above racks (its part of the group, from the
 * control plane) the switch sums its members' GRADs for the group's switch and sends them on as
 * one, and copies what comes down to the group's address towards its members. A sum's fan-in is its GRADs' (members), so that a TASK that sets the group up anew, with
 * a worker excluded, does not disturb the sums still open. An ACK of this switch's sum is multicast to the rack (the workers' windows); one of a
 * relayed DATA is dropped, since nobody waits for it. Every
 * other rina packet is forwarded by the routes. Values are int32 sums, wrapping. */
#include "rina_switch.h"

#include <string.h>

#define RINA_VALUES_OFFSET (RINA_PAYLOAD_OFFSET + RINA_HEADER_BYTES)

static const rina_switch_config_t* config_of(const fs_handler_args_t* args) {
  const rina_switch_config_t* c = (const rina_switch_config_t*)args->l1; /* this cluster's copy */
  if (args->l1_size < RINA_CONFIG_L1_BYTES || c->magic != RINA_SWITCH_MAGIC || c->by_clusters.d != args->num_clusters ||
      c->sums > RINA_MAX_SUM_PARTS ||
      args->handler_mem_size < c->group_offset + sizeof(rina_group_t) + c->sums * sizeof(rina_sum_part_t))
    return NULL;
  return c;
}

/* This switch's part in the group above it whose switch (by_switch) or address is `dst`, if any. */
static const rina_sum_part_t* part_of(const fs_handler_args_t* args, const rina_switch_config_t* c, uint32_t dst,
                                      int by_switch) {
  const rina_sum_part_t* parts =
      (const rina_sum_part_t*)(args->handler_mem + c->group_offset + sizeof(rina_group_t));
  uint32_t k;
  for (k = 0; k < c->sums; ++k)
    if ((by_switch ? parts[k].group_switch : parts[k].group_address) == dst) return &parts[k];
  return NULL;
}

static rina_group_t* group_of(const fs_handler_args_t* args, const rina_switch_config_t* c) {
  return (rina_group_t*)(args->handler_mem + c->group_offset);
}

/* Bytes of payload a packet of header `h` carries after the header. */
static uint32_t payload_bytes(const rina_header_t* h) {
  if (h->kind == RINA_TASK) return h->members * 4u;
  return h->elements * RINA_ELEMENT_BYTES;
}

/* The frame's header, if it is an IPv4 (no options) UDP frame holding a whole, well-formed rina
 * packet; 0 if not. */
static int read_packet(const uint8_t* pkt, uint32_t len, rina_header_t* h) {
  uint32_t udp_len, body;
  if (len < RINA_VALUES_OFFSET || fs_be16(pkt + 12) != FS_ETHERTYPE_IPV4 || pkt[FS_ETH_BYTES] != 0x45 ||
      pkt[FS_ETH_BYTES + 9] != FS_IPPROTO_UDP)
    return 0;
  udp_len = fs_be16(pkt + FS_ETH_BYTES + FS_IPV4_BYTES + 4);
  rina_decode(pkt + RINA_PAYLOAD_OFFSET, h);
  if (rina_header_problem(h) != RINA_FINE || fs_be16(pkt + RINA_PAYLOAD_OFFSET + RINA_OFF_RESERVED)) return 0;
  body = payload_bytes(h);
  return udp_len == FS_UDP_BYTES + RINA_HEADER_BYTES + body && RINA_VALUES_OFFSET + body <= len;
}

static uint32_t ipv4_dst(const uint8_t* pkt) { return (uint32_t)fs_be32(pkt + FS_ETH_BYTES + 16); }

/* Sets the frame's IPv4 source and destination and its header checksum. */
static void address(uint8_t* pkt, uint32_t src, uint32_t dst) {
  uint8_t* ip = pkt + FS_ETH_BYTES;
  fs_put_be32(ip + 12, src);
  fs_put_be32(ip + 16, dst);
  fs_put_be16(ip + 10, 0);
  fs_put_be16(ip + 10, fs_ipv4_checksum(ip, FS_IPV4_BYTES));
}

static uint32_t ipv4_src(const uint8_t* pkt) { return (uint32_t)fs_be32(pkt + FS_ETH_BYTES + 12); }

/* Sends `len` bytes of the frame towards `dst`. */
static int send_to(uint8_t* pkt, uint32_t len, uint32_t self, uint32_t dst, int outcome) {
  const int port = fs_next_hop(dst);
  address(pkt, self, dst);
  if (port < 0 || fs_send(pkt, len, (uint32_t)port) != 0) return RINA_NO_ROUTE;
  return outcome;
}

/* The frame, its lengths set for `len` bytes, out of every port that leads to one of the
 * group's workers (each port once), addressed to the group's address from whoever sent it (a
 * worker ACKs a DATA to its source). */
static int to_rack(const rina_group_t* g, uint8_t* pkt, uint32_t len, int outcome) {
  uint32_t ports[RINA_MAX_MEMBERS], n = 0, m, k;
  for (m = 0; m < g->members; ++m) {
    const int port = fs_next_hop(g->member[m]);
    if (port < 0) return RINA_NO_ROUTE;
    for (k = 0; k < n && ports[k] != (uint32_t)port; ++k) {
    }
    if (k == n) ports[n++] = (uint32_t)port;
  }
  fs_put_be16(pkt + FS_ETH_BYTES + 2, (uint16_t)(len - FS_ETH_BYTES));
  fs_put_be16(pkt + FS_ETH_BYTES + FS_IPV4_BYTES + 4, (uint16_t)(len - FS_ETH_BYTES - FS_IPV4_BYTES));
  address(pkt, ipv4_src(pkt), rina_group_ipv4(g->member[0]));
  if (fs_multicast(pkt, len, ports, n) != 0) return RINA_NO_ROUTE;
  return outcome;
}

/* An agent's TASK: the group as it describes it, then the same header, a PULL with no payload,
 * to the rack. */
static int task(const rina_switch_config_t* c, const fs_handler_args_t* args, const rina_header_t* h) {
  rina_group_t* g = group_of(args, c);
  uint8_t* pkt = args->pkt;
  uint32_t m;
  for (m = 0; m < h->members; ++m) g->member[m] = (uint32_t)fs_be32(pkt + RINA_VALUES_OFFSET + 4u * m);
  g->members = h->members;
  g->next = h->next;
  g->valid = 1;
  pkt[RINA_PAYLOAD_OFFSET + RINA_OFF_KIND] = RINA_PULL;
  fs_put_be32(pkt + RINA_PAYLOAD_OFFSET + RINA_OFF_NEXT, 0);
  address(pkt, c->self, c->self); /* the PULL is the switch's */
  return to_rack(g, pkt, RINA_VALUES_OFFSET, RINA_TASKED);
}

static rina_slot_t* slot_of(const rina_switch_config_t* c, uint32_t index) {
  const uint32_t home = fs_remainder(index, fs_divide(index, &c->by_clusters), &c->by_clusters);
  return (rina_slot_t*)(fs_cluster_l1(home, NULL) + c->slots_offset + fs_divide(index, &c->by_clusters) * RINA_SLOT_BYTES);
}

/* Adds the packet's values into the slot's. Both little-endian int32; sums wrap. */
static void sum_into(rina_slot_t* s, const uint8_t* in) {
  uint32_t i;
  for (i = 0; i < s->elements; ++i) {
    uint32_t x, y;
    memcpy(&x, &s->values[i], 4);
    y = (uint32_t)fs_le32(in + 4u * i);
    x += y;
    memcpy(&s->values[i], &x, 4);
  }
}

/* The slot's sum written over the GRAD in the packet's buffer as the group's DATA from this
 * switch (FULL at step G, the last that sums). Under the slot's lock. */
static void write_sum(const rina_switch_config_t* c, uint8_t* pkt, const rina_header_t* h, const rina_slot_t* s) {
  uint8_t* hdr = pkt + RINA_PAYLOAD_OFFSET;
  hdr[RINA_OFF_KIND] = RINA_DATA;
  hdr[RINA_OFF_FLAGS] = (uint8_t)(h->step == h->groups ? RINA_FLAG_FULL : 0u);
  fs_put_be16(hdr + RINA_OFF_SLOT, 0);
  hdr[RINA_OFF_MEMBER] = 0;
  hdr[RINA_OFF_MEMBERS] = 0;
  fs_put_be32(hdr + RINA_OFF_NEXT, 0); /* a SUM GRAD's bitmap */
  memcpy(pkt + RINA_VALUES_OFFSET, s->values, s->elements * RINA_ELEMENT_BYTES);
  address(pkt, c->self, ipv4_dst(pkt));
}

/* The sum on to the next group; at step G first to the rack (AllGather's first delivery). */
static int send_sum(const rina_switch_config_t* c, const rina_group_t* g, const rina_header_t* h, uint8_t* pkt,
                    uint32_t len) {
  int outcome = RINA_COMPLETED;
  if (h->step == h->groups) outcome = to_rack(g, pkt, len, RINA_COMPLETED);
  if (outcome == RINA_COMPLETED && h->groups > 1) outcome = send_to(pkt, len, c->self, g->next, RINA_COMPLETED);
  return outcome;
}

/* The members a GRAD holds: its member's bit, or a switch's sum's bitmap. */
static uint32_t members_of(const rina_header_t* h) {
  return (h->flags & RINA_FLAG_SUM) ? h->next : 1u << h->member;
}

/* Adds the GRAD in the packet to the slot it names: RINA_TAKEN or RINA_AGGREGATED with the slot
 * locked (the caller checks whether it is complete and unlocks it), else RINA_SLOT_BUSY or
 * RINA_DUPLICATE with it unlocked. */
static int add_to_slot(rina_slot_t* s, const rina_header_t* h, const uint8_t* values) {
  const uint32_t bits = members_of(h);
  uint32_t i;
  fs_lock(&s->lock);
  if (!s->busy) {
    s->busy = 1;
    s->iteration = h->iteration, s->chunk = h->chunk, s->step = h->step, s->packet = h->packet;
    s->members = h->members, s->elements = h->elements, s->bitmap = bits;
    for (i = 0; i < h->elements; ++i) s->values[i] = (int32_t)fs_le32(values + 4u * i);
    return RINA_TAKEN;
  }
  if (s->iteration != h->iteration || s->chunk != h->chunk || s->step != h->step || s->packet != h->packet ||
      s->elements != h->elements || s->members != h->members) {
    fs_unlock(&s->lock);
    return RINA_SLOT_BUSY;
  }
  if (s->bitmap & bits) {
    fs_unlock(&s->lock);
    return RINA_DUPLICATE;
  }
  sum_into(s, values);
  s->bitmap |= bits;
  return RINA_AGGREGATED;
}

static int grad(const rina_switch_config_t* c, const fs_handler_args_t* args, const rina_header_t* h) {
  const rina_group_t* g = group_of(args, c);
  rina_slot_t* s;
  int outcome;
  if (!g->valid) return RINA_NO_GROUP;
  if (h->slot >= c->slots) return RINA_MALFORMED;
  s = slot_of(c, h->slot);
  outcome = add_to_slot(s, h, args->pkt + RINA_VALUES_OFFSET);
  if (outcome != RINA_TAKEN && outcome != RINA_AGGREGATED) return outcome;
  if (s->bitmap == rina_full_bitmap(s->members)) {
    const uint32_t len = RINA_VALUES_OFFSET + s->elements * RINA_ELEMENT_BYTES;
    write_sum(c, args->pkt, h, s);
    s->busy = 0;
    fs_unlock(&s->lock);
    return send_sum(c, g, h, args->pkt, len);
  }
  fs_unlock(&s->lock);
  return outcome;
}

/* A GRAD for the group above whose part `e` is: summed here, and once every member of the part is
 * in, sent on to the group's switch as one GRAD of them all (SUM, their bitmap in next). */
static int part_grad(const rina_switch_config_t* c, const fs_handler_args_t* args, const rina_header_t* h,
                     const rina_sum_part_t* e) {
  uint8_t* hdr = args->pkt + RINA_PAYLOAD_OFFSET;
  rina_slot_t* s;
  uint32_t lowest = 0;
  int outcome;
  if (h->slot >= c->slots || (members_of(h) & ~e->mask)) return RINA_MALFORMED;
  s = slot_of(c, h->slot);
  outcome = add_to_slot(s, h, args->pkt + RINA_VALUES_OFFSET);
  if (outcome != RINA_TAKEN && outcome != RINA_AGGREGATED) return outcome;
  if (s->bitmap != e->mask) {
    fs_unlock(&s->lock);
    return outcome;
  }
  while (lowest < 31u && !(s->bitmap & (1u << lowest))) ++lowest;
  hdr[RINA_OFF_FLAGS] = RINA_FLAG_SUM;
  hdr[RINA_OFF_MEMBER] = (uint8_t)lowest;
  fs_put_be32(hdr + RINA_OFF_NEXT, s->bitmap);
  memcpy(args->pkt + RINA_VALUES_OFFSET, s->values, s->elements * RINA_ELEMENT_BYTES);
  s->busy = 0;
  fs_unlock(&s->lock);
  return send_to(args->pkt, RINA_VALUES_OFFSET + h->elements * RINA_ELEMENT_BYTES, c->self, e->group_switch,
                 RINA_SUMMED_ON);
}

/* A packet to a group above this switch: a copy out of each of its ports towards the part's
 * members, the ingress port aside. */
static int copy_down(const fs_handler_args_t* args, const rina_sum_part_t* e, uint32_t len) {
  uint32_t ports[RINA_MAX_MEMBERS], n = 0, k;
  for (k = 0; k < e->children && k < RINA_MAX_MEMBERS; ++k)
    if (e->down[k] != args->ingress_port) ports[n++] = e->down[k];
  if (n && fs_multicast(args->pkt, len, ports, n) != 0) return RINA_NO_ROUTE;
  return RINA_COPIED;
}

/* A FULL DATA for this group's agent: to the rack, and on to the next group unless this group's
 * step, the DATA's step + 1, is the chunk's last (2G - 1). */
static int relay(const rina_switch_config_t* c, const fs_handler_args_t* args, const rina_group_t* g,
                 const rina_header_t* h, uint32_t len) {
  uint8_t* pkt = args->pkt;
  const uint32_t step = h->step + 1u;
  int outcome;
  fs_put_be16(pkt + RINA_PAYLOAD_OFFSET + RINA_OFF_STEP, (uint16_t)step);
  if (step >= 2u * h->groups - 1u) return to_rack(g, pkt, len, RINA_DELIVERED);
  outcome = to_rack(g, pkt, len, RINA_RELAYED);
  if (outcome != RINA_RELAYED) return outcome;
  return send_to(pkt, len, c->self, g->next, RINA_RELAYED);
}

int rina_handler(const fs_handler_args_t* args) {
  const rina_switch_config_t* c = config_of(args);
  const rina_group_t* g;
  const rina_sum_part_t* part;
  rina_header_t h;
  uint32_t dst, len;
  if (!c) return RINA_NOT_INSTALLED;
  if (!read_packet(args->pkt, args->pkt_len, &h)) return RINA_MALFORMED;
  g = group_of(args, c);
  dst = ipv4_dst(args->pkt);
  len = RINA_VALUES_OFFSET + payload_bytes(&h);
  if (dst == c->self) {
    if (h.kind == RINA_TASK) return task(c, args, &h);
    if (h.kind == RINA_GRAD) return grad(c, args, &h);
    if (h.kind == RINA_ACK) {
      if (!g->valid) return RINA_NO_GROUP;
      /* of a sum of this switch's (steps 1 .. G), whose workers' windows wait; else of a relay */
      return h.step <= h.groups ? to_rack(g, args->pkt, len, RINA_ACKED) : RINA_RELAY_ACKED;
    }
    if (h.kind == RINA_DATA) { /* this switch is its group's entry (a group above racks) */
      if (!g->valid) return RINA_NO_GROUP;
      if (h.flags & RINA_FLAG_FULL) return relay(c, args, g, &h, len);
      return send_to(args->pkt, len, ipv4_src(args->pkt), g->member[0], RINA_TO_AGENT);
    }
    return RINA_MALFORMED; /* PULLs come from switches, not to them */
  }
  if (h.kind == RINA_DATA && (h.flags & RINA_FLAG_FULL) && g->valid && dst == g->member[0])
    return relay(c, args, g, &h, len);
  part = part_of(args, c, dst, 1);
  if (h.kind == RINA_GRAD && part) return part_grad(c, args, &h, part);
  part = part_of(args, c, dst, 0);
  if (part) return copy_down(args, part, len);
  {
    const int port = fs_next_hop(dst);
    if (port < 0 || fs_send(args->pkt, len, (uint32_t)port) != 0) return RINA_NO_ROUTE;
  }
  return RINA_FORWARDED;
}

/* Names of the outcome codes, in the order of enum rina_outcome. */
static const fs_outcome_desc_t rina_outcomes[] = {
    /* name, drop, completes_block, no_block */
    {"ok", 0, 0, 1},           {"tasked", 0, 0, 1},    {"taken", 0, 0, 0},     {"aggregated", 0, 0, 0},
    {"completed", 0, 1, 0},    {"duplicate", 1, 0, 1}, {"slot_busy", 1, 0, 1}, {"acked", 0, 0, 1},
    {"relay_acked", 0, 0, 1},  {"relayed", 0, 0, 1},   {"delivered", 0, 0, 1}, {"forwarded", 0, 0, 1},
    {"to_agent", 0, 0, 1},     {"summed_on", 0, 1, 0},  {"copied", 0, 0, 1},    {"no_group", 1, 0, 1},     {"malformed", 1, 0, 1}, {"no_route", 1, 0, 1},  {"not_installed", 1, 0, 1},
};
_Static_assert(sizeof(rina_outcomes) / sizeof(rina_outcomes[0]) == RINA_OUTCOME_COUNT, "an outcome name for every code");
/* Block statistics: an aggregation is a (chunk, step) pair (the u32 at 4) and a packet (the low
 * half of the u32 at 8, under the constant group count). */
FS_HANDLER_SET(rina,
               "Rina: a rack's in-network aggregation switch in the ring allreduce: the agent's task pulls the rack's "
               "gradients, summed and sent on to the next group; complete sums multicast to the rack (int32 sums)",
               RINA_OFF_GROUPS, RINA_OFF_CHUNK, rina_outcomes);
