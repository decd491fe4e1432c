// Tests of the host ring allreduce over RDMA (sc_model/protocols/netreduce/roce_ring), NetReduce's
// baseline: two rings of 3 and 5 ranks side by side on one plain switch, uneven segments of
// several chunks, every rank's result against the wrapping int32 sum computed here; the data
// packets counted from the segment and chunk geometry; the same sums under 3% loss.
#include "protocols/netreduce/roce_ring.h"

#include <gtest/gtest.h>

#include "blocks/sc_testbench.h"
#include "network/fabric_timing.h"
#include "network/network.h"

namespace fs_tb {
namespace {

fs::NetReduceRingShape shape(uint64_t bytes, unsigned ring) {
  fs::NetReduceRingShape s;
  s.ring_id = ring;
  s.bytes = bytes;
  s.mtu = 256;
  s.msg_packets = 2;  // chunks of 128 elements
  s.timeout = 30000000;
  s.seed = 5;
  return s;
}

void expect_sums(const fs::RoceRing& ring) {
  std::vector<int32_t> sum(ring.elements(), 0);
  for (unsigned r = 0; r < ring.ranks(); ++r)
    for (uint64_t i = 0; i < sum.size(); ++i) sum[i] = int32_t(uint32_t(sum[i]) + uint32_t(ring.gradient(r, i)));
  for (unsigned r = 0; r < ring.ranks(); ++r) {
    EXPECT_EQ(ring.vector(r), sum) << "rank " << r;
    EXPECT_GT(ring.done_at(r), 0u);
  }
}

// Data packets of the whole run: in each of the 2(P - 1) steps every segment is sent once, each
// chunk of c elements in ceil(4c / mtu) packets.
uint64_t data_packets(unsigned ranks, uint64_t elements, uint64_t chunk, unsigned mtu) {
  uint64_t per_round = 0;
  for (unsigned s = 0; s < ranks; ++s) {
    const uint64_t n = elements / ranks + (s < elements % ranks ? 1 : 0);
    for (uint64_t j = 0; j * chunk < n; ++j) per_round += (4 * std::min(chunk, n - j * chunk) + mtu - 1) / mtu;
  }
  return 2 * (ranks - 1) * per_round;
}

TEST(RoceRing, TwoRingsSumExactlyAndSendWhatTheirSegmentsHold) {
  quiet_systemc();
  // 1,001 elements over 3 ranks: segments of 334, 334 and 333, three chunks each (128, 128, 78
  // or 77). 2,000 over 5: segments of 400, four chunks (128, 128, 128, 16).
  fs::Network net("net", fabric_timing(), fs::leaf_spine(1, 0, 8, fs::SwitchKind::kPlain));
  fs::RoceRing three("three", net, {0, 1, 2}, shape(4 * 1001, 1)), five("five", net, {7, 3, 5, 4, 6}, shape(8000, 2));
  EXPECT_EQ(three.chunks_per_segment(), 3u);
  EXPECT_EQ(five.chunks_per_segment(), 4u);
  sc_core::sc_start();
  expect_sums(three);
  expect_sums(five);
  for (const auto& [ring, packets] : {std::pair{&three, data_packets(3, 1001, 128, 256)}, std::pair{&five, data_packets(5, 2000, 128, 256)}}) {
    uint64_t sent = 0;
    for (unsigned r = 0; r < ring->ranks(); ++r) sent += ring->nic(r).counts().packets_sent;
    EXPECT_EQ(sent, packets);
  }
  EXPECT_EQ(data_packets(3, 1001, 128, 256), 4u * 3 * 6);  // 4 steps, 3 segments of 2 + 2 + 2 packets
}

TEST(RoceRing, LossIsRecoveredWithExactSums) {
  quiet_systemc();
  fs::Config cfg = fabric_timing();
  cfg.network.link_loss = 0.03;
  fs::Network net("net", cfg, fs::leaf_spine(2, 1, 2, fs::SwitchKind::kPlain));
  fs::RoceRing ring("ring", net, {0, 2, 1, 3}, shape(64 << 10, 0));
  sc_core::sc_start();
  expect_sums(ring);
  uint64_t resent = 0;
  for (unsigned r = 0; r < 4; ++r) resent += ring.nic(r).counts().resent;
  EXPECT_GT(resent, 0u);
}

}  // namespace
}  // namespace fs_tb
