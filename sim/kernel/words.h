// The shared-word types of the environments that step the model one call at
// a time (sim/step/step_env.h, sim/explore/explore_env.h): plain values, since
// those environments run one task at a time and order every access
// themselves. (The timed simulator's words carry a cache line each,
// sim/timed/sim_env.h; the threads backend's are real atomics.)
#pragma once

#include <vector>

namespace futexsim::sim::kernel {

template <class T>
struct plain_word {
    T v{};
};

// A per-CPU counter: one slot per CPU.
struct plain_percpu_uint {
    std::vector<unsigned> v;
};

}  // namespace futexsim::sim::kernel
