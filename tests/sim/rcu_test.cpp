// Grace periods: when they end, and where and when callbacks run.
#include <catch2/catch.hpp>

#include "sim/timed/cache.h"
#include "sim/timed/rcu.h"
#include "tests/sim/sim_fixtures.h"

using namespace futexsim;
using namespace futexsim::sim;
using futexsim::test::small_machine;

using futexsim::test::rig;

TEST_CASE("an idle machine: the FQS scan ends the grace period", "[rcu]")
{
    rig r(small_machine(4));
    int ran_on = -1;
    vtime ran_at = -1;
    r.eng.spawn("caller", {2}, [&] {
        r.rcu.call_rcu(2, [&] {
            ran_on = static_cast<int>(r.eng.cpu());
            ran_at = r.eng.now();
        });
    }, 0);
    r.eng.run_until(100'000'000);
    REQUIRE(r.rcu.completed() == 1);
    CHECK(ran_on == 2);  // on the CPU that queued it
    const vtime fqs = static_cast<vtime>(r.eng.mach().rcu_fqs_jiffies) * r.eng.tick_ns();
    CHECK(ran_at >= fqs);
    CHECK(ran_at <= fqs + 2 * r.eng.tick_ns());
}

TEST_CASE("cookies: poll_state says whether a full grace period passed", "[rcu]")
{
    rig r(small_machine(2));
    unsigned long cookie = r.rcu.get_state();
    CHECK_FALSE(r.rcu.poll_state(cookie));
    r.eng.spawn("caller", {0}, [&] { r.rcu.call_rcu(0, [] {}); }, 0);
    r.eng.run_until(50'000'000);
    CHECK(r.rcu.poll_state(cookie));
    CHECK_FALSE(r.rcu.poll_state(r.rcu.get_state()));
}

TEST_CASE("a CPU inside a read-side section holds the grace period back", "[rcu]")
{
    machine m = small_machine(2);
    rig r(m);
    bool ran = false;
    r.eng.spawn("reader", {1}, [&] {
        r.eng.current().mode = task_mode::kernel;
        ++r.eng.current().rcu_nesting;
        r.eng.charge(20'000'000);  // 20 ms in a read-side section
        --r.eng.current().rcu_nesting;
        r.eng.charge(5'000'000);
    }, 0);
    r.eng.spawn("caller", {0}, [&] { r.rcu.call_rcu(0, [&] { ran = true; }); }, 1000);
    r.eng.run_until(15'000'000);
    CHECK_FALSE(ran);
    r.eng.run_until(30'000'000);
    CHECK(ran);
}

TEST_CASE("user mode at a tick is a quiescent state", "[rcu]")
{
    rig r(small_machine(1));
    r.eng.spawn("user", {0}, [&] {
        for (;;)
            r.eng.charge(1000);  // always in user mode
    }, 0);
    r.eng.spawn("caller", {0}, [&] { r.rcu.call_rcu(0, [] {}); }, 0);
    r.eng.run_until(10'000'000);
    CHECK(r.rcu.completed() >= 1);
}
