#include "sim/timed/run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "run/outcome.h"
#include "run/run_checks.h"
#include "run/stop_signal.h"
#include "run/throughput.h"
#include "run/workloads/registry.h"
#include "sim/rng.h"
#include "sim/timed/atomic_share.h"
#include "sim/timed/fast_forward.h"
#include "sim/timed/process.h"
#include "sim/timed/trace_writer.h"

namespace futexsim::sim {

namespace {

// How long the threads get to stop and be joined after the measured run.
constexpr vtime max_drain_ns = 2'000'000'000;

// One simulated run, in the steps simulate() names. The members are in the
// order they must be torn down in reverse: the engine keeps pointers to the
// strategy, the progress watch and the observers, and the process may call
// the tracer while it is torn down, so those outlive the process.
class simulation {
public:
    simulation(const run_options& opt, const sim_options& sopt, const workload_def& wl,
               int policy_id)
        : opt_(opt), sopt_(sopt), wl_(wl), proc_(opt.mach, opt.seed, engine_config_of(sopt)),
          share_bins_(interval_ns(), static_cast<vtime>(opt.seconds * 1e9)),
          ops_(proc_, opt.interval_ms, opt.seconds),
          r_(result_header(opt)), ctx_{proc_, opt, ops_, cpus_of(opt)}
    {
        watch_.emplace(proc_.eng(), proc_.rcu(), sopt.detectors);
        proc_.env().watch_spins(&watch_->spins());
        if (sopt.strategy.kind != strategy_kind::fifo || !sopt.strategy.schedule.empty()) {
            strategy_options so = sopt.strategy;
            so.seed = stream_seed(opt.seed, streams::schedule);
            strategy_ = make_strategy(so);
            proc_.eng().set_strategy(strategy_.get());
        }
        model::futex_set_pivot_policy(&proc_.mm(), policy_id);
        proc_.mm().futex_precheck = opt.precheck;
        proc_.mm().futex_kernel = opt.kernel;
        open_trace();
        share_bins_.watch_refs(&proc_.mm().futex_atomic.v);
        // The trace first, then the share bins (neither changes the run).
        if (tracer_)
            proc_.eng().add_observer(*tracer_);
        proc_.eng().add_observer(share_bins_);
    }

    // The workload's main thread: sizes the hash as asked, runs the
    // workload (which creates the threads), joins them, reads slots_end.
    void spawn_main();
    // The measured run, to its end or SIGINT; with fast-forward, until the
    // run is stationary. Returns the virtual time simulated to.
    vtime run_window();
    // The figures, read while the threads still run.
    void measure(vtime simulated_to);
    // The threads stop and are joined; the warnings and counters close the result.
    run_result finish(vtime simulated_to, std::chrono::steady_clock::time_point wall_start);

private:
    // fifo with no prefix is the engine's own order: no strategy at all.
    std::unique_ptr<schedule_strategy> strategy_;
    std::unique_ptr<trace_writer> tracer_;
    std::optional<progress_watch> watch_;
    const run_options& opt_;
    const sim_options& sopt_;
    const workload_def& wl_;
    sim_process proc_;
    atomic_share_bins share_bins_;
    op_counter ops_;
    run_result r_;
    workload_context ctx_;
    bool main_returned_ = false;
    std::optional<fast_forward_sampler> ff_;
    int slots_now_ = 0;  // the hash's slots when the measured run ended

