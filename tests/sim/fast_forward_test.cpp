// Fast-forward (sim/timed/fast_forward.h): the sampler's rule, a run that never
// turns stationary unchanged byte for byte, and a stationary run whose
// extrapolation agrees with the exact run within its interval.
#include <catch2/catch.hpp>

#include <cmath>

#include "run/report.h"
#include "sim/timed/fast_forward.h"
#include "sim/timed/run.h"
#include "tests/sim/report_compare.h"

using namespace futexsim;
using namespace futexsim::sim;
using futexsim::test::without_wall;

TEST_CASE("fast-forward: Student's t quantile", "[fast-forward]")
{
    CHECK(t95(9) == Approx(2.262).epsilon(0.002));
    CHECK(t95(19) == Approx(2.093).epsilon(0.001));
    CHECK(t95(100) == Approx(1.984).epsilon(0.001));
}

TEST_CASE("fast-forward: the sampler waits for stationarity, the warm-up and a tight interval", "[fast-forward]")
{
    fast_forward_rule rule;
    fast_forward_sampler s(rule);
    const std::int64_t ms = 1'000'000;
    std::uint64_t ops = 0;
    std::int64_t t = 0;
    // Not stationary: never.
    for (int i = 0; i < 50; i++) {
        t += ms;
        ops += 1000;
        CHECK_FALSE(s.observe(t, ops, false));
    }
    // Stationary at a steady rate: after the warm-up and min_batches.
    int batches = 0;
    bool done = false;
    while (!done && batches < 200) {
        t += ms;
        ops += 1000 + static_cast<std::uint64_t>(batches % 3);  // +/- 0.1%
        done = s.observe(t, ops, true);
        ++batches;
    }
    CHECK(done);
    CHECK(batches == 1 + 5 + 20);  // the first stationary point, 5 ms of warm-up, 20 batches
    CHECK(s.rate_per_ns() == Approx(1e-3).epsilon(0.002));
    // A noisy rate (+/- 10%) needs more batches than a steady one.
    fast_forward_sampler noisy(rule);
    t = 0;
    ops = 0;
    int n = 0;
    done = false;
    while (!done && n < 200) {
        t += ms;
        ops += (n % 2) ? 900 : 1100;
        done = noisy.observe(t, ops, true);
        ++n;
    }
    CHECK_FALSE(done);
}

namespace {

run_options xeon_run(unsigned threads, double seconds, std::uint64_t seed)
{
    run_options o;
    o.mach = load_machine_preset("xeon-6975p-snc3");
    o.threads = threads;
    o.seconds = seconds;
    o.cpus = parse_cpu_list("0-95", o.mach.num_cpus());
    o.seed = seed;
    return o;
}

}  // namespace

TEST_CASE("fast-forward: a run that never turns stationary is unchanged", "[fast-forward]")
{
    // 64 threads auto-scaled latch: the pivot stays pending to the end.
    const run_options o = xeon_run(64, 0.03, 1);
    sim_options exact;
    exact.fast_forward = false;
    const run_result a = simulate(o);  // fast-forward is the default
    const run_result b = simulate(o, exact);
    CHECK(a.pivot_pending_at_end);
    CHECK(a.extrapolated_from_ms < 0);
    CHECK(without_wall(json_line(a)) == without_wall(json_line(b)));
}

TEST_CASE("fast-forward: a stationary run agrees with the exact one within its interval", "[fast-forward]")
{
    // Producer-consumer auto-scaled at 16 threads sits on the shared atomic
    // for most of a 0.25 s run (seed 3: a stall that ends at about 220 ms),
    // so it turns stationary too late to extrapolate; it is checked
    // presized only.
    struct variant {
        const char* workload;
        unsigned threads;
        bool presized;
    };
    for (const auto& [workload, threads, presized] :
         {variant{"wake-nowaiters", 24, true}, variant{"wake-nowaiters", 24, false},
          variant{"producer-consumer", 16, true}}) {
        // An auto-scaled run pivots first: three grace periods of ~36 ms.
        const double seconds = presized ? 0.12 : 0.25;
        run_options o = xeon_run(threads, seconds, 3);
        o.workload = workload;
        if (presized)
            o.presize = 512;
        sim_options exact;
        exact.fast_forward = false;
        const run_result a = simulate(o);  // fast-forward is the default
        const run_result b = simulate(o, exact);
        CHECK(b.extrapolated_from_ms < 0);
        INFO(workload << " presized " << presized << ": " << json_line(a));
        CHECK(a.extrapolated_from_ms > 0);
        CHECK(a.extrapolated_from_ms < seconds * 1e3);
        CHECK(a.outcome == b.outcome);
        CHECK(a.slots_end == b.slots_end);
        CHECK(std::abs(a.mops - b.mops) <= 2 * a.mops_ci95);
        CHECK(a.per_interval_mops.size() == static_cast<std::size_t>(a.extrapolated_from_ms / o.interval_ms));
    }
}
