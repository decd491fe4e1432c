// Helpers of the topology tests: the message a builder's InputError gives, and the far end of a
// node's port by name.
#pragma once
#include <functional>
#include <string>

#include "common/errors.h"
#include "network/topology.h"

namespace fs {

// The InputError `f` throws, or "" if it throws none.
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// The node and port at the far end of `node`'s `port`, as "name:port" ("-" if unlinked).
inline std::string peer_of(const Topology& t, const std::string& node, unsigned port) {
  const PortPeer p = t.peers()[size_t(t.find(node))][port];
  return p.node < 0 ? "-" : t.nodes[size_t(p.node)].name + ":" + std::to_string(p.port);
}

}  // namespace fs
