// How long prctl(PR_FUTEX_HASH_SET_SLOTS) blocks while N threads keep
// issuing FUTEX_WAKE: the pivot has to wait for every reference to the old
// hash to be dropped. Written against workload_process, so the very same
// code measures the simulator (virtual time) and the host kernel.
#pragma once

#include <cstdint>
#include <vector>

#include "machine/machine.h"

namespace futexsim::compare {

struct stall_samples {
    std::vector<double> ms;  // one per completed SET_SLOTS, in order
    unsigned wanted = 0;
    bool incomplete = false;  // a SET_SLOTS was still blocked when time ran out
};

// On the host kernel: `wakers` threads loop FUTEX_WAKE on words nobody
// waits on; the main thread sets the slots `samples` times, alternating
// between two sizes, with a 1 ms pause between. Needs PR_FUTEX_HASH. After
// `limit_s` seconds the wakers are stopped (a kernel whose pivot latches
// would otherwise block for ever) and the sample in flight is dropped.
stall_samples measure_set_slots_kernel(unsigned wakers, unsigned samples, double limit_s);
// The same on the simulator's `mach`, within `limit_s` virtual seconds.
stall_samples measure_set_slots_sim(const machine& mach, unsigned wakers, unsigned samples,
                                    double limit_s, std::uint64_t seed);

}  // namespace futexsim::compare
