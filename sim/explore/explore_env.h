// The explorer's environment: every task is a fiber, exactly one runs at a
// time, and every call the model makes through the environment that other
// CPUs could observe (a shared word, a per-CPU counter, a lock, RCU) is a
// scheduling point. There the task stops and a schedule strategy
// (sim/schedule.h) picks which task takes the next step, so interleavings
// are explored one model step at a time instead of by timing.
//
// Time is the step count. Grace periods and timeouts advance with it: grace
// periods follow one another for as long as anything runs (and, when
// everything sleeps, for as long as RCU work is pending); each lasts at
// least `gp_steps` steps per live thread and until every task that was in a read-side
// section (rcu_read_lock or preempt_disable, as in a non-preemptible
// kernel) when it began has left it. RCU callbacks then run on the "rcu"
// kernel task, one model step at a time like any other task. The
// grace-period sequence, the callback lists and wait_var_event() are the
// kernel runtime's (sim/kernel/), the same the timed simulator runs; this
// environment is their clock in steps.
//
// A task never shares its CPU while it is inside a non-preemptible section:
// another task on that CPU is not a candidate until it leaves.
//
// Frees are quarantined: kvfree() and kvfree_rcu() mark the memory freed
// and keep it, and every later access through the environment to a word
// inside freed memory is reported (use after free), before it happens.
//
// Observers (sim/explore/explore_observer.h) see every operation after it
// ran, with the model function that made it (std::source_location), every
// tracepoint and every step.
#pragma once

#include <boost/context/fiber.hpp>

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <source_location>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "model/atomic.h"
#include "model/env.h"
#include "model/futex.h"
#include "sim/explore/explore_observer.h"
#include "sim/explore/explore_task.h"
#include "sim/explore/footprint.h"
#include "sim/explore/load_views.h"
#include "sim/explore/memory_model.h"
#include "sim/explore/op_event.h"
#include "sim/explore/quarantine.h"
#include "sim/explore/store_buffers.h"
#include "sim/kernel/mutex.h"
#include "sim/kernel/rcu_gp.h"
#include "sim/kernel/task.h"
#include "sim/kernel/wait_var.h"
#include "sim/kernel/words.h"
#include "sim/observer_list.h"
#include "sim/schedule.h"

namespace futexsim::sim::explore {

using loc = std::source_location;

class explore_env {
public:
    template <class T>
    using word = kernel::plain_word<T>;
    using percpu_uint = kernel::plain_percpu_uint;
    // The owner is the holding task, nullptr when free (sim/kernel/mutex.h).
    using mutex_t = kernel::mutex<kernel::task_struct*>;
    // A pointer one task hands another outside any lock (q->lock_ptr). Tasks
    // here take turns on one OS thread, so a plain pointer is exact.
    template <class T>
    using handoff_ptr = T*;
    struct spinlock_t {
        int owner = -1;
    };

    struct config {
        unsigned cpus = 2;
        std::uint64_t max_steps = 4000;
        std::uint64_t gp_steps = 12;  // the shortest grace period, per live thread
        strategy_options strategy;
        // A model warning (WARN_ON_ONCE, might_sleep()) is a violation;
        // when false it is only recorded (warnings()).
        bool fatal_warnings = true;
        // Time as choices (what an exhaustive search explores): a grace
        // period may end at any scheduling point once its readers have
        // left (the candidate gp_end_candidate), a timed wait or a
        // nanosleep may end at any point after it began (the sleeper is a
        // candidate); the step count decides neither. At most `max_gp_ends`
        // grace periods end while some task could run instead; when nothing
        // can run and RCU work is pending, one ends anyway.
        bool timing_choices = false;
        unsigned long max_gp_ends = 2;
        // Record what every step touched (footprints()), for a strategy
        // that prunes by it (dfs).
        bool record_footprints = false;
        // Under tso and arm64 stores wait in store buffers and drain as
        // scheduling choices (sim/explore/store_buffers.h).
        memory_model memory = memory_model::sc;
    };

