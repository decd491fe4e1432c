// a2tp frames: the header's bytes where a2tp_proto.h puts them (written out by hand below),
// gradients and results read back as built, ECN-capable packets, and every malformed packet
// refused with its reason.
#include <gtest/gtest.h>

#include "common/errors.h"
#include "net/ecn.h"
#include "protocols/a2tp/a2tp_frame.h"

namespace fs {
namespace {

a2tp_header_t gradient(uint32_t job, uint8_t worker, uint8_t workers, uint32_t sequence, uint16_t aggregator) {
  a2tp_header_t h{};
  h.job = job, h.worker = worker, h.workers = workers, h.sequence = sequence, h.aggregator = aggregator;
  a2tp_bitmap_set(h.bitmap, worker);
  return h;
}

TEST(A2tpFrame, AGradientsHeaderBytesAndValues) {
  const Bytes f = build_a2tp_packet(gradient(0x0102, 3, 4, 0x0A0B0C0D, 0x01C1), 5, fs_host_ipv4(9), {1, -2, 0x7FFFFFFF});
  const uint8_t* h = f.data() + A2TP_PAYLOAD_OFFSET;
  const uint8_t expected[] = {0x00, 0x00, 0x01, 0x02,  // job
                              0x0A, 0x0B, 0x0C, 0x0D,  // sequence
                              0x01, 0xC1,              // aggregator 449
                              0x00, 3,                 // flags, worker
                              0x00, 0x00, 0x00, 0x08,  // bitmap: worker 3's bit
                              0x00, 0x03,              // 3 values
                              4,    0x00,              // workers, reserved
                              0x00, 0x00,              // next: none
                              1,    0,    0,    0,    0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F};
  ASSERT_EQ(f.size(), A2TP_PAYLOAD_OFFSET + sizeof expected);
  EXPECT_EQ(Bytes(h, h + sizeof expected), Bytes(expected, expected + sizeof expected));
  EXPECT_EQ(ecn_of(f), Ecn::kEct0);
  A2tpPacket p;
  std::string why;
  ASSERT_TRUE(parse_a2tp_packet(f.data(), f.size(), &p, &why)) << why;
  EXPECT_EQ(p.h.job, 0x0102);
  EXPECT_EQ(p.h.worker, 3);
  EXPECT_EQ(p.h.workers, 4);
  EXPECT_EQ(p.h.sequence, 0x0A0B0C0Du);
  EXPECT_EQ(p.h.aggregator, 449);
  EXPECT_EQ(p.h.flags, 0);
  EXPECT_EQ(p.h.bitmap[0], 8u);
  EXPECT_EQ(p.h.elements, 3);
  EXPECT_EQ(p.values, (std::vector<int32_t>{1, -2, 0x7FFFFFFF}));
}

TEST(A2tpFrame, AResultWithColAndEceAndAFullFragment) {
  a2tp_header_t h = gradient(7, 0, 32, 99, 12);
  h.flags = A2TP_FLAG_RESULT | A2TP_FLAG_COL | A2TP_FLAG_ECE | A2TP_FLAG_MOVE;
  a2tp_full_bitmap(h.bitmap, 32);
  h.next = 0x1234;
  std::vector<int32_t> values(A2TP_ELEMENTS);
  for (size_t k = 0; k < values.size(); ++k) values[k] = int32_t(k * 1000 - 7);
  const Bytes f = build_a2tp_packet(h, 1, fs_host_ipv4(2), values, false);
  EXPECT_EQ(f.size(), A2TP_PAYLOAD_OFFSET + A2TP_HEADER_BYTES + 248);
  EXPECT_EQ(ecn_of(f), Ecn::kNotEct);
  A2tpPacket p;
  std::string why;
  ASSERT_TRUE(parse_a2tp_packet(f.data(), f.size(), &p, &why)) << why;
  EXPECT_EQ(p.h.flags, A2TP_FLAG_RESULT | A2TP_FLAG_COL | A2TP_FLAG_ECE | A2TP_FLAG_MOVE);
  EXPECT_EQ(f[A2TP_PAYLOAD_OFFSET + 10], 0xACu);  // RESULT 0x80, COL 0x20, ECE 0x08, MOVE 0x04
  EXPECT_EQ(f[A2TP_PAYLOAD_OFFSET + 20], 0x12u);  // next, big-endian, where the values began before
  EXPECT_EQ(f[A2TP_PAYLOAD_OFFSET + 21], 0x34u);
  EXPECT_EQ(A2TP_PAYLOAD_OFFSET + A2TP_HEADER_BYTES, 64u);  // the values start at byte 64 of the frame
  EXPECT_EQ(p.h.next, 0x1234);
  EXPECT_EQ(p.h.bitmap[0], 0xFFFFFFFFu);
  EXPECT_EQ(p.values, values);
}

TEST(A2tpFrame, BuildingABadHeaderIsRefused) {
  auto refused = [](a2tp_header_t h, size_t values = 1) {
    try {
      build_a2tp_packet(h, 0, fs_host_ipv4(1), std::vector<int32_t>(values, 1));
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("built");
  };
  EXPECT_EQ(refused(gradient(1, 0, 0, 0, 0)), "a2tp packet of job 1: a fan-in of 0 workers (1 to 128)");
  EXPECT_EQ(refused(gradient(1, 0, 129, 0, 0)), "a2tp packet of job 1: a fan-in of 129 workers (1 to 128)");
  a2tp_header_t h = gradient(1, 4, 4, 0, 0);
  EXPECT_EQ(refused(h), "a2tp packet of job 1: worker 4 of a job of 4 workers");
  h = gradient(1, 1, 4, 0, 0);
  h.bitmap[0] = 3;
  EXPECT_EQ(refused(h), "a2tp packet of job 1: a gradient of worker 1 with bitmap 0x00000003");
  h.bitmap[0] = 0x10;
  EXPECT_EQ(refused(h), "a2tp packet of job 1: bitmap 0x00000010 names workers beyond the job's 4");
  h = gradient(1, 1, 4, 0, 0);
  h.flags = A2TP_FLAG_COL;
  EXPECT_EQ(refused(h), "a2tp packet of job 1: a gradient flagged MOVE, or COL or ECE without SUM (results' flags)");
  h.flags = A2TP_FLAG_MOVE;
  EXPECT_EQ(refused(h), "a2tp packet of job 1: a gradient flagged MOVE, or COL or ECE without SUM (results' flags)");
  // A switch's sum (SUM) holds several workers, its worker the lowest of them, and may carry COL
  // and ECE; it must hold its worker, and is never a result.
  h = gradient(1, 1, 4, 0, 0);
  h.flags = A2TP_FLAG_SUM | A2TP_FLAG_COL | A2TP_FLAG_ECE, h.bitmap[0] = 0x6;
  EXPECT_EQ(refused(h), "built");
  h.bitmap[0] = 0xC;
  EXPECT_EQ(refused(h), "a2tp packet of job 1: a gradient of worker 1 with bitmap 0x0000000c");
  h.flags = A2TP_FLAG_SUM | A2TP_FLAG_MOVE, h.bitmap[0] = 0x6;
  EXPECT_EQ(refused(h), "a2tp packet of job 1: a gradient flagged MOVE, or COL or ECE without SUM (results' flags)");
  h.flags = A2TP_FLAG_SUM | A2TP_FLAG_RESULT;
  EXPECT_EQ(refused(h), "a2tp packet of job 1: a result flagged COLLISION, RESEND or SUM");
  h = gradient(1, 1, 4, 0, 0);
  h.flags = 0, h.next = 5;
  EXPECT_EQ(refused(h), "a2tp packet of job 1: next aggregator 5 in a packet not flagged MOVE");
  h.flags = A2TP_FLAG_RESULT, h.bitmap[0] = 0xF;
  EXPECT_EQ(refused(h), "a2tp packet of job 1: next aggregator 5 in a packet not flagged MOVE");
  h.next = 0;
  h.flags = A2TP_FLAG_RESULT | A2TP_FLAG_RESEND;
  EXPECT_EQ(refused(h), "a2tp packet of job 1: a result flagged COLLISION, RESEND or SUM");
  h.flags = A2TP_FLAG_RESULT, h.bitmap[0] = 0;
  EXPECT_EQ(refused(h), "a2tp packet of job 1: a result with an empty bitmap");
  h = gradient(1, 1, 4, 0, 0);
  h.flags = 0x01;
  EXPECT_EQ(refused(h), "a2tp packet of job 1: padding bits set in the flags byte (1)");
  EXPECT_EQ(refused(gradient(1, 1, 4, 0, 0), 16371), "built");
  EXPECT_EQ(refused(gradient(1, 1, 4, 0, 0), 16372), "a2tp packet with 16372 values exceeds the IPv4 limit of 16371");
}

// In a job of 72 workers the bitmap takes three words: the first at 12 as always, the other two
// after the 22 bytes; worker 70 is bit 6 of the third. The values follow at byte 30.
TEST(A2tpFrame, AJobOfMoreThan32WorkersCarriesTheRestOfItsBitmapAfterTheHeader) {
  const Bytes f = build_a2tp_packet(gradient(9, 70, 72, 1, 2), 5, fs_host_ipv4(9), {-1});
  const uint8_t* h = f.data() + A2TP_PAYLOAD_OFFSET;
  const uint8_t expected[] = {0x00, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00, 0x01, 0x00, 0x02,  // job, sequence, aggregator
                              0x00, 70,                                                  // flags, worker
                              0x00, 0x00, 0x00, 0x00,                                    // workers 0-31
                              0x00, 0x01, 72,   0x00, 0x00, 0x00,                        // 1 value, 72 workers, next
                              0x00, 0x00, 0x00, 0x00,                                    // workers 32-63
                              0x00, 0x00, 0x00, 0x40,                                    // workers 64-95: 70
                              0xFF, 0xFF, 0xFF, 0xFF};
  ASSERT_EQ(f.size(), A2TP_PAYLOAD_OFFSET + sizeof expected);
  EXPECT_EQ(Bytes(h, h + sizeof expected), Bytes(expected, expected + sizeof expected));
  EXPECT_EQ(a2tp_header_bytes(72), 30u);
  EXPECT_EQ(a2tp_header_bytes(32), 22u);
  EXPECT_EQ(a2tp_header_bytes(33), 26u);
  EXPECT_EQ(a2tp_header_bytes(128), 34u);
  A2tpPacket p;
  std::string why;
  ASSERT_TRUE(parse_a2tp_packet(f.data(), f.size(), &p, &why)) << why;
  EXPECT_EQ(p.h.worker, 70);
  EXPECT_EQ(p.h.bitmap[0], 0u);
  EXPECT_EQ(p.h.bitmap[1], 0u);
  EXPECT_EQ(p.h.bitmap[2], 0x40u);
  EXPECT_EQ(p.h.bitmap[3], 0u);
  EXPECT_EQ(p.values, (std::vector<int32_t>{-1}));
  // A third word naming worker 72 (bit 8) is beyond the job; cut to 22 bytes, the header is short.
  Bytes beyond = f;
  beyond[A2TP_PAYLOAD_OFFSET + 28] = 0x01;
  EXPECT_FALSE(parse_a2tp_packet(beyond.data(), beyond.size(), &p, &why));
  EXPECT_EQ(why, "bitmap 0x000001400000000000000000 names workers beyond the job's 72");
  a2tp_header_t sum = gradient(9, 0, 72, 1, 2);
  sum.flags = A2TP_FLAG_SUM, sum.bitmap[2] = 0x100;
  try {
    build_a2tp_packet(sum, 5, fs_host_ipv4(9), {1});
    FAIL() << "built";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "a2tp packet of job 9: bitmap 0x000001000000000000000001 names workers beyond the job's 72");
  }
  Bytes cut(f.begin(), f.begin() + A2TP_PAYLOAD_OFFSET + 22);
  fs_put_be16(&cut[FS_ETH_BYTES + 2], FS_IPV4_BYTES + FS_UDP_BYTES + 22);
  fs_put_be16(&cut[FS_ETH_BYTES + 10], 0);
  fs_put_be16(&cut[FS_ETH_BYTES + 10], fs_ipv4_checksum(&cut[FS_ETH_BYTES], FS_IPV4_BYTES));
  fs_put_be16(&cut[FS_ETH_BYTES + FS_IPV4_BYTES + 4], FS_UDP_BYTES + 22);
  EXPECT_FALSE(parse_a2tp_packet(cut.data(), cut.size(), &p, &why));
  EXPECT_EQ(why, "UDP payload of 22 bytes, shorter than the 30-byte a2tp header of a job of 72 workers");
}

TEST(A2tpFrame, MalformedPacketsAreNotRead) {
  const Bytes good = build_a2tp_packet(gradient(2, 1, 2, 5, 6), 3, fs_host_ipv4(4), {10, 20});
  auto why_not = [](Bytes f, uint16_t port = A2TP_UDP_PORT_DEFAULT) {
    A2tpPacket p;
    std::string why;
    return parse_a2tp_packet(f.data(), f.size(), &p, &why, port) ? std::string("read") : why;
  };
  EXPECT_EQ(why_not(good), "read");
  EXPECT_EQ(why_not(good, 4952), "UDP port 4960, not a2tp's 4952");
  EXPECT_EQ(why_not(Bytes(good.begin(), good.begin() + 20)), "not an IPv4/UDP frame");
  // The UDP payload cut to 12 bytes (IPv4 and UDP lengths rewritten to match).
  Bytes cut(good.begin(), good.begin() + A2TP_PAYLOAD_OFFSET + 12);
  fs_put_be16(&cut[FS_ETH_BYTES + 2], FS_IPV4_BYTES + FS_UDP_BYTES + 12);
  fs_put_be16(&cut[FS_ETH_BYTES + 10], 0);
  fs_put_be16(&cut[FS_ETH_BYTES + 10], fs_ipv4_checksum(&cut[FS_ETH_BYTES], FS_IPV4_BYTES));
  fs_put_be16(&cut[FS_ETH_BYTES + FS_IPV4_BYTES + 4], FS_UDP_BYTES + 12);
  EXPECT_EQ(why_not(cut), "UDP payload of 12 bytes, shorter than the 22-byte a2tp header");
  auto with = [&good](size_t offset, uint8_t byte) {
    Bytes f = good;
    f[A2TP_PAYLOAD_OFFSET + offset] = byte;
    return f;
  };
  EXPECT_EQ(why_not(with(A2TP_OFF_ELEMENTS + 1, 3)), "8 bytes of values where the header says 3 int32 values");
  EXPECT_EQ(why_not(with(A2TP_OFF_RESERVED, 1)), "reserved header byte not 0");
  EXPECT_EQ(why_not(with(A2TP_OFF_FLAGS, 0x01)), "padding bits set in the flags byte (1)");
  EXPECT_EQ(why_not(with(A2TP_OFF_FLAGS, A2TP_FLAG_MOVE)), "a gradient flagged MOVE, or COL or ECE without SUM (results' flags)");
  EXPECT_EQ(why_not(with(A2TP_OFF_NEXT + 1, 9)), "next aggregator 9 in a packet not flagged MOVE");
  EXPECT_EQ(why_not(with(A2TP_OFF_WORKERS, 0)), "a fan-in of 0 workers (1 to 128)");
  EXPECT_EQ(why_not(with(A2TP_OFF_FLAGS, A2TP_FLAG_ECE)), "a gradient flagged MOVE, or COL or ECE without SUM (results' flags)");
}

}  // namespace
}  // namespace fs
