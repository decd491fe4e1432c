/* api_probe: the test suite's handler set that calls every function of the handler API and
 * answers with what each returned (tb/protocols/handler_api_test.cpp), so that both back ends
 * (native, and RISC-V on the ISS) are checked against the same expectations. Its packets are UDP
 * frames to port API_PROBE_UDP_PORT whose first payload byte says what to do. */
#ifndef API_PROBE_H
#define API_PROBE_H

#include <stdint.h>

#include "fs_handler.h"

#ifdef __cplusplus
extern "C" {
#endif

#define API_PROBE_UDP_PORT 5001u
#define API_PROBE_PAYLOAD 72u /* payload bytes of a probe frame */

enum api_probe_op {
  /* Every call with good and bad arguments: the original frame back to its port, the first
   * 20 bytes to ports 1 and 2, the payload's bytes 8..15 to host memory 0x1122334455667788 of
   * port 3, the payload copied by DMA into L1 and back, three log lines; then the answer, to
   * the ingress port: the frame with api_probe_result at payload offset 8. */
  API_PROBE_ALL = 1,
  /* Guest pointers the ISS must refuse (each call returns -1): the answer's results are those
   * of api_probe_bad_pointers. Natively the handler returns API_PROBE_ISS_ONLY. */
  API_PROBE_BAD_POINTERS = 2,
  /* Logs a line, then faults (ebreak) on the ISS; natively returns API_PROBE_ISS_ONLY. */
  API_PROBE_FAULT = 3,
  /* Where the handler finds its packet: the answer is the frame with api_probe_layout at payload
   * offset 8, to the ingress port. */
  API_PROBE_LAYOUT = 4,
};

/* The answer to API_PROBE_ALL, little-endian words. */
typedef struct api_probe_result {
  int32_t send, send_bad_port, multicast, multicast_bad_port, host_write, host_write_bad_port;
  uint32_t l1_size;       /* fs_cluster_l1(0, &size) */
  uint32_t l1_bad;        /* fs_cluster_l1(num_clusters) == NULL */
  int32_t dma_in, dma_out; /* L1 <- payload[8..24), payload[24..40) <- L1 */
  uint32_t hash;          /* fs_hash(payload[8..40), seed 0x9747b28c) */
  int32_t log, log_long, log_raw; /* fs_log("probe ..."), a 300-character line, fs_log_write("raw") */
  int32_t next_hop, next_hop_none; /* fs_next_hop(10.1.2.5), fs_next_hop(11.0.0.1) */
} api_probe_result_t;

typedef struct api_probe_bad_pointers {
  int32_t send_mmio, send_unmapped, send_too_long, dma_to_program, dma_from_unmapped, log_from_mmio;
  int32_t multicast_unaligned_list, multicast_unaligned_bad_port;
} api_probe_bad_pointers_t;

/* The answer to API_PROBE_LAYOUT, little-endian words: addresses as the handler sees them (on
 * the ISS its memory map's, natively the host's). */
typedef struct api_probe_layout {
  uint32_t pkt_mod4, ip_mod4, payload_mod4; /* args->pkt, args->ip and the UDP payload, mod 4 */
  uint32_t ip_minus_pkt;                    /* args->ip - args->pkt */
  uint32_t pkt_len, ip_len;
  uint32_t ip;                              /* args->ip's low 32 bits */
  uint32_t ip_first_word;                   /* one lw of the IPv4 header's first word */
} api_probe_layout_t;

enum api_probe_outcome { API_PROBE_MALFORMED = 1, API_PROBE_ISS_ONLY, API_PROBE_OUTCOME_COUNT };

int api_probe_handler(const fs_handler_args_t* args);

#ifdef __cplusplus
}
#endif
#endif /* API_PROBE_H */
