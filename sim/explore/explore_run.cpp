// The case interpreter: one process on the explorer running a case's
// operations, with the observers of sim/explore/explore_observer.h told of
// each of its system calls, and the outcome of the run.
#include "sim/explore/explore_run.h"

#include <fmt/format.h>

#include <memory>

#include "model/core.h"
#include "run/model_process.h"
#include "run/pivot_stats.h"
#include "sim/explore/checks/after_quiet.h"
#include "sim/explore/checks/bounded_liveness.h"
#include "sim/explore/checks/lost_wakeup.h"
#include "sim/explore/checks/missed_post.h"
#include "sim/explore/checks/pi_handoff.h"
#include "sim/explore/checks/set_slots.h"
#include "sim/explore/checks/sleepers.h"
#include "sim/explore/dfs_strategy.h"
#include "sim/explore/explore_env.h"
#include "sim/explore/footprint_recorder.h"
#include "sim/explore/invariants.h"
#include "sim/explore/parked_drains.h"
#include "sim/explore/run_context.h"
#include "sim/explore/step_trace.h"

namespace futexsim::sim::explore {

namespace {

// One process on the explorer; it folds the model's tracepoints into the
// pivot statistics the properties and the outcome read.
class explored_process final : public explore_observer {
public:
    explored_process(const run_config& cfg, const case_spec& c, const trace_sink& trace,
                     const run_hooks* hooks)
        : cfg_(cfg), case_(c), hooks_(hooks), env_(env_config(cfg, hooks)), futex_(env_),
          inv_(env_, mm_, futex_.global), ctx_{env_, mm_, futex_.global, inv_, pivots_, cfg_}
    {
        if (hooks_ && hooks_->search)
            env_.use_strategy(hooks_->search->strategy_for(env_));
        model::futex_set_pivot_policy(&mm_, *model::pivot_policy_id(cfg.policy));
        mm_.futex_kernel = cfg.kernel;
        for (unsigned w = 0; w < num_words; w++)
            env_.user_word(word_address(w)).v = 0;
        env_.set_nr_threads(1);
        started_.assign(c.threads.size(), false);
        thread_task_.assign(c.threads.size(), -1);
        results_.assign(c.threads.size(), {});
        watch_with(cfg, trace);
    }
    // The tasks are abandoned before futex_ frees the hash.
    ~explored_process() { env_.shutdown(); }

    run_outcome run()
    {
        if (trace_printer_)
            trace_printer_->header();
        start_thread(0);
        env_.run();
        for (explore_observer* o : env_.observers())
            o->at_end();
        run_outcome out;
        out.violation = env_.violation();
        out.steps = env_.step();
        out.grace_periods = env_.completed_gps();
        out.pivots_installed = pivots_.pivots_completed;
        out.longest_pivot_gps = pivots_.longest_pending_gps;
        out.schedule = env_.strategy().recorded();
        out.warnings = env_.warnings();
        out.stopped = env_.stopped_by_strategy();
        if (hooks_) {
            out.footprints = env_.footprints();
            if (hooks_->final_state)
                out.final_state = final_state(out);
        }
        return out;
    }

    void on_trace(const model::trace_point& tp) override
    {
        pivots_.fold(tp, static_cast<std::int64_t>(env_.step()), env_.completed_gps());
    }

private:
    static explore_env::config env_config(const run_config& cfg, const run_hooks* hooks)
    {
        explore_env::config c;
        c.cpus = cfg.cpus;
        c.max_steps = cfg.max_steps;
        c.gp_steps = cfg.gp_steps;
        c.strategy = cfg.strategy;
        c.fatal_warnings = cfg.fatal_warnings;
        c.timing_choices = cfg.timing_choices;
        c.max_gp_ends = cfg.max_gp_ends;
        c.memory = cfg.memory;
        c.record_footprints = hooks && hooks->search;
        return c;
    }

    static bool has_post(const case_spec& c)
    {
        for (const case_thread& t : c.threads)
            for (const case_op& op : t.ops)
                if (op.kind == 'V')
                    return true;
        return false;
    }

