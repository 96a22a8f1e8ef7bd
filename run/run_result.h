// What a run reports, whichever backend ran it; run/report.h prints it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "run/run_options.h"

namespace futexsim {

// `outcome` is latched, transient or never, by the one rule of
// run/outcome.h.
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
    // How far a stall is from draining; the simulator only. Per interval,
    // the lowest number of references the shared count held just after a
    // successful atomic get (none where no such get); over the run, those
    // gets and the counts' lowest value and 0.1%, 1%, 50% and 99%
    // quantiles. Counted once the bias is folded out of the count.
    std::vector<std::optional<long>> per_interval_atomic_refs_min;
    struct refs_at_get {
        std::uint64_t gets = 0;
        std::optional<long> min, p0_1, p1, p50, p99;
    };
    refs_at_get atomic_refs;
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
    // Fast-forward (simulator, unless --exact): the run was simulated up to
    // extrapolated_from_ms and extrapolated from there at the stationary
    // rate mops_stationary, whose 95% half width is mops_ci95; -1:
    // simulated to the end.
    double extrapolated_from_ms = -1;
    double mops_stationary = 0;
    double mops_ci95 = 0;
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

}  // namespace futexsim
