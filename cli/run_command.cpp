// `futexsim run`: simulate a workload on a machine preset, one line per run.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sys/sysinfo.h>
#include <stdexcept>

#include "cli/commands.h"
#include "model/core.h"
#include "real/limits.h"
#include "real/run_real.h"
#include "sim/machine.h"
#include "sim/report.h"
#include "sim/run.h"
#include "sim/workloads/workload.h"

namespace futexsim::cli {

namespace {

// The options bound straight into the simulator's run_options, plus what
// only the command line has (names and lists still to be resolved, the
// number of runs, the output format).
struct run_args {
    sim::run_options opt;
    std::string machine = "xeon-6975p-snc3";
    std::string machine_file;
    std::string cpus;
    std::string mix = "88.6/9.5/1.9";
    std::string strategy = "fifo";
    std::string schedule;
    std::string trace_window;
    unsigned runs = 1;
    bool json = false;
    std::string backend = "sim";
    std::vector<std::string> given_flags;  // workload-specific flags on the command line
    std::vector<std::string> sim_only_flags;  // given flags that only the simulator takes
    bool policy_given = false;
    std::string kernel{model::kernel_version_name(model::default_kernel_version)};
    bool kernel_given = false;
};

std::string joined(const std::vector<std::string>& names)
{
    std::string s;
    for (const auto& n : names)
        s += (s.empty() ? "" : ", ") + n;
    return s;
}

// mixed-wait's --mix WOKEN/TIMEOUT/MISMATCH
void parse_mix(const std::string& text, sim::run_options& opt)
{
    double w = 0, t = 0, m = 0;
    char s1 = 0, s2 = 0;
    std::istringstream in(text);
    if (!(in >> w >> s1 >> t >> s2 >> m) || s1 != '/' || s2 != '/' || !in.eof() || w < 0 || t < 0 ||
        m < 0 || w + t + m <= 0)
        throw usage_error(fmt::format("--mix '{}': expected WOKEN/TIMEOUT/MISMATCH, e.g. 88.6/9.5/1.9", text));
    opt.mix_woken = w;
    opt.mix_timeout = t;
    opt.mix_mismatch = m;
}

// --trace-window START:END, virtual milliseconds, 0 <= START < END.
void parse_trace_window(const std::string& text, sim::run_options& opt)
{
    double start = 0, end = 0;
    char colon = 0;
    std::istringstream in(text);
    if (!(in >> start >> colon >> end) || colon != ':' || !in.eof() || !std::isfinite(start) || !std::isfinite(end) ||
        start < 0 || end <= start)
        throw usage_error(fmt::format(
            "--trace-window '{}': expected START:END in virtual milliseconds with 0 <= START < END, e.g. 0:20", text));
    opt.trace_start_ms = start;
    opt.trace_end_ms = end;
}

// The real backends run on this machine: no preset, no seed; the kernel
// backend runs the host's futex code, so no model policy either.
void check_backend_flags(const run_args& a)
{
    if (a.backend == "sim")
        return;
    for (const auto& flag : a.sim_only_flags)
        throw usage_error(fmt::format("{} does not apply to --backend {} (it runs on this machine)", flag, a.backend));
    if (a.backend == "kernel" && (a.policy_given || a.opt.precheck || a.kernel_given))
        throw usage_error(fmt::format("{} does not apply to --backend kernel (the host kernel's own code runs)",
                                      a.policy_given ? "--policy" : a.opt.precheck ? "--precheck" : "--kernel"));
    if (a.opt.threads > real::max_threads)
        throw usage_error(fmt::format("--threads {}: --backend {} creates at most {} threads", a.opt.threads,
                                      a.backend, real::max_threads));
    if (a.opt.seconds > real::max_seconds)
        throw usage_error(fmt::format("--seconds {}: --backend {} runs for at most {} s", a.opt.seconds, a.backend,
                                      real::max_seconds));
}

// Exit status of a real run cut short by SIGINT (128 + SIGINT, as a shell reports it).
constexpr int interrupted_status = 130;

int run_real_backend(run_args& a)
{
    sim::run_options& opt = a.opt;
    const real::backend b = a.backend == "threads" ? real::backend::threads : real::backend::kernel;
    for (unsigned i = 0; i < a.runs; i++) {
        sim::run_result r;
        try {
            r = real::run_real(opt, b);
        } catch (const std::invalid_argument& e) {
            throw usage_error(e.what());
        }
        std::cout << (a.json ? sim::json_line(r) : sim::human_line(r)) << std::endl;
        if (r.interrupted)
            return interrupted_status;
    }
    return 0;
}

int run(run_args& a)
{
    sim::run_options& opt = a.opt;
    check_backend_flags(a);
    const auto kernel = model::parse_kernel_version(a.kernel);
    if (!kernel)
        throw usage_error(fmt::format("--kernel '{}': expected one of {}", a.kernel, model::kernel_version_names));
    opt.kernel = *kernel;
    if (a.backend != "sim") {
        try {
            const auto& wl = sim::find_workload(opt.workload);
            for (const auto& flag : a.given_flags)
                if (std::find(wl.flags.begin(), wl.flags.end(), flag) == wl.flags.end())
                    throw usage_error(fmt::format("{} does not apply to workload '{}'", flag, opt.workload));
            if (!a.cpus.empty())
                opt.cpus = sim::parse_cpu_list(a.cpus, static_cast<unsigned>(get_nprocs_conf()));
        } catch (const std::invalid_argument& e) {
            throw usage_error(e.what());
        }
        if (opt.presize && (*opt.presize < 2 || (*opt.presize & (*opt.presize - 1))))
            throw usage_error(fmt::format("--presize {}: slots must be a power of two >= 2 (use --global-hash for 0)", *opt.presize));
        parse_mix(a.mix, opt);
        return run_real_backend(a);
    }
    try {
        const auto& wl = sim::find_workload(opt.workload);
        for (const auto& flag : a.given_flags)
            if (std::find(wl.flags.begin(), wl.flags.end(), flag) == wl.flags.end())
                throw usage_error(fmt::format("{} does not apply to workload '{}'", flag, opt.workload));
        opt.mach = a.machine_file.empty() ? sim::load_machine_preset(a.machine)
                                          : sim::load_machine_file(a.machine_file);
        if (!a.cpus.empty())
            opt.cpus = sim::parse_cpu_list(a.cpus, opt.mach.num_cpus());
    } catch (const std::invalid_argument& e) {
        throw usage_error(e.what());
    }
    if (!model::pivot_policy_id(opt.policy))
        throw usage_error(fmt::format("unknown policy '{}' (valid: {})", opt.policy, model::pivot_policy_names()));
    if (opt.presize && (*opt.presize < 2 || (*opt.presize & (*opt.presize - 1))))
        throw usage_error(fmt::format("--presize {}: slots must be a power of two >= 2 (use --global-hash for 0)", *opt.presize));
    parse_mix(a.mix, opt);
    const auto kind = sim::parse_strategy(a.strategy);
    if (!kind)
        throw usage_error(fmt::format("--strategy '{}': expected fifo, random, pct or replay", a.strategy));
    opt.strategy.kind = *kind;
    const auto schedule = sim::parse_schedule(a.schedule);
    if (!schedule)
        throw usage_error(fmt::format("--schedule '{}': expected comma-separated choices, e.g. 1,0,2", a.schedule));
    opt.strategy.schedule = *schedule;
    if (!a.trace_window.empty()) {
        if (opt.trace_path.empty())
            throw usage_error("--trace-window needs --trace FILE");
        parse_trace_window(a.trace_window, opt);
    }
    if (!opt.trace_path.empty() && a.runs > 1)
        throw usage_error(fmt::format("--trace writes one run's trace: --runs {} must be 1", a.runs));
    if (!opt.trace_path.empty() && !std::ofstream(opt.trace_path))
        throw usage_error(fmt::format("--trace '{}': cannot write: {}", opt.trace_path, std::strerror(errno)));

    const std::uint64_t first_seed = opt.seed;
    for (unsigned i = 0; i < a.runs; i++) {
        opt.seed = first_seed + i;
        sim::run_result r = sim::simulate(opt);
        std::cout << (a.json ? sim::json_line(r) : sim::human_line(r)) << std::endl;
    }
    return 0;
}

}  // namespace

void register_run(CLI::App& app)
{
    auto a = std::make_shared<run_args>();
    CLI::App* sub = app.add_subcommand(
        "run", "Run a workload: simulated on a machine (virtual time, deterministic from --seed; the "
               "default) or on this machine (--backend threads|kernel); one line per run");
    sub->add_option("--backend", a->backend,
                    "sim: the simulator (virtual time); threads: the model on real threads; kernel: real "
                    "futex system calls on this machine's kernel (docs/backends.md)")
        ->check(CLI::IsMember({"sim", "threads", "kernel"}))
        ->capture_default_str();
    auto* machine = sub->add_option("--machine", a->machine,
                    "Machine preset: " + joined(sim::machine_preset_names()) +
                        " (host reads this machine's /proc and /sys)")
        ->capture_default_str();
    auto* machine_file = sub->add_option("--machine-file", a->machine_file,
                    "JSON machine description (see docs/simulator.md); overrides --machine")
        ->check(CLI::ExistingFile);
    std::vector<std::string> wnames;
    for (const auto& w : sim::workloads())
        wnames.push_back(w.name);
    sub->add_option("--workload", a->opt.workload, "Workload: " + joined(wnames))->capture_default_str();
    auto* policy = sub->add_option("--policy", a->opt.policy,
                    "Pivot policy: " + model::pivot_policy_names() + " (docs/policies.md)")
        ->capture_default_str();
    auto* kernel = sub->add_option("--kernel", a->kernel,
                                   fmt::format("Kernel whose futex code the model runs: {} (v7.2: the "
                                               "futex_pivot_pending() fix; docs/kernel-map.md)",
                                               model::kernel_version_names))
                       ->capture_default_str();
    sub->add_flag("--precheck", a->opt.precheck,
                  "futex_wait_setup() reads the futex word before locking the bucket (any policy)");
    sub->add_option("--threads", a->opt.threads,
                    fmt::format("Worker threads, created back to back (at most 4096; {} on the real backends)",
                                real::max_threads))
        ->check(CLI::Range(1u, 4096u))
        ->capture_default_str();
    sub->add_option("--seconds", a->opt.seconds,
                    fmt::format("Seconds to run: virtual on sim, wall clock (at most {}) on the real backends",
                                real::max_seconds))
        ->check(CLI::Range(0.001, 3600.0))
        ->capture_default_str();
    auto* presize = sub->add_option_function<unsigned>(
        "--presize", [a](unsigned v) { a->opt.presize = v; },
        "prctl(PR_FUTEX_HASH_SET_SLOTS, SLOTS) before any thread exists");
    auto* global = sub->add_flag("--global-hash", a->opt.global_hash,
                                 "prctl(PR_FUTEX_HASH_SET_SLOTS, 0) before any thread: use the global hash");
    presize->excludes(global);
    sub->add_option("--cpus", a->cpus, "CPU affinity of every thread, as taskset: 0-31,96-127");
    sub->add_option("--ramp-ms", a->opt.ramp_ms, "Spread thread creation over this many milliseconds")
        ->check(CLI::Range(0.0, 3600000.0))
        ->capture_default_str();
    auto* seed = sub->add_option("--seed", a->opt.seed, "Seed of the first run (sim only)")->capture_default_str();
    sub->add_option("--runs", a->runs, "Runs, with seeds seed, seed+1, ...")
        ->check(CLI::Range(1u, 100000u))
        ->capture_default_str();
    sub->add_option("--interval-ms", a->opt.interval_ms, "Width of the per-interval throughput bins")
        ->check(CLI::Range(0.1, 10000.0))
        ->capture_default_str();
    sub->add_option("--strategy", a->strategy,
                    "Which queued task a CPU runs next: fifo (the queue's order), random, pct, replay "
                    "(--schedule, then fifo); seeded by --seed")
        ->capture_default_str();
    sub->add_option("--pct-depth", a->opt.strategy.pct_depth, "pct: depth d (d - 1 priority change points)")
        ->check(CLI::Range(1u, 64u))
        ->capture_default_str();
    sub->add_option("--schedule", a->schedule, "Choices played first at each scheduling point, e.g. 1,0,2");
    sub->add_flag("--json", a->json, "One JSON object per line instead of the human line");
    auto* trace = sub->add_option("--trace", a->opt.trace_path,
                                  "Write the run as a Chrome/Perfetto trace-event JSON file (sim only; "
                                  "docs/tracing.md)");
    auto* trace_window = sub->add_option("--trace-window", a->trace_window,
                                         "START:END virtual milliseconds the trace covers (default: the "
                                         "whole measured run)");
    auto* locks = sub->add_option("--locks", a->opt.locks, "mutex: number of locks the threads share")
                      ->check(CLI::Range(1u, 4096u))
                      ->capture_default_str();
    auto* unlock = sub->add_option("--unlock", a->opt.unlock,
                                   "mutex: store_wake (always FUTEX_WAKE) or xchg (wake only if contended)")
                       ->check(CLI::IsMember({"store_wake", "xchg"}))
                       ->capture_default_str();
    auto* mix = sub->add_option("--mix", a->mix,
                                "mixed-wait: shares of waits woken/timed out/mismatched")
                    ->capture_default_str();
    auto* start = sub->add_option("--start-threads", a->opt.start_threads,
                                  "pool-growth: threads working before the pool grows to --threads")
                      ->check(CLI::Range(1u, 4096u))
                      ->capture_default_str();
    auto* work = sub->add_option("--ops", a->opt.work_ops,
                                 "mutex: a fixed amount of work (lock/unlock pairs); reports work_ms")
                     ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
    sub->parse_complete_callback([a, locks, unlock, mix, start, work, machine, machine_file, seed, policy, kernel,
                                  trace, trace_window] {
        a->given_flags.clear();
        a->sim_only_flags.clear();
        if (machine->count())
            a->sim_only_flags.push_back("--machine");
        if (machine_file->count())
            a->sim_only_flags.push_back("--machine-file");
        if (seed->count())
            a->sim_only_flags.push_back("--seed");
        if (trace->count())
            a->sim_only_flags.push_back("--trace");
        if (trace_window->count())
            a->sim_only_flags.push_back("--trace-window");
        a->policy_given = policy->count() > 0;
        a->kernel_given = kernel->count() > 0;
        if (work->count())
            a->given_flags.push_back("--ops");
        if (start->count())
            a->given_flags.push_back("--start-threads");
        if (mix->count())
            a->given_flags.push_back("--mix");
        if (locks->count())
            a->given_flags.push_back("--locks");
        if (unlock->count())
            a->given_flags.push_back("--unlock");
    });
    sub->footer(
        "Each run prints: threads, slots before any thread / after --presize / after the\n"
        "threads were joined, virtual seconds, throughput, and the model's view: outcome\n"
        "(latched: a pivot still pending at the end and for at least half the run;\n"
        "transient: a pivot took over 10 mean grace periods' time; never), the share of\n"
        "futex_ref_get() calls that found FR_ATOMIC, and the mean grace period.\n"
        "The same command and seed print the same bytes (JSON: apart from wall_seconds).\n"
        "--backend threads|kernel run the same workloads on this machine in wall-clock time, at\n"
        "most " + std::to_string(real::max_threads) + " threads and " + std::to_string(static_cast<int>(real::max_seconds)) +
        " s; SIGINT stops them, joins every thread, prints the partial\n"
        "result and exits with status 130. docs/backends.md says which fields each fills.\n"
        "Machines and their parameters: docs/simulator.md.");
    add_command(sub, [a] { return run(*a); });
}

}  // namespace futexsim::cli
