#include "sim/run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "run/stop_signal.h"
#include "run/throughput.h"
#include "run/workloads/registry.h"
#include "sim/atomic_share.h"
#include "sim/fast_forward.h"
#include "sim/process.h"
#include "sim/rng.h"
#include "sim/trace_writer.h"

namespace futexsim::sim {

namespace {

// A pivot still pending at the end counts as latched once it has been
// pending for half the run, and as transient before that. A completed pivot
// is transient if it took longer than 10 grace periods, in time: grace
// periods only run while callbacks wait for one, so a pivot parked on a
// count that will not drain sees none pass, and counting them would call a
// 600 ms wait "never".
std::string classify(const run_result& r, double seconds)
{
    if (r.pivot_pending_at_end)
        return r.pending_ms_at_end >= seconds * 1e3 / 2 ? "latched" : "transient";
    return r.longest_pivot_ms > 10 * r.mean_gp_ms ? "transient" : "never";
}

// How long the threads get to stop and be joined after the measured run.
constexpr vtime max_drain_ns = 2'000'000'000;

}  // namespace

run_result simulate(const run_options& opt, const sim_options& sopt)
{
    const auto wall_start = std::chrono::steady_clock::now();
    const workload_def& wl = find_workload(opt.workload);
    if (opt.threads == 0)
        throw std::invalid_argument("--threads must be at least 1");
    if (!(opt.seconds > 0))
        throw std::invalid_argument("--seconds must be positive");

    const auto policy_id = model::pivot_policy_id(opt.policy);
    if (!policy_id)
        throw std::invalid_argument("unknown policy '" + opt.policy + "' (valid: " +
                                    model::pivot_policy_names() + ")");

    // fifo with no prefix is the engine's own order: no strategy at all.
    // Declared first: the engine keeps a pointer to it until it is torn down.
    std::unique_ptr<schedule_strategy> strategy;
    // Declared before the process, which may call it while it is torn down.
    std::unique_ptr<trace_writer> tracer;
    engine_config ecfg;
    ecfg.fast_paths = sopt.fast_paths;
    // Declared before the process: the engine keeps it as a source until
    // the process (and its engine) is gone.
    std::optional<progress_watch> watch;
    sim_process proc(opt.mach, opt.seed, ecfg);
    watch.emplace(proc.eng(), proc.rcu(), sopt.detectors);
    proc.env().watch_spins(&watch->spins());
    if (sopt.strategy.kind != strategy_kind::fifo || !sopt.strategy.schedule.empty()) {
        strategy_options so = sopt.strategy;
        so.seed = stream_seed(opt.seed, streams::schedule);
        strategy = make_strategy(so);
        proc.eng().set_strategy(strategy.get());
    }
    model::futex_set_pivot_policy(&proc.mm(), *policy_id);
    proc.mm().futex_precheck = opt.precheck;
    proc.mm().futex_kernel = opt.kernel;
    engine& eng = proc.eng();
    if (!sopt.trace_path.empty()) {
        const auto ns = [](double ms) { return static_cast<vtime>(std::llround(ms * 1e6)); };
        tracer = std::make_unique<trace_writer>(
            sopt.trace_path, proc, ns(sopt.trace_start_ms),
            ns(sopt.trace_end_ms < 0 ? opt.seconds * 1e3 : sopt.trace_end_ms),
            fmt::format("futexsim {} {} threads={} policy={} seed={}", opt.mach.name, opt.workload, opt.threads,
                        opt.policy, opt.seed));
    }
    const auto interval_ns = static_cast<vtime>(std::llround(opt.interval_ms * 1e6));
    atomic_share_bins share_bins(interval_ns, static_cast<vtime>(opt.seconds * 1e9));
    std::optional<observer_pair> both;
    if (tracer)
        both.emplace(*tracer, share_bins);
    eng.set_observer(both ? static_cast<sim_observer*>(&*both) : &share_bins);
    op_counter ops(proc, opt.interval_ms, opt.seconds);

    std::vector<unsigned> cpus = opt.cpus;
    if (cpus.empty()) {
        cpus.resize(opt.mach.num_cpus());
        std::iota(cpus.begin(), cpus.end(), 0u);
    }

    run_result r = result_header(opt);

    workload_context ctx{proc, opt, ops, cpus};
    bool main_returned = false;
    eng.spawn("main", cpus, [&] {
        r.slots_start = proc.sys_prctl_futex_hash(model::PR_FUTEX_HASH_GET_SLOTS, 0);
        if (opt.global_hash || opt.presize) {
            const int ret = proc.sys_prctl_futex_hash(model::PR_FUTEX_HASH_SET_SLOTS,
                                                      opt.global_hash ? 0 : *opt.presize);
            if (ret < 0)
                throw std::invalid_argument("prctl(PR_FUTEX_HASH_SET_SLOTS) failed: slots must be 0 or a power of two >= 2");
        }
        r.slots_set = proc.sys_prctl_futex_hash(model::PR_FUTEX_HASH_GET_SLOTS, 0);
        wl.main(ctx);
        main_returned = true;
        proc.join_all();
        r.slots_end = proc.sys_prctl_futex_hash(model::PR_FUTEX_HASH_GET_SLOTS, 0);
    }, 0);

    // SIGINT ends the run between two events: the result is then that of
    // the virtual time simulated so far.
    eng.set_interrupt(&sigint_received());
    const auto end = static_cast<vtime>(opt.seconds * 1e9);
    // Fast-forward: the same events in 1 ms steps (byte-identical to one
    // step while the run is not stationary), until the sampler has the rate.
    std::optional<fast_forward_sampler> ff;
    vtime simulated_to = end;
    if (sopt.fast_forward && sopt.trace_path.empty() && wl.stationary_after_main) {
        ff.emplace();
        const fast_forward_rule rule;
        // Nothing can request a pivot again: the workload is done creating
        // threads and calling prctl, no pivot is pending, the hash is per-CPU.
        const auto stationary = [&] {
            const auto& mm = proc.mm();
            if (!main_returned || proc.pivots().pending || mm.futex_phash_new)
                return false;
            const auto* fph = mm.futex_phash.v;
            return fph ? fph->state.v == model::FR_PERCPU : opt.global_hash;
        };
        for (vtime t = 0; t < end && !eng.interrupted();) {
            t = std::min(end, t + rule.batch_ns);
            eng.run_until(t);
            if (t < end && !eng.interrupted() && ff->observe(t, ops.total(), stationary()))
                simulated_to = t;
            if (simulated_to < end)
                break;
        }
    } else {
        eng.run_until(end);
    }
    if (eng.interrupted()) {
        r.interrupted = true;
        r.seconds = static_cast<double>(eng.now()) / 1e9;
    }

    // The measured run ends here; then the threads stop and are joined, and
    // slots_end is read after the joins, as the original tool does.
    const pivot_stats p = proc.pivots();
    const auto* fph_now = proc.mm().futex_phash.v;
    const int slots_now = fph_now && fph_now->hash_mask ? static_cast<int>(fph_now->hash_mask + 1) : 0;
    fill_throughput(r, ctx, ops, r.seconds, slots_now);
    if (r.interrupted) {
        // Only the bins the run got into.
        const auto bins_run = static_cast<std::size_t>(std::ceil(r.seconds * 1e3 / opt.interval_ms));
        r.per_interval_mops.resize(std::min(r.per_interval_mops.size(), bins_run));
    }
    if (simulated_to < end) {
        // The rest of the run at the stationary rate; the bins cover only
        // what was simulated.
        r.ops += static_cast<std::uint64_t>(std::llround(ff->rate_per_ns() * static_cast<double>(end - simulated_to)));
        r.mops = static_cast<double>(r.ops) / opt.seconds / 1e6;
        r.extrapolated_from_ms = static_cast<double>(simulated_to) / 1e6;
        r.mops_stationary = ff->rate_per_ns() * 1e3;  // ops/ns -> Mops/s
        r.mops_ci95 = ff->half_width_per_ns() * 1e3;
        r.per_interval_mops.resize(std::min(r.per_interval_mops.size(),
                                            static_cast<std::size_t>(simulated_to / interval_ns)));
    }
    r.per_interval_atomic_share = share_bins.shares(r.per_interval_mops.size());
    r.ref_get_percpu = p.ref_get_percpu;
    r.ref_get_atomic = p.ref_get_atomic;
    r.pivots_requested = p.pivots_requested;
    r.pivots_completed = p.pivots_completed;
    r.pivot_pending_at_end = p.pending;
    r.pending_ms_at_end = p.pending ? static_cast<double>(eng.now() - p.pending_since) / 1e6 : 0;
    r.longest_pivot_ms = static_cast<double>(p.longest_pending) / 1e6;
    r.longest_pivot_gps = p.longest_pending_gps;
    r.grace_periods = proc.rcu().completed();
    const auto& d = proc.rcu().gp_durations();
    r.mean_gp_ms = d.empty() ? 0 : static_cast<double>(std::accumulate(d.begin(), d.end(), vtime{0})) / static_cast<double>(d.size()) / 1e6;
    r.outcome = classify(r, r.seconds);
    ctx.stopping = true;
    if (!r.interrupted)  // interrupted: no drain, slots_end is what it was
        eng.run_until(simulated_to + max_drain_ns);
    else
        r.slots_end = slots_now;
    r.events = eng.events_processed();
    if (sopt.counters)
        *sopt.counters = {eng.events_processed(), proc.cache().stats().misses, proc.cache().stats().hits};
    r.trace_hash = eng.trace_hash();
    r.warnings = proc.env().warnings;
    const std::vector<std::string> detected = watch->warnings();
    r.warnings.insert(r.warnings.end(), detected.begin(), detected.end());
    if (watch->stopped())
        r.warnings.push_back("stopped at the first warning (--fail-on-warning)");
    else if (r.interrupted)
        r.warnings.push_back("interrupted by SIGINT");
    eng.set_observer(nullptr);
    if (tracer)
        tracer->finish(eng.now());
    r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    return r;
}

}  // namespace futexsim::sim