    static engine_config engine_config_of(const sim_options& sopt)
    {
        engine_config ecfg;
        ecfg.fast_paths = sopt.fast_paths;
        return ecfg;
    }
    static std::vector<unsigned> cpus_of(const run_options& opt)
    {
        std::vector<unsigned> cpus = opt.cpus;
        if (cpus.empty()) {
            cpus.resize(opt.mach.num_cpus());
            std::iota(cpus.begin(), cpus.end(), 0u);
        }
        return cpus;
    }
    vtime interval_ns() const { return static_cast<vtime>(std::llround(opt_.interval_ms * 1e6)); }
    vtime end_ns() const { return static_cast<vtime>(opt_.seconds * 1e9); }
    void open_trace();
    // Nothing can request a pivot again: the workload is done creating
    // threads and calling prctl, no pivot is pending, the hash is per-CPU.
    bool stationary();
};

void simulation::open_trace()
{
    if (sopt_.trace_path.empty())
        return;
    const auto ns = [](double ms) { return static_cast<vtime>(std::llround(ms * 1e6)); };
    tracer_ = std::make_unique<trace_writer>(
        sopt_.trace_path, proc_, ns(sopt_.trace_start_ms),
        ns(sopt_.trace_end_ms < 0 ? opt_.seconds * 1e3 : sopt_.trace_end_ms),
        fmt::format("futexsim {} {} threads={} policy={} seed={}", opt_.mach.name, opt_.workload,
                    opt_.threads, opt_.policy, opt_.seed),
        sopt_.trace_max_bytes);
}

void simulation::spawn_main()
{
    proc_.eng().spawn(
        "main", ctx_.cpus,
        [this] {
            r_.slots_start = proc_.sys_prctl_futex_hash(model::PR_FUTEX_HASH_GET_SLOTS, 0);
            if (opt_.global_hash || opt_.presize) {
                const int ret = proc_.sys_prctl_futex_hash(model::PR_FUTEX_HASH_SET_SLOTS,
                                                           opt_.global_hash ? 0 : *opt_.presize);
                if (ret < 0)
                    throw std::invalid_argument("prctl(PR_FUTEX_HASH_SET_SLOTS) failed: slots must "
                                                "be 0 or a power of two >= 2");
            }
            r_.slots_set = proc_.sys_prctl_futex_hash(model::PR_FUTEX_HASH_GET_SLOTS, 0);
            wl_.main(ctx_);
            main_returned_ = true;
            proc_.join_all();
            r_.slots_end = proc_.sys_prctl_futex_hash(model::PR_FUTEX_HASH_GET_SLOTS, 0);
        },
        0);
}

bool simulation::stationary()
{
    const auto& mm = proc_.mm();
    if (!main_returned_ || proc_.pivots().pending || mm.futex_phash_new)
        return false;
    const auto* fph = mm.futex_phash.v;
    return fph ? fph->state.v == model::FR_PERCPU : opt_.global_hash;
}

vtime simulation::run_window()
{
    engine& eng = proc_.eng();
    // SIGINT ends the run between two events: the result is then that of
    // the virtual time simulated so far.
    eng.set_interrupt(&sigint_received());
    const vtime end = end_ns();
    if (!(sopt_.fast_forward && sopt_.trace_path.empty() && wl_.stationary_after_main)) {
        eng.run_until(end);
        return end;
    }
    // Fast-forward: the same events in 1 ms steps (byte-identical to one
    // step while the run is not stationary), until the sampler has the rate.
    ff_.emplace();
    const fast_forward_rule rule;
    vtime simulated_to = end;
    for (vtime t = 0; t < end && !eng.interrupted();) {
        t = std::min(end, t + rule.batch_ns);
        eng.run_until(t);
        if (t < end && !eng.interrupted() && ff_->observe(t, ops_.total(), stationary()))
            simulated_to = t;
        if (simulated_to < end)
            break;
    }
    return simulated_to;
}

void simulation::measure(vtime simulated_to)
{
    engine& eng = proc_.eng();
    run_result& r = r_;
    if (eng.interrupted()) {
        r.interrupted = true;
        r.seconds = static_cast<double>(eng.now()) / 1e9;
    }
    const pivot_stats p = proc_.pivots();
    const auto* fph_now = proc_.mm().futex_phash.v;
    slots_now_ = fph_now && fph_now->hash_mask ? static_cast<int>(fph_now->hash_mask + 1) : 0;
    // --ops: the run took until the work was done, as on the real backends.
    if (const std::int64_t done = ctx_.work_done_at.load(); done >= 0 && !r.interrupted)
        r.seconds = std::min(opt_.seconds, static_cast<double>(done) / 1e9);
    fill_throughput(r, ctx_, ops_, r.seconds, slots_now_);
    if (r.interrupted) {
        // Only the bins the run got into.
        const auto bins_run =
            static_cast<std::size_t>(std::ceil(r.seconds * 1e3 / opt_.interval_ms));
        r.per_interval_mops.resize(std::min(r.per_interval_mops.size(), bins_run));
    }
    if (simulated_to < end_ns()) {
        // The rest of the run at the stationary rate; the bins cover only
        // what was simulated.
        r.ops += static_cast<std::uint64_t>(
            std::llround(ff_->rate_per_ns() * static_cast<double>(end_ns() - simulated_to)));
        r.mops = static_cast<double>(r.ops) / opt_.seconds / 1e6;
        r.extrapolated_from_ms = static_cast<double>(simulated_to) / 1e6;
        r.mops_stationary = ff_->rate_per_ns() * 1e3;  // ops/ns -> Mops/s
        r.mops_ci95 = ff_->half_width_per_ns() * 1e3;
        r.per_interval_mops.resize(std::min(
            r.per_interval_mops.size(), static_cast<std::size_t>(simulated_to / interval_ns())));
    }
    r.per_interval_atomic_share = share_bins_.shares(r.per_interval_mops.size());
    r.per_interval_atomic_refs_min = share_bins_.refs_min(r.per_interval_mops.size());
    r.atomic_refs = share_bins_.refs();
    record_pivots(r, p, eng.now());
    r.grace_periods = proc_.rcu().completed();
    const auto& d = proc_.rcu().gp_durations();
    r.mean_gp_ms = d.empty() ? 0
                             : static_cast<double>(std::accumulate(d.begin(), d.end(), vtime{0})) /
                                   static_cast<double>(d.size()) / 1e6;
    r.outcome = run_outcome(r);
}

run_result simulation::finish(vtime simulated_to, std::chrono::steady_clock::time_point wall_start)
{
    engine& eng = proc_.eng();
    run_result& r = r_;
    ctx_.stopping = true;
    if (!r.interrupted)  // interrupted: no drain, slots_end is what it was
        eng.run_until(simulated_to + max_drain_ns);
    else
        r.slots_end = slots_now_;
    r.events = eng.events_processed();
    if (sopt_.counters)
        *sopt_.counters = {eng.events_processed(), proc_.cache().stats().misses,
                           proc_.cache().stats().hits};
    r.trace_hash = eng.trace_hash();
    r.warnings = proc_.env().warnings;
    warn_unfinished_work(r, ctx_);
    const std::vector<std::string> detected = watch_->warnings();
    r.warnings.insert(r.warnings.end(), detected.begin(), detected.end());
    if (watch_->stopped())
        r.warnings.push_back("stopped at the first warning (--fail-on-warning)");
    else if (r.interrupted)
        r.warnings.push_back(fmt::format("interrupted by {}", stop_signal_name()));
    eng.clear_observers();
    if (tracer_) {
        tracer_->finish(eng.now());
        if (const vtime at = tracer_->capped_at(); at >= 0)
            r.warnings.push_back(fmt::format("the trace reached its size cap ({} MiB) at {:.3f} "
                                             "virtual ms and ends there; narrow it with "
                                             "--trace-window or raise --trace-max-mb",
                                             sopt_.trace_max_bytes >> 20,
                                             static_cast<double>(at) / 1e6));
    }
    r.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    return r;
}

}  // namespace

run_result simulate(const run_options& opt, const sim_options& sopt)
{
    const auto wall_start = std::chrono::steady_clock::now();
    const workload_def& wl = find_workload(opt.workload);
    check_run_options(opt);
    simulation run(opt, sopt, wl, require_pivot_policy(opt.policy));
    run.spawn_main();
    const vtime simulated_to = run.run_window();
    // The measured run ends here; then the threads stop and are joined, and
    // slots_end is read after the joins, as the original tool does.
    run.measure(simulated_to);
    return run.finish(simulated_to, wall_start);
}

}  // namespace futexsim::sim
