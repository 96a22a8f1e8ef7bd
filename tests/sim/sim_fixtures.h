// Small machines for simulator unit tests.
#pragma once

#include <algorithm>

#include "machine/machine.h"
#include "sim/timed/cache.h"
#include "sim/timed/rcu.h"
#include "sim/timed/sim_env.h"

namespace futexsim::test {

// `cpus` CPUs on `dies` dies of one socket, round latencies, HZ=1000.
inline machine small_machine(unsigned cpus, unsigned dies = 1)
{
    machine m;
    m.name = "test";
    for (unsigned c = 0; c < cpus; c++) {
        cpu_topology t;
        t.die = c * dies / cpus;
        t.node = t.die;
        t.core = c;
        m.cpus.push_back(t);
    }
    m.transfer_ns.same_die = 50;
    m.transfer_ns.other_die = 100;
    m.transfer_ns.per_die_hop = 0;
    m.transfer_ns.other_socket = 200;
    m.local_hit_ns = 1;
    m.local_rmw_ns = 10;
    m.lock_hold_ns = 0;
    m.snoop_leg_fraction = 0;
    m.timing_jitter = 0;
    m.kernel_cpi = 0;  // no kernel instructions between accesses
    m.tick_irq_ns = 0;
    m.hz = 1000;
    return m;
}

// An engine with its caches, RCU and the model's environment, and one
// shared counter on its own line.
struct rig {
    sim::engine eng;
    sim::cache_model cache;
    sim::rcu_sim rcu;
    sim::sim_env env;
    sim::sim_env::word<long> counter;
    explicit rig(const machine& m) : eng(m, 1), cache(eng), rcu(eng), env(eng, cache, rcu) {}

    // `tasks` tasks, one per CPU, each atomic_inc the counter `per_task`
    // times; returns the virtual time per increment over the whole run.
    double hammer(unsigned tasks, int per_task)
    {
        vtime last_done = 0;
        for (unsigned c = 0; c < tasks; c++)
            eng.spawn("inc", {c}, [this, per_task, &last_done] {
                for (int i = 0; i < per_task; i++)
                    env.atomic_inc(counter);
                last_done = std::max(last_done, eng.now());
            }, 0);
        eng.run_until(1'000'000'000);
        return static_cast<double>(last_done) / (static_cast<double>(tasks) * per_task);
    }
};

}  // namespace futexsim::test
