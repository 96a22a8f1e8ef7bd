// Reproducer 1 on the Xeon preset against what the real machine did
// (experiments/reference/). Fixed seeds: deterministic, so these cannot flake.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "sim/timed/run.h"
#include "tests/sim/xeon_runs.h"

using namespace futexsim;
using namespace futexsim::sim;

namespace {

run_options xeon(unsigned threads, double seconds, std::uint64_t seed, bool presized)
{
    run_options o = futexsim::test::xeon_socket0(threads, seconds, seed);
    if (presized)
        o.presize = 512;
    return o;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

// Throughput once the run has settled: the median of the last third's bins.
double steady_mops(const run_result& r)
{
    const auto& bins = r.per_interval_mops;
    return median(std::vector<double>(bins.end() - static_cast<std::ptrdiff_t>(bins.size() / 3), bins.end()));
}

}  // namespace

// The real machine: 10 of 10 runs latched at 96 threads, presized 73-90x
// faster than auto-scaled over 3 s. The model's presized throughput is
// under half the real one (docs/results.md), and 96 threads is near the
// model's threshold (a run may drain its count and recover): asked of the
// runs that latch, once settled (a 0.5 s run's mean includes the per-CPU
// time before the pivot), 10x.
TEST_CASE("96 threads: the auto-scaled process latches, the presized one never does",
          "[acceptance]")
{
    std::vector<double> auto_mops, presized_mops;
    int latched = 0;
    for (std::uint64_t seed = 1; seed <= 8; seed++) {
        const run_result a = simulate(xeon(96, 0.5, seed, false));
        INFO("auto seed " << seed << ": " << a.outcome << " " << a.mops << " Mops/s");
        latched += a.outcome == "latched";
        if (a.outcome == "latched")
            auto_mops.push_back(steady_mops(a));
        CHECK(a.slots_end == 512);  // installed once the threads stop, as on the real machine
        CHECK(a.warnings.empty());

        const run_result p = simulate(xeon(96, 0.05, seed, true));
        INFO("presized seed " << seed << ": " << p.outcome << " " << p.mops << " Mops/s");
        CHECK(p.outcome == "never");
        CHECK(p.ref_get_atomic == 0);
        CHECK(p.slots_set == 512);
        CHECK(p.slots_end == 512);
        presized_mops.push_back(p.mops);
    }
    CHECK(latched >= 7);
    REQUIRE(!auto_mops.empty());
    const double ratio = median(presized_mops) / median(auto_mops);
    INFO("median presized / latched auto, settled = " << ratio << " (real 73-90)");
    CHECK(ratio >= 10);
}

TEST_CASE("96 threads: most references are taken on the shared atomic", "[acceptance]")
{
    // Runs of the reproducer's default length, 5 s (real, 3 s under kprobes:
    // 92.5% FR_ATOMIC). 96 threads is at the model's threshold since its
    // costs were counted from the kernel's instructions and its lines laid
    // out as compiled (some runs drain the count and recover), so this asks
    // it of the runs that stay latched, and at least one of the seeds must.
    // Asked per 10 ms once the pivot has started (after the first 100 ms):
    // over the whole run the share also depends on how many gets the first
    // milliseconds at per-CPU speed took (seeds 2 and 4: 64% and 90%).
    int latched = 0;
    for (std::uint64_t seed = 1; seed <= 4; seed++) {
        const run_result a = simulate(xeon(96, 5.0, seed, false));
        INFO("seed " << seed << ": " << a.outcome << ", atomic over the run " << a.atomic_fraction());
        if (a.outcome != "latched")
            continue;
        latched++;
        const auto& share = a.per_interval_atomic_share;
        REQUIRE(share.size() > 10);
        CHECK(*std::min_element(share.begin() + 10, share.end()) >= 0.9);
    }
    CHECK(latched >= 1);
}

TEST_CASE("16 and 32 threads: no latch, presized no faster once settled", "[acceptance]")
{
    for (unsigned threads : {16u, 32u}) {
        std::vector<double> auto_mops;
        for (std::uint64_t seed = 1; seed <= 8; seed++) {
            const run_result a = simulate(xeon(threads, 0.15, seed, false));
            INFO(threads << " threads, seed " << seed << ": " << a.outcome);
            CHECK(a.outcome != "latched");
            CHECK(a.slots_end == static_cast<int>(threads * 4));
            auto_mops.push_back(steady_mops(a));
        }
        const run_result p = simulate(xeon(threads, 0.05, 1, true));
        const double ratio = steady_mops(p) / median(auto_mops);
        INFO(threads << " threads: settled presized/auto = " << ratio << " (real 1.0-1.1)");
        CHECK(ratio <= 1.3);
    }
}

TEST_CASE("a 2-CPU host stays at 16 slots: no pivot past the first hash", "[acceptance]")
{
    // The host preset as read here (CI's machine has 2 CPUs); on a bigger
    // machine, its first two CPUs.
    run_options o;
    o.mach = read_host_machine();
    REQUIRE(o.mach.num_cpus() >= 1);
    if (o.mach.num_cpus() > 2)
        o.mach.cpus.resize(2);
    o.threads = 96;
    o.seconds = 0.05;
    const run_result r = simulate(o);
    CHECK(r.slots_end == 16);
    CHECK(r.pivots_completed == 1);  // the first 16-slot hash, nothing after
    CHECK(r.outcome == "never");
    CHECK(r.ref_get_atomic == 0);
}
