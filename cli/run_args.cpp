// The checks `futexsim run` makes before a run (cli/run_args.h).
#include "cli/run_args.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <bit>
#include <cmath>
#include <optional>

#include "cli/commands.h"
#include "cli/numbers.h"
#include "real/limits.h"
#include "run/run_checks.h"
#include "run/workloads/registry.h"

namespace futexsim::cli {

// --trace-window START:END, virtual milliseconds, 0 <= START < END, and
// START within the run (`run_ms` long): a window past its end would write
// an empty trace.
void parse_trace_window(const std::string& text, double run_ms, sim::sim_options& opt)
{
    const std::size_t colon = text.find(':');
    const auto start =
        colon == std::string::npos ? std::nullopt : parse_real(text.substr(0, colon));
    const auto end = colon == std::string::npos ? std::nullopt : parse_real(text.substr(colon + 1));
    if (!start || !end || *start < 0 || *end <= *start)
        throw usage_error(fmt::format("--trace-window '{}': expected START:END in virtual "
                                      "milliseconds with 0 <= START < END, e.g. 0:20",
                                      text));
    if (*start >= run_ms)
        throw usage_error(
            fmt::format("--trace-window '{}': starts at or after the run's end ({} virtual ms, "
                        "--seconds {}): the trace would be empty",
                        text, run_ms, run_ms / 1e3));
    opt.trace_start_ms = *start;
    opt.trace_end_ms = *end;
}

// The same file as `path`, when both exist (a link or another spelling of
// the same name included).
bool same_file(const std::string& a, const std::string& b)
{
    struct stat sa {
    }, sb{};
    return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

// The real backends run on this machine: no preset, no seed, no schedule
// strategy (the OS schedules); the kernel backend runs the host's futex
// code, so no model policy either.
void check_backend_flags(const run_args& a)
{
    if (a.backend == "sim")
        return;
    for (const auto& flag : a.sim_only_flags)
        throw usage_error(fmt::format("{} does not apply to --backend {} (it runs on this machine)",
                                      flag, a.backend));
    if (a.backend == "kernel" && (a.policy_given || a.opt.precheck || a.kernel_given))
        throw usage_error(
            fmt::format("{} does not apply to --backend kernel (the host kernel's own code runs)",
                        a.policy_given   ? "--policy"
                        : a.opt.precheck ? "--precheck"
                                         : "--kernel"));
    const run_options& opt = a.opt;
    if (opt.threads > real::max_threads)
        throw usage_error(fmt::format("--threads {}: --backend {} creates at most {} threads",
                                      opt.threads, a.backend, real::max_threads));
    if (opt.seconds > real::max_seconds)
        throw usage_error(fmt::format("--seconds {}: --backend {} runs for at most {} s",
                                      opt.seconds, a.backend, real::max_seconds));
    // Threads created after the run has ended measure nothing, and a ramp
    // longer than the run would keep the process alive past --seconds.
    if (opt.ramp_ms > opt.seconds * 1e3)
        throw usage_error(fmt::format(
            "--ramp-ms {}: --backend {} must create its threads within the run (at most "
            "--seconds x 1000 = {} ms)",
            opt.ramp_ms, a.backend, opt.seconds * 1e3));
    // Every real thread counts into its own bins (no shared line), so the
    // bins cost threads x bins words.
    const double bins = std::ceil(opt.seconds * 1e3 / opt.interval_ms);
    if (bins * (opt.threads + 1) > max_real_bin_words)
        throw usage_error(
            fmt::format("--interval-ms {}: {} bins for each of {} threads is too many on --backend "
                        "{} (at most {} bins x threads; widen --interval-ms)",
                        opt.interval_ms, bins, opt.threads, a.backend, max_real_bin_words));
}

// What every backend checks the same way: the CPU list, the hash size, the
// bins, and the workload's own flags (workload_flags).
void check_common(run_args& a, unsigned num_cpus)
{
    run_options& opt = a.opt;
    const workload_def* wl = usage_checked([&] { return &find_workload(opt.workload); });
    a.workload.refuse_others(*wl);
    if (a.cpus_given)
        opt.cpus = usage_checked([&] { return parse_cpu_list(a.cpus, num_cpus); });
    if (opt.presize && !std::has_single_bit(*opt.presize))
        throw usage_error(fmt::format(
            "--presize {}: slots must be a power of two from 2 to {} (use --global-hash "
            "for 0)",
            *opt.presize, max_presize));
    if (opt.seconds * 1e3 / opt.interval_ms > max_bins)
        throw usage_error(
            fmt::format("--interval-ms {}: {} s in bins of {} ms is more than {} bins",
                        opt.interval_ms, opt.seconds, opt.interval_ms, max_bins));
    a.workload.apply(*wl, opt);
}

}  // namespace futexsim::cli
