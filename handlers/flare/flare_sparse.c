/* Flare sparse aggregation (Flare section 7): packet checks, block admission with per-child shard
 * counters (a child is done with a block when it has delivered as many packets as its last one
 * announced; a bitmap of packet numbers makes a retransmitted packet harmless), the two storages
 * (a hash table whose colliding pairs go to a spill buffer that is sent on when full, or an array
 * of the block's span scanned for non-zeros when the block completes), the single algorithm (one
 * storage per block, every packet folded with the block's lock held) and the tree (a storage per
 * child; complete children fold up a fixed binary tree, as the dense tree's buffers do). Results
 * (to the hosts at the root, to the parent below it) are packed from the storage into the block's
 * staging frame, which is also its spill buffer. Values are kept as 32-bit words holding the
 * dtype's bits; int32/int16/int8/float32 with sum, min and max. */
#include "flare_sparse.h"

#include <stddef.h>
#include <string.h>

/* One sparse packet being aggregated. */
typedef struct sparse_ctx {
  const fs_handler_args_t* args;
  const flare_sparse_allreduce_t* ar; /* in this cluster's copy of the table (L1) */
  const uint32_t* ports;               /* the children's ports, rank order (L2) */
  flare_sparse_header_t h;
  uint8_t* state;                      /* the block state */
  flare_sparse_block_t* st;
  const uint8_t* pairs;                /* the packet's pairs */
  uint32_t pair_bytes;
  uint32_t capacity;                   /* pairs a packet the switch sends holds */
  uint32_t udp_port;                   /* the switch answers on the port the packet came to */
  int locked;                          /* the block's lock is held (spills may use the frame) */
} sparse_ctx_t;

static inline flare_sparse_child_t* child(const sparse_ctx_t* c, uint32_t rank) {
  return (flare_sparse_child_t*)(c->state + c->ar->off_children) + rank;
}
static inline uint32_t* tree_counters(const sparse_ctx_t* c) { return (uint32_t*)(c->state + c->ar->off_counters); }
static inline uint8_t* staging_frame(const sparse_ctx_t* c) { return c->state + c->ar->off_frame + FLARE_SPARSE_FRAME_PAD; }
static inline uint8_t* storage(const sparse_ctx_t* c, uint32_t i) {
  return c->state + c->ar->off_storage + (size_t)i * c->ar->storage_bytes;
}

static inline uint32_t ld32(const uint8_t* p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}
static inline uint32_t ld16(const uint8_t* p) {
  uint16_t v;
  memcpy(&v, p, 2);
  return v;
}
static inline uint32_t ld8(const uint8_t* p) { return *p; }
static inline void st32(uint8_t* p, uint32_t v) { memcpy(p, &v, 4); }
static inline float as_f32(uint32_t b) {
  float f;
  memcpy(&f, &b, 4);
  return f;
}
static inline uint32_t f32_bits(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  return b;
}

/* Sets n words to zero, a store each (see flare_internal.h). */
static inline void clear_words(uint32_t* p, uint32_t n) {
  while (n--) *(volatile uint32_t*)p++ = 0;
}

/* ---- Sending: the staging frame ---- */

/* Sends the pairs staged in the block's frame as its next packet (the last one if `last`): up to
 * the parent as this switch's contribution, or to every child as a result. Block lock held. */
