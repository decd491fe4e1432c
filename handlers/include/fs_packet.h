/* Generic packet helpers for handlers and the simulator alike (no protocol's own format):
 * byte order, the Internet checksum, Ethernet II / IPv4 / UDP sizes and header access, and the
 * host addressing convention that generated traces and host agents follow. C, so that the
 * handlers' host and RISC-V builds include it too. */
#ifndef FS_PACKET_H
#define FS_PACKET_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(FS_XPULP) && defined(__riscv)
#include "fs_xpulp.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Frame layout: Ethernet II (14) + IPv4 without options (20) + UDP (8) = 42 bytes of headers. */
#define FS_ETH_BYTES 14u
#define FS_IPV4_BYTES 20u
#define FS_UDP_BYTES 8u
#define FS_ETHERTYPE_IPV4 0x0800u
#define FS_IPPROTO_UDP 17u
#define FS_UDP_PAYLOAD_OFFSET (FS_ETH_BYTES + FS_IPV4_BYTES + FS_UDP_BYTES) /* UDP payload, no IP options */

#if defined(FS_XPULP) && defined(__riscv)
/* With Xpulp: one (possibly misaligned) load or store and one byte swap (fs_xpulp.h). */
static inline uint32_t fs_be16(const uint8_t* p) {
  uint16_t v;
  memcpy(&v, p, 2);
  return fs_xp_bswap32(v) >> 16;
}
static inline uint32_t fs_be32(const uint8_t* p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return fs_xp_bswap32(v);
}
static inline void fs_put_be16(uint8_t* p, uint32_t v) {
  const uint16_t w = (uint16_t)(fs_xp_bswap32(v) >> 16);
  memcpy(p, &w, 2);
}
static inline void fs_put_be32(uint8_t* p, uint32_t v) {
  const uint32_t w = fs_xp_bswap32(v);
  memcpy(p, &w, 4);
}
#else
static inline uint32_t fs_be16(const uint8_t* p) { return ((uint32_t)p[0] << 8) | p[1]; }
static inline uint32_t fs_be32(const uint8_t* p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static inline void fs_put_be16(uint8_t* p, uint32_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static inline void fs_put_be32(uint8_t* p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}
#endif
/* Little-endian words (the elements and counters protocols carry in their payloads). */
static inline uint32_t fs_le32(const uint8_t* p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline void fs_put_le32(uint8_t* p, uint32_t v) {
  p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}

/* The UDP payload of an Ethernet II / IPv4 (any IHL) / UDP frame of `len` bytes, bounded by the
 * UDP length; NULL when the frame is not that or is cut short (no checksum is checked). */
static inline const uint8_t* fs_udp_payload(const uint8_t* frame, uint32_t len, uint32_t* payload_len) {
  uint32_t ihl, udp_len;
  if (len < FS_ETH_BYTES + FS_IPV4_BYTES || fs_be16(frame + 12) != FS_ETHERTYPE_IPV4) return NULL;
  ihl = 4u * (frame[FS_ETH_BYTES] & 0x0Fu);
  if ((frame[FS_ETH_BYTES] >> 4) != 4u || ihl < FS_IPV4_BYTES || frame[FS_ETH_BYTES + 9] != FS_IPPROTO_UDP) return NULL;
  if (len < FS_ETH_BYTES + ihl + FS_UDP_BYTES) return NULL;
  udp_len = fs_be16(frame + FS_ETH_BYTES + ihl + 4);
  if (udp_len < FS_UDP_BYTES || FS_ETH_BYTES + ihl + udp_len > len) return NULL;
  if (payload_len) *payload_len = udp_len - FS_UDP_BYTES;
  return frame + FS_ETH_BYTES + ihl + FS_UDP_BYTES;
}

/* Internet checksum (RFC 1071) over `len` bytes, as stored in the IPv4 header. */
static inline uint16_t fs_ipv4_checksum(const uint8_t* p, size_t len) {
  uint32_t sum = 0;
  size_t i;
  for (i = 0; i + 1 < len; i += 2) sum += ((uint32_t)p[i] << 8) | p[i + 1];
  if (len & 1) sum += (uint32_t)p[len - 1] << 8;
  while (sum >> 16) sum = (sum & 0xFFFFu) + (sum >> 16);
  return (uint16_t)~sum;
}

/* Host addressing convention of generated traces: the host on switch port p has MAC
 * 02:00:00:00:(p>>8):(p&255) and IPv4 10.1.(p>>8).(p&255); the switch itself uses MAC
 * 02:00:00:ff:ff:ff and IPv4 10.0.0.1. Result packets go to the broadcast MAC and 10.1.255.255. */
#define FS_SWITCH_IPV4 0x0A000001u
#define FS_HOSTS_BROADCAST_IPV4 0x0A01FFFFu
static inline uint32_t fs_host_ipv4(uint32_t port) { return 0x0A010000u | (port & 0xFFFFu); }
static inline void fs_host_mac(uint32_t port, uint8_t mac[6]) {
  mac[0] = 0x02; mac[1] = 0; mac[2] = 0; mac[3] = 0; mac[4] = (uint8_t)(port >> 8); mac[5] = (uint8_t)port;
}
/* In a network of switches (docs/NETWORKS.md), switch i (in the topology's order) also has the
 * address i + 1 and IPv4 10.2.((i+1)>>8).((i+1)&255), to which every switch has a route: how a
 * host reaches a given switch (e.g. Canary's restoration packets). */
static inline uint32_t fs_fabric_switch_ipv4(uint32_t address) { return 0x0A020000u | (address & 0xFFFFu); }
static inline void fs_switch_mac(uint8_t mac[6]) {
  mac[0] = 0x02; mac[1] = 0; mac[2] = 0; mac[3] = 0xff; mac[4] = 0xff; mac[5] = 0xff;
}

#ifdef __cplusplus
}
#endif
#endif /* FS_PACKET_H */
