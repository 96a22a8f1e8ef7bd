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
#include "run/plural.h"
#include "run/run_checks.h"
#include "run/stop_signal.h"
#include "sim/explore/dfs.h"
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
    std::string memory = "sc";
    std::string timing = "steps";
    std::string preemptions = "2";
    bool quiet = false;
    bool pct_depth_given = false;
    bool schedule_given = false;
    bool timing_given = false;
    bool gp_ends_given = false;
    // --strategy dfs
    std::vector<std::string> dfs_only_given;  // its flags, given to another strategy
    sim::explore::dfs_options dfs;
    bool shrink = true;
};

// The program that replays a run: the test-only build for the mutants.
std::string replay_program(const sim::explore::run_config& cfg)
{
    return cfg.mutation.empty() && cfg.policy.rfind("mutant-", 0) != 0
               ? "futexsim"
               : "build/tests/futexsim-mutants";
}

// --strategy dfs: every schedule within the bounds (sim/explore/dfs.h).
int exhaustive(replay_args& a, const sim::explore::case_spec& c)
{
    const sim::explore::run_config& cfg = a.cfg;
    a.dfs.interrupted = [] { return sigint_received().load(std::memory_order_relaxed); };
    const auto r = sim::explore::explore_dfs(cfg, c, a.dfs);
    const std::string counts =
        fmt::format("{} ({} at the step bound), {} pruned by the reduction, {} past the preemption "
                    "bound, longest {}",
                    count_noun(r.executions, "complete execution"), r.at_step_bound, r.pruned,
                    count_noun(r.preemption_cuts, "choice"), count_noun(r.longest, "step"));
    std::cout << "# exhaustive: policy=" << cfg.policy
              << " kernel=" << model::kernel_version_name(cfg.kernel) << " cpus=" << cfg.cpus
              << " case=" << sim::explore::format_case(c) << '\n'
              << "# bounds: " << sim::explore::dfs_bounds_text(cfg, a.dfs) << '\n';
    if (r.failure) {
        std::cout << "VIOLATION: " << *r.failure->violation << '\n'
                  << "  found after " << counts << '\n'
                  << "  replay: "
                  << sim::explore::replay_command(*r.failing, c, replay_program(cfg)) << '\n';
        if (a.shrink) {
            const auto s = sim::explore::shrink_dfs_failure(cfg, c, a.dfs);
            if (s.result.failure)
                std::cout << "shrunk (" << count_noun(s.attempts, "search")
                          << "): " << count_noun(sim::explore::case_size(s.c), "operation")
                          << " in " << count_noun(s.c.threads.size(), "thread") << ", "
                          << count_noun(s.preemptions, "preemption") << ": "
                          << *s.result.failure->violation << '\n'
                          << "  replay: "
                          << sim::explore::replay_command(*s.result.failing, s.c,
                                                          replay_program(cfg))
                          << '\n';
        }
        std::cout.flush();
        return 1;
    }
    if (!r.complete) {
        const bool stopped = sigint_received().load(std::memory_order_relaxed);
        std::cout << (stopped ? fmt::format("interrupted by {}: no verdict; ", stop_signal_name())
                              : "incomplete: --max-executions reached, no verdict; ")
                  << counts << std::endl;
        return stopped ? interrupted_status : 3;
    }
    std::cout << "ok: " << counts << std::endl;
    return 0;
}