static void send_staged(sparse_ctx_t* c, int last) {
  flare_sparse_block_t* st = c->st;
  const int up = c->ar->parent_port != FLARE_SPARSE_NO_PARENT;
  const uint32_t bytes = st->staged * c->pair_bytes;
  uint8_t* f = staging_frame(c);
  uint8_t* ip = f + FS_ETH_BYTES;
  uint8_t* udp = ip + FS_IPV4_BYTES;
  flare_sparse_header_t h;
  uint32_t i;
  for (i = 0; i < 6; ++i) f[i] = 0xFF; /* broadcast (to the hosts, or to the parent switch) */
  fs_switch_mac(f + 6);
  fs_put_be16(f + 12, FS_ETHERTYPE_IPV4);
  ip[0] = 0x45;
  ip[1] = 0;
  fs_put_be16(ip + 2, FS_IPV4_BYTES + FS_UDP_BYTES + FLARE_SPARSE_HEADER_BYTES + bytes);
  fs_put_be32(ip + 4, 0); /* identification, flags, fragment offset */
  ip[8] = 64;
  ip[9] = FS_IPPROTO_UDP;
  fs_put_be16(ip + 10, 0);
  fs_put_be32(ip + 12, FS_SWITCH_IPV4);
  fs_put_be32(ip + 16, up ? FS_SWITCH_IPV4 : FS_HOSTS_BROADCAST_IPV4);
  fs_put_be16(ip + 10, fs_ipv4_checksum(ip, FS_IPV4_BYTES));
  fs_put_be16(udp, c->udp_port);
  fs_put_be16(udp + 2, c->udp_port);
  fs_put_be16(udp + 4, FS_UDP_BYTES + FLARE_SPARSE_HEADER_BYTES + bytes);
  fs_put_be16(udp + 6, 0); /* no UDP checksum (allowed over IPv4) */
  h.version = FLARE_VERSION;
  h.kind = up ? FLARE_KIND_CONTRIB : FLARE_KIND_RESULT;
  h.flags = last ? FLARE_FLAG_LAST : 0;
  h.dtype = st->dtype;
  h.op = st->op;
  h.allreduce_id = st->allreduce_id;
  h.block_id = st->block_id;
  h.sender_rank = up ? (uint16_t)c->ar->rank_at_parent : FLARE_RANK_SWITCH;
  h.pair_count = (uint16_t)st->staged;
  h.shard = (uint16_t)st->shards_out;
  h.shards = last ? (uint16_t)(st->shards_out + 1) : 0;
  flare_sparse_encode(&h, udp + FS_UDP_BYTES);
  if (up)
    fs_send(f, FLARE_SPARSE_PAIRS_OFFSET + bytes, c->ar->parent_port);
  else
    fs_multicast(f, FLARE_SPARSE_PAIRS_OFFSET + bytes, c->ports, c->ar->n_children);
  st->shards_out++;
  st->staged = 0;
}

static inline void stage(sparse_ctx_t* c, uint32_t index, uint32_t bits) {
  uint8_t* p = staging_frame(c) + FLARE_SPARSE_PAIRS_OFFSET + c->st->staged * c->pair_bytes;
  uint16_t half = (uint16_t)bits;
  st32(p, index);
  if (c->pair_bytes == 8)
    st32(p + 4, bits);
  else if (c->pair_bytes == 6)
    memcpy(p + 4, &half, 2); /* the value's bytes, little-endian */
  else
    p[4] = (uint8_t)bits;
  c->st->staged++;
}

/* A colliding pair goes to the spill buffer; a buffer it fills is sent on at once. Returns 1 if
 * it sent one. Takes the block's lock unless the caller holds it. */
static __attribute__((noinline)) int spill(sparse_ctx_t* c, uint32_t index, uint32_t bits) {
  int sent = 0;
  if (!c->locked) fs_lock(&c->st->lock);
  stage(c, index, bits);
  if (c->st->staged == c->capacity) {
    send_staged(c, 0);
    c->st->spills++;
    sent = 1;
  }
  if (!c->locked) fs_unlock(&c->st->lock);
  return sent;
}

/* A pair of the finished block's aggregate, packed for sending: a full frame goes first. */
static inline void pack(sparse_ctx_t* c, uint32_t index, uint32_t bits) {
  if (c->st->staged == c->capacity) send_staged(c, 0);
  stage(c, index, bits);
}

/* ---- Storage kernels, one set per operator and dtype ---- */

typedef struct sparse_kernels {
  int (*hash_insert)(sparse_ctx_t* c, uint8_t* table);          /* the packet's pairs; 1 if a spill went out */
  void (*array_insert)(const sparse_ctx_t* c, uint8_t* array);  /* the packet's pairs */
  int (*hash_fold)(sparse_ctx_t* c, uint8_t* left, uint8_t* right);   /* right into left, right emptied */
  void (*array_fold)(const sparse_ctx_t* c, uint8_t* left, uint8_t* right);
} sparse_kernels_t;