    // The observers, in the order a step's checks run: the first violation
    // one of them finds is the run's.
    void watch_with(const run_config& cfg, const trace_sink& trace)
    {
        auto add = [this](std::unique_ptr<explore_observer> o) {
            env_.add_observer(*o);
            observers_.push_back(std::move(o));
        };
        env_.add_observer(*this);
        if (env_.recording_footprints())
            add(std::make_unique<footprint_recorder>(ctx_));
        env_.add_observer(inv_);
        if (cfg.check_sleepers)
            add(std::make_unique<sleepers_check>(ctx_));
        if (cfg.check == liveness::bounded)
            add(std::make_unique<bounded_liveness_check>(ctx_));
        if (cfg.check == liveness::parked_drains)
            add(std::make_unique<parked_drains>(ctx_));
        add(std::make_unique<lost_wakeup_check>(ctx_));
        if (has_post(case_))  // the check follows every load: only where it can fire
            add(std::make_unique<missed_post_check>(ctx_));
        add(std::make_unique<pi_handoff_check>(ctx_));
        add(std::make_unique<set_slots_check>(ctx_));
        if (cfg.check == liveness::after_quiet)
            add(std::make_unique<after_quiet_check>(ctx_));
        if (trace) {
            auto printer = std::make_unique<step_trace>(ctx_, case_, trace);
            trace_printer_ = printer.get();
            add(std::move(printer));
        }
    }

    // What two runs that differ only in the order of commuting steps end
    // with alike (run_outcome::final_state).
    std::string final_state(const run_outcome& out) const
    {
        std::string s;
        for (std::size_t i = 0; i < case_.threads.size(); i++) {
            s += fmt::format("T{}[{}:", i, fmt::join(results_[i], ","));
            if (thread_task_[i] >= 0) {
                const auto& t = *env_.tasks()[static_cast<std::size_t>(thread_task_[i])];
                s += t.state == task_state::exited     ? "exited"
                     : t.state == task_state::runnable ? "runnable"
                                                       : t.blocked_in;
            } else {
                s += "not started";
            }
            s += "] ";
        }
        for (unsigned w = 0; w < num_words; w++)
            s += fmt::format("word{}={} ", w, env_.user_word_at(word_address(w)).v);
        const explored_hash* cur = mm_.futex_phash.v;
        const explored_hash* next = mm_.futex_phash_new;
        s += fmt::format("hash={}{} {} new={} atomic={} percpu_sum={} held={} gps={} installed={}",
                         cur ? model::fph_slots(cur) : 0, cur && cur->custom ? "c" : "", inv_.state_text(),
                         next ? model::fph_slots(next) : 0, inv_.atomic_count(), inv_.percpu_sum(), inv_.held(),
                         out.grace_periods, out.pivots_installed);
        if (out.violation) {  // without the step numbers, which reordering moves
            std::string v;
            for (char ch : *out.violation)
                if (!(ch >= '0' && ch <= '9') || v.empty() || v.back() != '#')
                    v += (ch >= '0' && ch <= '9') ? '#' : ch;
            s += " VIOLATION " + v;
        }
        return s;
    }

    void start_thread(std::size_t index)
    {
        started_[index] = true;
        thread_task_[index] =
            env_.spawn(fmt::format("T{}", index), static_cast<unsigned>(index % cfg_.cpus),
                       [this, index] { thread_body(index); });
    }

    void thread_body(std::size_t index)
    {
        const case_thread& th = case_.threads[index];
        do {
            for (const case_op& op : th.ops) {
                if (env_.tearing_down())
                    return;
                run_op(index, op);
            }
        } while (th.loop && !env_.tearing_down());
        env_.set_nr_threads(env_.get_nr_threads() - 1);  // the thread exits
    }

    // One system call of thread `index`: a step to enter it, the model's
    // steps, a step to return; the observers told around each.
    template <class Call>
    void system_call(std::size_t index, const case_op& op, Call&& call)
    {
        for (explore_observer* o : env_.observers())
            o->before_call(op);
        env_.user_step("enter " + format_op(op));
        for (explore_observer* o : env_.observers())
            o->call_entered(op);
        const long ret = call();
        for (explore_observer* o : env_.observers())
            o->call_returned(op, ret);
        results_[index].push_back(ret);
        env_.user_step(fmt::format("return {} = {}", format_op(op), ret));
        for (explore_observer* o : env_.observers())
            o->after_call(op, ret);
    }

