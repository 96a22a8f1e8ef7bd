// Workloads run, stop, and join cleanly on the simulator.
#include <catch2/catch.hpp>

#include <string>

#include "sim/timed/run.h"

using namespace futexsim;
using namespace futexsim::sim;

namespace {
// `workload` on the Xeon preset, `threads` threads pinned to CPUs 0..threads-1.
run_options xeon_run(const std::string& workload, unsigned threads, double seconds)
{
    run_options o;
    o.mach = load_machine_preset("xeon-6975p-snc3");
    o.workload = workload;
    o.threads = threads;
    o.seconds = seconds;
    o.cpus = parse_cpu_list("0-" + std::to_string(threads - 1), o.mach.num_cpus());
    return o;
}
}  // namespace

TEST_CASE("producer-consumer: waiters sleep and are woken, threads join", "[workload]")
{
    run_options o = xeon_run("producer-consumer", 8, 0.01);
    o.presize = 64;
    const run_result r = simulate(o);
    CHECK(r.ops > 1000);
    CHECK(r.slots_end == 64);
    CHECK(r.warnings.empty());
    CHECK(simulate(o).trace_hash == r.trace_hash);
}

TEST_CASE("producer-consumer: consumers park, so 16 auto-scaled threads get their bigger hash",
          "[workload]")
{
    // Only the producers hammer the reference count (a parked consumer holds
    // none), which at 16 threads lets the count drain: the 64-slot hash is
    // installed after the pivot's grace periods (~0.1 s) and the run ends on
    // the per-CPU fast path.
    run_options o = xeon_run("producer-consumer", 16, 0.3);
    const run_result r = simulate(o);
    CHECK(r.slots_end == 64);
    CHECK(r.outcome != "latched");
    // The last 10 ms simulated: every reference per-CPU again.
    REQUIRE_FALSE(r.per_interval_atomic_share.empty());
    CHECK(r.per_interval_atomic_share.back() < 0.01);
}

TEST_CASE("an unknown workload is refused with the valid names", "[workload]")
{
    const run_options o = xeon_run("nope", 1, 0.01);
    CHECK_THROWS_WITH(simulate(o), Catch::Contains("valid: wake-nowaiters, producer-consumer"));
}

namespace {
run_result small(const std::string& workload, bool precheck, const std::string& unlock = "store_wake")
{
    run_options o = xeon_run(workload, 8, 0.005);
    o.presize = 64;
    o.precheck = precheck;
    o.params.set("locks", "2");
    o.params.set("unlock", unlock);
    return simulate(o);
}
}  // namespace

TEST_CASE("hash-bench: the precheck skips the bucket lock of every mismatched wait", "[workload]")
{
    const run_result plain = small("hash-bench", false);
    const run_result pre = small("hash-bench", true);
    INFO("hash-bench " << plain.mops << " -> " << pre.mops << " Mops/s");
    CHECK(pre.mops > 2 * plain.mops);
}

TEST_CASE("mutex and mixed-wait run under both unlock styles and the precheck", "[workload]")
{
    for (const char* unlock : {"store_wake", "xchg"}) {
        const run_result r = small("mutex", false, unlock);
        INFO(unlock);
        CHECK(r.ops > 100);
        CHECK(r.warnings.empty());
    }
    const run_result plain = small("mixed-wait", false);
    const run_result pre = small("mixed-wait", true);
    CHECK(plain.ops > 100);
    // Only the few mismatched waits gain: far less than hash-bench.
    CHECK(pre.mops < 1.5 * plain.mops);
}

TEST_CASE("pool-growth reports each phase's throughput and slots", "[workload]")
{
    run_options o = xeon_run("pool-growth", 12, 0.02);
    o.params.set("start-threads", "4");
    const run_result r = simulate(o);
    REQUIRE(r.phases.size() == 2);
    CHECK(r.phases[0].name == "start");
    CHECK(r.phases[1].name == "grown");
    // The main thread's sleep ends at 10 ms; its CPU, idle meanwhile, first
    // leaves a deep idle state (C6 or C6P on this preset: 170-210 us).
    CHECK(r.phases[0].end_ms >= 10.0);
    CHECK(r.phases[0].end_ms <= 10.0 + 0.21 + 0.01);
    CHECK(r.phases[0].slots_end == 16);  // 4 threads: the first hash
    CHECK(r.phases[0].mops > 0);
    CHECK(r.phases[1].mops > 0);
}

TEST_CASE("mutex --ops: a fixed amount of work reports how long it took", "[workload]")
{
    run_options o = xeon_run("mutex", 4, 0.05);
    o.params.set("locks", "2");
    o.params.set("ops", "2000");
    o.presize = 16;
    const run_result r = simulate(o);
    CHECK(r.ops == 2000);
    REQUIRE(r.work_ms > 0);
    CHECK(r.work_ms < 50);
    // As on the real backends: the run lasted as long as the work, and its
    // rate is over that time, not over --seconds.
    CHECK(r.seconds == Approx(r.work_ms / 1e3));
    CHECK(r.mops == Approx(2000 / r.seconds / 1e6));
    CHECK(r.warnings.empty());
}

TEST_CASE("mutex --ops: work that --seconds does not see done says so", "[workload]")
{
    run_options o = xeon_run("mutex", 4, 0.0002);
    o.params.set("ops", "1000000");
    o.presize = 16;
    const run_result r = simulate(o);
    CHECK(r.ops < 1000000);
    CHECK(r.work_ms < 0);
    CHECK(r.seconds == 0.0002);
    REQUIRE(r.warnings.size() == 1);
    CHECK(r.warnings[0].find("--ops 1000000") != std::string::npos);
}
