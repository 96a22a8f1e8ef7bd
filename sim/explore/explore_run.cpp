#include "sim/explore/explore_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <set>

#include "model/core.h"
#include "run/model_process.h"
#include "run/pivot_stats.h"
#include "sim/explore/dfs_strategy.h"
#include "sim/explore/explore_env.h"
#include "sim/explore/invariants.h"
#include "sim/explore/parked_drains.h"
#include "sim/trace_format.h"

namespace futexsim::sim::explore {

namespace {

constexpr std::uint64_t word_base = 0x10000;
std::uint64_t word_addr(unsigned w) { return word_base + 64ull * w; }

// One process on the explorer and everything the properties watch.
class explored_process {
public:
    explored_process(const run_config& cfg, const xcase& c, const trace_sink& trace, const run_hooks* hooks)
        : cfg_(cfg), case_(c), trace_(trace), hooks_(hooks), env_(env_config(cfg)), futex_(env_),
          inv_(env_, mm_, futex_.global), drains_(mm_)
    {
        if (hooks_ && hooks_->search) {
            env_.record_footprints = true;
            env_.use_strategy(hooks_->search->strategy_for(env_));
        }
        model::futex_set_pivot_policy(&mm_, *model::pivot_policy_id(cfg.policy));
        mm_.futex_kernel = cfg.kernel;
        for (unsigned w = 0; w < num_words; w++)
            env_.user_memory[word_addr(w)].v = 0;
        env_.nr_threads = 1;
        started_.assign(c.threads.size(), false);
        results_.assign(c.threads.size(), {});
        woken_by_.assign(c.threads.size() + 1, {});  // by task id: the rcu task, then the threads

        env_.on_op = [this](const explore_env::xtask& t, const op_event& ev) {
            const long held_before = inv_.held();
            inv_.on_op(t, ev);
            if (cfg_.check == liveness::parked_drains && inv_.held() > held_before)
                check_drain(t);
            if (ev.kind == op_kind::wake_task)
                woken_by_[static_cast<std::size_t>(t.id)].push_back(static_cast<const explore_env::xtask*>(ev.addr)->id);
        };
        env_.on_trace = [this](const model::trace_point& tp) { on_trace(tp); };
        env_.on_step = [this](const explore_env::xtask& t, const op_event& ev) { on_step(t, ev); };
    }
    // The tasks are abandoned before futex_ frees the hash.
    ~explored_process() { env_.shutdown(); }

    run_outcome run()
    {
        if (trace_)
            trace_(fmt::format("# policy={} kernel={} cpus={} strategy={} seed={} case={}", cfg_.policy,
                               model::kernel_version_name(cfg_.kernel), cfg_.cpus, strategy_name(cfg_.strategy.kind),
                               cfg_.strategy.seed, format_case(case_)));
        if (env_.record_footprints) {
            const auto* mm = reinterpret_cast<const unsigned char*>(&mm_);
            mm_bytes_.assign(mm, mm + sizeof(mm_));
        }
        start_thread(0);
        env_.run();
        if (!env_.violation() && env_.step() < cfg_.max_steps && cfg_.check_sleepers)
            check_end();
        if (!env_.violation() && pivots_.pending && cfg_.check == liveness::bounded)
            check_bound(true);
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
        if (trace_) {
            for (const auto& w : out.warnings)
                trace_("WARNING: " + w);
            trace_(out.violation ? "VIOLATION: " + *out.violation
                                 : fmt::format("ok: {} steps, {} grace periods, {} pivot(s) installed", out.steps,
                                               out.grace_periods, out.pivots_installed));
        }
        return out;
    }

private:
    static explore_env::config env_config(const run_config& cfg)
    {
        explore_env::config c;
        c.cpus = cfg.cpus;
        c.max_steps = cfg.max_steps;
        c.gp_steps = cfg.gp_steps;
        c.strategy = cfg.strategy;
        c.fatal_warnings = cfg.fatal_warnings;
        c.timing_choices = cfg.timing_choices;
        c.max_gp_ends = cfg.max_gp_ends;
        return c;
    }

