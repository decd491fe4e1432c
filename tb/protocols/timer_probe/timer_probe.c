/* timer_probe: the test suite's handler set for timers (tb/protocols/timer_probe_test.cpp). A
 * packet's UDP payload holds three big-endian words: a command (1: arm, 2: cancel), a timer id
 * and a delay in cycles; the handler arms or cancels that timer. When a timer fires, the timer
 * handler sends a frame out of port 0 whose UDP payload is the event (id, cluster, big-endian);
 * a timer whose id has bit 31 set arms itself again, 100 cycles on (a timer that never stops). */
#include "fs_handler.h"
#include "fs_packet.h"

enum { TIMER_PROBE_MALFORMED = 1, TIMER_PROBE_REFUSED };

int timer_probe_handler(const fs_handler_args_t* args) {
  uint32_t len = 0, cmd, id, delay;
  const uint8_t* p = fs_udp_payload(args->pkt, args->pkt_len, &len);
  if (!p || len < 12) return TIMER_PROBE_MALFORMED;
  cmd = fs_be32(p), id = fs_be32(p + 4), delay = fs_be32(p + 8);
  if (cmd == 1) return fs_timer_arm(id, delay) == 0 ? FS_OK : TIMER_PROBE_REFUSED;
  if (cmd == 2) return fs_timer_cancel(id) == 0 ? FS_OK : TIMER_PROBE_REFUSED;
  return TIMER_PROBE_MALFORMED;
}

int timer_probe_timer(const fs_handler_args_t* args) {
  const fs_timer_event_t* e = (const fs_timer_event_t*)args->pkt;
  uint8_t frame[FS_UDP_PAYLOAD_OFFSET + 8] = {0};
  uint8_t* ip = frame + FS_ETH_BYTES;
  if (args->pkt_len != sizeof(*e) || args->ingress_port != FS_TIMER_PORT) return TIMER_PROBE_MALFORMED;
  fs_put_be16(frame + 12, FS_ETHERTYPE_IPV4);
  ip[0] = 0x45;
  fs_put_be16(ip + 2, FS_IPV4_BYTES + FS_UDP_BYTES + 8);
  ip[8] = 64;
  ip[9] = FS_IPPROTO_UDP;
  fs_put_be32(ip + 12, FS_SWITCH_IPV4);
  fs_put_be32(ip + 16, fs_host_ipv4(0));
  fs_put_be16(ip + 10, fs_ipv4_checksum(ip, FS_IPV4_BYTES));
  fs_put_be16(ip + FS_IPV4_BYTES, 5001);
  fs_put_be16(ip + FS_IPV4_BYTES + 2, 5001);
  fs_put_be16(ip + FS_IPV4_BYTES + 4, FS_UDP_BYTES + 8);
  fs_put_be32(frame + FS_UDP_PAYLOAD_OFFSET, e->id);
  fs_put_be32(frame + FS_UDP_PAYLOAD_OFFSET + 4, e->cluster);
  fs_send(frame, sizeof frame, 0);
  if (e->id & 0x80000000u) fs_timer_arm(e->id, 100);
  return FS_OK;
}

static const fs_outcome_desc_t timer_probe_outcomes[] = {
    {"ok", 0, 0, 0}, {"malformed", 1, 0, 0}, {"refused", 1, 0, 0}};
FS_HANDLER_SET_WITH_TIMER(timer_probe, "the test suite's timer probe (tb/protocols/timer_probe)", -1, -1,
                          timer_probe_outcomes);