/* A hash slot is the index's Fibonacci hash (a multiply and a shift: cheap on the HPU). */
#define SPARSE_HASH(index, shift) (((index) * 0x9E3779B1u) >> (shift))

/* `combine` folds value bits b into value bits a (both present). */
#define DEFINE_KERNELS(name, load, vbytes, combine)                                              \
  static inline uint32_t combine_##name(uint32_t a, uint32_t b) { return (combine); }          \
  static int hash_insert_##name(sparse_ctx_t* c, uint8_t* table) {                              \
    flare_sparse_slot_t* t = (flare_sparse_slot_t*)table;                                       \
    const uint8_t* p = c->pairs;                                                                 \
    const uint32_t shift = c->ar->hash_shift;                                                    \
    uint32_t n = c->h.pair_count;                                                                \
    int sent = 0;                                                                                \
    for (; n; --n, p += 4 + (vbytes)) {                                                         \
      const uint32_t index = ld32(p), b = load(p + 4);                                          \
      flare_sparse_slot_t* s = &t[SPARSE_HASH(index, shift)];                                   \
      const uint32_t key = s->key;                                                               \
      if (key == index + 1) {                                                                    \
        s->bits = combine_##name(s->bits, b);                                                    \
      } else if (!key) {                                                                         \
        s->key = index + 1;                                                                      \
        s->bits = b;                                                                             \
      } else {                                                                                   \
        sent |= spill(c, index, b);                                                              \
      }                                                                                          \
    }                                                                                            \
    return sent;                                                                                 \
  }                                                                                              \
  static void array_insert_##name(const sparse_ctx_t* c, uint8_t* array) {                     \
    uint32_t* v = (uint32_t*)array;                                                              \
    const uint8_t* p = c->pairs;                                                                 \
    uint32_t n = c->h.pair_count;                                                                \
    for (; n; --n, p += 4 + (vbytes)) {                                                         \
      const uint32_t index = ld32(p), b = load(p + 4), a = v[index];                            \
      v[index] = a ? combine_##name(a, b) : b;                                                   \
    }                                                                                            \
  }                                                                                              \
  static int hash_fold_##name(sparse_ctx_t* c, uint8_t* left, uint8_t* right) {                 \
    flare_sparse_slot_t* l = (flare_sparse_slot_t*)left;                                        \
    flare_sparse_slot_t* r = (flare_sparse_slot_t*)right;                                       \
    uint32_t i;                                                                                  \
    int sent = 0;                                                                                \
    for (i = 0; i < c->ar->hash_slots; ++i) {                                                    \
      const uint32_t key = r[i].key;                                                             \
      if (!key) continue;                                                                        \
      r[i].key = 0;                                                                              \
      if (l[i].key == key) {                                                                     \
        l[i].bits = combine_##name(l[i].bits, r[i].bits);                                        \
      } else if (!l[i].key) {                                                                    \
        l[i].key = key;                                                                          \
        l[i].bits = r[i].bits;                                                                   \
      } else {                                                                                   \
        sent |= spill(c, key - 1, r[i].bits);                                                    \
      }                                                                                          \
    }                                                                                            \
    return sent;                                                                                 \
  }                                                                                              \
  static void array_fold_##name(const sparse_ctx_t* c, uint8_t* left, uint8_t* right) {        \
    uint32_t* l = (uint32_t*)left;                                                               \
    uint32_t* r = (uint32_t*)right;                                                              \
    uint32_t i;                                                                                  \
    for (i = 0; i < c->ar->span; ++i) {                                                          \
      const uint32_t b = r[i];                                                                   \
      if (!b) continue;                                                                          \
      r[i] = 0;                                                                                  \
      l[i] = l[i] ? combine_##name(l[i], b) : b;                                                 \
    }                                                                                            \
  }

