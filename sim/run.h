// One simulated run: options in, figures out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/kernel_version.h"
#include "sim/machine.h"
#include "sim/schedule.h"

namespace futexsim::sim {

struct run_options {
    machine mach;
    std::string workload = "wake-nowaiters";
    std::string policy = "stock";
    bool precheck = false;                 // futex_wait_setup() reads the word before locking
    model::kernel_version kernel = model::default_kernel_version;  // whose futex code runs
    unsigned threads = 96;
    double seconds = 1.0;                  // virtual seconds
    std::optional<unsigned> presize;       // prctl(SET_SLOTS, n) before any thread
    bool global_hash = false;              // prctl(SET_SLOTS, 0) before any thread
    std::vector<unsigned> cpus;            // affinity of every thread; empty: all
    double ramp_ms = 0;                    // spread thread creation over this long
    unsigned locks = 1;                    // mutex: how many locks
    std::string unlock = "store_wake";     // mutex: store_wake | xchg
    double mix_woken = 88.6, mix_timeout = 9.5, mix_mismatch = 1.9;  // mixed-wait, percent
    unsigned start_threads = 16;           // pool-growth: threads before the pool grows
    std::uint64_t work_ops = 0;            // mutex: a fixed amount of work; 0 = run for `seconds`
    std::uint64_t seed = 1;
    double interval_ms = 10;               // per-interval throughput bins
    strategy_options strategy;             // which queued task runs next; seed: `seed`
    // --trace: a trace-event JSON file of the run (sim/trace_writer.h), of
    // what happens in [trace_start_ms, trace_end_ms] virtual milliseconds;
    // trace_end_ms < 0: the end of the measured run.
    std::string trace_path;
    double trace_start_ms = 0, trace_end_ms = -1;
};

// "latched": a pivot was still pending at the end and had been for at least
// half the run. "transient": every pivot completed, but one took longer than
// 10 grace periods (10 times the run's mean grace period, in time). "never":
// every pivot completed within that.
struct run_result {
    // "sim", or a real backend ("threads", "kernel"): which fields mean
    // something (report.cpp leaves out the rest, docs/backends.md).
    std::string backend = "sim";
    bool interrupted = false;  // cut short by SIGINT: `seconds` is how far it got
    std::string machine, policy, workload;
    bool precheck = false;
    std::string kernel;
    unsigned threads = 0;
    double seconds = 0;
    std::uint64_t seed = 0;
    int slots_start = 0, slots_set = 0, slots_end = 0;
    double mops = 0;
    double interval_ms = 0;
    std::vector<double> per_interval_mops;
    // Per interval, the share of hash references taken on the shared atomic
    // (FR_ATOMIC) rather than per-CPU; the simulator only.
    std::vector<double> per_interval_atomic_share;
    std::uint64_t ops = 0;
    std::uint64_t ref_get_percpu = 0, ref_get_atomic = 0;
    std::uint64_t pivots_requested = 0, pivots_completed = 0;
    bool pivot_pending_at_end = false;
    double pending_ms_at_end = 0;
    double longest_pivot_ms = 0;
    unsigned long longest_pivot_gps = 0;
    std::string outcome;
    unsigned long grace_periods = 0;
    double mean_gp_ms = 0;
    std::uint64_t events = 0;
    std::uint64_t trace_hash = 0;
    std::vector<std::string> warnings;
    // Workload phases (pool-growth): throughput and slots per phase.
    struct phase {
        std::string name;
        double start_ms = 0, end_ms = 0, mops = 0;
        int slots_start = 0, slots_end = 0;
    };
    std::vector<phase> phases;
    double work_ms = -1;  // time to finish --ops (mutex); -1 if not asked or not finished
    double wall_seconds = 0;

    double atomic_fraction() const
    {
        const auto total = ref_get_percpu + ref_get_atomic;
        return total ? static_cast<double>(ref_get_atomic) / static_cast<double>(total) : 0.0;
    }
};

// A result whose header (what was asked for: machine, policy, workload,
// threads, length, seed, bin width) is filled from the options; every
// backend starts from it.
run_result result_header(const run_options& opt);

// Throws std::invalid_argument for options the workload cannot take.
run_result simulate(const run_options& opt);

}  // namespace futexsim::sim
