// The engine: virtual time, blocking and waking, CPUs shared by tasks.
#include <catch2/catch.hpp>

#include <vector>

#include "sim/timed/engine.h"
#include "tests/sim/sim_fixtures.h"

using namespace futexsim;
using namespace futexsim::sim;
using futexsim::test::small_machine;

TEST_CASE("a task's time is the sum of what it was charged", "[engine]")
{
    engine e(small_machine(2), 1);
    const auto cs = static_cast<vtime>(e.mach().context_switch_ns);
    vtime started = -1;
    vtime finished = -1;
    e.spawn("t", {0}, [&] {
        started = e.now();
        for (int i = 0; i < 10; i++)
            e.charge(1000);
        finished = e.now();
    }, 500);
    e.run_until(1'000'000);
    CHECK(started == 500 + cs);  // the idle CPU switches to it
    CHECK(finished == started + 10 * 1000);
}

TEST_CASE("teardown unwinds tasks that switched to each other, and tasks that never ran", "[engine]")
{
    struct count_unwind {
        int& n;
        ~count_unwind() { ++n; }
    };
    int unwound = 0;
    {
        engine e(small_machine(2), 1);
        // Three tasks take turns on CPU 0: each preempted one switches
        // straight to the next (engine::leave()).
        for (int i = 0; i < 3; i++)
            e.spawn("busy", {0}, [&] {
                count_unwind c{unwound};
                for (;;)
                    e.charge(1000);
            }, 0);
        // Never runs: under ucontext fibers (the ASan build) its fiber is
        // entered to be unwound, and must find its way back.
        e.spawn("late", {1}, [&] { count_unwind c{unwound}; }, 1'000'000'000);
        e.run_until(20'000'000);
    }
    CHECK(unwound == 3);
}

TEST_CASE("a task woken onto its idle CPU runs after the switch back in", "[engine]")
{
    engine e(small_machine(2), 1);
    const auto cs = static_cast<vtime>(e.mach().context_switch_ns);
    task* sleeper = nullptr;
    vtime resumed = -1;
    vtime woken = -1;
    sleeper = &e.spawn("sleeper", {0}, [&] {
        e.block();
        resumed = e.now();
    }, 0);
    e.spawn("waker", {1}, [&] {
        e.charge(5000);
        woken = e.now();
        e.wake(*sleeper, woken);
    }, 0);
    e.run_until(1'000'000);
    // Long after CPU 0 went idle: one switch, from the idle task to it.
    CHECK(resumed == woken + cs);
}

TEST_CASE("a task woken while its CPU still switches it out waits for both switches", "[engine]")
{
    engine e(small_machine(2), 1);
    const auto cs = static_cast<vtime>(e.mach().context_switch_ns);
    REQUIRE(cs > 100);
    task* sleeper = nullptr;
    vtime blocked = -1;
    vtime resumed = -1;
    sleeper = &e.spawn("sleeper", {0}, [&] {
        blocked = e.now();
        e.block();
        resumed = e.now();
    }, 0);
    e.spawn("waker", {1}, [&] {
        e.sync();  // let the sleeper block first (both start at the same time)
        e.charge(100);
        e.sync();
        e.wake(*sleeper, e.now());
    }, 0);
    e.run_until(1'000'000);
    // Woken 100 ns after it slept: its switch-out ends at blocked + cs, then
    // the idle CPU switches back to it.
    CHECK(resumed == blocked + 2 * cs);
}

TEST_CASE("tasks sharing one CPU take turns at the tick", "[engine]")
{
    engine_config cfg;
    cfg.sched_slice_ns = 3'000'000;
    engine e(small_machine(1), 1, cfg);
    std::vector<long> work(2, 0);
    for (int i = 0; i < 2; i++)
        e.spawn("spinner", {0}, [&e, &work, i] {
            for (;;) {
                e.charge(1000);
                ++work[static_cast<std::size_t>(i)];
            }
        }, 0);
    e.run_until(100'000'000);
    // Each got a fair share of 100 ms: about 50'000 units of 1 us.
    CHECK(work[0] > 40'000);
    CHECK(work[1] > 40'000);
    CHECK(work[0] + work[1] < 100'000);
}

TEST_CASE("affinity is respected and new threads spread over LLC domains", "[engine]")
{
    engine e(small_machine(6, 3), 7);
    std::vector<int> cpu_of(3, -1);
    for (int i = 0; i < 3; i++)
        e.spawn("t", {0, 1, 2, 3, 4, 5}, [&e, &cpu_of, i] {
            cpu_of[static_cast<std::size_t>(i)] = static_cast<int>(e.cpu());
            e.block();
        }, 0);
    int pinned_cpu = -1;
    e.spawn("pinned", {4}, [&] { pinned_cpu = static_cast<int>(e.cpu()); }, 0);
    e.run_until(1'000'000);
    CHECK(pinned_cpu == 4);
    std::vector<unsigned> dies;
    for (int c : cpu_of)
        dies.push_back(e.mach().cpus[static_cast<std::size_t>(c)].die);
    std::sort(dies.begin(), dies.end());
    CHECK(dies == std::vector<unsigned>{0, 1, 2});
}

TEST_CASE("the same seed gives the same schedule", "[engine][determinism]")
{
    auto run = [](std::uint64_t seed) {
        engine e(small_machine(4, 2), seed);
        std::vector<unsigned> cpus;
        for (int i = 0; i < 4; i++)
            e.spawn("t", {0, 1, 2, 3}, [&e, &cpus] { cpus.push_back(e.cpu()); }, 0);
        e.run_until(1'000'000);
        return cpus;
    };
    CHECK(run(3) == run(3));
}

TEST_CASE("a CPU going idle pulls a waiting task from a busy one", "[engine]")
{
    // Two CPUs, three busy tasks: one queues. When the task on the other CPU
    // sleeps, that CPU takes the queued one instead of idling.
    engine e(small_machine(2), 1);
    std::vector<std::vector<unsigned>> seen(3);
    for (int i = 0; i < 3; i++)
        e.spawn("t", {0, 1}, [&e, &seen, i] {
            for (int k = 0; k < 2000; k++) {
                e.charge(1000);
                auto& s = seen[static_cast<std::size_t>(i)];
                if (s.empty() || s.back() != e.cpu())
                    s.push_back(e.cpu());
                if (i == 0 && k == 10)
                    e.block();  // sleeps for good: its CPU must not stay idle
            }
        }, 0);
    e.run_until(1'000'000);  // 1 ms: before any time-slice switch
    // Tasks 1 and 2 both ran within the first millisecond.
    CHECK_FALSE(seen[1].empty());
    CHECK_FALSE(seen[2].empty());
}

TEST_CASE("a task woken onto an idle CPU waits for it to leave its idle state", "[engine]")
{
    machine m = small_machine(2);
    m.idle_states = {{"C1", 1'000, 1'000}, {"C6", 100'000, 500'000}};
    CHECK(m.idle_exit_ns(500) == 0);        // too short for any state
    CHECK(m.idle_exit_ns(2'000) == 1'000);  // C1
    CHECK(m.idle_exit_ns(1e9) == 100'000);  // C6
    engine e(m, 1);
    const auto cs = static_cast<vtime>(m.context_switch_ns);
    vtime first = -1, second = -1;
    task* sleeper = nullptr;
    sleeper = &e.spawn("sleeper", {1}, [&] {
        first = e.now();  // CPU 1 was idle before the run: the deepest state
        e.block();
        second = e.now();
    }, 0);
    e.spawn("waker", {0}, [&] {
        // The waker too starts at 100 us, from CPU 0's deepest state; CPU 1
        // then idles about 200 us after the sleeper blocks: C1 only.
        CHECK(e.now() == 100'000 + cs);
        e.charge(200'000);
        e.sync();
        e.wake(*sleeper, e.now());
    }, 0);
    e.run_until(10'000'000);
    CHECK(first == 100'000 + cs);
    // The wake at 300 us + cs: C1's exit, then the switch from idle.
    CHECK(second == 300'000 + cs + 1'000 + cs);
}