    std::string final_state(const run_outcome& out) const
    {
        std::string s;
        for (std::size_t i = 0; i < case_.threads.size(); i++) {
            s += fmt::format("T{}[{}:", i, fmt::join(results_[i], ","));
            if (i < thread_task_.size() && thread_task_[i] >= 0) {
                const auto& t = *env_.tasks()[static_cast<std::size_t>(thread_task_[i])];
                s += t.state == explore_env::tstate::exited     ? "exited"
                     : t.state == explore_env::tstate::runnable ? "runnable"
                                                                : t.blocked_in;
            } else {
                s += "not started";
            }
            s += "] ";
        }
        for (unsigned w = 0; w < num_words; w++)
            s += fmt::format("word{}={} ", w, env_.user_memory.at(word_addr(w)).v);
        const xfph* cur = mm_.futex_phash.v;
        const xfph* next = mm_.futex_phash_new;
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
        thread_task_.resize(case_.threads.size(), -1);
        thread_task_[index] = env_.spawn(fmt::format("T{}", index), static_cast<unsigned>(index % cfg_.cpus),
                   [this, index] { thread_body(index); });
    }

    void thread_body(std::size_t index)
    {
        const xthread& th = case_.threads[index];
        do {
            for (const xop& op : th.ops) {
                if (env_.tearing_down())
                    return;
                run_op(op);
            }
        } while (th.loop && !env_.tearing_down());
        env_.nr_threads--;  // the thread exits
    }

    // Tasks asleep in futex_sleep() with their futex_q queued on word `a`,
    // with the number of that sleep (a task woken and asleep again is
    // another waiter). A waiter whose bucket lock is held is being moved
    // (requeue, rehash) or woken right now: not counted either way.
    std::set<std::pair<int, std::uint64_t>> sleepers_on(unsigned a) const
    {
        std::set<std::pair<int, std::uint64_t>> out;
        for (const auto& t : env_.tasks())
            if (t->futex_q) {
                const auto* q = static_cast<const xq*>(t->futex_q);
                if (q->lock_ptr && q->lock_ptr->owner < 0 && q->key.address == (word_addr(a) & ~0xfffull) &&
                    q->key.offset == (word_addr(a) & 0xfff))
                    out.emplace(t->id, t->sleeps);
            }
        return out;
    }

    void syscall_begin(const xop& op)
    {
        if (cfg_.check == liveness::after_quiet)
            env_.mark_global();  // the quiet windows are the whole process's
        if (active_ == 0 && is_futex_op(op.kind)) {
            // The first futex operation after a quiet window: it owes the pivot.
            const unsigned long full = env_.completed_gps() - quiet_gp_base_;
            if (cfg_.check == liveness::after_quiet && pivots_.pending && pivots_.pending_since <= static_cast<std::int64_t>(quiet_since_) &&
                env_.completed_gps() >= quiet_gp_base_ && full >= 2 && owed_by_ < 0)
                owed_by_ = env_.current().id, owed_quiet_gps_ = full;
        }
        if (cfg_.check == liveness::parked_drains) {
            for (const void* w : drains_.gate_words())
                env_.record_access(w, false);
            drains_.observe(env_.step());
            drains_.call_begins(env_.current().id, format_op(op));
        }
        ++active_;
        env_.user_step("enter " + format_op(op));
    }

    void syscall_end(const xop& op, long ret)
    {
        if (cfg_.check == liveness::after_quiet)
            env_.mark_global();
        for (std::size_t i = 0; i < thread_task_.size(); i++)
            if (thread_task_[i] == env_.current().id)
                results_[i].push_back(ret);
        env_.user_step(fmt::format("return {} = {}", format_op(op), ret));
        if (cfg_.check == liveness::parked_drains)
            drains_.call_ends(env_.current().id);
        if (--active_ == 0) {
            quiet_since_ = env_.step();
            quiet_gp_base_ = env_.completed_gps() + (env_.gp_in_progress() ? 1 : 0);
        }
        if (owed_by_ == env_.current().id) {
            owed_by_ = -1;
            if (pivots_.pending)
                env_.fail(fmt::format("liveness: a pivot pending since step {} is still pending after a quiet "
                                      "window of {} grace periods and the futex operation {} that followed it",
                                      pivots_.pending_since, owed_quiet_gps_, format_op(op)));
        }
    }

