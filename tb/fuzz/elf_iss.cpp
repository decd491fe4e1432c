// Fuzzing harness: the ELF reader and the bare ISS (iss/elf.h, iss/bare_run.h): parse the file,
// check it against the bare memory map, and run it for at most 20 000 instructions. A malformed
// file is an InputError; a program that faults, uses an unsupported system call or runs out of
// instructions is a SimError naming its pc. Images needing more than 16 MiB are only checked,
// not run, to keep each input fast.
#include <cstdint>
#include <sstream>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "iss/bare_run.h"
#include "iss/elf.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<uint8_t> file(data, data + size);
  fs::fuzz::accepts([&] {
    const fs::iss::ElfImage img = fs::iss::parse_elf("fuzz.elf", file);
    fs::iss::check_fits_bare_memory("fuzz.elf", img);
    uint64_t bytes = 0;
    for (const fs::iss::ElfSegment& s : img.segments) {
      FUZZ_CHECK(s.bytes.size() <= s.memsz);
      bytes += s.memsz;
    }
    FUZZ_CHECK(bytes <= fs::iss::kBareMaxSegmentBytes);
    if (bytes > (16u << 20)) return;
    fs::iss::BareRunOptions opts;
    opts.max_instructions = 20000;
    std::ostringstream out, err;
    try {
      const fs::iss::BareRunResult r = fs::iss::run_bare_image("fuzz.elf", img, opts, out, err);
      FUZZ_CHECK(r.instret <= opts.max_instructions);
      FUZZ_CHECK(r.exit_code >= 0 && r.exit_code <= 255);
    } catch (const fs::SimError& e) {
      FUZZ_CHECK(std::string(e.what()).rfind("fuzz.elf: ", 0) == 0);
    }
  });
  return 0;
}
