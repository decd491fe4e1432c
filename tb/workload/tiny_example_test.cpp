// Checks the hand-written example traces/examples/tiny-flare.txt against its hand-computed
// expected file: the sums recomputed from the trace's packets equal the file, and ideal switch
// output built from the file verifies.
#include <gtest/gtest.h>

#include "flare/flare_proto.h"
#include "protocols/flare_dense/flare_frame.h"
#include "net/frame.h"
#include "net/trace_reader.h"
#include "protocols/flare_dense/allreduce_gen.h"
#include "protocols/flare_dense/verify.h"

namespace fs {
namespace {

const std::string kDir = std::string(FLARESIM_SOURCE_DIR) + "/traces/examples/";

TEST(TinyExample, TraceMatchesItsExpectedFile) {
  const auto recs = read_trace(kDir + "tiny-flare.txt", TraceOptions());
  const Expected e = read_expected(kDir + "tiny-flare.txt.expected");
  ASSERT_EQ(recs.size(), 8u);
  EXPECT_EQ(e.ports, std::vector<uint16_t>({0, 1, 2, 3}));
  ASSERT_EQ(e.blocks.size(), 2u);
  EXPECT_EQ(recs[4].time, 7840u);
  uint32_t sums[2][4] = {};
  for (const TraceRecord& r : recs) {
    const FrameInfo f = parse_frame(r.data.data(), r.data.size());
    ASSERT_TRUE(f.ok);
    flare_header_t h;
    flare_decode(r.data.data() + f.l4_offset, &h);
    ASSERT_LT(h.block_id, 2u);
    ASSERT_EQ(h.elem_count, 4);
    EXPECT_EQ(h.sender_rank, r.port);
    for (int i = 0; i < 4; ++i) {
      const uint8_t* p = r.data.data() + f.l4_offset + 16 + 4 * i;
      sums[h.block_id][i] += uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) |
                             (uint32_t(p[3]) << 24);
    }
  }
  for (uint32_t b = 0; b < 2; ++b) {
    EXPECT_EQ(e.blocks[b].block_id, b);
    Bytes want;
    for (uint32_t s : sums[b])
      for (int k = 0; k < 4; ++k) want.push_back(uint8_t(s >> (8 * k)));
    EXPECT_EQ(e.blocks[b].payload, want) << "block " << b;
  }
  std::vector<EgressRecord> egress;
  for (const ExpectedBlock& b : e.blocks)
    for (uint16_t p : e.ports) {
      flare_header_t h{1, FLARE_KIND_RESULT, b.dtype, b.op, b.allreduce_id, b.block_id,
                       FLARE_RANK_SWITCH, b.count};
      egress.push_back({p, 0, build_flare_packet(h, p, b.payload.data(), b.payload.size())});
    }
  EXPECT_TRUE(verify_egress(e, egress).ok);
}

}  // namespace
}  // namespace fs
