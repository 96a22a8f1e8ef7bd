// `futexsim run`'s command line as parsed (run_args) and what is checked
// before a run: the flags against the backend, and what every backend
// checks the same way (the CPU list, the hash size, the bins, the
// workload's flags). cli/run_command.cpp declares the flags and runs.
#pragma once

#include <string>
#include <vector>

#include "cli/detector_flags.h"
#include "cli/workload_flags.h"
#include "model/kernel_version.h"
#include "run/run_options.h"
#include "sim/timed/run.h"

namespace futexsim::cli {

// The options bound straight into the run's run_options and the
// simulator's own sim_options, plus what only the command line has (names
// and lists still to be resolved, the number of runs, the output format).
struct run_args {
    run_options opt;
    sim::sim_options sim;
    workload_flags workload;   // --locks, --mix, ...: declared by the workloads
    detector_flags detectors;  // the progress detectors' bounds (sim only)
    bool fail_on_warning = false;
    std::string machine = "xeon-6975p-snc3";
    std::string machine_file;
    std::string machine_file_hash;  // a sweep's run: what the sweep hashed
    std::string cpus;
    std::string strategy = "fifo";
    std::string schedule;
    std::string trace_window;
    unsigned trace_max_mb = 1024;  // docs/tracing.md: the 0:120 stall example writes 403 MB
    unsigned runs = 1;
    bool json = false;
    bool exact = false;  // --exact: no fast-forward
    std::string backend = "sim";
    std::vector<std::string> sim_only_flags;  // given flags that only the simulator takes
    bool policy_given = false;
    std::string kernel{model::kernel_version_name(model::default_kernel_version)};
    bool kernel_given = false;
    bool pct_depth_given = false;
    bool cpus_given = false;  // --cpus '' is refused, not read as "all CPUs"
    bool trace_max_given = false;
};

// --presize: the kernel takes any power of two its allocator can hold (2^24
// slots, 1 GiB of buckets), and the model allocates what it is asked for.
// Auto-sizing never asks for more than 4 x threads (16384 at 4096 threads);
// 2^20 slots leaves room to try far bigger hashes by hand and keeps a run
// under 200 MB (170 MB on the simulator, 130 MB on the threads backend).
inline constexpr unsigned max_presize = 1u << 20;
// Per-interval bins a run may have (--seconds / --interval-ms), and the
// real backends' bins x threads (one array of 8-byte counters per thread):
// enough for an hour at 10 ms, or 60 s at 2 ms with 1024 threads.
inline constexpr double max_bins = 1e6;
inline constexpr double max_real_bin_words = 1 << 25;

// --trace-window START:END, virtual milliseconds, 0 <= START < END, and
// START within the run (`run_ms` long): a window past its end would write
// an empty trace.
void parse_trace_window(const std::string& text, double run_ms, sim::sim_options& opt);
// The same file as `path`, when both exist (a link or another spelling of
// the same name included).
bool same_file(const std::string& a, const std::string& b);
// The real backends run on this machine: no preset, no seed, no schedule
// strategy (the OS schedules); the kernel backend runs the host's futex
// code, so no model policy either.
void check_backend_flags(const run_args& a);
// What every backend checks the same way: the CPU list, the hash size, the
// bins, and the workload's own flags (workload_flags); applies the last.
void check_common(run_args& a, unsigned num_cpus);

}  // namespace futexsim::cli
