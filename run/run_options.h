// What a run is asked for, whichever backend runs it (the simulator, or
// real threads on this machine): the workload and its parameters, the
// threads, the length, the hash size, the policy. What only the simulator
// takes (schedule strategy, trace file) is sim::sim_options (sim/timed/run.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "machine/machine.h"
#include "model/kernel_version.h"
#include "run/workloads/workload_params.h"

namespace futexsim {

struct run_options {
    machine mach;                          // simulated machine (the real backends run on this one)
    std::string workload = "wake-nowaiters";
    workload_params params;                // the workload's own flags (--locks, --mix, ...)
    std::string policy = "stock";
    bool precheck = false;                 // futex_wait_setup() reads the word before locking
    model::kernel_version kernel = model::default_kernel_version;  // whose futex code runs
    unsigned threads = 96;
    double seconds = 1.0;                  // virtual seconds
    std::optional<unsigned> presize;       // prctl(SET_SLOTS, n) before any thread
    bool global_hash = false;              // prctl(SET_SLOTS, 0) before any thread
    std::vector<unsigned> cpus;            // affinity of every thread; empty: all
    double ramp_ms = 0;                    // spread thread creation over this long
    std::uint64_t seed = 1;
    double interval_ms = 10;               // per-interval throughput bins
};

}  // namespace futexsim
