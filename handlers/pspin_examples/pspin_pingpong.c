/* pspin_pingpong: follows PsPIN's examples/ping_pong (handlers/ping_pong.c, pingpong_ph): the
 * packet goes back where it came from, with the IPv4 source and destination addresses and the UDP
 * ports swapped in place, sent from the packet's own L1 copy (PsPIN's FROM_L1 default), as many
 * bytes as the IPv4 header's total length says. What differs: PsPIN's packets start at the IPv4
 * header, ours at the Ethernet header, whose MAC addresses are swapped too (so that the reply is
 * a frame to the sender) and which the send includes; it goes out of the ingress port; the frame
 * is checked first (IPv4/UDP, lengths within it), where PsPIN trusts its NIC. Both checksums stay
 * valid: swapping 16-bit words within the summed fields leaves a one's-complement sum as it is. */
#include <string.h>

#include "pspin_examples.h"

#define PSPIN_PINGPONG_MALFORMED 1 /* not IPv4/UDP, or an IPv4 length that is not the datagram's within the frame */

int pspin_pingpong_handler(const fs_handler_args_t* args) {
  uint8_t* pkt = args->pkt;
  uint8_t* ip = pkt + FS_ETH_BYTES;
  uint8_t* udp;
  uint8_t mac[6];
  uint32_t len = 0, ip_len, src_id;
  uint16_t src_port;
  const uint8_t* payload = fs_udp_payload(pkt, args->pkt_len, &len);
  if (!payload) return PSPIN_PINGPONG_MALFORMED;
  ip_len = fs_be16(ip + 2);
  if (ip_len < (uint32_t)(payload - ip) + len || FS_ETH_BYTES + ip_len > args->pkt_len) return PSPIN_PINGPONG_MALFORMED;
  udp = (uint8_t*)payload - FS_UDP_BYTES;

  memcpy(&src_id, ip + 12, 4); /* source and destination address, as words */
  memcpy(ip + 12, ip + 16, 4);
  memcpy(ip + 16, &src_id, 4);
  memcpy(&src_port, udp, 2); /* source and destination port */
  memcpy(udp, udp + 2, 2);
  memcpy(udp + 2, &src_port, 2);
  memcpy(mac, pkt, 6); /* destination and source MAC */
  memcpy(pkt, pkt + 6, 6);
  memcpy(pkt + 6, mac, 6);

  fs_send(pkt, FS_ETH_BYTES + ip_len, args->ingress_port);
  return FS_OK;
}

static const fs_outcome_desc_t pspin_pingpong_outcomes[] = {{"ok", 0, 0, 0}, {"malformed", 1, 0, 0}};
FS_HANDLER_SET(pspin_pingpong, "PsPIN's ping_pong example: each packet back to its sender, addresses and ports swapped "
               "(handlers/pspin_examples)", -1, -1, pspin_pingpong_outcomes);
