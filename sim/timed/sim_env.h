// The model's environment on the simulator: every shared-word access is a
// cache-line access (a local hit, or a queued transfer: line_memory.h, the
// base it stands on), per-CPU counters
// are local, RCU is rcu_sim, sleeping is the engine's block()/wake(), and
// waiting on a var is the kernel runtime's (sim/kernel/wait_var.h), the one
// the explorer runs too.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <source_location>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/atomic.h"
#include "model/env.h"
#include "model/futex.h"
#include "sim/kernel/mutex.h"
#include "sim/kernel/wait_var.h"
#include "sim/timed/cache.h"
#include "sim/timed/engine.h"
#include "sim/timed/hrtimers.h"
#include "sim/timed/line_memory.h"
#include "sim/timed/rcu.h"
#include "sim/timed/site_costs.h"

namespace futexsim::sim {

class spin_watch;

class sim_env : public line_memory {
public:
    // The owner word holds the task id + 1, 0 when free (sim/kernel/mutex.h).
    using mutex_t = kernel::mutex<word<long>>;
    // A pointer one task hands another outside any lock (q->lock_ptr). Tasks
    // here take turns on one OS thread, so a plain pointer is exact.
    template <class T>
    using handoff_ptr = T*;
    // struct qspinlock (include/asm-generic/qspinlock_types.h, NR_CPUS <
    // 16K as in both Debian builds): locked in bits 0-7, pending in 8-15,
    // the tail (queued CPU + 1, node index) in 16-31. sim/timed/qspinlock.cpp.
    struct spinlock_t {
        word<std::uint32_t> val;
    };

    sim_env(engine& e, cache_model& c, rcu_sim& r) : line_memory(e, c), rcu_(r), qnodes_(e.mach().num_cpus()) {}

    // Observers of the model's tracepoints and warnings.
    std::function<void(const model::trace_point&)> on_trace;
    std::vector<std::string> warnings;
    // The spinning-lock warning's record of spinlocks (sim/timed/lockup_detector.h);
    // none by default.
    void watch_spins(spin_watch* w) { spins_ = w; }

    // --- CPUs and the process ------------------------------------------
    unsigned smp_processor_id() const { return eng_.cpu(); }
    unsigned num_online_cpus() const { return eng_.mach().num_cpus(); }
    unsigned num_possible_cpus() const { return eng_.mach().num_cpus(); }
    unsigned num_possible_nodes() const { return eng_.mach().num_nodes(); }
    unsigned get_nr_threads() const { return eng_.live_threads(); }
    void preempt_disable()
    {
        if (eng_.in_task())
            ++kernel_task().preempt_count;
    }
    void preempt_enable()
    {
        if (eng_.in_task())
            --kernel_task().preempt_count;
    }

    // --- shared words -------------------------------------------------------
    // Each access first charges the kernel's instructions since the task's
    // previous one (sim/timed/site_costs.h), named by where the model makes
    // it (line_memory::access()).
    template <class T>
    T atomic_read(word<T>& w, where loc = where::current())
    {
        return access(w, false, site(loc, "atomic_read"), [](word<T>& x) { return x.v; });
    }
    template <class T, class U>
    void atomic_set(word<T>& w, U v, where loc = where::current())
    {
        const T nv = static_cast<T>(v);
        access(w, true, site(loc, "atomic_set"), [nv](word<T>& x) {
            x.v = nv;
            return 0;
        });
    }
    template <class T>
    T smp_load_acquire(word<T>& w, where loc = where::current())
    {
        return access(w, false, site(loc, "smp_load_acquire"), [](word<T>& x) { return x.v; });
    }
    template <class T, class U>
    void smp_store_release(word<T>& w, U v, where loc = where::current())
    {
        const T nv = static_cast<T>(v);
        access(w, true, site(loc, "smp_store_release"), [nv](word<T>& x) {
            x.v = nv;
            return 0;
        });
    }
    // x86: a failed lock cmpxchg still takes the line exclusively.
    template <class T>
    bool atomic_try_cmpxchg(word<T>& w, T& old, T new_, where loc = where::current())
    {
        T seen{};
        const bool ok = access(w, true, site(loc, "atomic_try_cmpxchg"), [&old, &seen, new_](word<T>& x) {
            seen = x.v;
            if (x.v != old)
                return false;
            x.v = new_;
            return true;
        });
        if (!ok)
            old = seen;
        return ok;
    }
    template <class T>
    T atomic_add_return(word<T>& w, T delta, where loc = where::current())
    {
        return add_return(w, delta, site(loc, "atomic_add_return"));
    }
    // xchg: one locked RMW.
    template <class T>
    T atomic_xchg(word<T>& w, T v, where loc = where::current())
    {
        return access(w, true, site(loc, "atomic_xchg"), [v](word<T>& x) {
            const T old = x.v;
            x.v = v;
            return old;
        });
    }
    template <class T>
    bool atomic_dec_and_test(word<T>& w, where loc = where::current())
    {
        return add_return(w, T{-1}, site(loc, "atomic_dec_and_test")) == 0;
    }
    template <class T>
    void atomic_inc(word<T>& w, where loc = where::current())
    {
        add_return(w, T{1}, site(loc, "atomic_inc"));
    }
    template <class T>
    void atomic_dec(word<T>& w, where loc = where::current())
    {
        add_return(w, T{-1}, site(loc, "atomic_dec"));
    }

