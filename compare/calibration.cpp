#include "compare/calibration.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "compare/set_slots_stall.h"
#include "probe/probe.h"
#include "real/kernel_process.h"
#include "real/run_real.h"
#include "run/plural.h"
#include "run/stop_signal.h"
#include "run/workloads/workload.h"
#include "sim/timed/run.h"

namespace futexsim::compare {

namespace {

// How long the SET_SLOTS rows may take, each side (virtual seconds on the
// simulator, wall-clock on the kernel).
constexpr double stall_limit_s = 5.0;

double percentile(std::vector<double> v, double p)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const auto i = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
    return v[std::min(i, v.size() - 1)];
}

run_options wake_run(const machine& host, unsigned threads, double seconds)
{
    run_options o;
    o.mach = host;
    o.workload = "wake-nowaiters";
    o.threads = threads;
    o.seconds = seconds;
    return o;
}

// ns per FUTEX_WAKE of one simulated thread, steady state.
double simulated_wake_ns(const machine& base, double syscall_ns, double cpi)
{
    machine m = base;
    m.timing_jitter = 0;
    m.kernel_sites_cpu.clear();  // entry and exit as given
    m.syscall_entry_ns = syscall_ns / 2;
    m.syscall_exit_ns = syscall_ns / 2;
    m.kernel_cpi = cpi;
    run_options o = wake_run(m, 1, 0.05);
    o.interval_ms = 10;
    const run_result r = sim::simulate(o);
    // The last interval: thread creation and the idle exit are behind it.
    const double mops = r.per_interval_mops.empty() ? r.mops : r.per_interval_mops.back();
    return mops > 0 ? 1e3 / mops : 0;
}

}  // namespace

split_values values_from_split(const machine& m, const probe::syscall_split& s)
{
    split_values v;
    const double user = static_cast<double>(wake_loop_user_ns);
    v.entry_exit_ns = std::max(0.0, s.invalid_op.median - user);
    v.cpi = derive_kernel_cpi(m, v.entry_exit_ns, v.entry_exit_ns + user + probe::futex_path(s).median);
    return v;
}

calibration_report::cpi_derivation derive_kernel_cpi(const machine& m, double syscall_ns, double wake_ns)
{
    calibration_report::cpi_derivation d;
    // At 4 cycles per instruction the whole-nanosecond rounding of the
    // segments is a small part of the slope.
    const double at0 = simulated_wake_ns(m, 0, 0);
    const double at4 = simulated_wake_ns(m, 0, 4);
    d.fixed_ns = at0;
    d.ns_per_cpi = (at4 - at0) / 4;
    d.kernel_cpi = d.ns_per_cpi > 0 ? (wake_ns - syscall_ns - d.fixed_ns) / d.ns_per_cpi : 0;
    return d;
}