    static bool is_futex_op(char k) { return k == 'W' || k == 'M' || k == 'T' || k == 'K' || k == 'O' || k == 'R'; }

    void run_op(const xop& op)
    {
        explore_env::xtask& self = env_.current();
        auto& woken = woken_by_[static_cast<std::size_t>(self.id)];
        switch (op.kind) {
        case 'W':
        case 'M':
        case 'T': {
            // A plain load, as user space does it: the harness reports it.
            env_.record_access(&env_.user_memory[word_addr(op.a)], false);
            const std::uint32_t val = env_.user_memory[word_addr(op.a)].v + (op.kind == 'M' ? 1 : 0);
            env_.user_step(fmt::format("load word{} = {}", op.a, val));
            syscall_begin(op);
            const int ret = futex_.futex_wait(word_addr(op.a), val, op.kind == 'T' ? static_cast<long>(op.n) : -1);
            syscall_end(op, ret);
            break;
        }
        case 'K':
        case 'O':
        case 'R': {
            syscall_begin(op);
            const auto before = sleepers_on(op.a);
            env_.mark_global();  // sleepers_on() reads every task's state
            woken.clear();
            int ret = 0;
            int want = 0;
            if (op.kind == 'K') {
                want = static_cast<int>(op.n);
                ret = futex_.futex_wake(word_addr(op.a), want);
            } else if (op.kind == 'O') {
                want = 1;
                ret = futex_.futex_wake_op(word_addr(op.a), word_addr(op.b), 1, 1,
                                           model::FUTEX_OP(model::FUTEX_OP_ADD, 1, model::FUTEX_OP_CMP_GT, 0));
            } else {
                want = 1 + static_cast<int>(op.n);
                ret = futex_.futex_requeue(word_addr(op.a), word_addr(op.b), 1, static_cast<int>(op.n));
            }
            check_wake_result(op, ret, want, before, woken);
            env_.mark_global();
            syscall_end(op, ret);
            break;
        }
        case 'P': {
            syscall_begin(op);
            const bool raced_at_start = set_slots_in_flight_ > 0;
            const unsigned long started_before = set_slots_started_++;
            const std::size_t installs_before = custom_installs_.size();
            ++set_slots_in_flight_;
            env_.mark_global();  // the SET_SLOTS check's counters are the process's
            const int ret = futex_.prctl_futex_hash(model::PR_FUTEX_HASH_SET_SLOTS, op.n);
            --set_slots_in_flight_;
            env_.mark_global();
            if (ret == 0)
                check_set_slots(op.n, raced_at_start || set_slots_started_ != started_before + 1,
                                installs_before);
            syscall_end(op, ret);
            break;
        }
        case 'G': {
            syscall_begin(op);
            const int ret = futex_.prctl_futex_hash(model::PR_FUTEX_HASH_GET_SLOTS, 0);
            syscall_end(op, ret);
            break;
        }
        case 'C': {
            std::size_t next = 0;
            while (next < started_.size() && started_[next])
                ++next;
            syscall_begin(op);
            const int ret = futex_.copy_process_futex();
            if (next < started_.size()) {
                env_.nr_threads++;
                start_thread(next);
            }
            syscall_end(op, ret);
            break;
        }
        case 'S':
            env_.sleep_steps(op.n);
            break;
        default:
            break;
        }
    }

