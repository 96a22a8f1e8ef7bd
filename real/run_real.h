// One run of a workload on a real backend: the same options and result as
// the simulator (run/run_options.h, run/run_result.h), in wall-clock time
// on this machine.
#pragma once

#include "run/run_options.h"
#include "run/run_result.h"

namespace futexsim::real {

enum class backend { threads, kernel };

// Throws std::invalid_argument for options this backend cannot take (too
// many threads, too long, --presize on a kernel without PR_FUTEX_HASH).
// Every thread it created has been joined when it returns or throws; a
// SIGINT ends the run early (result.interrupted).
run_result run_real(const run_options& opt, backend b);

}  // namespace futexsim::real
