// The cache-line model: what an access costs and how contention serializes.
#include <catch2/catch.hpp>

#include "sim/cache.h"
#include "sim/sim_env.h"
#include "sim/rcu.h"
#include "tests/sim/sim_fixtures.h"

using namespace futexsim;
using namespace futexsim::sim;
using futexsim::test::small_machine;

using futexsim::test::rig;

TEST_CASE("an RMW on a line another CPU owns pays the transfer between them", "[cache]")
{
    const machine m = small_machine(4, 2);  // CPUs 0,1 on die 0; 2,3 on die 1
    for (auto [from, to, expected] : {std::tuple{0u, 1u, 50.0}, std::tuple{0u, 2u, 100.0}}) {
        rig r(m);
        vtime cost = -1;
        r.eng.spawn("owner", {from}, [&] { r.env.atomic_inc(r.counter); }, 0);
        r.eng.spawn("taker", {to}, [&] {
            r.eng.charge(10'000);  // the owner is long done
            const vtime t0 = r.eng.now();
            r.env.atomic_inc(r.counter);
            cost = r.eng.now() - t0;
        }, 0);
        r.eng.run_until(1'000'000);
        INFO("from CPU " << from << " to CPU " << to);
        CHECK(cost == static_cast<vtime>(expected + m.local_rmw_ns));
        CHECK(r.counter.v == 2);
    }
}

TEST_CASE("a line the CPU already owns is a local hit", "[cache]")
{
    rig r(small_machine(2));
    std::vector<vtime> costs;
    r.eng.spawn("t", {0}, [&] {
        for (int i = 0; i < 3; i++) {
            const vtime t0 = r.eng.now();
            r.env.atomic_inc(r.counter);
            costs.push_back(r.eng.now() - t0);
        }
    }, 0);
    r.eng.run_until(1'000'000);
    REQUIRE(costs.size() == 3);
    CHECK(costs[1] == static_cast<vtime>(r.eng.mach().local_rmw_ns));
    CHECK(costs[2] == static_cast<vtime>(r.eng.mach().local_rmw_ns));
}

TEST_CASE("contended RMWs serialize: one transfer per increment", "[cache]")
{
    const machine m = small_machine(8);
    rig r(m);
    const double per_inc = r.hammer(8, 2000);
    CHECK(r.counter.v == 8 * 2000);
    // Every increment moved the line: (transfer + locked op) each, in turn.
    CHECK(per_inc == Approx(m.transfer_ns.same_die + m.local_rmw_ns).epsilon(0.05));
}

TEST_CASE("arm64 far atomics do not move the line", "[cache]")
{
    machine m = small_machine(8);
    m.arch = atomic_arch::arm64_lse;
    m.far_atomic_ns = 9;
    rig r(m);
    const double per_inc = r.hammer(8, 2000);
    CHECK(r.counter.v == 8 * 2000);
    // The home serializes at far_atomic_ns each: far faster than moving it.
    CHECK(per_inc < m.transfer_ns.same_die / 2);
    CHECK(per_inc >= m.far_atomic_ns * 0.95);
}
