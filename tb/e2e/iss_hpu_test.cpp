// HPUs running the handlers' RISC-V builds on the ISS (--hpu.model iss): the same results as
// native HPUs, per-handler instruction counts, and handler faults reported with handler name,
// cluster, HPU, PC and instruction, either aborting the run or dropping the packet.
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/cli_runner.h"

namespace fs::test {
namespace {

TEST(E2EIssHpu, DenseAllreduceSameResultsAsNative) {
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 4 --bytes 10000 --seed 3 -o t.txt", dir).code, 0);
  for (const char* model : {"native", "iss"}) {
    const CliResult r = flaresim(std::string("run --trace t.txt --flare.ports 0-3 --verify t.txt.expected -q "
                                             "--egress e-") + model + ".pcapng --stats s-" + model +
                                     ".json --hpu-model " + model,
                                 dir);
    ASSERT_EQ(r.code, 0) << model << ": " << r.err;
    EXPECT_NE(r.out.find("verify           OK"), std::string::npos) << r.out;
  }
  const auto native = nlohmann::json::parse(slurp(dir / "s-native.json"));
  const auto iss = nlohmann::json::parse(slurp(dir / "s-iss.json"));
  EXPECT_EQ(native["config"]["hpu"]["model"], "native");
  EXPECT_EQ(iss["config"]["hpu"]["model"], "iss");
  EXPECT_EQ(native["handlers"]["flare_dense"]["outcomes"], iss["handlers"]["flare_dense"]["outcomes"]);
  // Each block's first contribution is copied into the block's buffer, and its result into the
  // last packet, with fs_dma_copy: twice 9 blocks of 1024 bytes and one of 784 (10000 bytes per
  // host), each costing DMA latency 13 + bytes / 64 (rounded up) cycles on an idle DMA:
  // 2 x (10 x 13 + 9 x 16 + 13) = 574 cycles. Both models queue the copies on the cluster's DMA behind its packet copies,
  // which can only add to that (exact queueing: tb/blocks/pspin_unit_test); ISS runs to
  // completion (--hpu.interleave off) cannot queue and cost exactly that.
  for (const auto* st : {&native, &iss}) {
    EXPECT_EQ((*st)["handlers"]["flare_dense"]["iss"]["dma_bytes"], 20000);
    EXPECT_GE((*st)["handlers"]["flare_dense"]["iss"]["stall_cycles"]["dma"].get<uint64_t>(), 574u);
  }
  {
    const CliResult r = flaresim("run --trace t.txt --flare.ports 0-3 --verify t.txt.expected -q --stats s-off.json "
                                 "--hpu.interleave off",
                                 dir);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto off = nlohmann::json::parse(slurp(dir / "s-off.json"));
    EXPECT_EQ(off["handlers"]["flare_dense"]["iss"]["dma_bytes"], 20000);
    EXPECT_EQ(off["handlers"]["flare_dense"]["iss"]["stall_cycles"]["dma"], 574);
  }
  EXPECT_EQ(native["handlers"]["flare_dense"]["iss"]["instructions"], 0);
  // Every ISS run executed real code: each of the 4 x 2500 contributed elements is read by a load
  // at least once, and the 10 x 2500 result elements are written by stores at least once.
  const auto& k = iss["handlers"]["flare_dense"]["iss"];
  EXPECT_GE(k["loads"].get<uint64_t>(), 4u * 2500);
  EXPECT_GE(k["stores"].get<uint64_t>(), 2500u);
  EXPECT_GT(k["instructions"].get<uint64_t>(), k["loads"].get<uint64_t>() + k["stores"].get<uint64_t>());
  EXPECT_EQ(iss["handlers"]["flare_dense"]["cycles"]["count"], 40);
}

// With hpu.isa = rv32imafc_xpulp the HPUs load the handlers' Xpulp build (FS_XPULP: hardware
// loops, post-increment accesses and packed SIMD in the folds, handlers/flare/flare_dense.c). Every
// type and operator gives the expected results, including the elements left over after the
// loop's two-word turns (the sizes leave 1 to 3 such elements in the last block), in fewer
// instructions than the plain build.
TEST(E2EIssHpu, XpulpFoldsGiveTheExpectedResultsInFewerInstructions) {
  ScratchDir dir;
  struct Case { const char* dtype; const char* op; int bytes; };
  for (const Case& c : {Case{"int32", "sum", 10004}, Case{"int16", "min", 10002}, Case{"int8", "max", 10003},
                        Case{"int8", "sum", 10003}, Case{"float32", "sum", 10004}, Case{"int32", "max", 10004}}) {
    const std::string name = std::string(c.dtype) + "-" + c.op;
    ASSERT_EQ(flaresim("gen allreduce --hosts 4 --seed 5 --dtype " + std::string(c.dtype) + " --op " + c.op +
                           " --bytes " + std::to_string(c.bytes) + " -o " + name + ".txt",
                       dir).code,
              0);
    uint64_t instructions[2] = {0, 0};
    int k = 0;
    for (const char* isa : {"rv32imafc", "rv32imafc_xpulp"}) {
      const CliResult r = flaresim("run --trace " + name + ".txt --flare.ports 0-3 --verify " + name +
                                       ".txt.expected -q --stats s.json --hpu.isa " + isa,
                                   dir);
      ASSERT_EQ(r.code, 0) << name << " " << isa << ": " << r.err;
      EXPECT_NE(r.out.find("verify           OK"), std::string::npos) << name << " " << isa << ": " << r.out;
      const auto st = nlohmann::json::parse(slurp(dir / "s.json"));
      EXPECT_EQ(st["config"]["hpu"]["isa"], isa);
      instructions[k++] = st["handlers"]["flare_dense"]["iss"]["instructions"].get<uint64_t>();
    }
    EXPECT_LT(instructions[1], instructions[0]) << name;
  }
}

TEST(E2EIssHpu, RemoteL1AccessesFollowTheSchedulingPolicy) {
  // Block b's buffer lives in cluster b mod 4. hier-fcfs runs every packet of b there (all L1
  // accesses local); fcfs spreads packets over clusters, so some runs reach a remote L1 and pay
  // hpu.remote_l1_cycles per access. Runs go to completion one by one (no interleaving), so that
  // no run spins on a lock and both policies execute exactly the same instructions.
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 4 --bytes 8KiB -o t.txt", dir).code, 0);
  nlohmann::json s[2];
  const char* policies[2] = {"hier-fcfs", "fcfs"};
  for (int k = 0; k < 2; ++k) {
    const CliResult r = flaresim(std::string("run --trace t.txt --flare.ports 0-3 --stats s.json -q --hpu.model iss "
                                             "--hpu.interleave off --scheduler.policy ") + policies[k],
                                 dir);
    ASSERT_EQ(r.code, 0) << r.err;
    s[k] = nlohmann::json::parse(slurp(dir / "s.json"))["handlers"]["flare_dense"];
  }
  EXPECT_EQ(s[0]["iss"]["accesses"]["remote_l1"], 0);
  EXPECT_GT(s[0]["iss"]["accesses"]["local_l1"].get<uint64_t>(), 0u);
  EXPECT_GT(s[1]["iss"]["accesses"]["remote_l1"].get<uint64_t>(), 0u);
  // Same instructions either way; only where the data lives differs, and remote costs more.
  EXPECT_EQ(s[0]["iss"]["instructions"], s[1]["iss"]["instructions"]);
  EXPECT_EQ(s[1]["iss"]["stall_cycles"]["memory"].get<uint64_t>() - s[0]["iss"]["stall_cycles"]["memory"].get<uint64_t>(),
            24u * s[1]["iss"]["accesses"]["remote_l1"].get<uint64_t>());
}

TEST(E2EIssHpu, InstructionCacheRefillsEachLineOnceWhenTheHandlerFits) {
  // The handler's code that runs (about 2.4 KiB) fits in each cluster's 4 KiB cache: every
  // 16-byte line a cluster needs is refilled exactly once, whichever HPU asks first. A cluster
  // needs the lines it executes from, and the line after each line whose last word (offset 12
  // to 15) it executes, which the cores fetch ahead. The instruction trace tells which lines
  // each cluster used. A core that misses waits the whole refill (8 cycles) at least.
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 4 --bytes 8KiB -o t.txt", dir).code, 0);
  ASSERT_EQ(flaresim("run --trace t.txt --flare.ports 0-3 --stats s.json -q --hpu.model iss --trace-insn i.txt", dir).code,
            0);
  std::set<std::pair<unsigned, uint32_t>> executed, needed;
  std::istringstream in(slurp(dir / "i.txt"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string cycle, set, pc_text;
    unsigned cluster, hpu;
    ls >> cycle >> cluster >> hpu >> set >> pc_text;
    const uint32_t pc = uint32_t(std::stoul(pc_text, nullptr, 16));
    executed.insert({cluster, pc >> 4});
    needed.insert({cluster, pc >> 4});
    if ((pc & 15) >= 12) needed.insert({cluster, (pc >> 4) + 1});
  }
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  const auto& k = s["handlers"]["flare_dense"]["iss"];
  const uint64_t misses = k["icache_misses"], ahead = k["icache_prefetches"];
  EXPECT_EQ(misses + ahead, needed.size());
  // The cores did fetch ahead. (Whether some line fetched ahead is never executed depends on the
  // code's layout; tb/iss/icache_test.cpp and cpu_test.cpp check that case directly.)
  EXPECT_GT(ahead, 0u);
  EXPECT_GE(needed.size(), executed.size());
  EXPECT_GE(k["stall_cycles"]["icache"].get<uint64_t>(), 8 * misses);

  // A 64-byte cache cannot hold the fold loop and the code around it: many more refills.
  ASSERT_EQ(flaresim("run --trace t.txt --flare.ports 0-3 --stats small.json -q --hpu.model iss "
                     "--icache.bytes 64 --icache.ways 1",
                     dir)
                .code,
            0);
  const auto small = nlohmann::json::parse(slurp(dir / "small.json"))["handlers"]["flare_dense"]["iss"];
  EXPECT_GT(small["icache_misses"].get<uint64_t>() + small["icache_prefetches"].get<uint64_t>(), 4 * needed.size());
  const CliResult bad = flaresim("run --trace t.txt --flare.ports 0-3 --stats b.json --icache.bytes 3000", dir);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("bad instruction cache geometry"), std::string::npos) << bad.err;
}

TEST(E2EIssHpu, TheFoldLoadsAlignedElements) {
  // The frame sits 2 bytes into the HPU's packet slot (FS_PKT_FRAME_OFFSET), so a contribution's
  // int32 elements, 58 bytes into the frame, are word-aligned in L1 and the fold's loads of them
  // cost no misalignment cycle. One block of 256 elements from 2 hosts is a first contribution
  // (copied into the buffer by DMA) and a last (folded, then the result); from 3 hosts, one more
  // run in the middle that only folds: it loads 2 x 256 words and none of them is misaligned
  // (with the frame at the slot's start, its 256 element loads and one load of the Flare header
  // were: 257 stall cycles more than with 2 hosts).
  ScratchDir dir;
  nlohmann::json s[2];
  for (int hosts : {2, 3}) {
    const std::string n = std::to_string(hosts);
    ASSERT_EQ(flaresim("gen allreduce --hosts " + n + " --bytes 1KiB -o t" + n + ".txt", dir).code, 0);
    const CliResult r = flaresim("run --trace t" + n + ".txt --flare.ports 0-" + std::to_string(hosts - 1) +
                                     " --verify t" + n + ".txt.expected --stats s" + n +
                                     ".json -q --hpu.model iss --hpu.interleave off",
                                 dir);
    ASSERT_EQ(r.code, 0) << r.err;
    s[hosts - 2] = nlohmann::json::parse(slurp(dir / ("s" + n + ".json")))["handlers"]["flare_dense"];
    ASSERT_EQ(s[hosts - 2]["runs"], hosts);
  }
  EXPECT_GE(s[1]["iss"]["loads"].get<uint64_t>() - s[0]["iss"]["loads"].get<uint64_t>(), 2u * 256);
  EXPECT_EQ(s[1]["iss"]["stall_cycles"]["misaligned"], s[0]["iss"]["stall_cycles"]["misaligned"]);
}

TEST(E2EIssHpu, InterleavedHpusContendForTheBlockLock) {
  // One cluster of 8 HPUs; 8 hosts send block b at the same moment, so up to 8 handler runs
  // aggregate into the same buffer at once. Interleaved in simulated-time order, they take turns
  // on the buffer's lock and the later ones spin: the longest run is longer than any run to
  // completion can be. Results are right either way (the lock serialises the folds).
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 8 --bytes 4KiB -o t.txt", dir).code, 0);
  nlohmann::json s[2];
  const char* modes[2] = {"off", "on"};
  for (int k = 0; k < 2; ++k) {
    const CliResult r = flaresim(std::string("run --trace t.txt --flare.ports 0-7 --stats s.json -q --hpu.model iss "
                                             "--pspin.clusters 1 --verify t.txt.expected --hpu.interleave ") +
                                     modes[k],
                                 dir);
    ASSERT_EQ(r.code, 0) << modes[k] << ": " << r.err;
    EXPECT_NE(r.out.find("verify           OK"), std::string::npos) << r.out;
    s[k] = nlohmann::json::parse(slurp(dir / "s.json"));
  }
  const auto& off = s[0]["handlers"]["flare_dense"];
  const auto& on = s[1]["handlers"]["flare_dense"];
  EXPECT_GT(on["cycles"]["max"].get<uint64_t>(), off["cycles"]["max"].get<uint64_t>());
  // Only interleaved HPUs meet in the L1 banks.
  EXPECT_EQ(off["iss"]["stall_cycles"]["bank_conflict"], 0);
  EXPECT_GT(on["iss"]["stall_cycles"]["bank_conflict"].get<uint64_t>(), 0u);
  // Waiting for the lock is spinning on loads: more instructions, the same number of folds.
  EXPECT_GT(on["iss"]["loads"].get<uint64_t>(), off["iss"]["loads"].get<uint64_t>());
  // ... counted as spin cycles, which one run at a time never has.
  EXPECT_EQ(off["iss"]["spin_cycles"], 0);
  EXPECT_GT(on["iss"]["spin_cycles"].get<uint64_t>(), 0u);
  // Turns of a spin parked on the lock are accounted, not interpreted: fs_lock's wait loop
  // (fs_handler.h) is a load and a branch, two instructions a turn. One run at a time never parks.
  EXPECT_EQ(off["iss"]["fast_forwarded"]["turns"], 0);
  EXPECT_EQ(off["iss"]["fast_forwarded"]["instructions"], 0);
  EXPECT_GT(on["iss"]["fast_forwarded"]["turns"].get<uint64_t>(), 0u);
  EXPECT_EQ(on["iss"]["fast_forwarded"]["instructions"].get<uint64_t>(),
            2 * on["iss"]["fast_forwarded"]["turns"].get<uint64_t>());
  EXPECT_EQ(on["outcomes"], off["outcomes"]);
  // Interleaving is deterministic: the same run again gives the same stats.
  ASSERT_EQ(flaresim("run --trace t.txt --flare.ports 0-7 --stats again.json -q --hpu.model iss --pspin.clusters 1", dir).code,
            0);
  auto again = nlohmann::json::parse(slurp(dir / "again.json"));
  auto first = s[1];
  again.erase("wall_seconds");
  first.erase("wall_seconds");
  again.erase("inputs");  // the first run had --verify, this one not
  first.erase("inputs");
  again.erase("verify");
  first.erase("verify");
  EXPECT_EQ(again.dump(), first.dump());
}

// One verified run of the 8-host trace t.txt in `dir` with `args` and `--hpu.KEY VALUE`: its stats
// (without wall_seconds and config.hpu.KEY, after checking the latter) and its egress.
struct VariantRun {
  nlohmann::json stats;
  std::string egress;
};
VariantRun run_variant(const ScratchDir& dir, const std::string& args, const std::string& key, const std::string& value) {
  const std::string name = key + "-" + value;
  const CliResult r = flaresim("run --trace t.txt --flare.ports 0-7 -q --hpu.model iss --verify t.txt.expected " + args +
                                   " --hpu." + key + " " + value + " --stats s-" + name + ".json --egress e-" + name +
                                   ".pcapng",
                               dir);
  VariantRun v;
  EXPECT_EQ(r.code, 0) << args << ", " << name << ": " << r.err;
  EXPECT_NE(r.out.find("verify           OK"), std::string::npos) << r.out;
  if (r.code != 0) return v;
  v.stats = nlohmann::json::parse(slurp(dir / ("s-" + name + ".json")));
  const nlohmann::json& set = v.stats["config"]["hpu"][key];
  EXPECT_EQ(set.is_string() ? set.get<std::string>() : set.dump(), value) << name;
  v.stats.erase("wall_seconds");
  v.stats["config"]["hpu"].erase(key);
  v.egress = slurp(dir / ("e-" + name + ".pcapng"));
  return v;
}

TEST(E2EIssHpu, TheFastAndPlainEnginesGiveTheSameRun) {
  // The fast engine (hpu.iss_engine, iss::Cpu::Engine) executes what the plain one does, with
  // the same cycles: whole switches give byte-identical stats and egress on either. The runs
  // cover lock contention with parked spins and TCDM bank conflicts (one cluster), remote L1
  // accesses stopped at their gates cycle by cycle (fcfs on 4 clusters, hpu.sync_cycles 1), and
  // Xpulp handlers, whose instructions the fast engine hands to the plain one.
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 8 --bytes 4KiB -o t.txt", dir).code, 0);
  const std::string runs[] = {"--pspin.clusters 1", "--pspin.clusters 4 --hpu.sync_cycles 1",
                              "--pspin.clusters 2 --hpu.isa rv32imafc_xpulp"};
  for (const std::string& run : runs) {
    const VariantRun plain = run_variant(dir, run, "iss_engine", "plain"), fast = run_variant(dir, run, "iss_engine", "fast");
    EXPECT_EQ(fast.stats.dump(1), plain.stats.dump(1)) << run;
    EXPECT_TRUE(fast.egress == plain.egress) << run << ": the egress differs";
    const auto& iss = plain.stats["handlers"]["flare_dense"]["iss"];
    EXPECT_GT(iss["instructions"].get<uint64_t>(), 1000u) << run;
    if (run == runs[0]) {  // what the runs are said to cover happened
      EXPECT_GT(iss["fast_forwarded"]["turns"].get<uint64_t>(), 0u);
      EXPECT_GT(iss["stall_cycles"]["bank_conflict"].get<uint64_t>(), 0u);
    } else if (run == runs[1]) {
      EXPECT_GT(iss["accesses"]["remote_l1"].get<uint64_t>(), 0u);
    }
  }
}

TEST(E2EIssHpu, TheThreadCountDoesNotChangeTheRun) {
  // hpu.threads (--threads) steps the clusters of each window's first phase on host threads
  // (pspin/interleaver.h); stats and egress are byte-identical for 1, 2 and 4 threads. The runs
  // cover remote L1 accesses and locks taken across clusters (fcfs on 4 clusters: a block's
  // packets run anywhere, its state lives in one cluster), the same cycle by cycle
  // (hpu.sync_cycles 1), and Xpulp handlers.
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 8 --bytes 4KiB -o t.txt", dir).code, 0);
  const std::string runs[] = {"--pspin.clusters 4", "--pspin.clusters 4 --hpu.sync_cycles 1",
                              "--pspin.clusters 2 --hpu.isa rv32imafc_xpulp"};
  for (const std::string& run : runs) {
    const VariantRun one = run_variant(dir, run, "threads", "1");
    for (const char* threads : {"2", "4"}) {
      const VariantRun more = run_variant(dir, run, "threads", threads);
      EXPECT_EQ(more.stats.dump(1), one.stats.dump(1)) << run << ", " << threads << " threads";
      EXPECT_TRUE(more.egress == one.egress) << run << ", " << threads << " threads: the egress differs";
    }
    const auto& iss = one.stats["handlers"]["flare_dense"]["iss"];
    EXPECT_GT(iss["instructions"].get<uint64_t>(), 1000u) << run;
    if (run != runs[2]) {  // what the runs are said to cover happened
      EXPECT_GT(iss["accesses"]["remote_l1"].get<uint64_t>(), 0u) << run;
      EXPECT_GT(iss["atomics"].get<uint64_t>(), 0u) << run;
    }
  }
  // --threads N is --hpu.threads N.
  ASSERT_EQ(flaresim("run --trace t.txt --flare.ports 0-7 -q --hpu.model iss --pspin.clusters 2 --threads 3 --stats s.json", dir).code, 0);
  EXPECT_EQ(nlohmann::json::parse(slurp(dir / "s.json"))["config"]["hpu"]["threads"], 3);
  const CliResult bad = flaresim("run --trace t.txt --flare.ports 0-7 -q --hpu.model iss --threads 0", dir);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("hpu.threads"), std::string::npos) << bad.err;
}

TEST(E2EIssHpu, ASwitchOfMoreClustersThanA16MiBMapHeld) {
  // Each cluster's L1 is mapped 2 MiB apart (FS_L1_GLOBAL_STRIDE), so 1792 clusters fit in the
  // 32-bit space, where 16 MiB held 224; and every HPU's core shares one description of the
  // clusters' L1s (iss::AddressSpace::share). Flare's block b lives in cluster b mod 260: 256
  // blocks of 256 B reach clusters past 224 from wherever their packets run.
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 4 --bytes 64KiB --elem-bytes 256 -o t.txt", dir).code, 0);
  const CliResult r = flaresim("run --trace t.txt --flare.ports 0-3 -q --hpu.model iss --pspin.clusters 260 "
                               "--pspin.hpus_per_cluster 2 --verify t.txt.expected --stats s.json",
                               dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("verify           OK: 1024 of 1024"), std::string::npos) << r.out;
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  uint64_t past_224 = 0;
  for (const auto& c : s["clusters"])
    if (c["cluster"].get<unsigned>() >= 224) past_224 += c["tasks"].get<uint64_t>();
  EXPECT_GT(past_224, 0u);
  EXPECT_GT(s["handlers"]["flare_dense"]["iss"]["accesses"]["remote_l1"].get<uint64_t>(), 0u);

  const CliResult cap = flaresim("run --trace t.txt --flare.ports 0-3 -q --hpu.model iss --pspin.clusters 1793", dir);
  EXPECT_EQ(cap.code, 2);  // bad input
  EXPECT_NE(cap.err.find("hpu.model = iss supports at most 1792 clusters ('pspin.clusters')"), std::string::npos)
      << cap.err;
}

TEST(E2EIssHpu, WatchdogFaultAbortsWithHandlerAndPc) {
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 2 --bytes 2KiB -o t.txt", dir).code, 0);
  const CliResult r =
      flaresim("run --trace t.txt --flare.ports 0-1 --stats s.json --hpu.model iss --hpu.max_cycles 100", dir);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("handler flare_dense (cluster "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ran longer than hpu.max_cycles = 100 cycles (pc 0x1d"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(", instruction 0x"), std::string::npos) << r.err;
  // The stats asked for are written, and say the run stopped at the fault.
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  EXPECT_EQ(s["end"]["reason"], "handler_fault");
  // The two hosts' first packets arrive together and run on two HPUs at once: both reach the
  // watchdog in the same cycle, before the kernel stops, and both faults are counted.
  EXPECT_EQ(s["handlers"]["flare_dense"]["outcomes"]["fault"], 2);
  EXPECT_EQ(s["end"]["fault"], s["handlers"]["flare_dense"]["faults"][0]);
}

TEST(E2EIssHpu, FaultsCanDropThePacketAndGoOn) {
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 2 --bytes 2KiB -o t.txt", dir).code, 0);
  const CliResult r = flaresim("run --trace t.txt --flare.ports 0-1 --stats s.json --hpu.model iss "
                               "--hpu.max_cycles 100 --hpu.on_fault drop",
                               dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  // 2 hosts x 2 blocks: every run faults, every packet is dropped, nothing is sent.
  EXPECT_EQ(s["drops"]["by_handler"]["flare_dense"]["fault"], 4);
  EXPECT_EQ(s["handlers"]["flare_dense"]["outcomes"]["fault"], 4);
  EXPECT_EQ(s["handlers"]["flare_dense"]["faults"].size(), 4u);
  EXPECT_EQ(s["totals"]["packets_out"], 0);
}

TEST(E2EIssHpu, InstructionAndChromeTraces) {
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 2 --bytes 2KiB -o t.txt", dir).code, 0);
  const CliResult r = flaresim("run --trace t.txt --flare.ports 0-1 --stats s.json --hpu.model iss -q "
                               "--trace-insn insn.txt --chrome-trace chrome.json",
                               dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = nlohmann::json::parse(slurp(dir / "s.json"));
  const uint64_t instructions = s["handlers"]["flare_dense"]["iss"]["instructions"];

  // One line per retired instruction; every run starts at the firmware entry (0x1d000000).
  std::istringstream in(slurp(dir / "insn.txt"));
  std::string line;
  uint64_t lines = 0, entries = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    ++lines;
    std::istringstream ls(line);
    std::string cycle, cluster, hpu, set, pc;
    ls >> cycle >> cluster >> hpu >> set >> pc;
    EXPECT_EQ(set, "flare_dense");
    if (pc == "0x1d000000") ++entries;
  }
  EXPECT_EQ(lines, instructions);
  EXPECT_EQ(entries, 4u);  // 2 hosts x 2 blocks = 4 handler runs

  // One complete event per handler run, on the track of its HPU, as long as its cycles at 1 GHz.
  const auto trace = nlohmann::json::parse(slurp(dir / "chrome.json"));
  size_t runs = 0, threads = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") ++threads;
    if (e["ph"] != "X") continue;
    ++runs;
    EXPECT_EQ(e["name"], "flare_dense");
    EXPECT_LT(e["pid"].get<unsigned>(), 4u);
    EXPECT_LT(e["tid"].get<unsigned>(), 8u);
    EXPECT_DOUBLE_EQ(e["dur"].get<double>(), e["args"]["cycles"].get<double>() / 1000.0);
  }
  EXPECT_EQ(runs, 4u);
  EXPECT_EQ(threads, 32u);  // 4 clusters x 8 HPUs

  const CliResult native =
      flaresim("run --trace t.txt --flare.ports 0-1 --stats n.json --trace-insn x.txt --hpu.model native", dir);
  EXPECT_EQ(native.code, 2);
  EXPECT_NE(native.err.find("--trace-insn needs --hpu.model iss"), std::string::npos) << native.err;
}

// A dense run on ISS HPUs with the flare_dense set alone: the handler directories below hold its
// ELF only (with the default rules, the other sets' ELFs would be loaded too).
const std::string kDenseAloneIss =
    "run --trace t.txt --flare.ports 0-1 --stats s.json --hpu.model iss --parser.rules 'udp_dport=4950 -> flare_dense'";

TEST(E2EIssHpu, UnusableHandlerElfIsBadInput) {
  // A bare test program (it has writable data) in place of the handler set's ELF.
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 2 --bytes 1KiB -o t.txt", dir).code, 0);
  ASSERT_EQ(std::system(("mkdir -p '" + (dir / "elf") + "' && cp '" FLARESIM_RISCV_TEST_DIR "/hash.elf' '" +
                         (dir / "elf/flare_dense.elf") + "'")
                            .c_str()),
            0);
  const CliResult r =
      flaresim(kDenseAloneIss + " --hpu.handler_dir elf", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("elf/flare_dense.elf: handler programs may not have writable data"), std::string::npos) << r.err;
  // Not an ELF at all.
  write_file(dir / "elf/flare_dense.elf", "#!/bin/sh\n");
  const CliResult t =
      flaresim(kDenseAloneIss + " --hpu.handler_dir elf", dir);
  EXPECT_EQ(t.code, 2);
  EXPECT_NE(t.err.find("elf/flare_dense.elf: not an ELF file"), std::string::npos) << t.err;
  EXPECT_FALSE(exists(dir / "s.json"));
}

TEST(E2EIssHpu, HandlerElfWithoutTheFirmwaresMarksIsBadInput) {
  // The handler's cycles are counted between crt0.S's marks of its call and its return; an ELF
  // without them cannot be timed that way and is refused before the run.
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 2 --bytes 1KiB -o t.txt", dir).code, 0);
  ASSERT_EQ(std::system(("mkdir -p '" + (dir / "elf") + "' && '" FLARESIM_RISCV_OBJCOPY
                         "' --strip-symbol=_fs_handler_return '" FLARESIM_HANDLER_ELF_DIR "/flare_dense.elf' '" +
                         (dir / "elf/flare_dense.elf") + "'")
                            .c_str()),
            0);
  const CliResult r =
      flaresim(kDenseAloneIss + " --hpu.handler_dir elf", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("elf/flare_dense.elf: no symbol '_fs_handler_return' (the firmware's crt0.S marks the "
                       "handler's call and return)"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(exists(dir / "s.json"));
}

TEST(E2EIssHpu, MissingHandlerElfIsBadInput) {
  ScratchDir dir;
  ASSERT_EQ(flaresim("gen allreduce --hosts 2 --bytes 1KiB -o t.txt", dir).code, 0);
  const CliResult r = flaresim(kDenseAloneIss + " --hpu.handler_dir /nonexistent", dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("/nonexistent/flare_dense.elf: cannot open ELF file"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace fs::test
