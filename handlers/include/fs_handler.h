/* The handler API: what a packet handler sees and may do. One header, two back ends: on the
 * host (native HPU mode, handler unit tests) the calls go through a back-end table installed by
 * the simulator or a test harness (handlers/host/fs_host_backend.c); the RISC-V firmware
 * implements the same calls over MMIO. Handler sources include only this header and their
 * protocol's wire-format header. */
#ifndef FS_HANDLER_H
#define FS_HANDLER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the cluster scheduler hands to a handler for one packet: fs_handler_args_t has one field
 * per row, PTR(type, name) a `type*` and U32(name) a uint32_t. The RV32 layout the ISS engine
 * writes is made from the same list (fs_handler_args_rv32_t, firmware/fs_memory_map.h). */
#define FS_HANDLER_ARGS(PTR, U32)                                                               \
  PTR(uint8_t, pkt)        /* the frame, copied by DMA into this HPU's L1 packet slot at */     \
                           /* FS_PKT_FRAME_OFFSET (a timer event: at the slot's start) */        \
  U32(pkt_len)             /* bytes of the frame (Ethernet header onward, no FCS) */            \
  PTR(uint8_t, ip)         /* the frame's L3 packet, after the 14-byte Ethernet header: the */  \
                           /* IPv4 header, 4-byte aligned (PsPIN's pkt_mem); NULL for a timer */ \
  U32(ip_len)              /* bytes from ip to the end of the frame (pkt_len - 14, padding */   \
                           /* included; 0 for a timer or a frame shorter than 14 bytes) */     \
  U32(ingress_port)        /* switch port the packet arrived on */                              \
  U32(cluster_id)          /* cluster running the handler */                                    \
  U32(hpu_id)              /* HPU within the cluster */                                         \
  U32(num_clusters)                                                                             \
  PTR(uint8_t, l1)         /* this cluster's L1 state area: kept across packets */              \
  U32(l1_size)                                                                                  \
  PTR(uint8_t, handler_mem) /* L2 handler memory, shared by all clusters; filled at install */  \
  U32(handler_mem_size)

/* Where the frame starts in the HPU's L1 packet slot: 2 bytes in, so that the 14-byte Ethernet
 * header ends on a 4-byte boundary and the IPv4 header (args->ip), and after its 20 bytes and
 * UDP's 8 the UDP payload, are word-aligned, as PsPIN hands its handlers packets whose IPv4
 * header starts at an aligned L1 address (docs/HANDLERS.md, "The packet's layout"). The only
 * definition of the offset: the simulator, the firmware's memory map and the handlers use it. */
#define FS_PKT_FRAME_OFFSET 2u

typedef struct fs_handler_args {
#define FS_ARGS_PTR_(type, name) type* name;
#define FS_ARGS_U32_(name) uint32_t name;
  FS_HANDLER_ARGS(FS_ARGS_PTR_, FS_ARGS_U32_)
#undef FS_ARGS_PTR_
#undef FS_ARGS_U32_
} fs_handler_args_t;

/* A handler returns FS_OK, or a handler-set specific outcome code (> 0) that the simulator
 * counts under the name the handler set gives it (e.g. a drop reason). */
#define FS_OK 0
typedef int (*fs_handler_fn)(const fs_handler_args_t* args);

/* The calls, listed once with what each does in fs_api.def (and docs/HANDLERS.md): fs_send,
 * fs_multicast, fs_host_write, fs_cluster_l1, fs_dma_copy, fs_log_write. On RISC-V the calls to
 * the switch are inlined command-register sequences (firmware/fs_api_rv32.h). */
#include "fs_api_wire.h"
#if defined(__riscv)
#include "fs_api_rv32.h"
#else
#define FS_API_DEVICE(name, ret, params, ...) ret fs_##name params;
#define FS_API_LOCAL(name, ret, params, ...) ret fs_##name params;
#define FS_API_HELPER(...)
#include "fs_api.def"
#undef FS_API_DEVICE
#undef FS_API_LOCAL
#undef FS_API_HELPER
#endif