    bool recording_footprints() const { return cfg_.record_footprints; }
    const std::vector<step_footprint>& footprints() const { return footprints_; }
    // The strategy ended the run at a point (pick_or_stop(): dfs's pruning).
    bool stopped_by_strategy() const { return stopped_; }
    // Harness hooks for what the model's environment calls do not show: a
    // plain access the harness makes to shared state, or a step whose
    // effect no access list describes (it then commutes with nothing).
    void record_access(const void* obj, bool write, std::uint32_t sub = 0);
    void commute_with_nothing();
    // The current step's footprint, for the harness to name what it can
    // (objects of class raw: the mm, the words, the hashes); nullptr when
    // not recording.
    step_footprint* current_footprint();

    explicit explore_env(const config& c);
    ~explore_env();
    explore_env(const explore_env&) = delete;
    explore_env& operator=(const explore_env&) = delete;

    // --- the harness ------------------------------------------------------
    int spawn(std::string name, unsigned cpu, std::function<void()> body, bool kernel = false);
    // Runs until every task is blocked for good or has exited, a violation
    // stops the run, or max_steps.
    void run();
    std::uint64_t step() const { return step_; }
    unsigned long completed_gps() const { return gp_.completed(); }
    bool gp_in_progress() const { return gp_.gp_active(); }
    bool rcu_work_pending() const;
    const std::vector<std::unique_ptr<explore_task>>& tasks() const { return tasks_; }
    explore_task& current() { return *tasks_[static_cast<std::size_t>(current_)]; }
    bool in_task() const { return current_ >= 0; }
    const schedule_strategy& strategy() const { return *strategy_; }
    // Runs with `s` instead of the strategy config::strategy names: one made
    // for this run by a search over many (sim/explore/dfs_strategy.h).
    void use_strategy(std::unique_ptr<schedule_strategy> s) { strategy_ = std::move(s); }
    // Stop the run with this violation (the first one is kept).
    void fail(std::string what);
    const std::optional<std::string>& violation() const { return violation_; }
    bool tearing_down() const { return tearing_down_; }
    // Ends the run: tasks still suspended are abandoned, not unwound (see
    // explore_env.cpp). Call before destroying what the tasks use.
    void shutdown();
    // Something else that happened in the current step, for the trace.
    void note(std::string text);
    // A user-level step of the current task (a syscall's start or end, a
    // user load): a scheduling point with a note for the trace.
    void user_step(std::string note);

    // Observers, told in the order added (sim/explore/explore_observer.h).
    void add_observer(explore_observer& o) { observers_.add(o); }
    const observer_list<explore_observer>& observers() const { return observers_; }

    // The process the case interpreter runs: its thread count, which
    // get_nr_threads() gives the model, and its user memory (the futex
    // words), a word per address.
    void set_nr_threads(unsigned n) { nr_threads_ = n; }
    // The word at `uaddr`, made (0) if nothing has touched it yet.
    word<std::uint32_t>& user_word(std::uint64_t uaddr) { return user_memory_[uaddr]; }
    // User space's plain load of the word at `uaddr` (made if need be), as
    // the current task's CPU sees it.
    std::uint32_t user_load(std::uint64_t uaddr)
    {
        word<std::uint32_t>& w = user_word(uaddr);
        return mem_load(&w, 0, w.v);
    }
    // User space's plain store to it (WRITE_ONCE()): a buffered store.
    void user_store(std::uint64_t uaddr, std::uint32_t v, loc l = loc::current())
    {
        store_op(user_word(uaddr), v, false, l);
    }
    // The word at `uaddr`, which must exist (std::out_of_range if not).
    word<std::uint32_t>& user_word_at(std::uint64_t uaddr) { return user_memory_.at(uaddr); }
    const word<std::uint32_t>& user_word_at(std::uint64_t uaddr) const { return user_memory_.at(uaddr); }

    // Quarantine: is `p` inside memory the model freed?
    bool is_freed(const void* p) const { return quarantine_.holds(p); }

    // --- the model's environment interface ----------------------------
    unsigned smp_processor_id() const { return tasks_[static_cast<std::size_t>(current_)]->cpu; }
    unsigned num_online_cpus() const { return cfg_.cpus; }
    unsigned num_possible_cpus() const { return cfg_.cpus; }
    unsigned num_possible_nodes() const { return 1; }
    unsigned get_nr_threads() const { return nr_threads_; }
    void preempt_disable();
    void preempt_enable();

