/* What aggregate_global, reduce_l1 and histogram_l1 share around their inner loops: reading the
 * message header, counting a packet into its message, and the message's completion step (PsPIN's
 * completion handler: PsPIN's NIC runs it once every packet of the message has been handled;
 * here the run whose count completes the message does it), which sends the results. Static
 * inline: each handler set is a program of its own on the HPUs. */
#ifndef PSPIN_MESSAGE_H
#define PSPIN_MESSAGE_H

#include <string.h>

#include "pspin_examples.h"

/* The outcome table of the message-based examples (index = enum pspin_ex_outcome). */
#define PSPIN_EX_MESSAGE_OUTCOMES                                                              \
  {                                                                                            \
    {"ok", 0, 0, 0}, {"message_done", 0, 1, 0}, {"after_done", 0, 0, 1}, {"malformed", 1, 0, 0}, \
        {"too_long", 1, 0, 0}, {"no_state", 1, 0, 0}, {"result_not_sent", 0, 1, 0}            \
  }

typedef struct pspin_ex_msg {
  uint32_t id;          /* message id */
  uint32_t packets;     /* packets in the message */
  uint32_t result_port; /* where its results go */
  const uint8_t* data;  /* the data words (little-endian; 4-byte aligned only if the frame's UDP
                           payload is: read them with memcpy) */
  uint32_t words;       /* whole data words (PsPIN's examples also ignore a trailing part word) */
} pspin_ex_msg_t;

/* Reads the packet's message header: FS_OK, PSPIN_EX_MALFORMED, PSPIN_EX_TOO_LONG, or
 * PSPIN_EX_NO_STATE when the message has no state among the `messages` installed. */
static inline int pspin_ex_read_msg(const fs_handler_args_t* args, uint32_t example, pspin_ex_msg_t* m) {
  uint32_t len = 0;
  const uint8_t* p = fs_udp_payload(args->pkt, args->pkt_len, &len);
  if (!p || len < PSPIN_EX_MSG_HEADER_BYTES + 4u) return PSPIN_EX_MALFORMED;
  m->id = fs_be32(p + PSPIN_EX_OFF_MSG);
  m->packets = fs_be16(p + PSPIN_EX_OFF_PACKETS);
  m->result_port = fs_be16(p + PSPIN_EX_OFF_RESULT_PORT);
  if (!m->packets) return PSPIN_EX_MALFORMED;
  len -= PSPIN_EX_MSG_HEADER_BYTES;
  if (len > PSPIN_EX_MAX_DATA_BYTES) return PSPIN_EX_TOO_LONG;
  m->data = p + PSPIN_EX_MSG_HEADER_BYTES;
  m->words = len / 4u;
  if (args->handler_mem_size < pspin_ex_l2_bytes(example, args->num_clusters) ||
      m->id >= *(const uint32_t*)args->handler_mem)
    return PSPIN_EX_NO_STATE;
  return FS_OK;
}

/* Counts the packet into its message, after its contribution (release), and sees every earlier
 * packet's contribution if it is the last (acquire): the packets counted so far, this one too. */
static inline uint32_t pspin_ex_count(const fs_handler_args_t* args, const pspin_ex_msg_t* m) {
  uint32_t* counted = (uint32_t*)(args->handler_mem + PSPIN_EX_L2_COUNTED);
  return __atomic_add_fetch(&counted[m->id], 1u, __ATOMIC_ACQ_REL);
}

