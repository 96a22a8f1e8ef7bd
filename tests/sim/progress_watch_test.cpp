// The progress detectors (sim/timed/progress_watch.h): a run that stops making
// progress for good (tests/sim/stuck_workloads.h) gets each warning and
// still ends; a healthy run gets none; the detectors change nothing a run
// prints but its warnings.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "run/workloads/registry.h"
#include "sim/timed/run.h"
#include "tests/sim/stuck_workloads.h"

using namespace futexsim;

namespace {

run_options stuck_run()
{
    testing::register_stuck_workloads();
    run_options o;
    o.mach = load_machine_preset("xeon-6975p-snc3");
    o.workload = "test-stuck-spinlock";
    o.threads = 2;
    o.seconds = 0.3;
    return o;
}

std::vector<std::string> of_kind(const run_result& r, const std::string& kind)
{
    std::vector<std::string> out;
    for (const auto& w : r.warnings)
        if (w.rfind(kind + ": ", 0) == 0)
            out.push_back(w);
    return out;
}

}  // namespace

TEST_CASE("a spinlock held for good: an RCU stall, soft lockups and a spinning-lock warning, and the run ends",
          "[progress]")
{
    const run_result r = sim::simulate(stuck_run());
    CHECK_FALSE(r.interrupted);
    CHECK(r.seconds == 0.3);
    const auto stalls = of_kind(r, "rcu-stall");
    REQUIRE(stalls.size() == 1);  // one grace period, warned of once
    CHECK_THAT(stalls[0], Catch::Contains("[holder]") && Catch::Contains("rcu_stall_timeout 210.0 ms"));
    const auto lockups = of_kind(r, "soft-lockup");
    REQUIRE(lockups.size() == 2);  // the holder's CPU and the spinner's
    CHECK_THAT(lockups[0] + lockups[1], Catch::Contains("[holder]") && Catch::Contains("[spinner]"));
    const auto spins = of_kind(r, "spin-lockup");
    REQUIRE(spins.size() == 1);
    CHECK_THAT(spins[0], Catch::StartsWith("spin-lockup: spinner on CPU") && Catch::Contains("held by holder"));
    CHECK(of_kind(r, "event-storm").empty());
    CHECK(sim::simulate(stuck_run()).warnings == r.warnings);  // as deterministic as the rest
}

TEST_CASE("the detectors' bounds are the user's", "[progress]")
{
    sim::sim_options s;
    s.detectors.spin_limit_ms = 10000;  // past the run's end and its drain
    s.detectors.rcu_stall_timeout_ms = 50;
    const run_result r = sim::simulate(stuck_run(), s);
    CHECK(of_kind(r, "spin-lockup").empty());
    REQUIRE(of_kind(r, "rcu-stall").size() == 1);
    CHECK_THAT(of_kind(r, "rcu-stall")[0], Catch::Contains("rcu_stall_timeout 50.0 ms"));
}

TEST_CASE("stop_at_first (--fail-on-warning) ends a stuck run at its first warning", "[progress]")
{
    sim::sim_options s;
    s.detectors.stop_at_first = true;
    const run_result r = sim::simulate(stuck_run(), s);
    CHECK(r.interrupted);
    CHECK(r.seconds < 0.05);  // the spin limit, 10 ms, comes first
    REQUIRE(r.warnings.size() == 2);
    CHECK_THAT(r.warnings[0], Catch::StartsWith("spin-lockup: "));
    CHECK(r.warnings[1] == "stopped at the first warning (--fail-on-warning)");
}

TEST_CASE("a healthy run warns of nothing, and the detectors change nothing else it prints", "[progress]")
{
    run_options o;
    o.mach = load_machine_preset("xeon-6975p-snc3");
    o.threads = 32;
    o.seconds = 0.05;
    const run_result quiet = sim::simulate(o);
    CHECK(quiet.warnings.empty());

    // An event-storm bound every run passes: the alarm fires once, naming
    // the rate and the busiest origin, and the run is the same run.
    sim::sim_options s;
    s.detectors.max_events_per_ms = 10;
    s.detectors.rcu_stall_timeout_ms = 0.5;
    const run_result loud = sim::simulate(o, s);
    const auto storms = of_kind(loud, "event-storm");
    REQUIRE(storms.size() == 1);
    CHECK_THAT(storms[0], Catch::Contains("events per virtual ms") && Catch::Contains("busiest: "));
    CHECK_FALSE(of_kind(loud, "rcu-stall").empty());
    CHECK(loud.trace_hash == quiet.trace_hash);
    CHECK(loud.events == quiet.events);
    CHECK(loud.ops == quiet.ops);
    CHECK(loud.per_interval_mops == quiet.per_interval_mops);
}

TEST_CASE("each kind prints at most max_per_kind warnings, then how many more", "[progress]")
{
    run_options o = stuck_run();
    o.threads = 20;  // the holder and 19 spinners, each on its own CPU
    const run_result r = sim::simulate(o);
    const auto spins = of_kind(r, "spin-lockup");
    REQUIRE(spins.size() == sim::progress_watch::max_per_kind + 1);
    CHECK(spins.back() == "spin-lockup: 11 more like these");
    const auto lockups = of_kind(r, "soft-lockup");
    REQUIRE(lockups.size() == sim::progress_watch::max_per_kind + 1);
    CHECK(lockups.back() == "soft-lockup: 12 more like these");
}