    void run_op(std::size_t index, const case_op& op)
    {
        const std::uint64_t a = word_address(op.a);
        const std::uint64_t b = word_address(op.b);
        switch (op.kind) {
        case 'W':
        case 'M':
        case 'T': {
            // A plain load, as user space does it: the harness reports it.
            env_.record_access(&env_.user_word(a), false);
            const std::uint32_t val = env_.user_load(a) + (op.kind == 'M' ? 1 : 0);
            env_.user_step(fmt::format("load word{} = {}", op.a, val));
            system_call(index, op, [&] {
                return futex_.futex_wait(a, val, op.kind == 'T' ? static_cast<long>(op.n) : -1);
            });
            break;
        }
        case 'K':
            system_call(index, op, [&] { return futex_.futex_wake(a, static_cast<int>(op.n)); });
            break;
        case 'V': {
            env_.record_access(&env_.user_word(a), false);
            const std::uint32_t val = env_.user_load(a) + 1;
            env_.user_store(a, val);
            env_.user_step(fmt::format("store word{} = {}", op.a, val));
            system_call(index, op, [&] { return futex_.futex_wake(a, static_cast<int>(op.n)); });
            break;
        }
        case 'O':
            system_call(index, op, [&] {
                return futex_.futex_wake_op(
                    a, b, 1, 1, model::FUTEX_OP(model::FUTEX_OP_ADD, 1, model::FUTEX_OP_CMP_GT, 0));
            });
            break;
        case 'R':
            system_call(index, op,
                        [&] { return futex_.futex_requeue(a, b, 1, static_cast<int>(op.n)); });
            break;
        case 'L': {
            // glibc's PI mutex: the uncontended lock is user space's cmpxchg.
            const std::uint32_t tid = static_cast<std::uint32_t>(env_.task_pid_vnr(env_.current_task()));
            std::uint32_t expected = 0;
            if (env_.atomic_try_cmpxchg(env_.user_word(a), expected, tid)) {
                results_[index].push_back(0);
                env_.user_step(fmt::format("user cmpxchg word{} 0 -> {}: locked", op.a, tid));
                break;
            }
            system_call(index, op, [&] { return futex_.futex_lock_pi(a); });
            break;
        }
        case 'U': {
            const std::uint32_t tid = static_cast<std::uint32_t>(env_.task_pid_vnr(env_.current_task()));
            std::uint32_t expected = tid;
            if (env_.atomic_try_cmpxchg(env_.user_word(a), expected, 0u)) {
                results_[index].push_back(0);
                env_.user_step(fmt::format("user cmpxchg word{} {} -> 0: unlocked", op.a, tid));
                break;
            }
            system_call(index, op, [&] { return futex_.futex_unlock_pi(a); });
            break;
        }
        case 'Y':
            system_call(index, op, [&] { return futex_.futex_trylock_pi(a); });
            break;
        case 'Q': {
            env_.record_access(&env_.user_word(a), false);
            const std::uint32_t val = env_.user_load(a);
            env_.user_step(fmt::format("load word{} = {}", op.a, val));
            // Q<a>:<b>:<n>: the timeout, n steps from here (the test's abs_time).
            const long at = static_cast<long>(env_.step() + op.n);
            system_call(index, op, [&] {
                return futex_.futex_wait_requeue_pi(a, val, b, 0, op.n ? &at : nullptr);
            });
            break;
        }
        case 'X': {
            const std::uint32_t val = env_.atomic_add_return(env_.user_word(a), 1u);
            system_call(index, op, [&] {
                return futex_.futex_cmp_requeue_pi(a, b, static_cast<int>(op.n), val);
            });
            break;
        }
        case 'P':
            system_call(index, op, [&] {
                return futex_.prctl_futex_hash(model::PR_FUTEX_HASH_SET_SLOTS, op.n);
            });
            break;
        case 'G':
            system_call(index, op,
                        [&] { return futex_.prctl_futex_hash(model::PR_FUTEX_HASH_GET_SLOTS, 0); });
            break;
        case 'C': {
            std::size_t next = 0;
            while (next < started_.size() && started_[next])
                ++next;
            system_call(index, op, [&] {
                const int ret = futex_.copy_process_futex();
                if (next < started_.size()) {
                    env_.set_nr_threads(env_.get_nr_threads() + 1);
                    start_thread(next);
                }
                return ret;
            });
            break;
        }
        case 'S':
            env_.sleep_steps(op.n);
            break;
        default:
            break;
        }
    }