/* Integer sums wrap in the dtype's width; min and max compare the dtype's signed values. */
DEFINE_KERNELS(sum_i32, ld32, 4, a + b)
DEFINE_KERNELS(sum_i16, ld16, 2, (a + b) & 0xFFFFu)
DEFINE_KERNELS(sum_i8, ld8, 1, (a + b) & 0xFFu)
DEFINE_KERNELS(sum_f32, ld32, 4, f32_bits(as_f32(a) + as_f32(b)))
DEFINE_KERNELS(min_i32, ld32, 4, (int32_t)b < (int32_t)a ? b : a)
DEFINE_KERNELS(min_i16, ld16, 2, (int16_t)b < (int16_t)a ? b : a)
DEFINE_KERNELS(min_i8, ld8, 1, (int8_t)b < (int8_t)a ? b : a)
DEFINE_KERNELS(min_f32, ld32, 4, as_f32(b) < as_f32(a) ? b : a)
DEFINE_KERNELS(max_i32, ld32, 4, (int32_t)b > (int32_t)a ? b : a)
DEFINE_KERNELS(max_i16, ld16, 2, (int16_t)b > (int16_t)a ? b : a)
DEFINE_KERNELS(max_i8, ld8, 1, (int8_t)b > (int8_t)a ? b : a)
DEFINE_KERNELS(max_f32, ld32, 4, as_f32(b) > as_f32(a) ? b : a)

#define KERNELS(name) {hash_insert_##name, array_insert_##name, hash_fold_##name, array_fold_##name}
/* [op][dtype], in the order of enum flare_op and enum flare_dtype (int32, int16, int8, float32). */
static const sparse_kernels_t kernels[FLARE_OP_COUNT][4] = {
    {KERNELS(sum_i32), KERNELS(sum_i16), KERNELS(sum_i8), KERNELS(sum_f32)},
    {KERNELS(min_i32), KERNELS(min_i16), KERNELS(min_i8), KERNELS(min_f32)},
    {KERNELS(max_i32), KERNELS(max_i16), KERNELS(max_i8), KERNELS(max_f32)},
};

static inline const sparse_kernels_t* kernels_for(const sparse_ctx_t* c) { return &kernels[c->h.op][c->h.dtype]; }

/* The packet's pairs into a storage; 1 if a spill went out. */
static int insert(sparse_ctx_t* c, uint8_t* s) {
  if (c->ar->storage == FLARE_STORE_HASH) return kernels_for(c)->hash_insert(c, s);
  kernels_for(c)->array_insert(c, s);
  return 0;
}

/* Storage `right` folded into `left` and emptied; 1 if a spill went out. */
static int fold(sparse_ctx_t* c, uint8_t* left, uint8_t* right) {
  if (c->ar->storage == FLARE_STORE_HASH) return kernels_for(c)->hash_fold(c, left, right);
  kernels_for(c)->array_fold(c, left, right);
  return 0;
}

/* The finished block: every pair of storage `s` packed into packets (and the storage emptied for
 * the next block), the last packet flagged with the count of all the block's packets, spills
 * included; the block state freed. Block lock held. Returns the outcome. */
static int finish(sparse_ctx_t* c, uint8_t* s) {
  uint32_t i;
  if (c->ar->storage == FLARE_STORE_HASH) {
    flare_sparse_slot_t* t = (flare_sparse_slot_t*)s;
    for (i = 0; i < c->ar->hash_slots; ++i) {
      const uint32_t key = t[i].key;
      if (!key) continue;
      t[i].key = 0;
      pack(c, key - 1, t[i].bits);
    }
  } else {
    uint32_t* v = (uint32_t*)s;
    for (i = 0; i < c->ar->span; ++i) {
      const uint32_t b = v[i];
      if (!b) continue;
      v[i] = 0;
      pack(c, i, b);
    }
  }
  send_staged(c, 1);
  c->st->busy = 0;
  c->st->completed = 1;
  return c->ar->parent_port != FLARE_SPARSE_NO_PARENT ? FLARE_SPARSE_SENT_UP : FLARE_SPARSE_RESULT_SENT;
}

