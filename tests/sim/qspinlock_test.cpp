// sim_env's spinlock, the kernel's queued spinlock (kernel/locking/qspinlock.c):
// once a CPU has queued, nobody overtakes it, so a waiter waits for the
// queue ahead of it and no longer; a lone locker takes the fast path.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "tests/sim/sim_fixtures.h"

using namespace futexsim;
using futexsim::vtime;

namespace {

// `tasks` tasks, one per CPU over two dies, each taking the lock `rounds`
// times, holding it 200 ns and pausing 30 ns between rounds (less than a
// transfer: each is back before the lock has moved on). For each
// acquisition, how many acquisitions by others came between its
// spin_lock() call and its own.
struct lock_storm {
    test::rig r;
    sim::sim_env::spinlock_t lock;
    std::vector<unsigned> order;  // who took the lock, in order
    std::vector<unsigned> worst_overtakes;
    std::vector<int> done;

    lock_storm(unsigned tasks, int rounds) : r(test::small_machine(tasks, 2))
    {
        worst_overtakes.assign(tasks, 0);
        done.assign(tasks, 0);
        for (unsigned c = 0; c < tasks; c++)
            r.eng.spawn("locker", {c}, [this, c, rounds] {
                for (int i = 0; i < rounds; i++) {
                    const std::size_t before = order.size();
                    r.env.spin_lock(lock);
                    const auto others = static_cast<unsigned>(order.size() - before);
                    worst_overtakes[c] = std::max(worst_overtakes[c], others);
                    order.push_back(c);
                    r.eng.charge(200);
                    r.env.spin_unlock(lock);
                    r.eng.charge(30);
                }
                done[c] = 1;
            }, 0);
        r.eng.run_until(1'000'000'000);
    }
};

}  // namespace

TEST_CASE("qspinlock: a waiter is overtaken at most by the queue ahead of it", "[sim][qspinlock]")
{
    const unsigned tasks = 8;
    lock_storm s(tasks, 200);
    CHECK(std::count(s.done.begin(), s.done.end(), 1) == static_cast<long>(tasks));
    REQUIRE(s.order.size() == tasks * 200);
    // Before it queues, a locker may lose the pending bit and one trylock
    // to others; once its tail is published, only the tasks queued ahead
    // of it (at most one acquisition each) and the pending owner go first.
    const unsigned bound = 2 * (tasks - 1);
    for (unsigned c = 0; c < tasks; c++) {
        INFO("CPU " << c << " was overtaken " << s.worst_overtakes[c] << " times");
        CHECK(s.worst_overtakes[c] <= bound);
    }
}

TEST_CASE("qspinlock: the lock is never held twice, and an uncontended lock costs one RMW",
          "[sim][qspinlock]")
{
    test::rig r{test::small_machine(4, 2)};
    sim::sim_env::spinlock_t lock;
    int holders = 0;
    int worst = 0;
    for (unsigned c = 0; c < 3; c++)
        r.eng.spawn("locker", {c}, [&] {
            for (int i = 0; i < 100; i++) {
                r.env.spin_lock(lock);
                worst = std::max(worst, ++holders);
                r.eng.charge(50);
                --holders;
                r.env.spin_unlock(lock);
            }
        }, 0);
    r.eng.run_until(1'000'000'000);
    CHECK(worst == 1);

    // Alone, on its own line: a cmpxchg to take it, a store to let go, each
    // a local RMW (10 ns on the small machine) once the line is here.
    test::rig alone{test::small_machine(1)};
    sim::sim_env::spinlock_t l2;
    vtime cost = -1;
    alone.eng.spawn("alone", {0}, [&] {
        alone.env.spin_lock(l2);  // the first touch brings the line
        alone.env.spin_unlock(l2);
        const vtime t0 = alone.eng.now();
        alone.env.spin_lock(l2);
        alone.env.spin_unlock(l2);
        cost = alone.eng.now() - t0;
    }, 0);
    alone.eng.run_until(1'000'000'000);
    CHECK(cost == 2 * 10);
}

TEST_CASE("a write hit takes effect before its own charge, which may yield", "[sim][qspinlock]")
{
    // The bucket lock shares its line with the bucket's waiter count: a
    // FUTEX_WAKE decrements the count (a locked RMW, after which the line
    // stays held by its CPU for lock_hold_ns) and unlocks right after, a
    // hit. A spinner's re-read that comes meanwhile queues behind the held
    // window. Here the hit's own charge crosses the tick (a 5 us handler)
    // and a read from another CPU is served during it, once the line is no
    // longer held: it must see what the hit wrote. Seeing the
    // old value, a spinner went back to spinning on a free lock for ever.
    machine m = test::small_machine(2);
    m.tick_irq_ns = 5000;
    m.lock_hold_ns = 2000;
    m.local_rmw_ns = 500;
    const vtime tick = 1'000'000;  // HZ=1000
    test::rig r{m};
    struct alignas(64) padded {
        sim::sim_env::word<long> w;
    } probe, word;
    vtime written_at = 0, write_done = 0, read_done = 0;
    long seen = -1;
    r.eng.spawn("writer", {0}, [&] {
        const vtime t0 = r.eng.now();
        r.env.atomic_inc(probe.w);  // a cold line's latency, as word's will be
        const vtime cold = r.eng.now() - t0;
        r.eng.charge(tick - 100 - cold - r.eng.now());
        r.env.atomic_inc(word.w);  // held from here for 2 us
        written_at = r.eng.now();
        r.env.atomic_set(word.w, 42L);  // a hit whose 500 ns cross the tick
        write_done = r.eng.now();
    }, 0);
    // Started after the tick on an idle CPU (no tick of its own to take).
    r.eng.spawn("reader", {1}, [&] {
        seen = r.env.atomic_read(word.w);
        read_done = r.eng.now();
    }, tick + 100);
    r.eng.run_until(10'000'000);
    // The case this test is about: the write began before the tick, its
    // charge paid the handler, and the read was served before that ended.
    REQUIRE(written_at < tick);
    REQUIRE(write_done > tick + 5000);
    REQUIRE(read_done < write_done);
    CHECK(seen == 42);
}
