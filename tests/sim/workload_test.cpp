// Workloads run, stop, and join cleanly on the simulator.
#include <catch2/catch.hpp>

#include "sim/run.h"

using namespace futexsim::sim;

TEST_CASE("producer-consumer: waiters sleep and are woken, threads join", "[workload]")
{
    run_options o;
    o.mach = load_machine_preset("xeon-6975p-snc3");
    o.workload = "producer-consumer";
    o.threads = 8;
    o.seconds = 0.01;
    o.cpus = parse_cpu_list("0-7", o.mach.num_cpus());
    o.presize = 64;
    const run_result r = simulate(o);
    CHECK(r.ops > 1000);
    CHECK(r.slots_end == 64);
    CHECK(r.warnings.empty());
    CHECK(simulate(o).trace_hash == r.trace_hash);
}

TEST_CASE("an unknown workload is refused with the valid names", "[workload]")
{
    run_options o;
    o.mach = load_machine_preset("xeon-6975p-snc3");
    o.workload = "nope";
    CHECK_THROWS_WITH(simulate(o), Catch::Contains("valid: wake-nowaiters, producer-consumer"));
}

namespace {
run_result small(const std::string& workload, bool precheck, const std::string& unlock = "store_wake")
{
    run_options o;
    o.mach = load_machine_preset("xeon-6975p-snc3");
    o.workload = workload;
    o.threads = 8;
    o.seconds = 0.005;
    o.cpus = parse_cpu_list("0-7", o.mach.num_cpus());
    o.presize = 64;
    o.precheck = precheck;
    o.locks = 2;
    o.unlock = unlock;
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
    run_options o;
    o.mach = load_machine_preset("xeon-6975p-snc3");
    o.workload = "pool-growth";
    o.start_threads = 4;
    o.threads = 12;
    o.seconds = 0.02;
    o.cpus = parse_cpu_list("0-15", o.mach.num_cpus());
    const run_result r = simulate(o);
    REQUIRE(r.phases.size() == 2);
    CHECK(r.phases[0].name == "start");
    CHECK(r.phases[1].name == "grown");
    CHECK(r.phases[0].end_ms == Approx(10.0).margin(0.1));
    CHECK(r.phases[0].slots_end == 16);  // 4 threads: the first hash
    CHECK(r.phases[0].mops > 0);
    CHECK(r.phases[1].mops > 0);
}

TEST_CASE("mutex --ops: a fixed amount of work reports how long it took", "[workload]")
{
    run_options o;
    o.mach = load_machine_preset("xeon-6975p-snc3");
    o.workload = "mutex";
    o.threads = 4;
    o.locks = 2;
    o.work_ops = 2000;
    o.seconds = 0.05;
    o.presize = 16;
    o.cpus = parse_cpu_list("0-3", o.mach.num_cpus());
    const run_result r = simulate(o);
    CHECK(r.ops == 2000);
    REQUIRE(r.work_ms > 0);
    CHECK(r.work_ms < 50);
}