/* ---- Admission ---- */

static void start_block(sparse_ctx_t* c) {
  flare_sparse_block_t* st = c->st;
  clear_words(&st->busy, (uint32_t)(sizeof(flare_sparse_block_t) - offsetof(flare_sparse_block_t, busy)) / 4u);
  clear_words((uint32_t*)child(c, 0), c->ar->n_children * (uint32_t)sizeof(flare_sparse_child_t) / 4u);
  if (c->ar->algorithm == FLARE_SPARSE_TREE)
    clear_words(tree_counters(c), 1u << flare_sparse_tree_levels(c->ar->n_children));
  st->busy = 1;
  st->allreduce_id = c->h.allreduce_id;
  st->block_id = c->h.block_id;
  st->dtype = c->h.dtype;
  st->op = c->h.op;
}

/* With the block's lock held: takes the packet into the block (starting the block if the state is
 * free) or says why not. *child_done: the child has now delivered every packet of the block. */
static int admit(sparse_ctx_t* c, int* child_done) {
  flare_sparse_block_t* st = c->st;
  const flare_sparse_header_t* h = &c->h;
  flare_sparse_child_t* ch;
  const uint32_t word = h->shard / 32u, bit = 1u << (h->shard % 32u);
  if (!st->busy) {
    /* A retransmission after its block's result went out must not start the block again. */
    if (st->completed && st->allreduce_id == h->allreduce_id && h->block_id <= st->block_id)
      return FLARE_SPARSE_DUPLICATE;
    start_block(c);
  } else {
    if (st->allreduce_id != h->allreduce_id || st->block_id != h->block_id)
      return h->block_id < st->block_id ? FLARE_SPARSE_DUPLICATE : FLARE_SPARSE_WINDOW_EXCEEDED;
    if (st->dtype != h->dtype || st->op != h->op) return FLARE_SPARSE_MISMATCH;
  }
  ch = child(c, h->sender_rank);
  if (ch->seen[word] & bit) return FLARE_SPARSE_DUPLICATE;
  /* Numbers must stay below the count the last packet announces. */
  if (ch->announced && h->shard >= ch->announced) return FLARE_SPARSE_MALFORMED;
  if (h->flags & FLARE_FLAG_LAST) {
    uint32_t w;
    for (w = 0; w < FLARE_SPARSE_MAX_SHARDS / 32u; ++w) {
      const uint32_t from = h->shards > 32u * w ? h->shards - 32u * w : 0; /* bits >= shards in word w */
      if (from < 32u && (ch->seen[w] >> from)) return FLARE_SPARSE_MALFORMED;
    }
    ch->announced = h->shards;
  }
  ch->seen[word] |= bit;
  ch->received++;
  *child_done = ch->announced && ch->received == ch->announced;
  return FS_OK;
}

/* ---- Algorithms ---- */

/* Single storage: admission, the fold (spills included) and the result all under the block's lock. */
static int sparse_single(sparse_ctx_t* c) {
  flare_sparse_block_t* st = c->st;
  int done = 0, outcome;
  fs_lock(&st->lock);
  c->locked = 1;
  outcome = admit(c, &done);
  if (outcome == FS_OK) {
    if (insert(c, storage(c, 0))) outcome = FLARE_SPARSE_SPILLED;
    if (done && ++st->children_done == c->ar->n_children) outcome = finish(c, storage(c, 0));
  }
  fs_unlock(&st->lock);
  return outcome;
}

/* A storage per child: a child's packets fold into its storage under the child's lock; the
 * handler that folds a child's last outstanding packet takes the child up the tree (node (l, j)
 * keeps its aggregate in the storage of its first rank, left = left op right), and the one that
 * completes the root sends the result. */
