// `futexsim demo`: the scripted walk through one pivot, step by step.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/numbers.h"
#include "sim/step/step_demo.h"

namespace futexsim::cli {

void register_demo(CLI::App& app)
{
    auto opt = std::make_shared<sim::step_demo_options>();
    CLI::App* sub = app.add_subcommand(
        "demo", "Walk one auto-scale pivot through the refcount state machine, step by step, "
                "with grace periods ended by the script (no timing)");
    sub->footer("Prints: the script's setting, then one numbered line per step (the operation, what the model\n"
                "did, the hash's state: slots, refcount mode, futex_atomic, the per-CPU sum), and at the end\n"
                "the slots before the pool grew and after.");
    // The hash a clone asks for is 4 x min(threads, CPUs) slots, at least
    // 16, which is what the process starts with: below 5 threads or 5 CPUs
    // there is nothing to pivot to.
    sub->add_option("--cpus", opt->cpus, "Online CPUs of the scripted machine (from 5: fewer ask for no bigger hash)")
        ->transform(whole_number(5, 4096))
        ->capture_default_str();
    sub->add_option("--threads", opt->threads, "Threads the pool grows to (from 5: fewer ask for no bigger hash)")
        ->transform(whole_number(5, 100000))
        ->capture_default_str();
    add_command(sub, [opt] { return sim::run_step_demo(*opt, std::cout); });
}

}  // namespace futexsim::cli
