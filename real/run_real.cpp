#include "real/run_real.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "real/kernel_process.h"
#include "real/limits.h"
#include "run/outcome.h"
#include "run/run_checks.h"
#include "run/stop_signal.h"
#include "real/threads_process.h"
#include "run/throughput.h"
#include "run/workloads/registry.h"

namespace futexsim::real {

namespace {

// What every backend refuses (run/run_checks.h), then a real backend's caps.
void check_options(const run_options& opt, backend b)
{
    check_run_options(opt);
    if (opt.threads > max_threads)
        throw std::invalid_argument(
            fmt::format("--threads {}: a real backend creates at most {} threads", opt.threads, max_threads));
    if (opt.seconds > max_seconds)
        throw std::invalid_argument(
            fmt::format("--seconds {}: a real backend runs for more than 0 and at most {} s", opt.seconds, max_seconds));
    if (b == backend::kernel && (opt.presize || opt.global_hash) && !kernel_has_futex_hash_prctl())
        throw std::invalid_argument(
            "this kernel has no prctl(PR_FUTEX_HASH) (Linux 6.17 or later): --presize and --global-hash need it");
}

// Ends the measured run at the deadline or at SIGINT, whichever comes
// first: takes the figures while the threads still run (as the simulator
// does), then tells them to stop.
class watchdog {
public:
    template <class Snapshot>
    watchdog(double seconds, workload_context& ctx, Snapshot snap)
    {
        with_sigint_blocked([&] {
            thread_ = std::thread([this, seconds, &ctx, snap] {
                const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
                std::unique_lock lock(mu_);
                // A fixed amount of work (--ops) ends the run once done: on a
                // real machine, waiting out the rest of --seconds shows nothing.
                auto work_done = [&] { return ctx.work_done_at.load() >= 0; };
                while (!cancelled_ && !stop_requested().load() && !work_done() &&
                       std::chrono::steady_clock::now() < until)
                    cv_.wait_for(lock, std::chrono::milliseconds(5));
                lock.unlock();
                snap();
                ctx.stopping = true;
            });
        });
    }
    // Ends the run now (the workload failed).
    void cancel()
    {
        std::lock_guard lock(mu_);
        cancelled_ = true;
        cv_.notify_all();
    }
    void join()
    {
        if (thread_.joinable())
            thread_.join();
    }
    ~watchdog()
    {
        cancel();
        join();
    }

private:
    std::mutex mu_;
    std::condition_variable cv_;
    bool cancelled_ = false;
    std::thread thread_;
};

}  // namespace

run_result run_real(const run_options& opt, backend b)
{
    const auto wall_start = std::chrono::steady_clock::now();
    const workload_def& wl = find_workload(opt.workload);
    check_options(opt, b);

    sigint_scope sigint;
    std::unique_ptr<real_process> proc;
    threads_process* tp = nullptr;
    if (b == backend::threads) {
        auto t = std::make_unique<threads_process>(max_threads);
        model::futex_set_pivot_policy(&t->mm(), require_pivot_policy(opt.policy));
        t->mm().futex_precheck = opt.precheck;
        t->mm().futex_kernel = opt.kernel;
        tp = t.get();
        proc = std::move(t);
    } else {
        proc = std::make_unique<kernel_process>();
    }

    run_result r = result_header(opt);
    r.backend = b == backend::threads ? "threads" : "kernel";
    r.machine = "host";
    if (b == backend::kernel)
        r.policy = "host kernel";

    const bool have_prctl = b == backend::threads || kernel_has_futex_hash_prctl();
    auto slots = [&] { return have_prctl ? proc->sys_prctl_futex_hash(model::PR_FUTEX_HASH_GET_SLOTS, 0) : -1; };
    if (!have_prctl)
        r.warnings.push_back("no prctl(PR_FUTEX_HASH) on this kernel (before 6.17): slots are -1");

    op_counter ops(*proc, opt.interval_ms, opt.seconds, /*window_only=*/true);
    workload_context ctx{*proc, opt, ops, opt.cpus};
    proc->stop_waits_on(&ctx.stopping);
    r.slots_start = slots();
    if (opt.global_hash || opt.presize) {
        const int ret = proc->sys_prctl_futex_hash(model::PR_FUTEX_HASH_SET_SLOTS, opt.global_hash ? 0 : *opt.presize);
        if (ret < 0)
            throw std::invalid_argument(fmt::format("prctl(PR_FUTEX_HASH_SET_SLOTS) failed: error {}", -ret));
    }
    r.slots_set = slots();

    std::mutex result_mu;  // the snapshot (watchdog) against the reads below
    unsigned created_in_window = 0;  // threads that existed when the window ended
    auto snapshot = [&] {
        std::lock_guard lock(result_mu);
        created_in_window = proc->threads_created();
        const double elapsed = static_cast<double>(proc->now_ns()) / 1e9;
        r.interrupted = sigint_received().load();
        // --ops: the run took until the work was done (work_ms), not until
        // the watchdog, polling every 5 ms, noticed it.
        if (const std::int64_t done = ctx.work_done_at.load(); done >= 0)
            r.seconds = std::min(opt.seconds, static_cast<double>(done) / 1e9);
        else if (r.interrupted)
            r.seconds = std::min(opt.seconds, elapsed);
        fill_throughput(r, ctx, ops, r.seconds, slots());  // a run that ended early has fewer bins
        if (tp) {
            record_pivots(r, tp->env().pivots(), proc->now_ns());
            r.grace_periods = tp->env().completed_grace_periods();
            r.mean_gp_ms = tp->env().mean_grace_period_ms();
            r.outcome = run_outcome(r);
        }
    };

    {
        watchdog dog(opt.seconds, ctx, snapshot);
        try {
            wl.main(ctx);
        } catch (...) {
            // Never leave a thread behind: stop, join, then report.
            dog.cancel();
            dog.join();
            ctx.stopping = true;
            proc->join_all();
            throw;
        }
        dog.join();
    }
    const auto stop_begun = std::chrono::steady_clock::now();
    proc->join_all();
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - stop_begun).count() > stop_warning_seconds)
        r.warnings.push_back(fmt::format("threads took more than {} s to stop", stop_warning_seconds));
    if (auto err = proc->first_error())
        std::rethrow_exception(err);
    r.slots_end = slots();
    // A window that ended while the workload was still creating threads
    // measured fewer threads than asked for: its figures are not the run's.
    if (!r.interrupted && ctx.work_done_at.load() < 0 && created_in_window < opt.threads)
        r.warnings.push_back(fmt::format("the window ended with {} of the {} threads created: the figures cover "
                                         "fewer threads than asked for (a --ramp-ms or thread creation as long as "
                                         "--seconds)",
                                         created_in_window, opt.threads));
    warn_unfinished_work(r, ctx);
    if (r.interrupted)
        r.warnings.push_back(fmt::format("interrupted by {}", stop_signal_name()));
    if (tp)
        for (const auto& w : tp->env().warnings())
            r.warnings.push_back(w);
    r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    return r;
}

}  // namespace futexsim::real