    // Loads see the CPU's own buffered stores first (store_buffers.h); loads
    // are performed in program order, so an acquire needs nothing more.
    // Under arm64 a load may return an older value (load_views.h); a load
    // of a pointer orders the loads after it (its address dependency).
    template <class T>
    T atomic_read(word<T>& w, loc l = loc::current())
    {
        will_load(&w.v, sizeof(T));
        point(op_kind::read, &w, l);
        const T v = mem_load(&w, 0, w.v);
        if constexpr (std::is_pointer_v<T>)
            ordered_load();
        done(as_long(v), as_long(v));
        return v;
    }
    template <class T, class U>
    void atomic_set(word<T>& w, U v, loc l = loc::current())
    {
        store_op(w, static_cast<T>(v), false, l);
    }
    template <class T>
    T smp_load_acquire(word<T>& w, loc l = loc::current())
    {
        const T v = atomic_read(w, l);
        ordered_load();
        return v;
    }
    template <class T, class U>
    void smp_store_release(word<T>& w, U v, loc l = loc::current())
    {
        store_op(w, static_cast<T>(v), true, l);
    }
    // A successful cmpxchg is fully ordered; a failed one orders nothing on
    // arm64 (atomic_t.txt), and is a locked instruction on x86.
    template <class T>
    bool atomic_try_cmpxchg(word<T>& w, T& old, T new_, loc l = loc::current())
    {
        point(op_kind::cmpxchg_ok, &w, l);
        rmw_reads_memory(&w, 0, w.v, mem_.model() == memory_model::tso);
        const long before = as_long(w.v);
        const bool ok = w.v == old;
        if (ok) {
            full_barrier();
            const T before = w.v;
            w.v = new_;
            rmw_wrote(w.v, before);
            full_barrier();
        } else {
            old = w.v;
            rmw_read(w.v);
        }
        pending_kind(ok ? op_kind::cmpxchg_ok : op_kind::cmpxchg_fail);
        done(before, as_long(w.v));
        return ok;
    }
    // Value-returning atomics are fully ordered (atomic_t.txt).
    template <class T>
    T atomic_add_return(word<T>& w, T delta, loc l = loc::current())
    {
        point(op_kind::add_return, &w, l);
        full_barrier();
        const T old = w.v;
        const long before = as_long(w.v);
        w.v = static_cast<T>(model::wrapping_add(static_cast<long>(w.v), static_cast<long>(delta)));
        rmw_wrote(w.v, old);
        full_barrier();
        done(before, as_long(w.v));
        return w.v;
    }
    template <class T>
    bool atomic_dec_and_test(word<T>& w, loc l = loc::current())
    {
        point(op_kind::dec, &w, l);
        full_barrier();
        const T old = w.v;
        const long before = as_long(w.v);
        w.v = static_cast<T>(model::wrapping_add(static_cast<long>(w.v), -1));
        rmw_wrote(w.v, old);
        full_barrier();
        done(before, as_long(w.v));
        return w.v == 0;
    }
    // atomic_inc() and atomic_dec() return nothing: relaxed on arm64 (the
    // delta waits in the store buffer), a locked instruction on x86.
    template <class T>
    void atomic_inc(word<T>& w, loc l = loc::current())
    {
        relaxed_add(w, 1, op_kind::inc, l);
    }
    template <class T>
    void atomic_dec(word<T>& w, loc l = loc::current())
    {
        relaxed_add(w, -1, op_kind::dec, l);
    }
    void smp_mb() { full_barrier(); }
    // x86's atomics are locked instructions already: a compiler barrier
    // there; a full barrier on arm64.
    void smp_mb__after_atomic()
    {
        if (arm64_)
            full_barrier();
    }
    // The two one-sided barriers (the litmus tests use them; the model does
    // not): smp_wmb() orders stores, smp_rmb() loads.
    void smp_wmb();
    void smp_rmb();
    // spin_lock() is a locked instruction on x86 already; an acquire on arm64.
    void smp_mb__after_spinlock()
    {
        if (arm64_)
            full_barrier();
    }
    // rcu_dereference(): a load whose address dependency orders the loads
    // made through the pointer it returns.
    template <class T>
    T rcu_dereference(word<T>& w, loc l = loc::current())
    {
        const T v = atomic_read(w, l);
        ordered_load();
        return v;
    }
    memory_model memory() const { return mem_.model(); }
    // Store-buffer entries that may drain now (for the candidates and the
    // trace), and draining one as a step of its own.
    const store_buffers& buffers() const { return mem_; }
    // The value `cell` holds once every store buffer has drained (the cell
    // itself under sc): what a ghost count is compared with.
    template <class T>
    T settled(const T& cell) const
    {
        if (!weak_)
            return cell;
        std::uint64_t bits = 0;
        std::memcpy(&bits, &cell, sizeof(T));
        bits = mem_.settled(&cell, sizeof(T), bits);
        T v;
        std::memcpy(&v, &bits, sizeof(T));
        return v;
    }

