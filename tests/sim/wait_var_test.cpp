// sim_env's two var waits with a condition that sleeps (a mutex), as
// futex_pivot_pending() does since 8e7ff730dd96: a wake_up_var() that comes
// while the condition sleeps on the mutex must not be lost, and only
// wait_var_event() (whose condition runs !TASK_RUNNING) trips might_sleep().
#include <catch2/catch.hpp>

#include "tests/sim/sim_fixtures.h"

using namespace futexsim;
using futexsim::vtime;

namespace {

struct sleeping_condition_rig {
    test::rig r{test::small_machine(3)};
    sim::sim_env::mutex_t lock;
    bool ready = false;
    int var = 0;
    vtime done_at = -1;

    // The waiter reads `ready` (false), then sleeps on the mutex the holder
    // keeps for 10 us; meanwhile the waker sets `ready` and wakes the var.
    // The condition returns the stale false: only a kept wake-up makes the
    // waiter look again.
    template <class Wait>
    void run(Wait wait)
    {
        auto cond = [this] {
            const bool seen = ready;
            r.env.mutex_lock(lock);
            r.env.mutex_unlock(lock);
            return seen;
        };
        r.eng.spawn("holder", {0}, [this] {
            r.env.mutex_lock(lock);
            r.eng.charge(10'000);
            r.env.mutex_unlock(lock);
        }, 0);
        r.eng.spawn("waiter", {1}, [this, wait, cond] {
            r.eng.charge(1'000);
            wait(cond);
            done_at = r.eng.now();
        }, 0);
        r.eng.spawn("waker", {2}, [this] {
            r.eng.charge(5'000);
            ready = true;
            r.env.wake_up_var(&var);
        }, 0);
        r.eng.run_until(1'000'000'000);
    }
};

}  // namespace

TEST_CASE("wait_var_event: a wake that comes while the condition sleeps is kept; might_sleep() warns",
          "[sim][wait_var]")
{
    sleeping_condition_rig t;
    t.run([&t](auto cond) { t.r.env.wait_var_event(&t.var, cond); });
    CHECK(t.done_at > 10'000);  // after the holder let go, not never
    REQUIRE(t.r.env.warnings.size() == 1);
    CHECK(t.r.env.warnings[0].find("!TASK_RUNNING") != std::string::npos);
}

TEST_CASE("wait_var_woken: a wake that comes while the condition sleeps is kept; no warning", "[sim][wait_var]")
{
    sleeping_condition_rig t;
    t.run([&t](auto cond) { t.r.env.wait_var_woken(&t.var, cond); });
    CHECK(t.done_at > 10'000);
    CHECK(t.r.env.warnings.empty());
}
