// A small simulated run for a workload's tests: the Xeon preset, 4 threads
// on CPUs 0-3, `seconds` of virtual time. Tests of workloads registered
// outside the production list (tests/run, tests/docs) start from it.
#pragma once

#include <string>

#include "machine/machine.h"
#include "run/run_options.h"

namespace futexsim::test {

inline run_options small_xeon_run(const std::string& workload, double seconds)
{
    run_options o;
    o.mach = load_machine_preset("xeon-6975p-snc3");
    o.workload = workload;
    o.threads = 4;
    o.seconds = seconds;
    o.cpus = parse_cpu_list("0-3", o.mach.num_cpus());
    return o;
}

}  // namespace futexsim::test