    // smp_mb(): a full barrier costs the CPU time, touches no line.
    void smp_mb(where loc = where::current())
    {
        if (eng_.in_task() && !eng_.tearing_down())
            eng_.charge(site_charge(site(loc, "smp_mb")) + static_cast<vtime>(eng_.mach().full_barrier_ns));
    }

    // smp_mb__after_atomic(): a compiler barrier on x86. On arm64 it is a
    // dmb that this simulator does not charge (docs/simulator.md).
    void smp_mb__after_atomic() {}

    // --- per-CPU counters: each CPU's own line, never contended ------------
    std::unique_ptr<percpu_uint> alloc_percpu_uint()
    {
        auto p = std::make_unique<percpu_uint>();
        p->v.assign(num_possible_cpus(), 0);
        return p;
    }
    void this_cpu_inc(percpu_uint& p, where loc = where::current())
    {
        ++p.v[eng_.cpu()];
        percpu_charge(site(loc, "this_cpu_inc"));
    }
    void this_cpu_dec(percpu_uint& p, where loc = where::current())
    {
        --p.v[eng_.cpu()];
        percpu_charge(site(loc, "this_cpu_dec"));
    }
    unsigned per_cpu_read(const percpu_uint& p, unsigned cpu)
    {
        // The fold reads every CPU's line once: a transfer each, uncontended.
        eng_.charge(static_cast<vtime>(eng_.mach().transfer(eng_.cpu(), cpu) + eng_.mach().local_hit_ns));
        return p.v[cpu];
    }
    void per_cpu_write(percpu_uint& p, unsigned cpu, unsigned v) { p.v[cpu] = v; }

    // --- RCU ------------------------------------------------------------------
    void rcu_read_lock()
    {
        if (eng_.in_task())
            ++kernel_task().rcu_nesting;
    }
    void rcu_read_unlock()
    {
        if (eng_.in_task())
            --kernel_task().rcu_nesting;
    }
    unsigned long get_state_synchronize_rcu() const { return rcu_.get_state(); }
    bool poll_state_synchronize_rcu(unsigned long cookie) const { return rcu_.poll_state(cookie); }
    void call_rcu_hurry(model::rcu_head* head, void (*func)(model::rcu_head*))
    {
        head->func = func;
        rcu_.call_rcu(eng_.cpu(), [head] { head->func(head); });
    }
    // The engine tears a run's fibers down by unwinding them (engine::shutdown()).
    bool unwinding() const { return eng_.tearing_down(); }
    // synchronize_rcu(): queue a callback that wakes this task, sleep until
    // it has run.
    void synchronize_rcu()
    {
        kernel::might_sleep(current_or_null(), "synchronize_rcu()");
        task& self = eng_.current();
        bool done = false;
        rcu_.call_rcu(eng_.cpu(), [this, &self, &done] {
            done = true;
            eng_.wake(self, eng_.now());
        });
        while (!done)
            eng_.block();
    }
    template <class T>
    void kvfree(T* p)
    {
        allocations_.erase(p);  // a pi_state from kzalloc(); a hash is not listed
        delete p;
    }
    template <class T>
    void kvfree_rcu(T* p)
    {
        const std::uint64_t id = next_free_id_++;
        pending_frees_.emplace(id, [p] { delete p; });
        rcu_.call_rcu(eng_.cpu(), [this, id] {
            auto it = pending_frees_.find(id);
            it->second();
            pending_frees_.erase(it);
        });
    }
    ~sim_env()
    {
        for (auto& [id, free] : pending_frees_)
            free();
        // What a hung run left allocated (a pi_state still attached to an
        // rt_mutex its waiters never got): freed with the process.
        for (auto& [p, free] : allocations_)
            free(p);
    }
    sim_env(const sim_env&) = delete;
    sim_env& operator=(const sim_env&) = delete;