int replay(replay_args& a)
{
    sim::explore::run_config& cfg = a.cfg;
    usage_checked([&] { return require_pivot_policy(cfg.policy); });
    const auto kernel = model::parse_kernel_version(a.kernel);
    if (!kernel)
        throw usage_error(fmt::format("--kernel '{}': expected one of {}", a.kernel,
                                      model::kernel_version_names));
    cfg.kernel = *kernel;
    const bool dfs = a.strategy == "dfs";
    const auto kind =
        dfs ? std::optional(sim::strategy_kind::replay) : sim::parse_strategy(a.strategy);
    if (!kind)
        throw usage_error(
            fmt::format("--strategy '{}': expected fifo, random, pct, replay or dfs", a.strategy));
    if (!dfs && !a.dfs_only_given.empty())
        throw usage_error(fmt::format("{} applies to --strategy dfs only (this is --strategy {})",
                                      a.dfs_only_given.front(), a.strategy));
    if (dfs && a.schedule_given)
        throw usage_error(
            "--schedule does not apply to --strategy dfs: it explores every schedule (replay a "
            "schedule it prints with --strategy replay)");
    if (a.timing != "steps" && a.timing != "choices")
        throw usage_error(fmt::format("--timing '{}': expected steps or choices", a.timing));
    if (dfs && a.timing == "steps" && a.timing_given)
        throw usage_error(
            "--timing steps does not apply to --strategy dfs: it explores time as choices");
    cfg.timing_choices = dfs || a.timing == "choices";
    if (a.gp_ends_given && !cfg.timing_choices)
        throw usage_error(
            "--gp-ends applies to --timing choices (and --strategy dfs) only: with --timing steps "
            "grace periods end by the step count");
    if (a.preemptions == "any") {
        a.dfs.max_preemptions = sim::explore::unbounded_preemptions;
    } else {
        const auto p = parse_whole(a.preemptions);
        if (!p || *p > 1000)
            throw usage_error(
                fmt::format("--preemptions: '{}' is not a whole number from 0 to 1000 or 'any'",
                            a.preemptions));
        a.dfs.max_preemptions = static_cast<unsigned>(*p);
    }
    if (a.pct_depth_given && *kind != sim::strategy_kind::pct)
        throw usage_error(fmt::format(
            "--pct-depth applies to --strategy pct only (this is --strategy {})", a.strategy));
    cfg.strategy.kind = *kind;
    const auto schedule = sim::parse_schedule(a.schedule);
    if (!schedule)
        throw usage_error(fmt::format(
            "--schedule '{}': expected comma-separated choices, e.g. 1,0,2", a.schedule));
    cfg.strategy.schedule = *schedule;
    cfg.strategy.pct_steps = cfg.max_steps;
    const auto memory = sim::explore::parse_memory_model(a.memory);
    if (!memory)
        throw usage_error(fmt::format("--memory '{}': expected sc, tso or arm64", a.memory));
    cfg.memory = *memory;
    const auto check = sim::explore::parse_liveness(a.check);
    if (!check)
        throw usage_error(fmt::format(
            "--liveness '{}': expected none, bounded, after-quiet or parked-drains", a.check));
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
            throw usage_error(fmt::format(
                "unknown mutation '{}' (this build has: {})", cfg.mutation,
                names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "))));
    }
    if (dfs)
        return exhaustive(a, *c);
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
        std::cout << "interrupted by " << stop_signal_name() << ": no verdict" << std::endl;
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
        "replay",
        "Run one explorer case (as a failing property prints it) and print its step-by-step "
        "trace; exit status 1 if a property is violated");
    sub->add_option("--policy", a->cfg.policy, "Pivot policy: " + model::pivot_policy_names())
        ->capture_default_str();
    sub->add_option("--kernel", a->kernel,
                    fmt::format("Kernel whose futex code the model runs: {} (docs/kernel-map.md)",
                                model::kernel_version_names))
        ->capture_default_str();
    sub->add_option("--cpus", a->cfg.cpus, "CPUs of the explored machine")
        ->transform(whole_number(1, 64))
        ->capture_default_str();
    sub->add_option("--case", a->case_text,
                    "The case: thread op lists (docs/testing.md), e.g. 'C.K0:1/W0'")
        ->required();
    sub->add_option("--strategy", a->strategy,
                    "Schedule strategy: fifo, random, pct, replay, or dfs (every schedule within "
                    "the bounds, "
                    "depth first: docs/testing.md)")
        ->capture_default_str();
    sub->add_option("--seed", a->cfg.strategy.seed, "Seed of the strategy")
        ->transform(whole_number(0, std::numeric_limits<std::uint64_t>::max()))
        ->capture_default_str();
    auto* pct_depth = sub->add_option("--pct-depth", a->cfg.strategy.pct_depth,
                                      "PCT depth d: d - 1 priority change points (--strategy pct)")
                          ->transform(whole_number(1, 64))
                          ->capture_default_str();
    auto* schedule = sub->add_option(
        "--schedule", a->schedule,
        "Choices played first at each scheduling point (index among the candidates), e.g. 1,0,2");
    sub->add_option("--steps", a->cfg.max_steps, "Step budget")
        ->transform(whole_number(1, 10'000'000))
        ->capture_default_str();
    sub->add_option("--gp-steps", a->cfg.gp_steps, "Shortest grace period, in steps")
        ->transform(whole_number(1, 1'000'000))
        ->capture_default_str();
    sub->add_option("--liveness", a->check,
                    "Liveness property to check: none, bounded, after-quiet, or parked-drains "
                    "(once a hash is "
                    "parked and the policy's gate closed, no futex call that begins takes a "
                    "reference on the "
                    "hash being replaced: docs/testing.md)")
        ->capture_default_str();
    sub->add_option("--bound-gps", a->cfg.pivot_bound_gps,
                    "bounded: grace periods a pivot may stay pending")
        ->transform(whole_number(0, 1'000'000))
        ->capture_default_str();
    sub->add_option("--memory", a->memory,
                    "Memory model: sc (every store seen at once), tso (x86: a store waits in its "
                    "CPU's FIFO store buffer) or arm64 (stores to different words may also leave "
                    "the buffer out of order); a buffered store's drain is a scheduling choice "
                    "(docs/testing.md, \"Weak memory\")")
        ->capture_default_str();
    auto* timing =
        sub->add_option("--timing", a->timing,
                        "steps: grace periods and timeouts end after a number of steps; choices: "
                        "they end at any scheduling point, as a choice (what dfs explores)")
            ->capture_default_str();
    auto* gp_ends = sub->add_option("--gp-ends", a->cfg.max_gp_ends,
                                    "--timing choices: at most this many grace periods end while a "
                                    "task could run instead "
                                    "(one always ends when nothing else can run)")
                        ->transform(whole_number(0, 1000))
                        ->capture_default_str();
    auto dfs_only = [a](const char* flag) {
        return [a, flag](auto&&...) { a->dfs_only_given.emplace_back(flag); };
    };
    sub->add_option(
           "--preemptions", a->preemptions,
           "dfs: at most this many switches away from a task that could go on (a number, or 'any')")
        ->capture_default_str()
        ->each(dfs_only("--preemptions"));
    sub->add_flag(
        "--no-reduction",
        [a](std::int64_t) {
            a->dfs.reduction = false;
            a->dfs_only_given.emplace_back("--no-reduction");
        },
        "dfs: explore every schedule, also those equivalent to one explored (sleep sets off): the "
        "count the "
        "reduction saves");
    sub->add_option("--max-executions", a->dfs.max_executions,
                    "dfs: stop after this many runs without a verdict (exit status 3); 0: no limit")
        ->transform(whole_number(0, std::numeric_limits<std::uint64_t>::max()))
        ->capture_default_str()
        ->each(dfs_only("--max-executions"));
    sub->add_flag(
        "--no-shrink",
        [a](std::int64_t) {
            a->shrink = false;
            a->dfs_only_given.emplace_back("--no-shrink");
        },
        "dfs: print the violation found without searching for a smaller case");
    sub->add_flag("--quiet", a->quiet, "Print only the verdict");
    sub->add_flag(
        "--no-sleeper-check", [a](std::int64_t) { a->cfg.check_sleepers = false; },
        "Do not require that threads left when nothing can run are all asleep in futex_wait()");
    sub->add_flag(
        "--nonfatal-warnings", [a](std::int64_t) { a->cfg.fatal_warnings = false; },
        "Report the model's warnings (WARN_ON_ONCE, might_sleep()) instead of stopping at the "
        "first");
#ifdef FUTEXSIM_MUTATIONS
    sub->add_option("--mutation", a->cfg.mutation, "Test-only build: switch on a mutation point");
#endif
    sub->footer(
        "Every thread of a case has operations and is created by a C. SIGINT stops it between two\n"
        "steps: the trace so far, then 'interrupted by SIGINT: no verdict' (SIGTERM, SIGHUP: named "
        "so), exit status 128 + signal.\n"
        "--strategy dfs runs every schedule of the case within the bounds (--preemptions, "
        "--gp-ends,\n"
        "--steps) with time as choices, skipping schedules equivalent to one explored unless\n"
        "--no-reduction; it prints the complete executions, those pruned and the bounds, or the\n"
        "first violation with its replay command and a smaller case (exit status 1).");
    sub->parse_complete_callback([a, pct_depth, timing, schedule, gp_ends] {
        a->pct_depth_given = pct_depth->count() > 0;
        a->gp_ends_given = gp_ends->count() > 0;
        a->timing_given = timing->count() > 0;
        a->schedule_given = schedule->count() > 0;
    });
    add_command(sub, [a] { return replay(*a); });
}

}  // namespace futexsim::cli
