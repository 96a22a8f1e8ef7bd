// The cache-line model: what an access costs and how contention serializes.
#include <catch2/catch.hpp>

#include "sim/timed/cache.h"
#include "sim/timed/rcu.h"
#include "sim/timed/sim_env.h"
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

TEST_CASE("a load then a cmpxchg on a line another CPU wrote: two transfers, or one where a read migrates it",
          "[cache]")
{
    // The pattern of atomic_long_inc_not_zero(): a plain read, then a locked
    // cmpxchg on the value read.
    for (const auto rule : {modified_read_rule::share, modified_read_rule::migrate}) {
        machine m = small_machine(4, 2);  // CPUs 0,1 on die 0; 2,3 on die 1
        m.modified_read = rule;
        rig r(m);
        vtime cost = -1;
        r.eng.spawn("writer", {0}, [&] { r.env.atomic_inc(r.counter); }, 0);
        r.eng.spawn("reader", {2}, [&] {
            r.eng.charge(10'000);  // the writer is long done
            const vtime t0 = r.eng.now();
            long old = r.env.atomic_read(r.counter);
            CHECK(r.env.atomic_try_cmpxchg(r.counter, old, old + 1));
            cost = r.eng.now() - t0;
        }, 0);
        r.eng.run_until(1'000'000);
        const double transfer = m.transfer_ns.other_die;
        INFO((rule == modified_read_rule::share ? "share" : "migrate"));
        CHECK(r.counter.v == 2);
        if (rule == modified_read_rule::share)  // S in both, then the upgrade
            CHECK(cost == static_cast<vtime>(transfer + m.local_hit_ns) + static_cast<vtime>(transfer + m.local_rmw_ns));
        else  // the line arrived exclusive: the cmpxchg is local
            CHECK(cost == static_cast<vtime>(transfer + m.local_hit_ns) + static_cast<vtime>(m.local_rmw_ns));
    }
}

TEST_CASE("a read that migrates a written line leaves it clean: the next reader shares it", "[cache]")
{
    machine m = small_machine(4, 2);
    m.modified_read = modified_read_rule::migrate;
    rig r(m);
    vtime second_read = -1, third_read = -1;
    r.eng.spawn("writer", {0}, [&] { r.env.atomic_inc(r.counter); }, 0);
    r.eng.spawn("reader1", {2}, [&] {
        r.eng.charge(10'000);
        (void)r.env.atomic_read(r.counter);
    }, 0);
    r.eng.spawn("reader2", {1}, [&] {
        r.eng.charge(20'000);
        vtime t0 = r.eng.now();
        (void)r.env.atomic_read(r.counter);
        second_read = r.eng.now() - t0;
        t0 = r.eng.now();
        (void)r.env.atomic_read(r.counter);
        third_read = r.eng.now() - t0;
    }, 0);
    r.eng.run_until(1'000'000);
    // Fetched once from CPU 2 (other die), then a hit: reader 1 kept a copy.
    CHECK(second_read == static_cast<vtime>(m.transfer_ns.other_die + m.local_hit_ns));
    CHECK(third_read == static_cast<vtime>(m.local_hit_ns));
}