    std::unique_ptr<percpu_uint> alloc_percpu_uint();
    void this_cpu_inc(percpu_uint& p, loc l = loc::current());
    void this_cpu_dec(percpu_uint& p, loc l = loc::current());
    unsigned per_cpu_read(const percpu_uint& p, unsigned cpu, loc l = loc::current());
    void per_cpu_write(percpu_uint& p, unsigned cpu, unsigned v, loc l = loc::current());

    void rcu_read_lock();
    void rcu_read_unlock();
    unsigned long get_state_synchronize_rcu() const;
    bool poll_state_synchronize_rcu(unsigned long cookie) const;
    void call_rcu_hurry(model::rcu_head* head, void (*func)(model::rcu_head*));
    void synchronize_rcu(loc l = loc::current());
    // Never: tasks left at the end are abandoned, not unwound (shutdown()).
    bool unwinding() const { return false; }

    void mutex_lock(mutex_t& m, loc l = loc::current());
    void mutex_unlock(mutex_t& m, loc l = loc::current());
    void spin_lock(spinlock_t& s, loc l = loc::current());
    void spin_unlock(spinlock_t& s, loc l = loc::current());

    // wait_var_event(): the condition runs in TASK_UNINTERRUPTIBLE.
    template <class Cond>
    void wait_var_event(const void* var, Cond cond, loc l = loc::current())
    {
        wait_var(var, cond, false, l);
    }
    // The open-coded wait_woken() loop on a var's wait queue: the condition
    // runs in TASK_RUNNING (model/env.h).
    template <class Cond>
    void wait_var_woken(const void* var, Cond cond, loc l = loc::current())
    {
        wait_var(var, cond, true, l);
    }
    void wake_up_var(const void* var);
    // wake_up_q()'s wake of a futex_q's task: wake_up_state(t, TASK_NORMAL).
    void wake_up_task(void* t) { (void)wake_up_state(t, model::TASK_NORMAL); }
    // try_to_wake_up(): wakes `t` only if its state is in `state`, and makes
    // it TASK_RUNNING; a task already TASK_RUNNING is not woken, and the wake
    // is used up (it ends no later sleep). Whether it woke it.
    bool wake_up_state(void* t, unsigned state);
    void set_current_state(unsigned s);
    unsigned get_current_state() const { return in_task() ? tasks_[static_cast<std::size_t>(current_)]->kstate : 0; }
    // schedule() with the state the caller set: returns at once if a wake has
    // made it TASK_RUNNING since, else sleeps until wake_up_state() (the
    // rt_mutex's sleep, rt_mutex_schedule()).
    void schedule(loc l = loc::current());
    // The PI futex code's view of tasks: the TID user space writes in a PI
    // futex word (task id + 1000, never 0), and the task of a TID.
    int task_pid_vnr(void* t) const { return static_cast<explore_task*>(t)->id + 1000; }
    void* find_get_task_by_vpid(int pid);
    // futex_cmpxchg_value_locked(): cmpxchg on the futex word, the old value
    // in *curval; 0 or -EFAULT_.
    int futex_cmpxchg_value_locked(std::uint32_t* curval, std::uint64_t uaddr, std::uint32_t uval,
                                   std::uint32_t newval, loc l = loc::current());

