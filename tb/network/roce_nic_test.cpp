// Tests of NetReduce's RDMA NICs (sc_model/protocols/netreduce/roce_nic): an RDMA write of three
// packets across one plain switch, its completion and its ACK at the times worked out by hand
// from fabric_timing()'s links; writes under 5% loss on every link direction recovered by
// go-back-N (NAKs and timeouts), every message landing exactly once, in order; and frames a NIC
// refuses, counted.
#include "protocols/netreduce/roce_nic.h"

#include <gtest/gtest.h>

#include "blocks/sc_testbench.h"
#include "network/fabric_timing.h"
#include "network/network.h"

namespace fs_tb {
namespace {

fs::Bytes message(unsigned seed, size_t n) {
  fs::Bytes b(n);
  for (size_t i = 0; i < n; ++i) b[i] = uint8_t(seed * 31 + i * 7 + (i >> 8));
  return b;
}

struct Write {
  uint32_t qp, imm;
  uint64_t address, length;
  fs::Picos at;
};

TEST(RoceNic, AThreePacketWriteCompletesAndIsAcknowledgedOnTheWorkedTimeline) {
  quiet_systemc();
  // Host 0 writes 3000 bytes to host 1's memory at 100, MTU 1024: WRITE_FIRST (RETH, 1024
  // bytes: a 1098-byte frame), WRITE_MIDDLE (1024: 1082), WRITE_LAST_IMM (952: 1014). On the
  // wire a frame takes (bytes + 24) x 80 ps: 89,760, 88,480 and 83,040 ps. The NIC sends them
  // back to back from 0; each reaches the switch 500 ns after its last bit left, goes out 4 ns
  // later or when the port is free, and reaches host 1 500 ns after leaving:
  //   first:  leaves host 0 at 89,760, switch port 593,760 to 683,520, at host 1 1,183,520;
  //   middle: leaves at 178,240, ready at 682,240, port busy until 683,520 -> 772,000, 1,272,000;
  //   last:   leaves at 261,280, ready at 765,280, waits until 772,000 -> 855,040, 1,355,040.
  // The last asks for an ACK (62 bytes, 6,880 ps on a wire): host 1 sends it at once; it reaches
  // the switch at 1,361,920 + 500,000, leaves it 4 ns later, and host 0 has it at 2,372,800.
  // The switch does not check ICRCs here (its CRC engine would hold each frame a cycle per 8
  // bytes): the timeline is the NICs' and the links'.
  fs::Config cfg = fabric_timing();
  fs::find_config_key("parser.icrc")->set(cfg, "off");
  fs::Network net("net", cfg, fs::leaf_spine(1, 0, 2, fs::SwitchKind::kPlain));
  fs::RoceNic a("nic0", net, 0, 1024, 1000000000), b("nic1", net, 1, 1024, 1000000000);
  const uint32_t qa = a.create_qp(0), qb = b.create_qp(4096);
  fs::RoceNic::connect(a, qa, b, qb, 0xFFFFFE);  // PSNs 0xFFFFFE, 0xFFFFFF, 0: across the wrap
  std::vector<Write> writes;
  b.on_write([&](uint32_t qp, uint32_t imm, uint64_t address, uint64_t length) {
    writes.push_back({qp, imm, address, length, fs::now_ps()});
  });
  const fs::Bytes m = message(1, 3000);
  a.post_write(qa, m, 100, 7);
  sc_core::sc_start(2372799, sc_core::SC_PS);
  EXPECT_EQ(a.unacknowledged(qa), 3u);  // the ACK is a picosecond away (sc_start stops before the
  sc_core::sc_start(2, sc_core::SC_PS);  // events at its end time)
  EXPECT_EQ(a.unacknowledged(qa), 0u);
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes[0].qp, qb);
  EXPECT_EQ(writes[0].imm, 7u);
  EXPECT_EQ(writes[0].address, 100u);
  EXPECT_EQ(writes[0].length, 3000u);
  EXPECT_EQ(writes[0].at, 1355040u);
  EXPECT_TRUE(std::equal(m.begin(), m.end(), b.memory(qb).begin() + 100));
  EXPECT_EQ(b.memory(qb)[99], 0);
  EXPECT_EQ(a.counts().packets_sent, 3u);
  EXPECT_EQ(a.counts().bytes_sent, 1098u + 1082 + 1014);
  EXPECT_EQ(b.counts().acks_sent, 1u);
  EXPECT_EQ(a.counts().resent + a.counts().timeouts + b.counts().naks_sent, 0u);
}

TEST(RoceNic, GoBackNRecoversFromLossAndEveryWriteLandsOnceInOrder) {
  quiet_systemc();
  // 5% of the frames lost on every link direction, both ways: 30 writes of 5000 bytes (5
  // packets each) from host 0 to host 1 and 30 from host 1 to host 0 at once, a 20 us timeout.
  fs::Config cfg = fabric_timing();
  cfg.network.link_loss = 0.05;
  fs::Network net("net", cfg, fs::leaf_spine(1, 0, 2, fs::SwitchKind::kPlain));
  fs::RoceNic a("nic0", net, 0, 1024, 20000000), b("nic1", net, 1, 1024, 20000000);
  const uint32_t qa = a.create_qp(30 * 5000), qb = b.create_qp(30 * 5000);
  fs::RoceNic::connect(a, qa, b, qb, 77);
  std::vector<Write> at_a, at_b;
  a.on_write([&](uint32_t qp, uint32_t imm, uint64_t address, uint64_t length) { at_a.push_back({qp, imm, address, length, 0}); });
  b.on_write([&](uint32_t qp, uint32_t imm, uint64_t address, uint64_t length) { at_b.push_back({qp, imm, address, length, 0}); });
  for (unsigned k = 0; k < 30; ++k) {
    a.post_write(qa, message(k, 5000), k * 5000, k);
    b.post_write(qb, message(100 + k, 5000), k * 5000, 1000 + k);
  }
  sc_core::sc_start(100, sc_core::SC_MS);
  for (const auto& [nic, got, base] : {std::tuple{&b, &at_b, 0u}, std::tuple{&a, &at_a, 100u}}) {
    ASSERT_EQ(got->size(), 30u);
    for (unsigned k = 0; k < 30; ++k) {
      EXPECT_EQ((*got)[k].imm, (base ? 1000 : 0) + k) << k;
      EXPECT_EQ((*got)[k].address, k * 5000u);
      EXPECT_EQ((*got)[k].length, 5000u);
      const fs::Bytes want = message(base + k, 5000);
      const fs::Bytes& mem = nic->memory(nic == &b ? qb : qa);
      EXPECT_TRUE(std::equal(want.begin(), want.end(), mem.begin() + k * 5000)) << "message " << k;
    }
  }
  EXPECT_EQ(a.unacknowledged(qa), 0u);
  EXPECT_EQ(b.unacknowledged(qb), 0u);
  fs::StatsTree report;
  net.report(report, fs::now_ps());
  EXPECT_GT(report["lost"].uint_value(), 0u);
  for (const fs::RoceNic* n : {&a, &b}) {
    EXPECT_GT(n->counts().resent, 0u);
    EXPECT_GT(n->counts().packets_sent, 150u);  // 30 x 5 and the resends
    EXPECT_EQ(n->counts().bad_frames, 0u);
  }
  EXPECT_GT(a.counts().naks_sent + b.counts().naks_sent, 0u);
  EXPECT_GT(a.counts().out_of_order + b.counts().out_of_order, 0u);
}

TEST(RoceNic, FramesANicRefusesAreCounted) {
  quiet_systemc();
  fs::Config cfg = fabric_timing();
  fs::Network net("net", cfg, fs::leaf_spine(1, 0, 2, fs::SwitchKind::kPlain));
  fs::RoceNic a("nic0", net, 0, 1024, 1000000), b("nic1", net, 1, 1024, 1000000);
  const uint32_t qa = a.create_qp(0), qb = b.create_qp(64);
  fs::RoceNic::connect(a, qa, b, qb);
  fs::RocePacket p;
  p.bth.opcode = ROCE_RC_WRITE_ONLY_IMM;
  p.bth.dest_qp = qb;
  p.reth = {0, 0, 8};
  p.payload = message(3, 8);
  auto bad = std::make_shared<fs::Packet>();
  bad->data = fs::build_roce_frame(p, 0, fs_host_ipv4(1), 0xC001);
  bad->data[60] ^= 1;  // a payload bit: the ICRC no longer matches
  b.accept(bad);
  p.bth.dest_qp = 9;
  auto stranger = std::make_shared<fs::Packet>();
  stranger->data = fs::build_roce_frame(p, 0, fs_host_ipv4(1), 0xC001);
  b.accept(stranger);
  EXPECT_EQ(b.counts().bad_frames, 1u);
  EXPECT_EQ(b.counts().unknown_qp, 1u);
  EXPECT_EQ(b.memory(qb), fs::Bytes(64, 0));
  EXPECT_EQ(b.counts().acks_sent, 0u);
}

}  // namespace
}  // namespace fs_tb
