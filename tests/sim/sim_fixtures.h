// Small machines for simulator unit tests.
#pragma once

#include "sim/machine.h"

namespace futexsim::test {

// `cpus` CPUs on `dies` dies of one socket, round latencies, HZ=1000.
inline sim::machine small_machine(unsigned cpus, unsigned dies = 1)
{
    sim::machine m;
    m.name = "test";
    for (unsigned c = 0; c < cpus; c++) {
        sim::cpu_topology t;
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
    m.kernel_step_ns = 0;
    m.hz = 1000;
    return m;
}

}  // namespace futexsim::test