/* Writes one line to the handler log (`flaresim run --handler-log FILE`), formatted like printf
 * into at most FS_LOG_MAX_LINE characters (the rest is cut), prefixed in the log with the
 * simulated time, cluster, HPU and handler set. Returns the characters written, or -1. On the
 * ISS the formatting runs on the HPU (picolibc's vsnprintf) and costs its cycles. */
#define FS_LOG_MAX_LINE 255
int fs_log(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

/* MurmurHash3 x86_32 (Austin Appleby's, public domain) of `len` bytes at `data` with `seed`:
 * 4-byte little-endian blocks mixed into the seed, the 1 to 3 tail bytes, the length, then the
 * fmix32 finaliser. The same bits on the host and on the HPU, where it runs as the handler's own
 * code (14 instructions, about 17 cycles, per 4 bytes). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "fs_hash reads little-endian words"
#endif
static inline uint32_t fs_hash_rotl_(uint32_t x, unsigned r) { return (x << r) | (x >> (32u - r)); }
static inline uint32_t fs_hash(const void* data, uint32_t len, uint32_t seed) {
  const uint8_t* p = (const uint8_t*)data;
  const uint32_t c1 = 0xcc9e2d51u, c2 = 0x1b873593u;
  uint32_t h = seed, k, n;
  for (n = len >> 2; n; --n, p += 4) {
    __builtin_memcpy(&k, p, 4); /* one (maybe misaligned) lw on the HPU: both ends are little-endian */
    k = fs_hash_rotl_(k * c1, 15) * c2;
    h = fs_hash_rotl_(h ^ k, 13) * 5u + 0xe6546b64u;
  }
  k = 0;
  switch (len & 3u) {
    case 3: k ^= (uint32_t)p[2] << 16; /* fall through */
    case 2: k ^= (uint32_t)p[1] << 8;  /* fall through */
    case 1:
      k ^= p[0];
      h ^= fs_hash_rotl_(k * c1, 15) * c2;
  }
  h ^= len;
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  return h ^ (h >> 16);
}

/* A spin lock in L1 or L2 handler memory (a zero-initialised uint32_t), taken with an atomic swap.
 * HPUs running at the same time may contend for it (hpu.interleave = on). */
static inline void fs_lock(uint32_t* lock) {
  for (;;) {
    while (__atomic_load_n(lock, __ATOMIC_RELAXED)) {
    }
    if (!__atomic_exchange_n(lock, 1u, __ATOMIC_ACQUIRE)) return;
  }
}
static inline void fs_unlock(uint32_t* lock) { __atomic_store_n(lock, 0u, __ATOMIC_RELEASE); }

/* What the simulator needs to know about a handler set: declared once, next to the handler, with
 * FS_HANDLER_SET below; fs_handler_set() in handlers/CMakeLists.txt registers it. */
typedef struct fs_outcome_desc {
  const char* name;    /* how stats name the outcome code (index in the table) */
  int drop;            /* nonzero: the packet is dropped (counted as a drop) */
  int completes_block; /* nonzero: the packet completed its block, whose state is free again
                          (for handler sets with block ids: stats of blocks in flight) */
  int no_block;        /* nonzero: the packet is no contribution to a block in flight (e.g. a
                          result passed on), so it neither opens nor completes one */
} fs_outcome_desc_t;

typedef struct fs_handler_set_desc {
  const char* name;
  const char* doc;
  fs_handler_fn fn;
  int block_id_offset; /* byte offset of a big-endian u32 block id in the UDP payload, or -1 */
  int block_group_offset; /* byte offset of a big-endian u32 that tells apart blocks with the same
                             id (e.g. an allreduce id), or -1 */
  const fs_outcome_desc_t* outcomes; /* index = return code; outcomes[0] is FS_OK */
  uint32_t n_outcomes;
  fs_handler_fn timer; /* NAME_timer, run when a timer of the set fires; NULL: the set has none */
} fs_handler_set_desc_t;

