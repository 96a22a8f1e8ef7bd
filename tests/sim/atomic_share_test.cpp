// The per-interval FR_ATOMIC share a run reports: what the totals say, bin by
// bin, and that a stall shows in it while a presized hash never does.
#include <catch2/catch.hpp>

#include <cmath>

#include "sim/run.h"

using namespace futexsim;
using namespace futexsim::sim;

namespace {

run_options reproducer_1(unsigned threads)
{
    run_options o;
    o.mach = load_machine_preset("xeon-6975p-snc3");
    o.workload = "wake-nowaiters";
    o.threads = threads;
    o.seconds = 0.05;
    o.interval_ms = 5;
    for (unsigned c = 0; c < 96; c++)
        o.cpus.push_back(c);
    return o;
}

}  // namespace

TEST_CASE("a latched run's gets move to FR_ATOMIC once the pivot starts and stay there")
{
    // Long enough for the pivot's first grace periods (about 30 ms under
    // this load) to end in the first half of the run.
    run_options o = reproducer_1(96);
    o.seconds = 0.1;
    const run_result r = simulate(o);
    REQUIRE(r.outcome == "latched");
    REQUIRE(r.per_interval_atomic_share.size() == r.per_interval_mops.size());
    // The last half of the run: the count never drained, every get is atomic.
    for (std::size_t i = r.per_interval_atomic_share.size() / 2; i < r.per_interval_atomic_share.size(); i++)
        CHECK(r.per_interval_atomic_share[i] == 1.0);
    // Before the pivot the threads took the per-CPU counter.
    CHECK(r.per_interval_atomic_share.front() < 0.5);
}

TEST_CASE("a presized hash never leaves the per-CPU counter")
{
    run_options o = reproducer_1(96);
    o.presize = 512;
    const run_result r = simulate(o);
    REQUIRE(r.per_interval_atomic_share.size() == r.per_interval_mops.size());
    for (double s : r.per_interval_atomic_share)
        CHECK(s == 0.0);
    CHECK(r.ref_get_atomic == 0);
}