static int sparse_tree(sparse_ctx_t* c) {
  flare_sparse_block_t* st = c->st;
  const uint32_t n = c->ar->n_children, levels = flare_sparse_tree_levels(n), rank = c->h.sender_rank;
  flare_sparse_child_t* ch = child(c, rank);
  uint32_t* counters = tree_counters(c);
  uint32_t l;
  int unused, outcome, complete, sent;

  fs_lock(&st->lock);
  outcome = admit(c, &unused);
  fs_unlock(&st->lock);
  if (outcome != FS_OK) return outcome;

  c->locked = 0;
  fs_lock(&ch->lock);
  sent = insert(c, storage(c, rank));
  ch->folded++;
  /* The child's last packet set `announced` before folding: whoever folds last sees it. */
  complete = ch->announced && ch->folded == ch->announced;
  fs_unlock(&ch->lock);
  if (!complete) return sent ? FLARE_SPARSE_SPILLED : FS_OK;

  for (l = 0; l < levels; ++l) {
    const uint32_t left = (rank >> (l + 1)) << (l + 1), right = left + (1u << l);
    if (right >= n) continue;
    if (__atomic_fetch_add(&counters[(1u << (levels - l - 1)) + (rank >> (l + 1))], 1u, __ATOMIC_ACQ_REL) == 0)
      return sent ? FLARE_SPARSE_SPILLED : FS_OK;
    sent |= fold(c, storage(c, left), storage(c, right));
  }
  fs_lock(&st->lock);
  c->locked = 1;
  outcome = finish(c, storage(c, 0));
  fs_unlock(&st->lock);
  return outcome;
}

/* ---- The handler ---- */

static uint32_t find_allreduce(const flare_sparse_table_t* t, uint32_t id) {
  uint32_t i;
  for (i = 0; i < t->n_allreduces && i < FLARE_SPARSE_MAX_ALLREDUCES; ++i)
    if (t->allreduces[i].allreduce_id == id) break;
  return i < t->n_allreduces ? i : FLARE_SPARSE_MAX_ALLREDUCES;
}

/* The header's own consistency: version, kind and flags, dtype, operator, the pair count against
 * the UDP length, and the shard numbers (a last packet is number shards - 1 of shards >= 1). */
static int check_header(const fs_handler_args_t* args, const flare_sparse_header_t* h, uint32_t pair_bytes) {
  const uint32_t bytes = (uint32_t)h->pair_count * pair_bytes;
  const int last = (h->flags & FLARE_FLAG_LAST) != 0;
  if (h->version != FLARE_VERSION || !(h->flags & FLARE_FLAG_SPARSE) ||
      (h->flags & ~(FLARE_FLAG_SPARSE | FLARE_FLAG_LAST)) || h->kind > FLARE_KIND_RESULT || !pair_bytes ||
      h->op >= FLARE_OP_COUNT)
    return 0;
  if (args->pkt_len < FLARE_SPARSE_PAIRS_OFFSET + bytes ||
      fs_be16(args->pkt + FS_ETH_BYTES + FS_IPV4_BYTES + 4) != FS_UDP_BYTES + FLARE_SPARSE_HEADER_BYTES + bytes)
    return 0;
  return last ? h->shards != 0 && h->shard == h->shards - 1u : h->shards == 0;
}

