// The per-interval FR_ATOMIC share a run reports: what the totals say, bin by
// bin, and that a stall shows in it while a presized hash never does; and
// the references the shared count held at each atomic get, which a stall
// reports once the bias is folded out and a presized hash never has.
#include <catch2/catch.hpp>

#include <cmath>

#include "sim/timed/run.h"

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
    for (std::size_t i = r.per_interval_atomic_share.size() / 2;
         i < r.per_interval_atomic_share.size(); i++)
        CHECK(r.per_interval_atomic_share[i] == 1.0);
    // Before the pivot the threads took the per-CPU counter.
    CHECK(r.per_interval_atomic_share.front() < 0.5);

    // No grace period has ended yet to fold the per-CPU counts in: the
    // count still carries the bias and holds no number of holders.
    CHECK(r.atomic_refs.gets == 0);
    for (const auto& m : r.per_interval_atomic_refs_min)
        CHECK_FALSE(m.has_value());
}

TEST_CASE("once folded, the shared count a latched run's gets find is its holders")
{
    // v7.2, seed 2: the fold lands after about 110 ms, the run stays latched.
    run_options o = reproducer_1(96);
    o.kernel = model::kernel_version::v7_2;
    o.seed = 2;
    o.seconds = 0.15;
    o.interval_ms = 10;
    const run_result r = simulate(o);
    REQUIRE(r.outcome == "latched");
    const auto& mins = r.per_interval_atomic_refs_min;
    REQUIRE(mins.size() == r.per_interval_mops.size());
    CHECK_FALSE(mins.front().has_value());  // per-CPU then: no atomic gets
    // The last quarter: every bin saw folded gets, each leaving between 2
    // (its own reference and at least one other: atomic_long_inc_not_zero()
    // fails on a drained count) and the 96 threads.
    for (std::size_t i = mins.size() * 3 / 4; i < mins.size(); i++) {
        REQUIRE(mins[i].has_value());
        CHECK(*mins[i] >= 2);
        CHECK(*mins[i] <= 96);
    }
    const auto& refs = r.atomic_refs;
    REQUIRE(refs.gets > 0);
    CHECK(refs.gets < r.ref_get_atomic);  // the gets before the fold are not counted
    REQUIRE(refs.min.has_value());
    CHECK(*refs.min >= 2);
    CHECK(*refs.min <= *refs.p0_1);
    CHECK(*refs.p0_1 <= *refs.p1);
    CHECK(*refs.p1 <= *refs.p50);
    CHECK(*refs.p50 <= *refs.p99);
    CHECK(*refs.p99 <= 96);
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
    CHECK(r.atomic_refs.gets == 0);
    CHECK_FALSE(r.atomic_refs.p50.has_value());
    for (const auto& m : r.per_interval_atomic_refs_min)
        CHECK_FALSE(m.has_value());
}