    // The sequential reference for wake, wake_op and requeue: the waiters
    // that were asleep on the word when the call began are the queue a
    // sequential futex would see. The count returned must be the tasks the
    // call woke (plus, for requeue, those it moved), and a call that
    // returned less than it asked for must have left none of them behind.
    void check_wake_result(const xop& op, int ret, int want, const std::set<std::pair<int, std::uint64_t>>& before,
                           const std::vector<int>& woken)
    {
        if (env_.violation())
            return;
        if (ret < 0) {
            env_.fail(fmt::format("{} returned {}", format_op(op), ret));
            return;
        }
        if (op.kind != 'R' && ret != static_cast<int>(woken.size())) {
            env_.fail(fmt::format("{} returned {} but woke {} task(s)", format_op(op), ret, woken.size()));
            return;
        }
        if (op.kind == 'R' && ret < static_cast<int>(woken.size())) {
            env_.fail(fmt::format("{} returned {} but woke {} task(s)", format_op(op), ret, woken.size()));
            return;
        }
        const bool short_count = op.kind == 'O' ? woken.empty() : ret < want;
        if (!short_count)
            return;
        const auto still = sleepers_on(op.a);
        for (const auto& sleeper : before)
            if (still.count(sleeper)) {
                const int id = sleeper.first;
                env_.fail(fmt::format("lost wake-up: {} returned {} while {} was queued on word{} since before "
                                      "the call and still is",
                                      format_op(op), ret, env_.tasks()[static_cast<std::size_t>(id)]->name, op.a));
                return;
            }
    }

    // SET_SLOTS returns only after its hash is installed: a custom hash of
    // that size was installed while the call ran. (It may be replaced again
    // before the call returns.) A SET_SLOTS that raced with another may see
    // the other's installed instead: a bigger one that won
    // futex_hash_less(), or one that came after it; still a custom one.
    void check_set_slots(unsigned slots, bool raced, std::size_t installs_before)
    {
        bool installed = false;
        for (std::size_t i = installs_before; i < custom_installs_.size(); i++)
            installed = installed || raced || custom_installs_[i] == slots;
        if (!installed) {
            const xfph* cur = mm_.futex_phash.v;
            env_.fail(fmt::format("prctl(SET_SLOTS, {}) returned 0 before its hash was installed (current: {})",
                                  slots, cur ? fmt::format("{} slots{}", model::fph_slots(cur),
                                                           cur->custom ? ", custom" : "")
                                             : std::string("none")));
        }
    }

    void on_trace(const model::trace_point& tp)
    {
        env_.note(describe(tp));
        pivots_.fold(tp, static_cast<std::int64_t>(env_.step()), env_.completed_gps());
        if (tp.kind == model::trace_kind::pivot_install && tp.value)  // custom
            custom_installs_.push_back(tp.slots);
    }

    // A reference was just taken (liveness::parked_drains).
    void check_drain(const explore_env::xtask& t)
    {
        drains_.observe(env_.step());
        if (env_.violation())
            return;
        if (const std::string v = drains_.reference_taken(t); !v.empty())
            env_.fail(v);
    }

    void check_bound(bool at_end)
    {
        const unsigned long gps = env_.completed_gps() - pivots_.pending_gp_start;
        if (gps > cfg_.pivot_bound_gps)
            env_.fail(fmt::format("liveness: a pivot pending since step {} is still pending after {} grace periods "
                                  "(bound {}){}",
                                  pivots_.pending_since, gps, cfg_.pivot_bound_gps, at_end ? " at the end" : ""));
    }

    // Names for what the environment could not name (sim/explore/footprint.h).
    std::optional<std::uint64_t> object_name(std::uint64_t raw) const
    {
        const char* p = reinterpret_cast<const char*>(static_cast<std::uintptr_t>(raw));
        auto within = [p](const void* lo, std::size_t bytes) {
            return p >= static_cast<const char*>(lo) && p < static_cast<const char*>(lo) + bytes;
        };
        auto offset = [p](const void* lo) { return static_cast<std::uint64_t>(p - static_cast<const char*>(lo)); };
        if (within(&mm_, sizeof(mm_)))
            return obj_id(obj_class::mm, 0, offset(&mm_));
        for (unsigned w = 0; w < num_words; w++)
            if (p == reinterpret_cast<const char*>(&env_.user_memory.at(word_addr(w))))
                return obj_id(obj_class::word, w, 0);
        for (std::size_t i = 0; i < hashes_.size(); i++) {
            const xfph* h = hashes_[i];
            if (within(h, sizeof(*h)))
                return obj_id(obj_class::fph, i, offset(h));
            if (!h->queues.empty() && within(h->queues.data(), h->queues.size() * sizeof(h->queues[0])))
                return obj_id(obj_class::fph_queues, i, offset(h->queues.data()));
        }
        for (std::size_t n = 0; n < futex_.global.queues.size(); n++) {
            const auto& q = futex_.global.queues[n];
            if (!q.empty() && within(q.data(), q.size() * sizeof(q[0])))
                return obj_id(obj_class::global_hash, n, offset(q.data()));
        }
        if (const std::string_view name = model::policy_word_name(&mm_, p); !name.empty())
            return obj_id(obj_class::policy, std::hash<std::string_view>{}(name), 0);
        return std::nullopt;
    }

