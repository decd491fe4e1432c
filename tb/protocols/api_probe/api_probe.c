/* The api_probe handler (see api_probe.h). */
#include "api_probe.h"

#include <string.h>

#include "fs_packet.h"

#if defined(__riscv)
#include "fs_memory_map.h"
#endif

static void put_result(uint8_t* at, const void* result, uint32_t bytes) { memcpy(at, result, bytes); }

static int probe_all(const fs_handler_args_t* a, uint8_t* payload) {
  api_probe_result_t r;
  static const uint32_t ports[2] = {1, 2};
  const uint32_t bad_ports[2] = {1, 1000};
  uint32_t size = 0;
  char long_line[301];
  r.send = fs_send(a->pkt, a->pkt_len, a->ingress_port);
  r.send_bad_port = fs_send(a->pkt, a->pkt_len, 1000);
  r.multicast = fs_multicast(a->pkt, 20, ports, 2);
  r.multicast_bad_port = fs_multicast(a->pkt, 20, bad_ports, 2);
  r.host_write = fs_host_write(3, 0x1122334455667788ull, payload + 8, 8);
  r.host_write_bad_port = fs_host_write(1000, 0, payload, 8);
  r.l1_bad = fs_cluster_l1(a->num_clusters, 0) == 0;
  (void)fs_cluster_l1(0, &size);
  r.l1_size = size;
  r.dma_in = fs_dma_copy(a->l1, payload + 8, 16);
  r.dma_out = fs_dma_copy(payload + 24, a->l1, 16);
  r.hash = fs_hash(payload + 8, 32, 0x9747b28cu);
  r.log = fs_log("probe %u bytes from port %u: hash %08x, %s", (unsigned)a->pkt_len, (unsigned)a->ingress_port,
                 (unsigned)r.hash, "tab\there");
  memset(long_line, 'x', 300);
  long_line[300] = 0;
  long_line[0] = '<';
  r.log_long = fs_log("%s>", long_line);
  r.log_raw = fs_log_write("raw\n", 4);
  r.next_hop = fs_next_hop(0x0A010205u);
  r.next_hop_none = fs_next_hop(0x0B000001u);
  put_result(payload + 8, &r, sizeof r);
  return fs_send(a->pkt, a->pkt_len, a->ingress_port) == 0 ? FS_OK : API_PROBE_MALFORMED;
}

static int probe_bad_pointers(const fs_handler_args_t* a, uint8_t* payload) {
#if defined(__riscv)
  api_probe_bad_pointers_t r;
  uint32_t ports[3] = {1, 2, 1000};
  uint8_t* odd = payload + 41; /* an odd address in the packet for a port list */
  r.send_mmio = fs_send((const void*)FS_MMIO_BASE, 4, 0);
  r.send_unmapped = fs_send((const void*)0x100, 4, 0);
  r.send_too_long = fs_send(a->pkt, 70000, 0);
  r.dma_to_program = fs_dma_copy((void*)FS_PROGRAM_BASE, a->pkt, 4);
  r.dma_from_unmapped = fs_dma_copy(a->l1, (const void*)0x100, 4);
  r.log_from_mmio = fs_log_write((const char*)FS_MMIO_BASE, 4);
  memcpy(odd, ports, 8);
  r.multicast_unaligned_list = fs_multicast(a->pkt, 20, (const uint32_t*)odd, 2);
  memcpy(odd, ports + 1, 8);
  r.multicast_unaligned_bad_port = fs_multicast(a->pkt, 20, (const uint32_t*)odd, 2);
  put_result(payload + 8, &r, sizeof r);
  return fs_send(a->pkt, a->pkt_len, a->ingress_port) == 0 ? FS_OK : API_PROBE_MALFORMED;
#else
  (void)a;
  (void)payload;
  return API_PROBE_ISS_ONLY;
#endif
}

static int probe_layout(const fs_handler_args_t* a, uint8_t* payload) {
  api_probe_layout_t r;
  r.pkt_mod4 = (uint32_t)(uintptr_t)a->pkt & 3u;
  r.ip_mod4 = (uint32_t)(uintptr_t)a->ip & 3u;
  r.payload_mod4 = (uint32_t)(uintptr_t)payload & 3u;
  r.ip_minus_pkt = (uint32_t)(a->ip - a->pkt);
  r.pkt_len = a->pkt_len;
  r.ip_len = a->ip_len;
  r.ip = (uint32_t)(uintptr_t)a->ip;
  memcpy(&r.ip_first_word, a->ip, 4);
  put_result(payload + 8, &r, sizeof r);
  return fs_send(a->pkt, a->pkt_len, a->ingress_port) == 0 ? FS_OK : API_PROBE_MALFORMED;
}

int api_probe_handler(const fs_handler_args_t* args) {
  uint32_t payload_len = 0;
  uint8_t* payload = (uint8_t*)fs_udp_payload(args->pkt, args->pkt_len, &payload_len);
  if (!payload || payload_len < API_PROBE_PAYLOAD) return API_PROBE_MALFORMED;
  switch (payload[0]) {
    case API_PROBE_ALL: return probe_all(args, payload);
    case API_PROBE_BAD_POINTERS: return probe_bad_pointers(args, payload);
    case API_PROBE_FAULT:
      fs_log("about to fault on cluster %u", (unsigned)args->cluster_id);
#if defined(__riscv)
      __builtin_trap();
#endif
      return API_PROBE_ISS_ONLY;
    case API_PROBE_LAYOUT: return probe_layout(args, payload);
    default: return API_PROBE_MALFORMED;
  }
}

static const fs_outcome_desc_t api_probe_outcomes[] = {{"ok", 0, 0, 0}, {"malformed", 1, 0, 0}, {"iss_only", 1, 0, 0}};
FS_HANDLER_SET(api_probe, "the test suite's handler API probe (tb/protocols/api_probe)", -1, -1, api_probe_outcomes);
