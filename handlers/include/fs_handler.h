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

/* What the cluster scheduler hands to a handler for one packet. */
typedef struct fs_handler_args {
  uint8_t* pkt;               /* the packet, copied by DMA into this HPU's L1 packet slot */
  uint32_t pkt_len;           /* bytes of the frame (Ethernet header onward, no FCS) */
  uint32_t ingress_port;      /* switch port the packet arrived on */
  uint32_t cluster_id;        /* cluster running the handler */
  uint32_t hpu_id;            /* HPU within the cluster */
  uint32_t num_clusters;
  uint8_t* l1;                /* this cluster's L1 state area: kept across packets */
  uint32_t l1_size;
  uint8_t* handler_mem;       /* L2 handler memory, shared by all clusters; filled at install */
  uint32_t handler_mem_size;
} fs_handler_args_t;

/* A handler returns FS_OK, or a handler-set specific outcome code (> 0) that the simulator
 * counts under the name the handler set gives it (e.g. a drop reason). */
#define FS_OK 0
typedef int (*fs_handler_fn)(const fs_handler_args_t* args);

/* Send `len` bytes as a new frame out of `port`. Returns 0, or -1 if the port does not exist. */
int fs_send(const void* frame, uint32_t len, uint32_t port);
/* Send the same frame out of every port in `ports`. Returns 0, or -1 on a bad port. */
int fs_multicast(const void* frame, uint32_t len, const uint32_t* ports, uint32_t nports);
/* Write `len` bytes to address `addr` of the memory of the host attached to `port`. */
int fs_host_write(uint32_t port, uint64_t addr, const void* data, uint32_t len);
/* The L1 state area of another cluster (remote L1 access); NULL for a bad cluster id. */
uint8_t* fs_cluster_l1(uint32_t cluster_id, uint32_t* size);

/* Copies `len` bytes between memories the handler can reach (this or another cluster's L1, L2
 * handler memory, its packet) with the cluster's DMA engine; returns 0 once the copy is done (the
 * HPU waits for it), or -1 if a range is not DMA-reachable memory. */
int fs_dma_copy(void* dst, const void* src, uint32_t len);

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
} fs_handler_set_desc_t;

/* FS_HANDLER_SET(NAME, doc, block_id_offset, block_group_offset, outcomes): describes handler set
 * NAME, whose handler
 * is NAME_handler and whose outcome table is the array `outcomes`. Host builds only: the RISC-V
 * build of the same file compiles it away. */
#if defined(__riscv)
/* (sizeof counts as a use of the outcome table, which the RISC-V build does not otherwise need) */
#define FS_HANDLER_SET(NAME, DOC, BLOCK_OFFSET, GROUP_OFFSET, OUTCOMES) \
  typedef char NAME##_outcomes_size[sizeof(OUTCOMES) > 0 ? 1 : -1]
#else
#define FS_HANDLER_SET(NAME, DOC, BLOCK_OFFSET, GROUP_OFFSET, OUTCOMES)                                  \
  const fs_handler_set_desc_t NAME##_handler_set = {#NAME, DOC, NAME##_handler, BLOCK_OFFSET, GROUP_OFFSET, \
                                                    OUTCOMES, (uint32_t)(sizeof(OUTCOMES) / sizeof((OUTCOMES)[0]))}
#endif

/* Host back end: the table the simulator or a test harness installs before running handlers. */
typedef struct fs_backend {
  void* ctx;
  int (*send)(void* ctx, const void* frame, uint32_t len, uint32_t port);
  int (*multicast)(void* ctx, const void* frame, uint32_t len, const uint32_t* ports, uint32_t nports);
  int (*host_write)(void* ctx, uint32_t port, uint64_t addr, const void* data, uint32_t len);
  uint8_t* (*cluster_l1)(void* ctx, uint32_t cluster_id, uint32_t* size);
  int (*dma_copy)(void* ctx, void* dst, const void* src, uint32_t len); /* NULL: plain memcpy */
} fs_backend_t;

/* Installs the back end used by the API calls above (host builds only); returns the previous. */
const fs_backend_t* fs_set_backend(const fs_backend_t* backend);

#ifdef __cplusplus
}
#endif
#endif /* FS_HANDLER_H */
