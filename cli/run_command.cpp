// `futexsim run`: simulate a workload on a machine preset, one line per run.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <sys/stat.h>
#include <sys/sysinfo.h>

#include "cli/commands.h"
#include "cli/detector_flags.h"
#include "cli/input_file.h"
#include "cli/numbers.h"
#include "cli/run_args.h"
#include "cli/stop_signals.h"
#include "cli/workload_flags.h"
#include "machine/machine.h"
#include "model/core.h"
#include "real/limits.h"
#include "real/run_real.h"
#include "run/report.h"
#include "run/run_checks.h"
#include "run/stop_signal.h"
#include "run/workloads/registry.h"
#include "sim/timed/run.h"

namespace futexsim::cli {

namespace {

std::string joined(const std::vector<std::string>& names)
{
    std::string s;
    for (const auto& n : names)
        s += (s.empty() ? "" : ", ") + n;
    return s;
}

// Exit status of a run that warned under --fail-on-warning.
constexpr int warned_status = 1;

// Before run `i` (from 0) of `runs`: a stop signal that came since the last
// run ended is said, not left silent.
bool stopped_before(unsigned i, unsigned runs)
{
    if (!sigint_received())
        return false;
    std::fputs(fmt::format("futexsim: interrupted by {} before run {} of {}\n", stop_signal_name(),
                           i + 1, runs)
                   .c_str(),
               stderr);
    return true;
}

// After a run's line: the status to stop with, or -1 to go on.
int status_after(const run_args& a, const run_result& r)
{
    if (r.interrupted && sigint_received())
        return interrupted_status;
    if (a.fail_on_warning && !r.warnings.empty()) {
        std::fputs(fmt::format("{}{}\n", fail_on_warning_prefix, r.warnings.front()).c_str(),
                   stderr);
        return warned_status;
    }
    return r.interrupted ? interrupted_status : -1;
}

int run_real_backend(run_args& a)
{
    run_options& opt = a.opt;
    const real::backend b = a.backend == "threads" ? real::backend::threads : real::backend::kernel;
    for (unsigned i = 0; i < a.runs; i++) {
        if (stopped_before(i, a.runs))  // before this run started: nothing to print for it
            return interrupted_status;
        const run_result r = usage_checked([&] { return real::run_real(opt, b); });
        print_line(a.json ? json_line(r) : human_line(r));
        if (const int status = status_after(a, r); status >= 0)
            return status;
    }
    return 0;
}

int run(run_args& a)
{
    run_options& opt = a.opt;
    sim::sim_options& sopt = a.sim;
    sopt.fast_forward = !a.exact;
    check_backend_flags(a);
    const auto kernel = model::parse_kernel_version(a.kernel);
    if (!kernel)
        throw usage_error(fmt::format("--kernel '{}': expected one of {}", a.kernel,
                                      model::kernel_version_names));
    opt.kernel = *kernel;
    if (a.backend != "sim") {
        check_common(a, static_cast<unsigned>(get_nprocs_conf()));
        return run_real_backend(a);
    }
    opt.mach = usage_checked([&] {
        return a.machine_file.empty()
                   ? load_machine_preset(a.machine)
                   : read_machine_file("--machine-file", a.machine_file, a.machine_file_hash);
    });
    check_common(a, opt.mach.num_cpus());
    usage_checked([&] { return require_pivot_policy(opt.policy); });
    const auto kind = sim::parse_strategy(a.strategy);
    if (!kind)
        throw usage_error(
            fmt::format("--strategy '{}': expected fifo, random, pct or replay", a.strategy));
    if (a.pct_depth_given && *kind != sim::strategy_kind::pct)
        throw usage_error(fmt::format(
            "--pct-depth applies to --strategy pct only (this is --strategy {})", a.strategy));
    sopt.strategy.kind = *kind;
    const auto schedule = sim::parse_schedule(a.schedule);
    if (!schedule)
        throw usage_error(fmt::format(
            "--schedule '{}': expected comma-separated choices, e.g. 1,0,2", a.schedule));
    sopt.strategy.schedule = *schedule;
    if (!a.trace_window.empty()) {
        if (sopt.trace_path.empty())
            throw usage_error("--trace-window needs --trace FILE");
        parse_trace_window(a.trace_window, opt.seconds * 1e3, sopt);
    }
    if (!sopt.trace_path.empty() && !a.machine_file.empty() &&
        same_file(sopt.trace_path, a.machine_file))
        throw usage_error(fmt::format(
            "--trace '{}' is the --machine-file '{}': the trace would overwrite its input",
            sopt.trace_path, a.machine_file));
    if (a.trace_max_given && sopt.trace_path.empty())
        throw usage_error("--trace-max-mb needs --trace FILE");
    sopt.trace_max_bytes = std::uint64_t{a.trace_max_mb} << 20;
    if (!sopt.trace_path.empty() && a.runs > 1)
        throw usage_error(
            fmt::format("--trace writes one run's trace: --runs {} must be 1", a.runs));
    if (!sopt.trace_path.empty())
        check_output_path("--trace", sopt.trace_path);
    if (!sopt.trace_path.empty() && !std::ofstream(sopt.trace_path))
        throw usage_error(
            fmt::format("--trace '{}': cannot write: {}", sopt.trace_path, std::strerror(errno)));

    // Seeds K, K+1, ...: the last one must not wrap around to 0.
    const std::uint64_t first_seed = opt.seed;
    if (a.runs - 1 > std::numeric_limits<std::uint64_t>::max() - first_seed)
        throw usage_error(fmt::format(
            "--seed {} with --runs {}: the runs' seeds would pass {} (at most {} for {} "
            "runs)",
            first_seed, a.runs, std::numeric_limits<std::uint64_t>::max(),
            std::numeric_limits<std::uint64_t>::max() - (a.runs - 1), a.runs));

    sopt.detectors = a.detectors.limits();
    sopt.detectors.stop_at_first = a.fail_on_warning;
    for (unsigned i = 0; i < a.runs; i++) {
        if (stopped_before(i, a.runs))
            return interrupted_status;
        opt.seed = first_seed + i;
        const run_result r = sim::simulate(opt, sopt);
        print_line(a.json ? json_line(r) : human_line(r));
        if (const int status = status_after(a, r); status >= 0)
            return status;
    }
    return 0;
}

}  // namespace

void register_run(CLI::App& app)
{
    auto a = std::make_shared<run_args>();
    CLI::App* sub = app.add_subcommand(
        "run",
        "Run a workload: simulated on a machine (virtual time, deterministic from --seed; the "
        "default) or on this machine (--backend threads|kernel); one line per run");
    sub->add_option(
           "--backend", a->backend,
           "sim: the simulator (virtual time); threads: the model on real threads; kernel: real "
           "futex system calls on this machine's kernel (docs/backends.md)")
        ->check(CLI::IsMember({"sim", "threads", "kernel"}))
        ->capture_default_str();
    auto* machine = sub->add_option("--machine", a->machine,
                                    "Machine preset: " + joined(machine_preset_names()) +
                                        " (host reads this machine's /proc and /sys)")
                        ->capture_default_str();
    auto* machine_file =
        sub->add_option("--machine-file", a->machine_file,
                        "JSON machine description (see docs/simulator.md); overrides --machine")
            ->check(readable_file());
    // Hidden (no group): a sweep passes the hash of the file it read, so
    // that a file edited during the sweep stops it instead of mixing machines.
    sub->add_option("--machine-file-hash", a->machine_file_hash)->group("")->needs(machine_file);
    std::vector<std::string> wnames;
    for (const auto& w : workloads())
        wnames.push_back(w.name);
    sub->add_option("--workload", a->opt.workload, "Workload: " + joined(wnames))
        ->capture_default_str();
    auto* policy =
        sub->add_option("--policy", a->opt.policy,
                        "Pivot policy: " + model::pivot_policy_names() + " (docs/policies.md)")
            ->capture_default_str();
    auto* kernel =
        sub->add_option("--kernel", a->kernel,
                        fmt::format("Kernel whose futex code the model runs: {} (v7.2: the "
                                    "futex_pivot_pending() fix; docs/kernel-map.md)",
                                    model::kernel_version_names))
            ->capture_default_str();
    sub->add_flag("--precheck", a->opt.precheck,
                  "futex_wait_setup() reads the futex word before locking the bucket (any policy)");
    sub->add_option(
           "--threads", a->opt.threads,
           fmt::format(
               "Worker threads, created back to back (at most 4096; {} on the real backends)",
               real::max_threads))
        ->transform(whole_number(1, 4096))
        ->capture_default_str();
    sub->add_option(
           "--seconds", a->opt.seconds,
           fmt::format(
               "Seconds to run: virtual on sim, wall clock (at most {}) on the real backends",
               real::max_seconds))
        ->transform(real_number(0.001, 3600.0))
        ->capture_default_str();
    auto* presize = sub->add_option_function<unsigned>(
                           "--presize", [a](unsigned v) { a->opt.presize = v; },
                           fmt::format("prctl(PR_FUTEX_HASH_SET_SLOTS, SLOTS) before any thread "
                                       "exists: a power of two from 2 to {}",
                                       max_presize))
                        ->transform(whole_number(2, max_presize));
    auto* global =
        sub->add_flag("--global-hash", a->opt.global_hash,
                      "prctl(PR_FUTEX_HASH_SET_SLOTS, 0) before any thread: use the global hash");
    presize->excludes(global);
    auto* cpus = sub->add_option(
        "--cpus", a->cpus, "CPU affinity of every thread, as taskset: 0-31,96-127 (each CPU once)");
    sub->add_option("--ramp-ms", a->opt.ramp_ms,
                    "Spread thread creation over this many milliseconds (real backends: at most "
                    "the run's length)")
        ->transform(real_number(0.0, 3600000.0))
        ->capture_default_str();
    auto* seed = sub->add_option("--seed", a->opt.seed, "Seed of the first run (sim only)")
                     ->transform(whole_number(0, std::numeric_limits<std::uint64_t>::max()))
                     ->capture_default_str();
    sub->add_option("--runs", a->runs, "Runs, with seeds seed, seed+1, ...")
        ->transform(whole_number(1, 100000))
        ->capture_default_str();
    const std::string interval_help = fmt::format(
        "Width of the per-interval throughput bins (at most {} bins per run); a run that "
        "is not a whole number of bins long ends with a shorter bin, whose rate is over "
        "its own width",
        max_bins);
    sub->add_option("--interval-ms", a->opt.interval_ms, interval_help)
        ->transform(real_number(0.1, 10000.0))
        ->capture_default_str();
    auto* strategy =
        sub->add_option(
               "--strategy", a->strategy,
               "Which queued task a CPU runs next: fifo (the queue's order), random, pct, replay "
               "(--schedule, then fifo); seeded by --seed")
            ->capture_default_str();
    auto* pct_depth =
        sub->add_option("--pct-depth", a->sim.strategy.pct_depth,
                        "pct: depth d (d - 1 priority change points); --strategy pct only")
            ->transform(whole_number(1, 64))
            ->capture_default_str();
    auto* schedule = sub->add_option("--schedule", a->schedule,
                                     "Choices played first at each scheduling point, e.g. 1,0,2");
    sub->add_flag("--json", a->json, "One JSON object per line instead of the human line");
    auto* trace =
        sub->add_option("--trace", a->sim.trace_path,
                        "Write the run as a Chrome/Perfetto trace-event JSON file (sim only; "
                        "docs/tracing.md)");
    auto* trace_window =
        sub->add_option("--trace-window", a->trace_window,
                        "START:END virtual milliseconds the trace covers (default: the "
                        "whole measured run)");
    auto* trace_max =
        sub->add_option("--trace-max-mb", a->trace_max_mb,
                        "Stop tracing once the file holds this many MiB (0: no cap); the trace "
                        "then ends at that moment and the run warns. Many threads write tens of "
                        "MB per virtual millisecond")
            ->transform(whole_number(0, 1u << 20))
            ->capture_default_str();
    auto* exact =
        sub->add_flag("--exact", a->exact,
                      "Simulate every operation to the end. Without it, a run that turns "
                      "stationary (the workload has "
                      "created its threads, no pivot is pending, the hash is per-CPU) is measured "
                      "until the 95% interval "
                      "of its rate is within +/-1% and the rest is extrapolated; the line and the "
                      "JSON say from when "
                      "(docs/simulator.md, \"Fast-forward\"). A --trace run is always exact");
    a->detectors.add_to(*sub);
    sub->add_flag("--fail-on-warning", a->fail_on_warning, fail_on_warning_help);
    a->workload.add_to(*sub);
    // Which flags were given, for the checks in run(): those only the
    // simulator takes (in the order the errors name them).
    std::vector<CLI::Option*> sim_only = {machine,   machine_file, seed,  strategy,
                                          pct_depth, schedule,     trace, trace_window,
                                          trace_max, exact};
    sim_only.insert(sim_only.end(), a->detectors.options().begin(), a->detectors.options().end());
    sub->parse_complete_callback([=] {
        auto given = [](const std::vector<CLI::Option*>& options) {
            std::vector<std::string> names;
            for (const CLI::Option* o : options)
                if (o->count())
                    names.push_back(o->get_name());
            return names;
        };
        a->sim_only_flags = given(sim_only);
        a->pct_depth_given = pct_depth->count() > 0;
        a->cpus_given = cpus->count() > 0;
        a->trace_max_given = trace_max->count() > 0;
        a->policy_given = policy->count() > 0;
        a->kernel_given = kernel->count() > 0;
    });
    sub->footer(
        "Each run prints: threads, slots before any thread / after --presize / after the\n"
        "threads were joined, virtual seconds (two decimals; under 0.1 s, two significant digits:\n"
        "0.0010s), throughput, and the model's view: outcome\n"
        "(latched: a pivot still pending at the end and for at least half the run;\n"
        "transient: a pivot took over 10 mean grace periods' time; never; the same rule on\n"
        "--backend threads, in wall-clock time), the share of\n"
        "futex_ref_get() calls that found FR_ATOMIC, and the mean grace period; then each\n"
        "warning as WARNING(...) (JSON: \"warnings\"): the progress detectors' rcu-stall,\n"
        "soft-lockup, spin-lockup and event-storm (bounds above; docs/simulator.md, \"Progress\n"
        "detectors\"), the model's own, and on a real run threads still being created at its end.\n"
        "The same command and seed print the same bytes (JSON: apart from wall_seconds).\n"
        "SIGINT ends a simulated run between two events: it prints what was simulated so far\n"
        "(interrupted, with its virtual length), starts no further run and exits with status 130.\n"
        "--backend threads|kernel run the same workloads on this machine in wall-clock time, at\n"
        "most " +
        std::to_string(real::max_threads) + " threads and " +
        std::to_string(static_cast<int>(real::max_seconds)) +
        " s; SIGINT stops them, joins every thread, prints the partial\n"
        "result and exits with status 130. docs/backends.md says which fields each fills.\n"
        "Machines and their parameters: docs/simulator.md.");
    add_command(sub, [a] { return run(*a); });
}

}  // namespace futexsim::cli