    void* current_task() { return &current(); }
    // A PI timeout's timer, in steps (explore_primitives.cpp says when it fires).
    void hrtimer_sleeper_start_expires(model::hrtimer_sleeper* sl);
    void hrtimer_cancel(model::hrtimer_sleeper* sl);
    int futex_get_value(std::uint64_t uaddr, std::uint32_t* out, loc l = loc::current());
    int arch_futex_atomic_op_inuser(int op, int oparg, int* oval, std::uint64_t uaddr,
                                    loc l = loc::current());
    template <class Q>
    model::sleep_end futex_sleep(Q* q, long timeout_ns, loc l = loc::current())
    {
        return futex_sleep_on(q, timeout_ns, l);
    }

    // kzalloc(): a zeroed T the environment owns until kvfree() (then the
    // quarantine does) or, if the model never frees it (a run that ends
    // with a PI waiter still attached, a hang), until the environment goes.
    template <class T>
    T* kzalloc()
    {
        auto* p = new T();
        allocations_.emplace(p, [](void* q) { delete static_cast<T*>(q); });
        return p;
    }
    template <class T>
    void kvfree(T* p)
    {
        allocations_.erase(p);  // the quarantine owns it from here
        commute_with_nothing();  // every later access to it is a violation
        quarantine_.keep(p);
    }
    template <class T>
    void kvfree_rcu(T* p)
    {
        record_access(&gp_, true);
        gp_.defer_free([this, p] { quarantine_.keep(p); });
    }

    void warn(const char* what);
    // The distinct warnings a run with non-fatal warnings recorded.
    const std::vector<std::string>& warnings() const { return warnings_; }
    void trace(const model::trace_point& tp);

    // nanosleep(): the current task sleeps for `steps` steps.
    void sleep_steps(std::uint64_t steps);
    // Ends the current task's step here: it becomes a candidate again.
    void yield_point(op_event ev);

private:
    unsigned nr_threads_ = 0;
    std::map<std::uint64_t, word<std::uint32_t>> user_memory_;
    // Both waits (sim/kernel/wait_var.h); the sleep is a step of its own.
    template <class Cond>
    void wait_var(const void* var, Cond cond, bool woken_form, loc l)
    {
        var_waits_.wait(in_task() ? &current() : nullptr, var, cond, woken_form,
                        [&] {
                            point(op_kind::wait_var, var, l);
                            block_uninterruptible(woken_form ? "wait_woken" : "wait_var_event", var);
                            done(0, 0);
                        },
                        [this](const char* call) { warn_might_sleep(call); });
    }
    void warn_might_sleep(const char* call);