    // --- sleeping and spinning --------------------------------------------
    void mutex_lock(mutex_t& m);
    void mutex_unlock(mutex_t& m);
    // spin_lock(): preemption off, then the kernel's queued spinlock.
    void spin_lock(spinlock_t& l);
    void spin_unlock(spinlock_t& l);

    // wait_var_event(): the condition runs in TASK_UNINTERRUPTIBLE.
    template <class Cond>
    void wait_var_event(const void* var, Cond cond)
    {
        var_waits_.wait(&kernel_task(), var, cond, false, [this] { eng_.block(); },
                        [this](const char* call) { warn_might_sleep(call); });
    }
    // The open-coded wait_woken() loop on a var's wait queue: the condition
    // runs in TASK_RUNNING (model/env.h).
    template <class Cond>
    void wait_var_woken(const void* var, Cond cond)
    {
        var_waits_.wait(&kernel_task(), var, cond, true, [this] { eng_.block(); },
                        [this](const char* call) { warn_might_sleep(call); });
    }
    void wake_up_var(const void* var)
    {
        var_waits_.wake_up(var, [this](kernel::task_struct& t) {
            eng_.wake(static_cast<task&>(t), eng_.now());
        });
    }
    // Wake the task a futex_q belongs to (wake_up_q()).
    void wake_up_task(void* t) { eng_.wake(*static_cast<task*>(t), eng_.now()); }
    // No task state here (model/env.h): futex_sleep() keeps every wake that
    // came after the q was queued, which is what the kernel's state gives
    // every path but a PI hand-off (not run on this environment).
    void set_current_state(unsigned) {}
    unsigned get_current_state() const { return 0; }  // TASK_RUNNING

    // --- what only the PI paths need (model/pi.h's futex_pi_env) --------------
    // try_to_wake_up(): the same wake. A task still running keeps it for its
    // next sleep, where the kernel would use it up; every PI sleep is in a
    // loop that checks again what it waits for, so that costs a turn of the
    // loop, never a result. A task asleep elsewhere (a pivot's own wait) is
    // woken from that sleep, as in the kernel, so a hand-off can be lost
    // here as there. (The explorer keeps the kernel's task states exactly.)
    bool wake_up_state(void* t, unsigned /*state*/)
    {
        wake_up_task(t);
        return true;
    }
    // schedule() in the rt_mutex's wait loop (rt_mutex_schedule()).
    void schedule() { eng_.block(); }
    // The TID in a PI futex word: task id + 1000 (never 0, never a flag bit).
    int task_pid_vnr(void* t) const { return static_cast<int>(static_cast<task*>(t)->id) + 1000; }
    void* find_get_task_by_vpid(int pid)
    {
        if (pid < 1000 || static_cast<std::size_t>(pid - 1000) >= eng_.num_tasks())
            return nullptr;
        task& t = eng_.task_by_id(static_cast<std::uint32_t>(pid - 1000));
        return t.kernel_thread || t.state == task_state::exited ? nullptr : &t;
    }
    // futex_cmpxchg_value_locked(): one locked cmpxchg on the user word, the
    // value it found in *curval; 0 or -EFAULT_.
    int futex_cmpxchg_value_locked(std::uint32_t* curval, std::uint64_t uaddr, std::uint32_t uval,
                                   std::uint32_t newval, where loc = where::current())
    {
        word<std::uint32_t>* w = user_word(uaddr);
        if (!w)
            return -model::EFAULT_;
        *curval = access(*w, true, site(loc, "futex_cmpxchg_value_locked"), [uval, newval](word<std::uint32_t>& x) {
            const std::uint32_t seen = x.v;
            if (seen == uval)
                x.v = newval;
            return seen;
        });
        return 0;
    }
    // A PI timeout's sleeping timers, on the engine's clock
    // (sim/timed/hrtimers.h, made on the first one a run arms).
    void hrtimer_sleeper_start_expires(model::hrtimer_sleeper* sl);
    void hrtimer_cancel(model::hrtimer_sleeper* sl);
    // kzalloc(): a pi_state, freed by kvfree() (or, if a hung run never
    // frees it, by the environment's end).
    template <class T>
    T* kzalloc()
    {
        auto* p = new T();
        allocations_.emplace(p, [](void* q) { delete static_cast<T*>(q); });
        return p;
    }

