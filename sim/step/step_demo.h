// The scripted walk through one pivot on the step environment, printed
// step by step: what `futexsim demo` shows.
#pragma once

#include <ostream>

namespace futexsim::sim {

struct step_demo_options {
    unsigned cpus = 96;
    unsigned threads = 96;
};

// Returns 0 when the walk ended with the bigger hash installed.
int run_step_demo(const step_demo_options& opt, std::ostream& out);

}  // namespace futexsim::sim