    // Every hash in the order the process first showed it (parked or
    // installed: both in steps that commute with nothing), so that runs
    // with a common beginning name them alike.
    void name_step_objects()
    {
        for (const xfph* h : {static_cast<const xfph*>(mm_.futex_phash.v), static_cast<const xfph*>(mm_.futex_phash_new)})
            if (h && std::find(hashes_.begin(), hashes_.end(), h) == hashes_.end())
                hashes_.push_back(h);
        step_footprint* fp = env_.current_footprint();
        if (!fp)
            return;
        for (step_access& a : fp->accesses)
            if (obj_class_of(a.obj) == obj_class::raw) {
                if (const auto name = object_name(a.obj))
                    a.obj = *name;
                else
                    fp->global = true;  // nobody can tell what it touched
            }
        // The mm's plain fields (futex_phash_new, read locklessly by the
        // policies' fast paths and futex_pivot_pending(), cleared and set
        // again under futex_hash_lock): a change no recorded write explains
        // makes the step commute with nothing.
        const auto* now = reinterpret_cast<const unsigned char*>(&mm_);
        if (mm_bytes_.empty())
            mm_bytes_.assign(now, now + sizeof(mm_));
        for (std::size_t o = 0; o < sizeof(mm_) && !fp->global; o++) {
            if (now[o] == mm_bytes_[o])
                continue;
            const bool written = std::any_of(fp->accesses.begin(), fp->accesses.end(), [o](const step_access& a) {
                const std::uint64_t at = a.obj & 0xffffffffu;
                return a.write && obj_class_of(a.obj) == obj_class::mm && at <= o && o < at + sizeof(long);
            });
            if (!written)
                fp->global = true;
        }
        std::copy(now, now + sizeof(mm_), mm_bytes_.begin());
    }

    void on_step(const explore_env::xtask& t, const op_event& ev)
    {
        name_step_objects();
        if (!env_.violation()) {
            const std::string v = inv_.check_step();
            if (!v.empty())
                env_.fail(v);
        }
        if (!env_.violation() && pivots_.pending && cfg_.check == liveness::bounded)
            check_bound(false);
        if (cfg_.check == liveness::parked_drains)
            drains_.observe(env_.step());
        if (trace_)
            trace_(step_line(t, ev));
    }

    std::string word_name(const void* addr) const
    {
        if (!addr)
            return "";
        if (addr == &mm_.futex_atomic)
            return "futex_atomic";
        if (addr == &mm_.futex_phash)
            return "futex_phash";
        if (addr == mm_.futex_ref.get())
            return "futex_ref";
        if (addr == &mm_.futex_hash_lock)
            return "futex_hash_lock";
        if (const std::string_view policy_word = model::policy_word_name(&mm_, addr); !policy_word.empty())
            return std::string(policy_word);
        if (addr == &mm_)
            return "mm";
        for (unsigned w = 0; w < num_words; w++)
            if (addr == &env_.user_memory.at(word_addr(w)))
                return fmt::format("word{}", w);
        const xfph* cur = mm_.futex_phash.v;
        if (cur && addr == &cur->state)
            return fmt::format("fph[{}].state", model::fph_slots(cur));
        if (cur && !cur->queues.empty()) {
            const auto* lo = reinterpret_cast<const char*>(cur->queues.data());
            const auto* p = static_cast<const char*>(addr);
            if (p >= lo && p < lo + cur->queues.size() * sizeof(cur->queues[0]))
                return fmt::format("fph[{}].bucket{}", model::fph_slots(cur),
                                   static_cast<std::size_t>(p - lo) / sizeof(cur->queues[0]));
        }
        if (env_.is_freed(addr))
            return "FREED";
        return "other";
    }