/* Writes a result frame's Ethernet, IPv4, UDP and result headers at `f` for `data_bytes` of data. */
static inline void pspin_ex_result_headers(uint8_t* f, uint32_t example, const pspin_ex_msg_t* m, uint32_t cluster,
                                           uint32_t clusters, uint32_t data_bytes) {
  uint8_t* ip = f + FS_ETH_BYTES;
  uint8_t* udp = ip + FS_IPV4_BYTES;
  uint8_t* r = udp + FS_UDP_BYTES;
  const uint32_t udp_port = PSPIN_EX_UDP_PORT_BASE + example;
  fs_host_mac(m->result_port, f);
  fs_switch_mac(f + 6);
  fs_put_be16(f + 12, FS_ETHERTYPE_IPV4);
  ip[0] = 0x45; /* IPv4, no options */
  ip[1] = 0;
  fs_put_be16(ip + 2, FS_IPV4_BYTES + FS_UDP_BYTES + PSPIN_EX_RESULT_HEADER_BYTES + data_bytes);
  fs_put_be32(ip + 4, 0); /* identification 0, no flags */
  ip[8] = 64;
  ip[9] = FS_IPPROTO_UDP;
  fs_put_be16(ip + 10, 0);
  fs_put_be32(ip + 12, FS_SWITCH_IPV4);
  fs_put_be32(ip + 16, fs_host_ipv4(m->result_port));
  fs_put_be16(ip + 10, fs_ipv4_checksum(ip, FS_IPV4_BYTES));
  fs_put_be16(udp, udp_port);
  fs_put_be16(udp + 2, udp_port);
  fs_put_be16(udp + 4, FS_UDP_BYTES + PSPIN_EX_RESULT_HEADER_BYTES + data_bytes);
  fs_put_be16(udp + 6, 0); /* no UDP checksum (allowed over IPv4) */
  fs_put_be32(r + PSPIN_EX_OFF_RESULT_MSG, m->id);
  fs_put_be32(r + PSPIN_EX_OFF_RESULT_CLUSTER, cluster);
  fs_put_be32(r + PSPIN_EX_OFF_RESULT_CLUSTERS, clusters);
}

/* The completion step of reduce_l1 and histogram_l1: every cluster's partial vector of message m
 * (`data_bytes` at PSPIN_EX_STATE_DATA_OFFSET of the message's region at `state_offset` in each
 * cluster's L1 range) goes out as one frame, straight from that cluster's L1 (PsPIN's host reads
 * the clusters' scratchpads after the completion handler's notice). The headers are written once
 * in this cluster's region, in front of its vector, and copied with the cluster DMA in front of
 * the others'. PSPIN_EX_MESSAGE_DONE, or PSPIN_EX_RESULT_NOT_SENT if a frame could not be sent. */
static inline int pspin_ex_send_partials(const fs_handler_args_t* args, uint32_t example, const pspin_ex_msg_t* m,
                                         uint32_t state_offset, uint32_t data_bytes) {
  const uint32_t frame_offset = state_offset + PSPIN_EX_STATE_DATA_OFFSET - PSPIN_EX_RESULT_FRAME_HEADER_BYTES;
  uint8_t* own = args->l1 + frame_offset;
  uint8_t* cluster_field = own + FS_UDP_PAYLOAD_OFFSET + PSPIN_EX_OFF_RESULT_CLUSTER;
  int outcome = PSPIN_EX_MESSAGE_DONE;
  uint32_t c;
  pspin_ex_result_headers(own, example, m, args->cluster_id, args->num_clusters, data_bytes);
  for (c = 0; c < args->num_clusters; ++c) {
    uint8_t* frame = own;
    fs_put_be32(cluster_field, c);
    if (c != args->cluster_id) {
      uint8_t* l1 = fs_cluster_l1(c, NULL);
      if (!l1) return PSPIN_EX_RESULT_NOT_SENT;
      frame = l1 + frame_offset;
      fs_dma_copy(frame, own, PSPIN_EX_RESULT_FRAME_HEADER_BYTES);
    }
    if (fs_send(frame, PSPIN_EX_RESULT_FRAME_HEADER_BYTES + data_bytes, m->result_port)) outcome = PSPIN_EX_RESULT_NOT_SENT;
  }
  return outcome;
}

/* The end of a packet's run in reduce_l1 and histogram_l1: counts it, and the run that completes
 * its message sends the results. */
static inline int pspin_ex_finish_l1(const fs_handler_args_t* args, uint32_t example, const pspin_ex_msg_t* m,
                                     uint32_t state_offset, uint32_t data_bytes) {
  const uint32_t n = pspin_ex_count(args, m);
  if (n < m->packets) return FS_OK;
  if (n > m->packets) return PSPIN_EX_AFTER_DONE;
  return pspin_ex_send_partials(args, example, m, state_offset, data_bytes);
}

#endif /* PSPIN_MESSAGE_H */
