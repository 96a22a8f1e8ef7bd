// The throughput a run reports, from its op counter and the phases its
// workload marked: the same arithmetic whichever backend ran the workload.
#pragma once

#include "run/op_counter.h"
#include "run/run_result.h"
#include "run/workloads/workload.h"

namespace futexsim {

// The throughput fields of `r` (ops, mops, per-interval bins, phases,
// work_ms) from what the workload counted over a run of `seconds`;
// `slots_now` closes the last phase. Every backend reports the same way.
void fill_throughput(run_result& r, const workload_context& ctx, const op_counter& ops, double seconds,
                     int slots_now);

// A fixed amount of work (--ops) that the run's --seconds did not see done:
// a warning in `r`, since its mops then cover the window, not the work.
void warn_unfinished_work(run_result& r, const workload_context& ctx);

}  // namespace futexsim
