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
