// The handler API is listed once (handlers/include/fs_api.def): the table in docs/HANDLERS.md is
// what `flaresim info --api` prints, a row per call in the description's order.
#include <string>

#include "support/cli_runner.h"
#include "pspin/handler_api.h"

namespace fs::test {
namespace {

std::string docs_table() { return generated_docs_table("HANDLERS.md", "api"); }

TEST(HandlerApiDocs, HandlersMdTableIsTheGeneratedOne) {
  EXPECT_EQ(docs_table(), handler_api_markdown())
      << "docs/HANDLERS.md is out of date: paste the output of `flaresim info --api` between its markers";
}

TEST(HandlerApiDocs, InfoApiPrintsTheTable) {
  ScratchDir dir;
  const CliResult r = flaresim("info --api", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, handler_api_markdown());
  // One row per call, in fs_api.def's order.
  EXPECT_EQ(r.out.find("| `int fs_send(const void* frame, uint32_t len, uint32_t port)` | sends `len` bytes"),
            r.out.find("| --- | --- |\n") + 14);
  EXPECT_NE(r.out.find("| `uint8_t* fs_cluster_l1(uint32_t cluster_id, uint32_t* size)` |"), std::string::npos);
  EXPECT_NE(r.out.find("| `int fs_log(const char* fmt, ...)` |"), std::string::npos);
  EXPECT_NE(r.out.find("| `uint32_t fs_hash(const void* data, uint32_t len, uint32_t seed)` | MurmurHash3 x86_32"),
            std::string::npos);
  const CliResult bad = flaresim("info --apis", dir);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("flaresim info takes no arguments but --counters or --api"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace fs::test
