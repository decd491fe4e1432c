/* The pkt_counter handler (see pkt_counter.h). */
#include "pkt_counter.h"

#include "fs_packet.h"

int pkt_counter_handler(const fs_handler_args_t* args) {
  pkt_counter_config_t* cfg = (pkt_counter_config_t*)args->handler_mem;
  uint32_t payload_len = 0, count, *counts, *total, size = 0;
  uint8_t* payload;
  if (args->handler_mem_size < sizeof(*cfg) || cfg->magic != PKT_COUNTER_MAGIC) return PKT_COUNTER_NOT_INSTALLED;
  payload = (uint8_t*)fs_udp_payload(args->pkt, args->pkt_len, &payload_len);
  if (!payload || payload_len < 4) return PKT_COUNTER_MALFORMED;
  if (args->ingress_port >= cfg->slots) return PKT_COUNTER_NO_SLOT;
  counts = (uint32_t*)args->l1;
  count = __atomic_add_fetch(&counts[args->ingress_port], 1u, __ATOMIC_RELAXED);
  total = (uint32_t*)fs_cluster_l1(0, &size);
  if (!total || size < pkt_counter_l1_bytes(cfg->slots)) return PKT_COUNTER_NOT_INSTALLED;
  __atomic_add_fetch(&total[cfg->slots], 1u, __ATOMIC_RELAXED);
  __atomic_add_fetch(&cfg->bytes, args->pkt_len, __ATOMIC_RELAXED);
  fs_put_be32(payload, count);
  fs_send(args->pkt, args->pkt_len, args->ingress_port);
  return FS_OK;
}

static const fs_outcome_desc_t pkt_counter_outcomes[] = {
    {"ok", 0, 0, 0}, {"malformed", 1, 0, 0}, {"no_slot", 1, 0, 0}, {"not_installed", 1, 0, 0}};
FS_HANDLER_SET(pkt_counter, "the test suite's packet counter (tb/protocols/pkt_counter)", -1, -1, pkt_counter_outcomes);