    const run_config& cfg_;
    const case_spec& case_;
    const run_hooks* hooks_;
    explore_env env_;
    model_process<explore_env> futex_;  // after env_: freed before it
    explored_mm& mm_ = futex_.mm;
    invariants inv_;
    pivot_stats pivots_;  // the clock is the step count
    run_context ctx_;
    std::vector<std::unique_ptr<explore_observer>> observers_;  // what watch_with() made
    step_trace* trace_printer_ = nullptr;
    std::vector<bool> started_;
    std::vector<int> thread_task_;            // by thread index: its task id
    std::vector<std::vector<long>> results_;  // by thread index: each system call's return value
};
#ifdef FUTEXSIM_MUTATIONS
// Every mutation point by its name on the command line (model/mutation.h).
const std::vector<std::pair<std::string, model::mutation>>& mutations()
{
    using m = model::mutation;
    static const std::vector<std::pair<std::string, m>> all{
        {"forget-bias", m::forget_bias},
        {"no-fold-grace-period", m::no_fold_grace_period},
        {"no-barrier-a", m::no_barrier_a},
        {"no-barrier-b", m::no_barrier_b},
        {"plain-phash-publish", m::plain_phash_publish},
        {"plain-atomic-state", m::plain_atomic_state},
        {"plain-dead-check", m::plain_dead_check},
        {"plain-requeue-state", m::plain_requeue_state},
        {"no-rwsem-mb-a", m::no_rwsem_mb_a},
        {"no-rwsem-mb-b", m::no_rwsem_mb_b},
        {"no-rwsem-mb-c", m::no_rwsem_mb_c},
        {"plain-rwsem-block-acquire", m::plain_rwsem_block_acquire},
        {"plain-rwsem-block-release", m::plain_rwsem_block_release},
    };
    return all;
}

void select_mutation(const std::string& name)
{
    model::active_mutation = model::mutation::none;
    for (const auto& [n, m] : mutations())
        if (name == n)
            model::active_mutation = m;
}
#endif

}  // namespace

std::vector<std::string> mutation_names()
{
#ifdef FUTEXSIM_MUTATIONS
    std::vector<std::string> names;
    for (const auto& [n, m] : mutations())
        names.push_back(n);
    return names;
#else
    return {};
#endif
}

run_outcome explore_case(const run_config& cfg, const case_spec& c, const trace_sink& trace, const run_hooks* hooks)
{
#ifdef FUTEXSIM_MUTATIONS
    select_mutation(cfg.mutation);
#endif
    explored_process p(cfg, c, trace, hooks);
    return p.run();
}

std::string_view liveness_name(liveness l)
{
    switch (l) {
    case liveness::none: return "none";
    case liveness::bounded: return "bounded";
    case liveness::after_quiet: return "after-quiet";
    case liveness::parked_drains: return "parked-drains";
    }
    return "?";
}

std::optional<liveness> parse_liveness(std::string_view name)
{
    for (liveness l : {liveness::none, liveness::bounded, liveness::after_quiet, liveness::parked_drains})
        if (liveness_name(l) == name)
            return l;
    return std::nullopt;
}

std::string replay_command(const run_config& cfg, const case_spec& c, const std::string& program)
{
    const std::string kernel = cfg.kernel == model::default_kernel_version
                                   ? std::string()
                                   : fmt::format(" --kernel {}", model::kernel_version_name(cfg.kernel));
    std::string cmd = fmt::format("{} replay --policy {}{} --cpus {} --case '{}' --strategy {} --seed {}", program,
                                  cfg.policy, kernel, cfg.cpus, format_case(c), strategy_name(cfg.strategy.kind),
                                  cfg.strategy.seed);
    if (cfg.strategy.kind == strategy_kind::pct)
        cmd += fmt::format(" --pct-depth {}", cfg.strategy.pct_depth);
    if (!cfg.strategy.schedule.empty())
        cmd += " --schedule " + format_schedule(cfg.strategy.schedule);
    cmd += fmt::format(" --steps {} --gp-steps {}", cfg.max_steps, cfg.gp_steps);
    if (cfg.memory != memory_model::sc)
        cmd += fmt::format(" --memory {}", memory_model_name(cfg.memory));
    if (cfg.check == liveness::parked_drains)  // no bound in grace periods: see sim/explore/parked_drains.h
        cmd += fmt::format(" --liveness {}", liveness_name(cfg.check));
    else if (cfg.check != liveness::none)
        cmd += fmt::format(" --liveness {} --bound-gps {}", liveness_name(cfg.check), cfg.pivot_bound_gps);
    if (!cfg.check_sleepers)
        cmd += " --no-sleeper-check";
    if (!cfg.fatal_warnings)
        cmd += " --nonfatal-warnings";
    if (cfg.timing_choices)
        cmd += fmt::format(" --timing choices --gp-ends {}", cfg.max_gp_ends);
    if (!cfg.mutation.empty())
        cmd += " --mutation " + cfg.mutation;
    return cmd;
}

}  // namespace futexsim::sim::explore