    // --- weak memory (store_buffers.h): `obj` and `sub` name the word for
    // the footprints; a CPU's buffer at a word is the word at sub + buf.
    static std::uint32_t buffer_sub(std::uint32_t sub, unsigned cpu) { return sub + 0x10000u * (cpu + 1); }
    template <class T>
    T mem_load(const void* obj, std::uint32_t sub, T& cell)
    {
        if (!weak_ || !in_task())
            return cell;
        explore_task& self = current();
        const unsigned cpu = self.cpu;
        record_access(obj, false, buffer_sub(sub, cpu));
        std::uint64_t bits = 0;
        store_buffers::forwarded f = mem_.forward(cpu, &cell, sizeof(T), bits);
        if (f == store_buffers::forwarded::add_pending) {
            await_drained(&cell);
            f = mem_.forward(cpu, &cell, sizeof(T), bits);
        }
        const std::size_t choice = self.load_choice;
        self.load_choice = 0;
        self.load_cell = nullptr;
        if (f != store_buffers::forwarded::value) {
            if (mem_.model() != memory_model::arm64)
                return cell;
            std::memcpy(&bits, &cell, sizeof(T));
            bits = views_.read(cpu, &cell, choice, bits);
        }
        T v;
        std::memcpy(&v, &bits, sizeof(T));
        return v;
    }
    // The load the current task stops at next (arm64: its values are choices).
    void will_load(const void* cell, unsigned size)
    {
        if (arm64_ && in_task()) {
            current().load_cell = cell;
            current().load_size = size;
        }
    }
    // How many values task `t`'s next load may return (1 unless arm64).
    std::size_t load_choices(const explore_task& t) const;
    void add_memory_candidates(std::vector<std::uint32_t>& ids) const;
    // A read-modify-write wrote memory directly (arm64 keeps the value).
    template <class T>
    void rmw_wrote(T& cell, T before)
    {
        if (!arm64_ || !in_task())
            return;
        std::uint64_t b = 0, a = 0;
        std::memcpy(&b, &before, sizeof(T));
        std::memcpy(&a, &cell, sizeof(T));
        views_.wrote(current().cpu, &cell, sizeof(T), b, a);
        record_access(&views_, true);
    }
    // A read-modify-write that failed read memory as it is.
    template <class T>
    void rmw_read(T& cell)
    {
        if (!arm64_ || !in_task())
            return;
        std::uint64_t b = 0;
        std::memcpy(&b, &cell, sizeof(T));
        views_.read(current().cpu, &cell, 0, b);
    }
    // After an acquire or a dependency-ordered load (load_views.h).
    void ordered_load()
    {
        if (arm64_ && in_task())
            views_.after_ordered_load(current().cpu);
    }
    void views_full(unsigned cpu);
    // A store into an empty buffer: the other tasks on its CPU may no
    // longer switch in (candidates()), so it is dependent with their steps.
    // Appending to a buffer that holds something commutes with its drains.
    void record_buffer_fills(unsigned cpu)
    {
        if (mem_.empty(cpu))
            record_access(&mem_, true, cpu);
    }
    template <class T>
    void mem_store(const void* obj, std::uint32_t sub, T& cell, T v, bool release)
    {
        if (!weak_ || !in_task()) {
            cell = v;
            return;
        }
        const unsigned cpu = current().cpu;
        record_access(obj, true, buffer_sub(sub, cpu));
        record_buffer_fills(cpu);
        buffered_store e{buffered_store::kind::store, release, &cell, sizeof(T), 0, current_, obj, sub};
        std::memcpy(&e.bits, &v, sizeof(T));
        mem_.store(cpu, e);
    }
    // A read-modify-write reads memory: it waits until the CPU's own
    // entries for the word drained (all of them when `all`: a locked
    // instruction).
    template <class T>
    void rmw_reads_memory(const void* obj, std::uint32_t sub, T& cell, bool all)
    {
        if (!weak_ || !in_task())
            return;
        if (all) {
            full_barrier();
            return;
        }
        record_access(obj, false, buffer_sub(sub, current().cpu));
        await_drained(&cell);
    }
    template <class T>
    void store_op(word<T>& w, T v, bool release, const loc& l)
    {
        point(op_kind::write, &w, l);
        const long before = as_long(mem_load(&w, 0, w.v));
        mem_store(&w, 0, w.v, v, release);
        done(before, as_long(v));
    }
    // A relaxed add: in memory at once under sc and tso (where it is a
    // locked instruction), a buffered delta under arm64.
    template <class T>
    void relaxed_add(word<T>& w, long delta, op_kind k, const loc& l)
    {
        point(k, &w, l);
        if (!arm64_ || !in_task()) {
            full_barrier();
            const long before = as_long(w.v);
            w.v = static_cast<T>(model::wrapping_add(static_cast<long>(w.v), delta));
            done(before, as_long(w.v));
            return;
        }
        // The value it will have added to, for the observers: reading it
        // through the buffer would wait for an older add to drain.
        const long before = as_long(settled(w.v));
        buffer_add(&w, 0, w.v, delta);
        done(before, model::wrapping_add(before, delta));
    }
    template <class T>
    void buffer_add(const void* obj, std::uint32_t sub, T& cell, long delta)
    {
        const unsigned cpu = current().cpu;
        record_access(obj, true, buffer_sub(sub, cpu));
        record_buffer_fills(cpu);
        mem_.store(cpu, buffered_store{buffered_store::kind::add, false, &cell, sizeof(T),
                                       static_cast<std::uint64_t>(delta), current_, obj, sub});
    }
    // A full barrier (smp_mb(), a locked instruction, schedule()): the
    // current task waits until its CPU's buffer has drained, each entry a
    // drain step of its own (so a barrier's drains and the ones chosen
    // before it are the same steps to the reduction).
    void full_barrier()
    {
        if (!weak_)  // sequential consistency: nothing to wait for
            return;
        await_drained(nullptr);
        if (in_task())
            views_full(current().cpu);
    }
    void await_drained(const void* word);
    void lock_acquire_barrier();
    void percpu_add(percpu_uint& p, long delta, op_kind k, const loc& l);
    void drain_cpu(unsigned cpu);
    void record_commit(unsigned cpu, const buffered_store& e, std::uint64_t before);
    void drain_step(unsigned cpu, std::size_t index);

