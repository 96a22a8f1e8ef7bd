// Runs set up as the real ones of experiments/reference/: the Xeon preset, every thread
// allowed on the 96 CPUs of socket 0.
#pragma once

#include <cstdint>

#include "sim/timed/run.h"

namespace futexsim::test {

inline run_options xeon_socket0(unsigned threads, double seconds, std::uint64_t seed)
{
    run_options o;
    o.mach = load_machine_preset("xeon-6975p-snc3");
    o.cpus = parse_cpu_list("0-95", o.mach.num_cpus());
    o.threads = threads;
    o.seconds = seconds;
    o.seed = seed;
    return o;
}

}  // namespace futexsim::test