int flare_sparse_handler(const fs_handler_args_t* args) {
  const flare_sparse_table_t* table = (const flare_sparse_table_t*)args->l1; /* this cluster's copy */
  sparse_ctx_t c;
  uint32_t round, home, index, i;
  const uint8_t* p;

  if (args->l1_size < FLARE_SPARSE_TABLE_L1_BYTES || args->handler_mem_size < sizeof(flare_sparse_config_t) ||
      table->magic != FLARE_SPARSE_MAGIC || table->by_clusters.d != args->num_clusters)
    return FLARE_SPARSE_NOT_INSTALLED;
  if (args->pkt_len < FLARE_SPARSE_PAIRS_OFFSET || fs_be16(args->pkt + 12) != FS_ETHERTYPE_IPV4 ||
      args->pkt[FS_ETH_BYTES] != 0x45 || args->pkt[FS_ETH_BYTES + 9] != FS_IPPROTO_UDP)
    return FLARE_SPARSE_MALFORMED;
  c.args = args;
  flare_sparse_decode(args->pkt + FLARE_PAYLOAD_OFFSET, &c.h);
  c.pair_bytes = flare_pair_bytes(c.h.dtype);
  if (!check_header(args, &c.h, c.pair_bytes)) return FLARE_SPARSE_MALFORMED;
  index = find_allreduce(table, c.h.allreduce_id);
  if (index == FLARE_SPARSE_MAX_ALLREDUCES) return FLARE_SPARSE_UNKNOWN_ALLREDUCE;
  c.ar = &table->allreduces[index];
  c.ports = ((const flare_sparse_config_t*)args->handler_mem)->ports[index];
  if (c.h.kind == FLARE_KIND_RESULT) {
    /* A result packet from the parent (a spill or part of the aggregate): every child gets it. */
    if (c.ar->parent_port == FLARE_SPARSE_NO_PARENT || args->ingress_port != c.ar->parent_port)
      return FLARE_SPARSE_MALFORMED;
    fs_multicast(args->pkt, FLARE_SPARSE_PAIRS_OFFSET + (uint32_t)c.h.pair_count * c.pair_bytes, c.ports,
                 c.ar->n_children);
    return FLARE_SPARSE_RESULT_FORWARDED;
  }
  if (c.h.shard >= FLARE_SPARSE_MAX_SHARDS) return FLARE_SPARSE_MALFORMED;
  if (c.h.sender_rank >= c.ar->n_children) return FLARE_SPARSE_BAD_RANK;
  c.pairs = args->pkt + FLARE_SPARSE_PAIRS_OFFSET;
  /* Every index inside the block's span, before anything changes. */
  for (i = 0, p = c.pairs; i < c.h.pair_count; ++i, p += c.pair_bytes)
    if (ld32(p) >= c.ar->span) return FLARE_SPARSE_MALFORMED;
  c.capacity = c.ar->max_payload / c.pair_bytes;
  if (!c.capacity) return FLARE_SPARSE_MALFORMED; /* the switch could not send a single pair */
  c.udp_port = fs_be16(args->pkt + FS_ETH_BYTES + FS_IPV4_BYTES + 2);
  c.locked = 0;

  /* Block b's home is cluster b mod clusters, its state (b / clusters) mod states there. */
  round = fs_divide(c.h.block_id, &table->by_clusters);
  home = fs_remainder(c.h.block_id, round, &table->by_clusters);
  c.state = fs_cluster_l1(home, NULL) + c.ar->l1_offset +
            (size_t)fs_remainder(round, fs_divide(round, &c.ar->by_states), &c.ar->by_states) * c.ar->state_bytes;
  c.st = (flare_sparse_block_t*)c.state;
  return c.ar->algorithm == FLARE_SPARSE_TREE ? sparse_tree(&c) : sparse_single(&c);
}

/* Names of the outcome codes, in the order of enum flare_sparse_outcome. */
static const fs_outcome_desc_t flare_sparse_outcomes[] = {
    /* name, drop, completes_block, no_block */
    {"ok", 0, 0, 0},           {"spilled", 0, 0, 0},          {"result_sent", 0, 1, 0},
    {"sent_up", 0, 1, 0},      {"result_forwarded", 0, 0, 1}, {"malformed", 1, 0, 0},
    {"unknown_allreduce", 1, 0, 0}, {"bad_rank", 1, 0, 0},    {"duplicate", 1, 0, 0},
    {"window_exceeded", 1, 0, 0},   {"mismatch", 1, 0, 0},    {"not_installed", 1, 0, 0},
};
FS_HANDLER_SET(flare_sparse,
               "Flare sparse allreduce: (index, value) pairs in a hash table with a spill buffer or an array "
               "of the block's span, single storage or a tree per allreduce (int32/int16/int8/float32; sum/min/max)",
               FLARE_OFF_BLOCK, FLARE_OFF_ALLREDUCE, flare_sparse_outcomes);
