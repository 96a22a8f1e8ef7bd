// `futexsim replay`: run one explorer case (the form a failing property
// prints) and print its step-by-step trace: which task, which CPU, which
// model function, and the refcount state after each step.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <limits>
#include <memory>

#include "cli/case_check.h"
#include "cli/commands.h"
#include "cli/numbers.h"
#include "model/core.h"
#include "run/stop_signal.h"
#include "sim/explore/explore_run.h"

namespace futexsim::cli {

namespace {

struct replay_args {
    sim::explore::run_config cfg;
    std::string case_text;
    std::string kernel{model::kernel_version_name(model::default_kernel_version)};
    std::string strategy = "random";
    std::string schedule;
    std::string check = "none";
    bool quiet = false;
    bool pct_depth_given = false;
};

int replay(replay_args& a)
{
    sim::explore::run_config& cfg = a.cfg;
    if (!model::pivot_policy_id(cfg.policy))
        throw usage_error(fmt::format("unknown policy '{}' (valid: {})", cfg.policy, model::pivot_policy_names()));
    const auto kernel = model::parse_kernel_version(a.kernel);
    if (!kernel)
        throw usage_error(fmt::format("--kernel '{}': expected one of {}", a.kernel, model::kernel_version_names));
    cfg.kernel = *kernel;
    const auto kind = sim::parse_strategy(a.strategy);
    if (!kind)
        throw usage_error(fmt::format("--strategy '{}': expected fifo, random, pct or replay", a.strategy));
    if (a.pct_depth_given && *kind != sim::strategy_kind::pct)
        throw usage_error(fmt::format("--pct-depth applies to --strategy pct only (this is --strategy {})", a.strategy));
    cfg.strategy.kind = *kind;
    const auto schedule = sim::parse_schedule(a.schedule);
    if (!schedule)
        throw usage_error(fmt::format("--schedule '{}': expected comma-separated choices, e.g. 1,0,2", a.schedule));
    cfg.strategy.schedule = *schedule;
    cfg.strategy.pct_steps = cfg.max_steps;
    const auto check = sim::explore::parse_liveness(a.check);
    if (!check)
        throw usage_error(fmt::format("--liveness '{}': expected none, bounded or after-quiet", a.check));
    cfg.check = *check;
    std::string why;
    const auto c = sim::explore::parse_case(a.case_text, &why);
    if (!c)
        throw usage_error(fmt::format("--case '{}': {}", a.case_text, why));
    if (const std::string problem = case_problem(*c); !problem.empty())
        throw usage_error(fmt::format("--case '{}': {}", a.case_text, problem));
    if (!cfg.mutation.empty()) {
        const auto names = sim::explore::mutation_names();
        if (std::find(names.begin(), names.end(), cfg.mutation) == names.end())
            throw usage_error(fmt::format("unknown mutation '{}' (this build has: {})", cfg.mutation,
                                          names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "))));
    }
    // SIGINT: the sink runs between two steps, on the explorer's own stack,
    // so it can end the run there; what was traced so far is printed.
    struct interrupted {};
    const sim::explore::trace_sink sink = [&a](const std::string& line) {
        if (!a.quiet || line.rfind("VIOLATION", 0) == 0 || line.rfind("ok:", 0) == 0 ||
            line.rfind("WARNING", 0) == 0)
            std::cout << line << '\n';
        if (sigint_received().load(std::memory_order_relaxed))
            throw interrupted{};
    };
    sim::explore::run_outcome out;
    try {
        out = sim::explore::explore_case(cfg, *c, sink);
    } catch (const interrupted&) {
        std::cout << "interrupted by SIGINT: no verdict" << std::endl;
        return interrupted_status;
    }
    if (!a.quiet)
        std::cout << "# schedule: " << sim::format_schedule(out.schedule) << '\n';
    std::cout.flush();
    return out.violation ? 1 : 0;
}

}  // namespace

void register_replay(CLI::App& app)
{
    auto a = std::make_shared<replay_args>();
    CLI::App* sub = app.add_subcommand(
        "replay", "Run one explorer case (as a failing property prints it) and print its step-by-step "
                  "trace; exit status 1 if a property is violated");
    sub->add_option("--policy", a->cfg.policy, "Pivot policy: " + model::pivot_policy_names())->capture_default_str();
    sub->add_option("--kernel", a->kernel,
                    fmt::format("Kernel whose futex code the model runs: {} (docs/kernel-map.md)",
                                model::kernel_version_names))
        ->capture_default_str();
    sub->add_option("--cpus", a->cfg.cpus, "CPUs of the explored machine")
        ->transform(whole_number(1, 64))
        ->capture_default_str();
    sub->add_option("--case", a->case_text, "The case: thread op lists (docs/testing.md), e.g. 'C.K0:1/W0'")
        ->required();
    sub->add_option("--strategy", a->strategy, "Schedule strategy: fifo, random, pct, replay")->capture_default_str();
    sub->add_option("--seed", a->cfg.strategy.seed, "Seed of the strategy")
        ->transform(whole_number(0, std::numeric_limits<std::uint64_t>::max()))
        ->capture_default_str();
    auto* pct_depth = sub->add_option("--pct-depth", a->cfg.strategy.pct_depth,
                                      "PCT depth d: d - 1 priority change points (--strategy pct)")
                          ->transform(whole_number(1, 64))
                          ->capture_default_str();
    sub->add_option("--schedule", a->schedule,
                    "Choices played first at each scheduling point (index among the candidates), e.g. 1,0,2");
    sub->add_option("--steps", a->cfg.max_steps, "Step budget")
        ->transform(whole_number(1, 10'000'000))
        ->capture_default_str();
    sub->add_option("--gp-steps", a->cfg.gp_steps, "Shortest grace period, in steps")
        ->transform(whole_number(1, 1'000'000))
        ->capture_default_str();
    sub->add_option("--liveness", a->check, "Liveness property to check: none, bounded, after-quiet")
        ->capture_default_str();
    sub->add_option("--bound-gps", a->cfg.pivot_bound_gps, "bounded: grace periods a pivot may stay pending")
        ->transform(whole_number(0, 1'000'000))
        ->capture_default_str();
    sub->add_flag("--quiet", a->quiet, "Print only the verdict");
    sub->add_flag(
        "--no-sleeper-check", [a](std::int64_t) { a->cfg.check_sleepers = false; },
        "Do not require that threads left when nothing can run are all asleep in futex_wait()");
    sub->add_flag(
        "--nonfatal-warnings", [a](std::int64_t) { a->cfg.fatal_warnings = false; },
        "Report the model's warnings (WARN_ON_ONCE, might_sleep()) instead of stopping at the first");
#ifdef FUTEXSIM_MUTATIONS
    sub->add_option("--mutation", a->cfg.mutation, "Test-only build: switch on a mutation point");
#endif
    sub->footer("Every thread of a case has operations and is created by a C. SIGINT stops it between two\n"
                "steps: the trace so far, then 'interrupted by SIGINT: no verdict', exit status 130.");
    sub->parse_complete_callback([a, pct_depth] { a->pct_depth_given = pct_depth->count() > 0; });
    add_command(sub, [a] { return replay(*a); });
}

}  // namespace futexsim::cli