    // --- user memory: futex words, one per cache line ------------------------
    static constexpr std::uint64_t user_memory_base = 0x7f0000000000ull;
    // A new word, on its own line; returns its user address.
    std::uint64_t alloc_user_word(std::uint32_t initial);
    word<std::uint32_t>* user_word(std::uint64_t uaddr);  // nullptr if unmapped
    int futex_get_value(std::uint64_t uaddr, std::uint32_t* out)
    {
        word<std::uint32_t>* w = user_word(uaddr);
        if (!w)
            return -model::EFAULT_;
        *out = atomic_read(*w);
        return 0;
    }
    int arch_futex_atomic_op_inuser(int op, int oparg, int* oval, std::uint64_t uaddr);
    void* current_task() { return &eng_.current(); }
    // schedule() in futex_do_wait(): sleep until woken or the timer fires. A
    // wake that came after the q was queued is kept (wake_pending).
    template <class Q>
    model::sleep_end futex_sleep(Q* /*q*/, long timeout_ns)
    {
        task& self = eng_.current();
        if (timeout_ns >= 0)
            eng_.wake_on_timeout(self, eng_.now() + timeout_ns);
        eng_.block();
        return self.timed_out ? model::sleep_end::timeout : model::sleep_end::wakeup;
    }

    void warn(const char* what) { warnings.emplace_back(what); }
    void trace(const model::trace_point& tp)
    {
        if (on_trace)
            on_trace(tp);
    }

    engine& eng() { return eng_; }
    cache_model& cache() { return cache_; }
    site_costs& sites() { return sites_; }

    // The system call `name` (a string literal: "FUTEX_WAIT") begins its first kernel
    // function, or has returned: the site segments are counted from and to
    // (sim/timed/process.cpp), on that call's paths.
    void syscall_begins(const char* name)
    {
        if (eng_.in_task())
            eng_.current().last_site = sites_.syscall_entry(name);
    }
    void syscall_returns()
    {
        if (eng_.in_task() && !eng_.tearing_down())
            eng_.charge(site_charge(site_costs::exit));
    }

private:
    // The running task's part the kernel runtime keeps (sim/kernel/task.h).
    kernel::task_struct& kernel_task() { return eng_.current(); }
    kernel::task_struct* current_or_null() { return eng_.in_task() ? &kernel_task() : nullptr; }
    // Reported once a run, as the kernel's WARN_ONCE does.
    void warn_might_sleep(const char* call)
    {
        if (might_sleep_warned_)
            return;
        might_sleep_warned_ = true;
        warn((std::string("do not call blocking ops when !TASK_RUNNING: ") + call +
              " in a wait_var_event() condition").c_str());
    }
    bool might_sleep_warned_ = false;

    // --- the queued spinlock (kernel/locking/qspinlock.c), sim/timed/qspinlock.cpp
    // struct qnode's mcs_spinlock: node 0 of each CPU, on a line of that
    // CPU's own. The simulator takes no spinlock in interrupts, so a CPU
    // never needs a second node.
    struct alignas(64) qnode {
        word<std::uint32_t> next;  // the successor's CPU + 1; 0: none
        word<int> locked;          // set by the predecessor's hand-off
        int count = 0;             // nodes in use on this CPU
    };
    void queued_spin_lock(spinlock_t& l);
    bool queued_spin_trylock(spinlock_t& l);
    void queued_spin_lock_slowpath(spinlock_t& l, std::uint32_t val);
    void queued_spin_unlock(spinlock_t& l);
    std::uint32_t queued_fetch_set_pending_acquire(spinlock_t& l);
    void clear_pending(spinlock_t& l);
    void clear_pending_set_locked(spinlock_t& l);
    void set_locked(spinlock_t& l);
    std::uint32_t xchg_tail(spinlock_t& l, std::uint32_t tail);
    // prefetchw() of the successor's node: no access the cache model times,
    // but the compiled code goes another way after it (a site of its own).
    void prefetchw()
    {
        if (eng_.in_task() && !eng_.tearing_down())
            eng_.charge(site_charge(named_site("queued_spin_lock_slowpath:prefetchw")));
    }
    rcu_sim& rcu_;
    std::deque<qnode> qnodes_;  // per CPU
    kernel::var_waitqueues var_waits_;
    std::unordered_map<std::uint64_t, std::function<void()>> pending_frees_;
    std::unordered_map<void*, void (*)(void*)> allocations_;  // kzalloc()'d, not yet kvfree()'d
    struct alignas(64) user_line {
        word<std::uint32_t> w;
    };
    std::deque<user_line> user_memory_;
    std::uint64_t next_free_id_ = 0;
    spin_watch* spins_ = nullptr;
    std::unique_ptr<hrtimers> timers_;
};

}  // namespace futexsim::sim
