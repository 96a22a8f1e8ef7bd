// One simulated run: the run layer's options in, its result out
// (run/run_options.h, run/run_result.h).
#pragma once

#include <string>

#include "run/run_options.h"
#include "run/run_result.h"
#include "sim/schedule.h"
#include "sim/timed/progress_watch.h"

namespace futexsim::sim {

// The engine's own counters, for benchmarks (bench/sim_bench.cpp); not in
// the run's JSON, which says what was simulated, not how.
struct sim_counters {
    std::uint64_t events = 0;         // events the loop processed
    std::uint64_t line_services = 0;  // cache-line accesses that queued for their line
    std::uint64_t line_hits = 0;      // accesses served locally
};

// What only the simulator takes, beside run_options.
struct sim_options {
    strategy_options strategy;  // which queued task runs next; seed: the run's
    // --trace: a trace-event JSON file of the run (sim/timed/trace_writer.h), of
    // what happens in [trace_start_ms, trace_end_ms] virtual milliseconds;
    // trace_end_ms < 0: the end of the measured run.
    std::string trace_path;
    double trace_start_ms = 0, trace_end_ms = -1;
    // Once the file holds this many bytes the trace ends (its open slices
    // cut there) and the run warns; 0: no cap. A trace of many threads
    // grows by tens of MB per virtual millisecond.
    std::uint64_t trace_max_bytes = 0;
    // false: no fast path (engine_config::fast_paths); the same result,
    // byte for byte, only slower.
    bool fast_paths = true;
    sim_counters* counters = nullptr;  // filled at the end of the run if set
    // Extrapolate a stationary run once its rate is known (sim/timed/fast_forward.h);
    // false (--exact): simulate every operation. A traced run is always exact.
    bool fast_forward = true;
    // The progress detectors' bounds (sim/timed/progress_watch.h): their warnings
    // go into the result's; with stop_at_first the first stops the run.
    progress_limits detectors;
};

// Throws std::invalid_argument for options the workload cannot take.
run_result simulate(const run_options& opt, const sim_options& sopt = {});

}  // namespace futexsim::sim
