// Tests of the handler test harness itself (handler_harness.h), with a small probe handler that
// uses every call of the handler API: geometry of L1 and handler memory, the installer, what is
// recorded for send / multicast / host write, bad ports, remote L1 access, in-place rewrites,
// and restoring the previous back end. No SystemC simulation.
#include "blocks/handler_harness.h"

#include <gtest/gtest.h>

#include <cstring>

namespace fs_tb {
namespace {

// Uses every API call and leaves the return codes in its cluster's L1 (bytes 0..20).
int probe_handler(const fs_handler_args_t* a) {
  int32_t rc[4];
  rc[0] = fs_send(a->pkt, a->pkt_len, a->ingress_port);
  rc[1] = fs_send(a->pkt, 4, 9);  // no port 9
  const uint32_t ports[2] = {1, 3};
  rc[2] = fs_multicast(a->pkt, 6, ports, 2);
  rc[3] = fs_host_write(2, 0x1000 + a->hpu_id, a->pkt + 6, 6);
  uint32_t size = 0;
  uint8_t* other = fs_cluster_l1(1, &size);
  other[100] = 0xAA;
  std::memcpy(a->l1, rc, sizeof rc);
  std::memcpy(a->l1 + 16, &size, 4);
  a->l1[20] = fs_cluster_l1(5, nullptr) == nullptr;
  a->handler_mem[0]++;
  a->pkt[0] = 0xEE;  // rewritten in place
  return int(a->cluster_id * 10 + a->hpu_id);
}

// The probe's control plane: writes what it was given into its handler memory.
class ProbeControl : public fs::HandlerSetControl {
 public:
  void install(const fs::Config&, const fs::InstallTarget& t) const override {
    t.handler_mem[1] = 0x55;
    std::memcpy(t.handler_mem + 4, &t.l1_state_bytes, 4);
    std::memcpy(t.handler_mem + 8, &t.clusters, 4);
    std::memcpy(t.handler_mem + 12, &t.handler_mem_size, 4);
  }
};

fs::HandlerSet probe_set() {
  static const ProbeControl control;
  fs::HandlerSet s;
  s.name = "probe";
  s.doc = "harness self-test";
  s.fn = probe_handler;
  s.outcomes = {{"ok", false}};
  s.block_id_offset = -1;
  s.block_group_offset = -1;
  s.control = &control;
  return s;
}

// 2 clusters x 2 HPUs, 64 KiB L1: state area 65536 - 2 * 9216 = 47104 bytes; 4 KiB L2; 4 ports.
fs::Config small() {
  fs::Config cfg;
  cfg.pspin.clusters = 2;
  cfg.pspin.hpus_per_cluster = 2;
  cfg.pspin.l1_bytes = 64 << 10;
  cfg.pspin.l2_handler_bytes = 4096;
  cfg.ports.count = 4;
  return cfg;
}

uint32_t u32_at(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

TEST(BlocksHandlerHarness, RecordsEveryCallAndGeometry) {
  HandlerHarness h(small(), probe_set());
  EXPECT_EQ(h.l1_size(), 47104u);
  EXPECT_EQ(h.handler_memory().size(), 4096u);
  EXPECT_EQ(h.handler_memory()[1], 0x55);                 // installer ran
  EXPECT_EQ(u32_at(h.handler_memory().data() + 4), 47104u);
  EXPECT_EQ(u32_at(h.handler_memory().data() + 8), 2u);
  EXPECT_EQ(u32_at(h.handler_memory().data() + 12), 4096u);

  fs::Bytes frame(60);
  for (size_t i = 0; i < frame.size(); ++i) frame[i] = uint8_t(i);
  const HandlerCall c = h.run(frame, /*ingress_port=*/3, /*cluster=*/1, /*hpu=*/1);
  EXPECT_EQ(c.outcome, 11);  // cluster 1 * 10 + HPU 1
  EXPECT_EQ(h.outcome_name(c.outcome), "code_11");
  EXPECT_EQ(h.outcome_name(0), "ok");
  ASSERT_EQ(c.sent.size(), 3u);  // the send to port 9 failed and is not recorded
  EXPECT_EQ(c.sent[0].kind, SentFrame::kSend);
  EXPECT_EQ(c.sent[0].ports, (std::vector<uint32_t>{3}));
  EXPECT_EQ(c.sent[0].data, frame);  // sent before the rewrite
  EXPECT_EQ(c.sent[1].kind, SentFrame::kMulticast);
  EXPECT_EQ(c.sent[1].ports, (std::vector<uint32_t>{1, 3}));
  EXPECT_EQ(c.sent[1].data, fs::Bytes(frame.begin(), frame.begin() + 6));
  EXPECT_EQ(c.sent[2].kind, SentFrame::kHostWrite);
  EXPECT_EQ(c.sent[2].ports, (std::vector<uint32_t>{2}));
  EXPECT_EQ(c.sent[2].host_addr, 0x1001u);
  EXPECT_EQ(c.sent[2].data, fs::Bytes(frame.begin() + 6, frame.begin() + 12));
  // Return codes 0, -1, 0, 0 and the remote L1 size land in cluster 1's L1 (the one running).
  int32_t rc[4];
  std::memcpy(rc, h.l1(1), sizeof rc);
  EXPECT_EQ(rc[0], 0);
  EXPECT_EQ(rc[1], -1);
  EXPECT_EQ(rc[2], 0);
  EXPECT_EQ(rc[3], 0);
  EXPECT_EQ(u32_at(h.l1(1) + 16), 47104u);
  EXPECT_EQ(h.l1(1)[20], 1u);   // fs_cluster_l1(5) gave NULL
  EXPECT_EQ(h.l1(1)[100], 0xAA);
  EXPECT_EQ(h.l1(0)[0], 0u);    // cluster 0 untouched
  EXPECT_EQ(h.handler_memory()[0], 1u);
  fs::Bytes rewritten = frame;
  rewritten[0] = 0xEE;
  EXPECT_EQ(c.packet, rewritten);
  // The back end is installed for the call only.
  EXPECT_EQ(fs_set_backend(nullptr), nullptr);
  h.run(frame);
  EXPECT_EQ(h.handler_memory()[0], 2u);
}

TEST(BlocksHandlerHarness, WithoutInstallAndOversizedFrame) {
  HandlerHarness h(small(), probe_set(), /*install=*/false);
  EXPECT_EQ(h.handler_memory()[1], 0u);
  // The 9216-byte slot holds frames of up to 9214 bytes from FS_PKT_FRAME_OFFSET (2) on.
  EXPECT_THROW(h.run(fs::Bytes(9215, 0)), std::invalid_argument);
  EXPECT_NO_THROW(h.run(fs::Bytes(9214, 0)));
  EXPECT_THROW(HandlerHarness(small(), "no_such_set"), std::invalid_argument);
}

}  // namespace
}  // namespace fs_tb