    template <class T>
    static long as_long(const T& v)
    {
        if constexpr (std::is_pointer_v<T>)
            return static_cast<long>(reinterpret_cast<std::uintptr_t>(v) & 0xffffff);
        else
            return static_cast<long>(v);
    }
    // The two halves of one operation: point() is where the task stops and
    // waits to be picked; done() reports what it did.
    void point(op_kind k, const void* addr, const loc& l);
    void pending_kind(op_kind k);
    void done(long before, long after);
    bool block(const char* in, const void* on);
    void fire_hrtimer(explore_task& t, bool due);
    // futex_sleep()'s body: schedule() in futex_do_wait(), a step of its own.
    model::sleep_end futex_sleep_on(const void* q, long timeout_ns, const loc& l);
    // A kernel sleep of its own (a lock, a wait, synchronize_rcu()): the task
    // is TASK_UNINTERRUPTIBLE while it sleeps and TASK_RUNNING after.
    bool block_uninterruptible(const char* in, const void* on);
    void wake(explore_task& t);
    void check_access(const void* addr);

    std::vector<int> candidates() const;
    void switch_to(explore_task& t);
    void nest_section(int kernel::task_struct::*depth, int by);
    void leave_section(explore_task& t);

    // RCU's step clock (rcu_step_clock.cpp).
    void advance_time();
    void drop_gp_readers_that_left();
    bool let_time_pass();
    void start_gp();
    void end_gp();
    bool gp_can_end() const;
    void end_gp_step(bool forced);
    void rcu_task_body();

    // What each step touched (step_footprints.cpp).
    void begin_footprint(int task);
    void record_object(std::uint64_t id, bool write, std::uint32_t sub = 0) const;
    void record_gp_read() const;
    void record_section_change(const explore_task& t, bool was_in_section);
    std::uint64_t object_name(const void* p) const;

    config cfg_;
    observer_list<explore_observer> observers_;
    std::vector<std::string> warnings_;
    std::unique_ptr<schedule_strategy> strategy_;
    std::vector<std::unique_ptr<explore_task>> tasks_;
    int current_ = -1;
    std::uint64_t step_ = 0;
    bool tearing_down_ = false;
    std::optional<std::string> violation_;
    boost::context::fiber sched_fiber_;
    std::exception_ptr task_error_;

    // RCU
    kernel::rcu_gp gp_;
    std::uint64_t gp_started_ = 0;
    std::uint64_t gp_length_ = 0;
    std::vector<std::pair<int, std::uint64_t>> gp_readers_;  // (task, section_gen) in a section when the GP began
    std::vector<kernel::rcu_gp::ready_callback> due_;  // for the rcu task
    int rcu_task_ = -1;

    kernel::var_waitqueues var_waits_;
    std::unordered_map<const void*, std::vector<int>> spinners_;
    quarantine quarantine_;  // what the model freed (sim/explore/quarantine.h)
    std::unordered_map<void*, void (*)(void*)> allocations_;  // kzalloc()'d, not yet freed

    store_buffers mem_;
    load_views views_;  // arm64's loads (load_views.h)
    bool weak_ = false;   // tso or arm64: cfg_.memory, tested on every access
    bool arm64_ = false;
    std::vector<int> last_on_cpu_;  // the task that stepped last on each CPU: another's step is a context switch

    // Exhaustive search support (footprints, timing_choices).
    mutable std::vector<step_footprint> footprints_;  // const reads of RCU's state record too
    bool stopped_ = false;
    unsigned long gp_ends_chosen_ = 0;
    std::unordered_map<const void*, std::size_t> percpu_index_;  // in allocation order
};

}  // namespace futexsim::sim::explore
