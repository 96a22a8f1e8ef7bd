// `futexsim demo`: the scripted walk through one pivot, step by step.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "sim/step_demo.h"

namespace futexsim::cli {

void register_demo(CLI::App& app)
{
    auto opt = std::make_shared<sim::step_demo_options>();
    CLI::App* sub = app.add_subcommand(
        "demo", "Walk one auto-scale pivot through the refcount state machine, step by step, "
                "with grace periods ended by the script (no timing)");
    sub->add_option("--cpus", opt->cpus, "Online CPUs of the scripted machine")
        ->check(CLI::Range(2u, 4096u))
        ->capture_default_str();
    sub->add_option("--threads", opt->threads, "Threads the pool grows to")
        ->check(CLI::Range(2u, 100000u))
        ->capture_default_str();
    add_command(sub, [opt] { return sim::run_step_demo(*opt, std::cout); });
}

}  // namespace futexsim::cli