    std::string step_line(const explore_env::xtask& t, const op_event& ev) const
    {
        std::string what;
        if (ev.kind == op_kind::user)
            what = ev.note;
        else
            what = fmt::format("{}: {} {}{}", bare_function(ev.function), op_name(ev.kind), word_name(ev.addr),
                               ev.note.empty() ? "" : " " + ev.note);
        std::string atomic = inv_.biased() ? fmt::format("BIAS{:+}", inv_.atomic_count())
                                           : std::to_string(mm_.futex_atomic.v);
        const xfph* cur = mm_.futex_phash.v;
        std::string line = fmt::format("{:5} {:4} cpu{} {:<56} | {} atomic={} percpu_sum={} held={} slots={}{}",
                                       env_.step(), t.name, ev.cpu, what, inv_.state_text(), atomic,
                                       inv_.percpu_sum(), inv_.held(), cur ? model::fph_slots(cur) : 0,
                                       pivots_.pending ? " pivot-pending" : "");
        if (env_.gp_in_progress() || env_.completed_gps())
            line += fmt::format(" gp={}", env_.completed_gps());
        for (const std::string& n : t.notes)
            line += "\n        . " + n;
        return line;
    }

    // The run ended with nobody able to run: only futex sleepers may be left.
    void check_end()
    {
        for (const auto& t : env_.tasks()) {
            if (t->kernel || t->state != explore_env::tstate::blocked)
                continue;
            if (std::string_view(t->blocked_in) == "futex_sleep")
                continue;
            std::string who;
            for (const auto& u : env_.tasks())
                who += fmt::format(" {}[cpu{} {}{}{}]", u->name, u->cpu,
                                   u->state == explore_env::tstate::exited     ? "exited"
                                   : u->state == explore_env::tstate::runnable ? "runnable"
                                                                               : u->blocked_in,
                                   u->preempt_count ? " preempt-off" : "", u->rcu_nesting ? " rcu" : "");
            env_.fail(fmt::format("deadlock: {} blocked for good in {};{}", t->name, t->blocked_in, who));
            return;
        }
    }

    const run_config& cfg_;
    const xcase& case_;
    const trace_sink& trace_;
    const run_hooks* hooks_;
    explore_env env_;
    model_process<explore_env> futex_;  // after env_: freed before it
    xmm& mm_ = futex_.mm;
    invariants inv_;
    parked_drains drains_;  // liveness::parked_drains
    std::vector<bool> started_;
    std::vector<unsigned char> mm_bytes_;          // the mm after the last step (name_step_objects())
    std::vector<const xfph*> hashes_;              // every hash seen, in order (object_name())
    std::vector<int> thread_task_;                 // by thread index: its task id
    std::vector<std::vector<long>> results_;      // by thread index: each system call's return value
    std::vector<std::vector<int>> woken_by_;  // by task id: whom its current call woke
    int set_slots_in_flight_ = 0;
    unsigned long set_slots_started_ = 0;
    std::vector<unsigned> custom_installs_;  // slots of each custom hash installed, in order
    int active_ = 0;  // threads inside a system call
    std::uint64_t quiet_since_ = 0;
    unsigned long quiet_gp_base_ = 0;
    int owed_by_ = -1;
    unsigned long owed_quiet_gps_ = 0;
    pivot_stats pivots_;  // the clock is the step count
};

#ifdef FUTEXSIM_MUTATIONS
void select_mutation(const std::string& name)
{
    model::active_mutation = name == "forget-bias"            ? model::mutation::forget_bias
                             : name == "no-fold-grace-period" ? model::mutation::no_fold_grace_period
                                                              : model::mutation::none;
}
#endif

}  // namespace

std::vector<std::string> mutation_names()
{
#ifdef FUTEXSIM_MUTATIONS
    return {"forget-bias", "no-fold-grace-period"};
#else
    return {};
#endif
}

run_outcome explore_case(const run_config& cfg, const xcase& c, const trace_sink& trace, const run_hooks* hooks)
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

std::string replay_command(const run_config& cfg, const xcase& c, const std::string& program)
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
