// The primitives the model calls through the explorer's environment
// (model/env.h), each a scheduling point: non-preemptible and read-side
// sections, per-CPU counters, RCU's calls, the hash mutex and bucket
// spinlocks, wake-ups, user memory, nanosleep.
#include "sim/explore/explore_env.h"

#include <cstring>
#include <string>

#include <fmt/format.h>

namespace futexsim::sim::explore {

void explore_env::leave_section(explore_task& t)
{
    if (!t.in_section())
        ++t.section_gen;
}

// The current task's preempt_count or rcu_nesting goes up or down by one.
// Leaving its outermost section ends a generation (a grace period waits
// for the readers of its start only), and entering or leaving any section
// changes who else may run on its CPU.
void explore_env::nest_section(int kernel::task_struct::*depth, int by)
{
    if (!in_task())
        return;
    explore_task& t = current();
    const bool was = t.in_section();
    t.*depth += by;
    if (by < 0)
        leave_section(t);
    record_section_change(t, was);
}

void explore_env::preempt_disable() { nest_section(&kernel::task_struct::preempt_count, +1); }
void explore_env::preempt_enable() { nest_section(&kernel::task_struct::preempt_count, -1); }
void explore_env::rcu_read_lock() { nest_section(&kernel::task_struct::rcu_nesting, +1); }
void explore_env::rcu_read_unlock() { nest_section(&kernel::task_struct::rcu_nesting, -1); }

// this_cpu_inc() and this_cpu_dec(): a read-modify-write of the CPU's own
// counter with no ordering (no lock prefix on x86; on arm64 a relaxed one
// with preemption off). Only its own CPU writes the counter while anyone
// counts on it (the fold's writes come a grace period later), so under tso
// and arm64 it is a load, forwarded from the store buffer, and a store that
// waits there.
void explore_env::percpu_add(percpu_uint& p, long delta, op_kind k, const loc& l)
{
    point(k, &p, l);
    const unsigned cpu = in_task() ? current().cpu : 0;
    if (!mem_.weak() || !in_task()) {
        record_access(&p, true, cpu);
        const long before = p.v[cpu];
        p.v[cpu] = static_cast<unsigned>(static_cast<long>(p.v[cpu]) + delta);
        done(before, p.v[cpu]);
        return;
    }
    const unsigned before = mem_load(&p, cpu, p.v[cpu]);
    const unsigned after = static_cast<unsigned>(static_cast<long>(before) + delta);
    mem_store(&p, cpu, p.v[cpu], after, false);
    done(before, after);
}

void explore_env::this_cpu_inc(percpu_uint& p, loc l) { percpu_add(p, +1, op_kind::percpu_inc, l); }
void explore_env::this_cpu_dec(percpu_uint& p, loc l) { percpu_add(p, -1, op_kind::percpu_dec, l); }

unsigned explore_env::per_cpu_read(const percpu_uint& p, unsigned cpu, loc l)
{
    will_load(&p.v[cpu], sizeof(unsigned));
    point(op_kind::percpu_read, &p, l);
    record_access(&p, false, cpu);
    const unsigned v = mem_load(&p, cpu, const_cast<percpu_uint&>(p).v[cpu]);
    done(v, v);
    return v;
}

void explore_env::per_cpu_write(percpu_uint& p, unsigned cpu, unsigned v, loc l)
{
    point(op_kind::percpu_write, &p, l);
    const long before = mem_load(&p, cpu, p.v[cpu]);
    if (!mem_.weak() || !in_task())
        record_access(&p, true, cpu);
    mem_store(&p, cpu, p.v[cpu], v, false);
    if (in_task())
        current().pending.cpu = cpu;  // the counter written, not where the writer runs
    done(before, v);
}

void explore_env::call_rcu_hurry(model::rcu_head* head, void (*func)(model::rcu_head*))
{
    head->func = func;
    record_access(&gp_, true);
    gp_.call_rcu(in_task() ? current().cpu : 0, [head] { head->func(head); });
    note("call_rcu");
}

void explore_env::synchronize_rcu(loc l)
{
    kernel::might_sleep(in_task() ? &current() : nullptr, "synchronize_rcu()");
    point(op_kind::sync_rcu, nullptr, l);
    explore_task& self = current();
    self.rcu_cookie = get_state_synchronize_rcu();
    while (gp_.completed() < self.rcu_cookie)
        block_uninterruptible("synchronize_rcu", this);
    self.rcu_cookie = 0;
    done(0, 0);
}

void explore_env::warn_might_sleep(const char* call)
{
    const std::string what = std::string("do not call blocking ops when !TASK_RUNNING: ") + call +
                             " in a wait_var_event() condition";
    warn(what.c_str());
}

// struct mutex (sim/kernel/mutex.h): taking it and handing it over are the
// step; a contender's sleep is a block of its own.
void explore_env::mutex_lock(mutex_t& m, loc l)
{
    kernel::task_struct* self = in_task() ? &current() : nullptr;
    point(op_kind::mutex_lock, &m, l);
    kernel::mutex_lock(
        m, self,
        [&] {
            if (m.owner && !tearing_down_)
                return false;
            m.owner = self;
            return true;
        },
        [&] { return m.owner == self; }, [&] { block_uninterruptible("mutex_lock", &m); });
    lock_acquire_barrier();  // once it holds the lock
    done(0, 1);
}

void explore_env::mutex_unlock(mutex_t& m, loc l)
{
    point(op_kind::mutex_unlock, &m, l);
    full_barrier();  // a release, modelled as a full barrier (docs/testing.md)
    kernel::mutex_unlock(
        m, [&](kernel::task_struct* next) { m.owner = next; },
        [this](kernel::task_struct& next) { wake(static_cast<explore_task&>(next)); });
    done(1, 0);
}

// spin_lock() disables preemption: the task keeps its CPU while it spins.
void explore_env::spin_lock(spinlock_t& s, loc l)
{
    point(op_kind::spin_lock, &s, l);
    nest_section(&kernel::task_struct::preempt_count, +1);
    while (s.owner >= 0 && !tearing_down_) {
        spinners_[&s].push_back(current_);
        block("spin_lock", &s);
    }
    s.owner = current_;
    lock_acquire_barrier();  // once it holds the lock
    done(0, 1);
}

void explore_env::spin_unlock(spinlock_t& s, loc l)
{
    point(op_kind::spin_unlock, &s, l);
    full_barrier();  // a release, modelled as a full barrier (docs/testing.md)
    s.owner = -1;
    auto it = spinners_.find(&s);
    if (it != spinners_.end()) {
        std::vector<int> waiters = std::move(it->second);
        spinners_.erase(it);
        for (int id : waiters)
            wake(*tasks_[static_cast<std::size_t>(id)]);
    }
    nest_section(&kernel::task_struct::preempt_count, -1);
    done(1, 0);
}

// __wake_up() takes the wait queue's lock (a locked instruction on x86)
// and try_to_wake_up() has smp_mb__after_spinlock(): a full barrier. For a
// wake_up_var() that finds nobody waiting that is stronger than the kernel
// (docs/testing.md, "Weak memory").
void explore_env::wake_up_var(const void* var)
{
    full_barrier();
    record_access(var, true);
    var_waits_.wake_up(var,
                       [this](kernel::task_struct& t) { wake(static_cast<explore_task&>(t)); });
}

bool explore_env::wake_up_state(void* t, unsigned state)
{
    auto* x = static_cast<explore_task*>(t);
    if (in_task() && !tearing_down_) {
        const op_event ev{op_kind::wake_task, x, 0, 0, current().cpu, "wake_up_task", {}};
        for (explore_observer* o : observers_)
            o->on_op(current(), ev);
    }
    full_barrier();  // try_to_wake_up(): smp_mb__after_spinlock() before it reads the state
    record_access(x, true);
    if (!(x->kstate & state)) {
        note("wake_up_task " + x->name + ": TASK_RUNNING, the wake is used up");
        return false;
    }
    note("wake_up_task " + x->name);
    x->kstate = model::TASK_RUNNING;
    wake(*x);
    return true;
}

void explore_env::set_current_state(unsigned s)
{
    // A store of the value it holds commutes with every wake: it is no
    // access for the reduction (the writer of rwsem-gate sets TASK_RUNNING
    // when it pivots from a wake, which already runs so).
    full_barrier();  // smp_store_mb()
    if (!in_task() || current().kstate == s)
        return;
    record_access(&current(), true);
    current().kstate = s;
}

void explore_env::schedule(loc l)
{
    point(op_kind::sleep, nullptr, l);
    full_barrier();  // __schedule()'s smp_mb__after_spinlock()
    explore_task& self = current();
    if (self.kstate == model::TASK_RUNNING) {
        self.sleep_begins();
    } else {
        self.wake_at = self.hrtimer ? self.hrtimer->expires : -1;  // the PI timeout, if armed
        block("schedule", nullptr);
        self.wake_at = -1;
    }
    self.kstate = model::TASK_RUNNING;
    done(0, 0);
}

// A PI timeout's timer: steps, as every other timeout here. An armed timer
// fires when a sleep of its task reaches sl->expires (a candidate of its own
// with timing as choices); one that comes due while its task runs fires at
// its next sleep, which is all the model can tell apart (it reads sl->task
// only after a sleep or at a loop's head).
void explore_env::hrtimer_sleeper_start_expires(model::hrtimer_sleeper* sl)
{
    explore_task& self = current();
    sl->task = &self;
    self.hrtimer = sl;
}

// Armed is the task's own record: a timer that fired has cleared it.
void explore_env::hrtimer_cancel(model::hrtimer_sleeper* sl)
{
    if (in_task() && current().hrtimer == sl)
        current().hrtimer = nullptr;
}

// A sleep of `t` timed out: its armed PI timer, if that is what was due
// (`due`: a timeout taken as a scheduling choice is due whenever it is
// picked), fires as hrtimer_wakeup() does (the task, cleared; the wake is
// the caller's).
void explore_env::fire_hrtimer(explore_task& t, bool due)
{
    model::hrtimer_sleeper* sl = t.hrtimer;
    if (!sl || (!due && static_cast<std::int64_t>(step_) < sl->expires))
        return;
    sl->task = nullptr;
    t.hrtimer = nullptr;
}

int explore_env::futex_cmpxchg_value_locked(std::uint32_t* curval, std::uint64_t uaddr, std::uint32_t uval,
                                            std::uint32_t newval, loc l)
{
    auto it = user_memory_.find(uaddr);
    if (it == user_memory_.end())
        return -model::EFAULT_;
    std::uint32_t old = uval;
    atomic_try_cmpxchg(it->second, old, newval, l);
    *curval = old;
    return 0;
}

int explore_env::futex_get_value(std::uint64_t uaddr, std::uint32_t* out, loc l)
{
    auto it = user_memory_.find(uaddr);
    if (it == user_memory_.end())
        return -model::EFAULT_;
    *out = atomic_read(it->second, l);
    return 0;
}

int explore_env::arch_futex_atomic_op_inuser(int op, int oparg, int* oval, std::uint64_t uaddr,
                                             loc l)
{
    auto it = user_memory_.find(uaddr);
    if (it == user_memory_.end())
        return -model::EFAULT_;
    point(op_kind::add_return, &it->second, l);
    full_barrier();  // a locked instruction on x86; ldxr/stlxr and dmb ish on arm64
    const std::uint32_t old = it->second.v;
    const int ret = model::futex_atomic_op_inuser_local(op, static_cast<std::uint32_t>(oparg), old,
                                                        &it->second.v);
    rmw_wrote(it->second.v, old);
    full_barrier();
    *oval = static_cast<int>(old);
    done(old, it->second.v);
    return ret;
}

void explore_env::sleep_steps(std::uint64_t steps)
{
    explore_task& self = current();
    self.wake_at = static_cast<std::int64_t>(step_ + steps);
    point(op_kind::user, nullptr, loc::current());
    self.pending.function = "";
    self.pending.note = "nanosleep " + std::to_string(steps);
    if (cfg_.timing_choices)  // it may end at any point: a choice, not a count
        block("nanosleep", nullptr);
    else
        while (static_cast<std::int64_t>(step_) < self.wake_at)
            block("nanosleep", nullptr);
    self.wake_at = -1;
    done(0, 0);
}

// schedule() in futex_do_wait(), for futex_sleep(): the sleep is a step of
// its own; a timeout is a number of steps.
model::sleep_end explore_env::futex_sleep_on(const void* q, long timeout_ns, const loc& l)
{
    point(op_kind::sleep, q, l);
    full_barrier();  // __schedule()'s smp_mb__after_spinlock()
    explore_task& self = current();
    self.futex_q = q;
    ++self.sleeps;
    self.timed_out = false;
    if (timeout_ns >= 0)
        self.wake_at = static_cast<std::int64_t>(step_) + timeout_ns;
    else if (self.hrtimer)  // FUTEX_WAIT_REQUEUE_PI's timer, armed in futex_do_wait()
        self.wake_at = self.hrtimer->expires;
    // schedule(): a task that a wake has made TASK_RUNNING, or that never
    // set a sleeping state, does not sleep (a wake that came while it
    // was still running is counted by sleep_begins() as before).
    const bool slept = self.kstate == model::TASK_RUNNING ? (self.sleep_begins(), !tearing_down_)
                                                          : block("futex_sleep", q);
    self.kstate = model::TASK_RUNNING;
    self.futex_q = nullptr;
    self.wake_at = -1;
    done(0, 0);
    if (!slept)
        return model::sleep_end::signal;
    return self.timed_out ? model::sleep_end::timeout : model::sleep_end::wakeup;
}

// The task of a PI futex word's TID (task id + 1000), if it is a user task.
void* explore_env::find_get_task_by_vpid(int pid)
{
    const int id = pid - 1000;
    if (id < 0 || static_cast<std::size_t>(id) >= tasks_.size() || tasks_[static_cast<std::size_t>(id)]->kernel)
        return nullptr;
    return tasks_[static_cast<std::size_t>(id)].get();
}

// The pivot's tracepoints feed the harness's pivot statistics, ordered
// across tasks; the per-reference ones only count.
void explore_env::trace(const model::trace_point& tp)
{
    if (tp.kind != model::trace_kind::ref_get_percpu && tp.kind != model::trace_kind::ref_get_atomic)
        commute_with_nothing();
    for (explore_observer* o : observers_)
        o->on_trace(tp);
}

std::unique_ptr<explore_env::percpu_uint> explore_env::alloc_percpu_uint()
{
    auto p = std::make_unique<percpu_uint>();
    p->v.assign(cfg_.cpus, 0);
    percpu_index_.emplace(p.get(), percpu_index_.size());
    return p;
}

}  // namespace futexsim::sim::explore
