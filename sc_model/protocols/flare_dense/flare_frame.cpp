// Flare frame building and names (see flare_frame.h).
#include "protocols/flare_dense/flare_frame.h"

#include "common/errors.h"

namespace fs {

Bytes build_flare_packet(const flare_header_t& hdr, uint16_t port, const uint8_t* elems,
                         size_t elem_len, uint16_t udp_port) {
  if (elem_len > kMaxUdpPayload - FLARE_HEADER_BYTES)
    throw InputError("Flare packet with " + std::to_string(elem_len) +
                     " element bytes exceeds the IPv4 limit of " +
                     std::to_string(kMaxUdpPayload - FLARE_HEADER_BYTES));
  Bytes payload(FLARE_HEADER_BYTES + elem_len);
  flare_encode(&hdr, payload.data());
  for (size_t i = 0; i < elem_len; ++i) payload[FLARE_HEADER_BYTES + i] = elems[i];
  uint8_t host_mac[6], switch_mac[6];
  fs_host_mac(port, host_mac);
  fs_switch_mac(switch_mac);
  if (hdr.kind == FLARE_KIND_RESULT) {
    const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    return build_udp_frame(switch_mac, bcast, FS_SWITCH_IPV4, FS_HOSTS_BROADCAST_IPV4, udp_port,
                           udp_port, payload.data(), payload.size());
  }
  return build_udp_frame(host_mac, switch_mac, fs_host_ipv4(port), FS_SWITCH_IPV4, udp_port,
                         udp_port, payload.data(), payload.size());
}

const char* flare_dtype_name(uint8_t dtype) {
  switch (dtype) {
    case FLARE_INT32: return "int32";
    case FLARE_INT16: return "int16";
    case FLARE_INT8: return "int8";
    case FLARE_FLOAT32: return "float32";
    default: return "?";
  }
}

const char* flare_op_name(uint8_t op) {
  switch (op) {
    case FLARE_OP_SUM: return "sum";
    case FLARE_OP_MIN: return "min";
    case FLARE_OP_MAX: return "max";
    default: return "?";
  }
}

bool flare_dtype_from_name(const std::string& name, uint8_t* dtype) {
  for (uint8_t d = 0; d < 4; ++d)
    if (name == flare_dtype_name(d)) {
      *dtype = d;
      return true;
    }
  return false;
}

bool flare_op_from_name(const std::string& name, uint8_t* op) {
  for (uint8_t o = 0; o < FLARE_OP_COUNT; ++o)
    if (name == flare_op_name(o)) {
      *op = o;
      return true;
    }
  return false;
}

}  // namespace fs