/* A timer run (fs_timer_arm): the set's timer handler runs on an HPU of the cluster whose handler
 * armed the timer, timed like a packet handler, with `pkt` holding this event (copied into the
 * HPU's packet slot like a packet), `pkt_len` its size and `ingress_port` FS_TIMER_PORT. */
#define FS_TIMER_PORT 0xFFFFFFFFu
typedef struct fs_timer_event {
  uint32_t id;       /* the timer's id, as armed */
  uint32_t cluster;  /* the cluster whose handler armed it (where this run is) */
} fs_timer_event_t;

/* FS_HANDLER_SET(NAME, doc, block_id_offset, block_group_offset, outcomes): describes handler set
 * NAME, whose handler
 * is NAME_handler and whose outcome table is the array `outcomes`. Host builds only: the RISC-V
 * build of the same file compiles it away. */
#if defined(__riscv)
/* (sizeof counts as a use of the outcome table, which the RISC-V build does not otherwise need) */
#define FS_HANDLER_SET(NAME, DOC, BLOCK_OFFSET, GROUP_OFFSET, OUTCOMES) \
  typedef char NAME##_outcomes_size[sizeof(OUTCOMES) > 0 ? 1 : -1]
#define FS_HANDLER_SET_WITH_TIMER(NAME, DOC, BLOCK_OFFSET, GROUP_OFFSET, OUTCOMES) \
  FS_HANDLER_SET(NAME, DOC, BLOCK_OFFSET, GROUP_OFFSET, OUTCOMES)
#else
#define FS_HANDLER_SET_DESC(NAME, DOC, BLOCK_OFFSET, GROUP_OFFSET, OUTCOMES, TIMER)                      \
  const fs_handler_set_desc_t NAME##_handler_set = {#NAME, DOC, NAME##_handler, BLOCK_OFFSET, GROUP_OFFSET, \
                                                    OUTCOMES, (uint32_t)(sizeof(OUTCOMES) / sizeof((OUTCOMES)[0])), TIMER}
#define FS_HANDLER_SET(NAME, DOC, BLOCK_OFFSET, GROUP_OFFSET, OUTCOMES) \
  FS_HANDLER_SET_DESC(NAME, DOC, BLOCK_OFFSET, GROUP_OFFSET, OUTCOMES, NULL)
/* The same for a set that also has a timer handler, `int NAME_timer(const fs_handler_args_t*)`. */
#define FS_HANDLER_SET_WITH_TIMER(NAME, DOC, BLOCK_OFFSET, GROUP_OFFSET, OUTCOMES) \
  FS_HANDLER_SET_DESC(NAME, DOC, BLOCK_OFFSET, GROUP_OFFSET, OUTCOMES, NAME##_timer)
#endif

/* Host back end: the table the simulator or a test harness installs before running handlers,
 * one entry per call of fs_api.def taking `ctx` first (the simulator's is HandlerApi::backend()).
 * Calling a call whose entry is NULL, or any call with no table installed, aborts. */
typedef struct fs_backend {
  void* ctx;
#define FS_API_DEVICE(name, ret, params, ...) ret(*name) FS_API_CTX_PARAMS params;
#define FS_API_LOCAL(name, ret, params, ...) ret(*name) FS_API_CTX_PARAMS params;
#define FS_API_HELPER(...)
#include "fs_api.def"
#undef FS_API_DEVICE
#undef FS_API_LOCAL
#undef FS_API_HELPER
} fs_backend_t;

/* Installs the back end used by the API calls above (host builds only); returns the previous. */
const fs_backend_t* fs_set_backend(const fs_backend_t* backend);
/* Where the handler made its latest call through the back end (the call's return address in the
 * handler; host builds only): a native watchdog that stops a handler inside a call names it. */
const void* fs_backend_caller(void);

#ifdef __cplusplus
}
#endif
#endif /* FS_HANDLER_H */
