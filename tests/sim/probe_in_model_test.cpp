// futexsim probe's cache-line experiments run in the model: what the probe
// would measure on a simulated machine gives back that machine's
// parameters, so that a file the probe writes from a real machine means
// what the model makes of it. The CAS ping-pong (probe/measure.cpp,
// pingpong_one_way_ns()) reads the one-way transfer; the holder's window
// (measure_hold_window()) reads lock_hold_ns + snoop_leg_fraction x the
// transfer, from which probe/probe.cpp derives snoop_leg_fraction.
#include <catch2/catch.hpp>

#include <vector>

#include "tests/sim/sim_fixtures.h"

using namespace futexsim;
using futexsim::vtime;

namespace {

machine probed_pair(double transfer_ns, double snoop_leg_fraction)
{
    machine m = test::small_machine(2);
    m.transfer_ns.same_die = transfer_ns;
    m.snoop_leg_fraction = snoop_leg_fraction;
    m.lock_hold_ns = 3;
    m.local_rmw_ns = 6;
    return m;
}

// pingpong_one_way_ns() in the model: CPU 0 swaps 2i for 2i+1, CPU 1 2i+1
// for 2i+2, each spinning on a compare-and-swap; half the round trip.
double one_way_in_model(const machine& m, long round_trips)
{
    test::rig r{m};
    vtime end = 0;
    for (unsigned side = 0; side < 2; side++)
        r.eng.spawn("pingpong", {side}, [&r, &end, side, round_trips] {
            for (long i = 0; i < round_trips; i++) {
                const long from = 2 * i + side;
                long expect = from;
                while (!r.env.atomic_try_cmpxchg(r.counter, expect, from + 1))
                    expect = from;
            }
            end = std::max(end, r.eng.now());
        }, 0);
    r.eng.run_until(1'000'000'000);
    return static_cast<double>(end) / (2.0 * static_cast<double>(round_trips));
}

// measure_hold_window() in the model at one delay: CPU 1 increments
// without pause; CPU 0, `tries` times, waits, increments, waits `delay_ns`
// and increments again. The share of tries with nothing of CPU 1's between.
double kept_in_model(const machine& m, vtime delay_ns, int tries)
{
    test::rig r{m};
    bool done = false;
    int kept = 0;
    r.eng.spawn("hammer", {1}, [&] {
        while (!done)
            r.env.atomic_add_return(r.counter, 1L);
    }, 0);
    r.eng.spawn("holder", {0}, [&] {
        for (int i = 0; i < tries; i++) {
            r.eng.charge(1000);  // the line surely back with CPU 1
            const long first = r.env.atomic_add_return(r.counter, 1L);
            r.eng.charge(delay_ns);
            const long second = r.env.atomic_add_return(r.counter, 1L);
            kept += second == first + 1;
        }
        done = true;
    }, 0);
    r.eng.run_until(1'000'000'000);
    REQUIRE(done);
    return static_cast<double>(kept) / tries;
}

}  // namespace

TEST_CASE("probe in the model: the CAS ping-pong reads the one-way transfer", "[sim][probe]")
{
    for (const double f : {0.0, 0.25, 0.5}) {
        INFO("snoop_leg_fraction " << f);
        const double one_way = one_way_in_model(probed_pair(200, f), 2000);
        // The transfer, plus the locked op and the hold at the end that
        // wins: what the probe writes as transfer_ns is a few ns long.
        CHECK(one_way == Approx(200 + 6 + 3).epsilon(0.01));
    }
}

TEST_CASE("probe in the model: the holder's window is lock_hold_ns + snoop_leg_fraction x the transfer",
          "[sim][probe]")
{
    for (const double f : {0.25, 0.5}) {
        const machine m = probed_pair(200, f);
        const double window = m.lock_hold_ns + f * m.transfer_ns.same_die;
        INFO("snoop_leg_fraction " << f << ", window " << window << " ns");
        // Without jitter the window is sharp: kept through it, lost after.
        CHECK(kept_in_model(m, static_cast<vtime>(window) - 4, 200) == 1.0);
        CHECK(kept_in_model(m, static_cast<vtime>(window) + 4, 200) == 0.0);
    }
}