calibration_report calibrate(const calibration_options& opt, const machine& host)
{
    calibration_report rep;
    rep.hz = host.hz;
    rep.host_syscall_entry_ns = host.syscall_entry_cost_ns();
    rep.host_syscall_exit_ns = host.syscall_exit_cost_ns();
    rep.host_kernel_cpi = host.kernel_cpi;
    rep.host_ghz = host.core_ghz;
    rep.have_prctl = real::kernel_has_futex_hash_prctl();

    // SIGINT: checked after each measurement; the row it cut short is
    // not a measurement and is left out.
    auto stop = [&] { return rep.interrupted = sigint_received().load(); };

    // First, on a machine still quiet of our own runs: what a system call
    // costs against what the futex path adds, and what that makes of the
    // host's entry + exit and kernel_cpi.
    rep.ghz = probe::core_ghz().median;
    rep.split = probe::measure_syscall_split(opt.split_rounds, opt.split_calls);
    if (stop())
        return rep;
    const split_values v = values_from_split(host, rep.split);
    rep.split_syscall_ns = v.entry_exit_ns;
    rep.split_cpi = v.cpi;
    if (stop())
        return rep;
    // One run on each side, or nothing once SIGINT came.
    auto both = [&](const run_options& o) -> std::optional<std::pair<run_result, run_result>> {
        run_result s = sim::simulate(o);
        if (stop())
            return std::nullopt;
        run_result k = real::run_real(o, real::backend::kernel);
        if (stop())
            return std::nullopt;
        return std::pair{std::move(s), std::move(k)};
    };

    // Slots after N threads: a short wake-nowaiters run, read after the joins.
    if (rep.have_prctl)
        for (unsigned n : opt.slot_threads) {
            const auto runs = both(wake_run(host, n, 0.02));
            if (!runs)
                return rep;
            const auto& [s, k] = *runs;
            rep.rows.push_back({"slots after " + count_noun(n, "thread"), "slots",
                                static_cast<double>(s.slots_end), static_cast<double>(k.slots_end),
                                ""});
        }

    for (unsigned n : opt.wake_threads) {
        const auto runs = both(wake_run(host, n, opt.seconds));
        if (!runs)
            return rep;
        const auto& [s, k] = *runs;
        rep.rows.push_back(
            {"wake-nowaiters, " + count_noun(n, "thread"), "Mops/s", s.mops, k.mops, ""});
        if (n == 1) {
            rep.measured_wake_ns = k.mops > 0 ? 1e3 / k.mops : 0;
            rep.simulated_wake_ns = s.mops > 0 ? 1e3 / s.mops : 0;
            const double sim_syscall = host.syscall_entry_ns + host.syscall_exit_ns;
            rep.suggested_syscall_ns = std::max(0.0, sim_syscall + rep.measured_wake_ns - rep.simulated_wake_ns);
        }
    }

    if (rep.have_prctl)
        for (unsigned n : opt.stall_threads) {
            const stall_samples k = measure_set_slots_kernel(n, opt.samples, stall_limit_s);
            if (stop())
                return rep;
            const stall_samples s = measure_set_slots_sim(host, n, opt.samples, stall_limit_s, 1);
            if (stop())
                return rep;
            std::string note;
            if (s.ms.size() < s.wanted)
                note = fmt::format("sim: {} of {} completed in {} s{}", s.ms.size(), s.wanted, stall_limit_s,
                                   s.incomplete ? ", one blocked at the end" : "");
            if (k.ms.size() < k.wanted)
                note += fmt::format("{}real: {} of {} completed in {} s", note.empty() ? "" : "; ", k.ms.size(),
                                    k.wanted, stall_limit_s);
            rep.rows.push_back({"SET_SLOTS under " + count_noun(n, "waker") + ", median", "ms",
                                percentile(s.ms, 0.5), percentile(k.ms, 0.5), note});
            rep.rows.push_back({"SET_SLOTS under " + count_noun(n, "waker") + ", p90", "ms",
                                percentile(s.ms, 0.9), percentile(k.ms, 0.9), ""});
        }
    return rep;
}

std::string calibration_table(const calibration_report& r)
{
    std::string out = fmt::format("{:<36} {:>7} {:>12} {:>12} {:>9}  {}\n", "row", "unit", "sim(host)", "real",
                                  "sim/real", "note");
    for (const auto& row : r.rows) {
        const std::string ratio = row.real != 0 ? fmt::format("{:.2f}", row.sim / row.real) : "-";
        out += fmt::format("{:<36} {:>7} {:>12.4g} {:>12.4g} {:>9}  {}\n", row.what, row.unit, row.sim, row.real,
                           ratio, row.note);
    }
    if (r.interrupted)
        out += fmt::format("interrupted by {}: the rows above are those measured before it\n",
                           stop_signal_name());
    if (!r.have_prctl)
        out += "no prctl(PR_FUTEX_HASH) on this kernel (Linux 6.17 or later): slot and SET_SLOTS rows left out\n";
    out += fmt::format("one FUTEX_WAKE (1 thread): real {:.0f} ns, sim {:.0f} ns; CONFIG_HZ={}\n", r.measured_wake_ns,
                       r.simulated_wake_ns, r.hz);
    out += fmt::format("suggested host syscall entry+exit: {:.0f} ns (a machine file can set "
                       "syscall_entry_ns/syscall_exit_ns)\n",
                       r.suggested_syscall_ns);
    if (r.split.rounds > 0) {
        out += probe::split_table(r.split, r.ghz);
        const auto& d = r.split_cpi;
        out += fmt::format("  from the split: entry+exit {:.0f} ns (the invalid op less the model's 2 ns user loop); "
                           "the model's FUTEX_WAKE is {:.1f} ns + entry/exit + {:.2f} ns per cycle per instruction "
                           "(7.2.13's counted instructions at {:.2f} GHz), so the path measured gives kernel_cpi "
                           "{:.2f} (host preset: {:.0f} + {:.0f} ns and {:.2f})\n",
                           r.split_syscall_ns, d.fixed_ns, d.ns_per_cpi, r.host_ghz, d.kernel_cpi,
                           r.host_syscall_entry_ns, r.host_syscall_exit_ns, r.host_kernel_cpi);
    }
    return out;
}

}  // namespace futexsim::compare
