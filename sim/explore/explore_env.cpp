#include "sim/explore/explore_env.h"

#include "sim/kernel/task_fiber.h"

#include <boost/context/preallocated.hpp>
#include <boost/context/stack_context.hpp>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <new>

#include <fmt/format.h>

namespace futexsim::sim::explore {

namespace ctx = boost::context;

namespace {
constexpr std::size_t stack_bytes = 256 * 1024;
}

explore_env::explore_env(const config& c) : cfg_(c), strategy_(make_strategy(c.strategy))
{
    // The kernel task that runs RCU callbacks (softirq), one model step at a time.
    rcu_task_ = spawn("rcu", 0, [this] { rcu_task_body(); }, true);
    tasks_[static_cast<std::size_t>(rcu_task_)]->state = task_state::blocked;
    tasks_[static_cast<std::size_t>(rcu_task_)]->blocked_in = "idle";
}

explore_env::~explore_env()
{
    shutdown();
    for (auto& free : gp_.take_frees())
        free();
    for (auto& d : deleters_)
        d();
}

// Fiber stacks come from a pool: runs are short and many, and a task left
// unfinished at the end of a run is abandoned, not unwound, so its stack is
// handed back here.
namespace {


// Every stack not in use, freed when the program ends (so a leak checker
// sees none: an abandoned task's stack is back here by then).
struct free_stacks {
    std::vector<void*> stacks;
    ~free_stacks()
    {
        for (void* s : stacks)
            std::free(s);
    }
};

std::vector<void*>& stack_pool()
{
    static free_stacks pool;
    return pool.stacks;
}

struct pooled_stack {
    ctx::stack_context allocate()
    {
        void* base = nullptr;
        if (stack_pool().empty()) {
            base = std::malloc(stack_bytes);
            if (!base)
                throw std::bad_alloc();
        } else {
            base = stack_pool().back();
            stack_pool().pop_back();
        }
        ctx::stack_context sc;
        sc.size = stack_bytes;
        sc.sp = static_cast<char*>(base) + stack_bytes;
        return sc;
    }
    void deallocate(ctx::stack_context& sc) { stack_pool().push_back(static_cast<char*>(sc.sp) - sc.size); }
};

}  // namespace

// Tasks still suspended are abandoned where they stand: unwinding them
// would run the model's guards (unlocks, reference puts) outside any
// schedule, and a model loop may never end that way. Their stacks go back
// to the pool; nothing on them is used again (the model's structures hold
// a waiter's futex_q only by pointer, never dereferenced on the way out).
void explore_env::shutdown()
{
    if (tearing_down_)
        return;
    tearing_down_ = true;
    for (auto& t : tasks_) {
        if (!t->fib)
            continue;
        alignas(ctx::fiber) unsigned char handle[sizeof(ctx::fiber)];
        new (handle) ctx::fiber(std::move(t->fib));  // never destroyed: no unwinding
        stack_pool().push_back(t->stack_base);
    }
}

int explore_env::spawn(std::string name, unsigned cpu, std::function<void()> body, bool kernel)
{
    auto t = std::make_unique<explore_task>();
    t->id = static_cast<int>(tasks_.size());
    t->name = std::move(name);
    t->cpu = cpu % cfg_.cpus;
    t->kernel = kernel;
    t->body = std::move(body);
    explore_task& ref = *t;
    pooled_stack alloc;
    ctx::stack_context sc = alloc.allocate();
    ref.stack_base = static_cast<char*>(sc.sp) - sc.size;
    ref.fib = ctx::fiber(std::allocator_arg, ctx::preallocated(sc.sp, sc.size, sc), alloc,
                         kernel::task_fiber_main(
                             sched_fiber_, tearing_down_, ref.body, task_error_,
                             [this](ctx::fiber&& from) { sched_fiber_ = std::move(from); },
                             [&ref] { ref.state = task_state::exited; }));
    tasks_.push_back(std::move(t));
    mark_global();  // a new candidate
    return ref.id;
}

void explore_env::fail(std::string what)
{
    mark_global();
    if (!violation_)
        violation_ = std::move(what);
}

void explore_env::warn(const char* what)
{
    mark_global();
    if (cfg_.fatal_warnings) {
        fail(std::string("the model warned: ") + what);
        return;
    }
    note(std::string("WARNING: ") + what);
    if (std::find(warnings_.begin(), warnings_.end(), what) == warnings_.end())
        warnings_.emplace_back(what);
}

void explore_env::note(std::string text)
{
    if (in_task())
        current().notes.push_back(std::move(text));
}

bool explore_env::is_freed(const void* p) const
{
    const char* c = static_cast<const char*>(p);
    for (const range& r : freed_)
        if (c >= r.lo && c < r.hi)
            return true;
    return false;
}

// The memory stays quarantined, so the access itself is harmless: the
// violation stops the run at the end of this step.
void explore_env::check_access(const void* addr)
{
    if (addr && is_freed(addr))
        fail(std::string("use after free: ") + std::string(bare_function(current().pending.function)) + " " +
             op_name(current().pending.kind) + " on memory the model freed");
}

// A scheduling point: the task stops here; when it is picked again it
// performs this operation.
void explore_env::point(op_kind k, const void* addr, const loc& l)
{
    if (!in_task())
        return;
    explore_task& self = current();
    self.pending = op_event{k, addr, 0, 0, self.cpu, l.function_name(), {}};
    if (tearing_down_)
        return;
    sched_fiber_ = std::move(sched_fiber_).resume();
    self.pending.cpu = self.cpu;
    check_access(addr);
    if (cfg_.record_footprints) {
        switch (k) {
        case op_kind::percpu_inc:
        case op_kind::percpu_dec:
        case op_kind::percpu_read:
        case op_kind::percpu_write:
            break;  // by the counter's CPU, where the CPU is known
        case op_kind::sync_rcu:
            record_access(&gp_, true);
            break;
        default:
            if (addr)
                record_access(addr, k != op_kind::read);
        }
    }
}

void explore_env::pending_kind(op_kind k)
{
    if (in_task())
        current().pending.kind = k;
}

void explore_env::done(long before, long after)
{
    if (!in_task())
        return;
    explore_task& self = current();
    self.pending.before = before;
    self.pending.after = after;
    self.last = self.pending;
    if (!tearing_down_)
        for (explore_observer* o : observers_)
            o->on_op(self, self.last);
}

void explore_env::yield_point(op_event ev)
{
    if (!in_task())
        return;
    explore_task& self = current();
    const std::string note_text = ev.note;
    point(ev.kind, nullptr, loc::current());
    self.pending.function = "";
    self.pending.note = note_text;
    done(0, 0);
}

void explore_env::user_step(std::string text)
{
    yield_point(op_event{op_kind::user, nullptr, 0, 0, 0, "", std::move(text)});
}

// Sleeps until woken (not once the run is over: see shutdown()).
bool explore_env::block(const char* in, const void* on)
{
    if (!in_task() || tearing_down_)
        return false;
    explore_task& self = current();
    if (!self.sleep_begins())
        return true;
    self.state = task_state::blocked;
    self.blocked_in = in;
    self.blocked_on = on;
    sched_fiber_ = std::move(sched_fiber_).resume();
    self.blocked_in = "";
    self.blocked_on = nullptr;
    return true;
}

void explore_env::wake(explore_task& t)
{
    if (t.state == task_state::exited)
        return;
    record_access(&t, true);
    if (t.state == task_state::blocked) {
        t.state = task_state::runnable;
        return;
    }
    t.wake_running();
}

void explore_env::leave_section(explore_task& t)
{
    if (!t.in_section())
        ++t.section_gen;
}

void explore_env::preempt_disable()
{
    if (!in_task())
        return;
    const bool was = current().in_section();
    ++current().preempt_count;
    record_section_change(current(), was);
}

void explore_env::preempt_enable()
{
    if (!in_task())
        return;
    const bool was = current().in_section();
    --current().preempt_count;
    leave_section(current());
    record_section_change(current(), was);
}

void explore_env::rcu_read_lock()
{
    if (!in_task())
        return;
    const bool was = current().in_section();
    ++current().rcu_nesting;
    record_section_change(current(), was);
}

void explore_env::rcu_read_unlock()
{
    if (!in_task())
        return;
    const bool was = current().in_section();
    --current().rcu_nesting;
    leave_section(current());
    record_section_change(current(), was);
}

void explore_env::this_cpu_inc(percpu_uint& p, loc l)
{
    point(op_kind::percpu_inc, &p, l);
    const unsigned cpu = in_task() ? current().cpu : 0;
    record_access(&p, true, cpu);
    const long before = p.v[cpu];
    ++p.v[cpu];
    done(before, p.v[cpu]);
}

void explore_env::this_cpu_dec(percpu_uint& p, loc l)
{
    point(op_kind::percpu_dec, &p, l);
    const unsigned cpu = in_task() ? current().cpu : 0;
    record_access(&p, true, cpu);
    const long before = p.v[cpu];
    --p.v[cpu];
    done(before, p.v[cpu]);
}

unsigned explore_env::per_cpu_read(const percpu_uint& p, unsigned cpu, loc l)
{
    point(op_kind::percpu_read, &p, l);
    record_access(&p, false, cpu);
    const unsigned v = p.v[cpu];
    done(v, v);
    return v;
}

void explore_env::per_cpu_write(percpu_uint& p, unsigned cpu, unsigned v, loc l)
{
    point(op_kind::percpu_write, &p, l);
    record_access(&p, true, cpu);
    const long before = p.v[cpu];
    p.v[cpu] = v;
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
        block("synchronize_rcu", this);
    self.rcu_cookie = 0;
    done(0, 0);
}

void explore_env::warn_might_sleep(const char* call)
{
    const std::string what =
        std::string("do not call blocking ops when !TASK_RUNNING: ") + call + " in a wait_var_event() condition";
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
        [&] { return m.owner == self; }, [&] { block("mutex_lock", &m); });
    done(0, 1);
}

void explore_env::mutex_unlock(mutex_t& m, loc l)
{
    point(op_kind::mutex_unlock, &m, l);
    kernel::mutex_unlock(
        m, [&](kernel::task_struct* next) { m.owner = next; },
        [this](kernel::task_struct& next) { wake(static_cast<explore_task&>(next)); });
    done(1, 0);
}

// spin_lock() disables preemption: the task keeps its CPU while it spins.
void explore_env::spin_lock(spinlock_t& s, loc l)
{
    point(op_kind::spin_lock, &s, l);
    if (in_task()) {
        const bool was = current().in_section();
        ++current().preempt_count;
        record_section_change(current(), was);
    }
    while (s.owner >= 0 && !tearing_down_) {
        spinners_[&s].push_back(current_);
        block("spin_lock", &s);
    }
    s.owner = current_;
    done(0, 1);
}

void explore_env::spin_unlock(spinlock_t& s, loc l)
{
    point(op_kind::spin_unlock, &s, l);
    s.owner = -1;
    auto it = spinners_.find(&s);
    if (it != spinners_.end()) {
        std::vector<int> waiters = std::move(it->second);
        spinners_.erase(it);
        for (int id : waiters)
            wake(*tasks_[static_cast<std::size_t>(id)]);
    }
    if (in_task()) {
        const bool was = current().in_section();
        --current().preempt_count;
        leave_section(current());
        record_section_change(current(), was);
    }
    done(1, 0);
}

void explore_env::wake_up_var(const void* var)
{
    record_access(var, true);
    var_waits_.wake_up(var, [this](kernel::task_struct& t) { wake(static_cast<explore_task&>(t)); });
}

void explore_env::wake_up_task(void* t)
{
    auto* x = static_cast<explore_task*>(t);
    if (in_task() && !tearing_down_) {
        const op_event ev{op_kind::wake_task, x, 0, 0, current().cpu, "wake_up_task", {}};
        for (explore_observer* o : observers_)
            o->on_op(current(), ev);
    }
    note("wake_up_task " + x->name);
    wake(*x);
}

int explore_env::futex_get_value(std::uint64_t uaddr, std::uint32_t* out, loc l)
{
    auto it = user_memory.find(uaddr);
    if (it == user_memory.end())
        return -model::EFAULT_;
    *out = atomic_read(it->second, l);
    return 0;
}

int explore_env::arch_futex_atomic_op_inuser(int op, int oparg, int* oval, std::uint64_t uaddr, loc l)
{
    auto it = user_memory.find(uaddr);
    if (it == user_memory.end())
        return -model::EFAULT_;
    point(op_kind::add_return, &it->second, l);
    const std::uint32_t old = it->second.v;
    const int ret = model::futex_atomic_op_inuser_local(op, static_cast<std::uint32_t>(oparg), old,
                                                        &it->second.v);
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

// --- the scheduler -------------------------------------------------------

std::vector<int> explore_env::candidates() const
{
    std::vector<int> out;
    for (const auto& t : tasks_) {
        // With timing as choices a sleeper with a timeout may wake now.
        const bool timer = cfg_.timing_choices && t->state == task_state::blocked && t->wake_at >= 0;
        if (t->state != task_state::runnable && !timer)
            continue;
        bool cpu_taken = false;  // by another task in a non-preemptible section
        for (const auto& u : tasks_)
            if (u.get() != t.get() && u->state != task_state::exited && u->cpu == t->cpu && u->in_section())
                cpu_taken = true;
        if (!cpu_taken)
            out.push_back(t->id);
    }
    return out;
}

bool explore_env::rcu_work_pending() const
{
    if (gp_.callbacks_waiting() || gp_.frees_waiting())
        return true;
    for (const auto& t : tasks_)
        if (t->rcu_cookie > gp_.completed())
            return true;
    return false;
}

void explore_env::start_gp()
{
    gp_.start_gp();
    gp_started_ = step_;
    // gp_steps steps for each thread, so that a grace period gives every
    // thread about as much progress whether there are 2 or 16 of them.
    std::uint64_t live = 0;
    for (const auto& t : tasks_)
        live += !t->kernel && t->state != task_state::exited;
    gp_length_ = cfg_.gp_steps * std::max<std::uint64_t>(1, live);
    gp_readers_.clear();
    for (const auto& t : tasks_)
        if (t->state != task_state::exited && t->in_section())
            gp_readers_.emplace_back(t->id, t->section_gen);
}

void explore_env::end_gp()
{
    kernel::rcu_gp::ended done = gp_.end_gp();
    for (auto& cb : done.callbacks)
        due_.push_back(std::move(cb));
    if (!due_.empty())
        wake(*tasks_[static_cast<std::size_t>(rcu_task_)]);
    for (auto& free : done.frees)  // kvfree_rcu(): no callback task here
        free();
    for (auto& t : tasks_)
        if (t->rcu_cookie && t->rcu_cookie <= gp_.completed())
            wake(*t);
}

// Grace periods and timers at the current step. Returns the next step at
// which something is due when nothing can run now (-1: nothing ever).
bool explore_env::advance_time()
{
    if (cfg_.timing_choices) {
        // Nothing is due by the step count: grace-period ends and timeouts
        // are candidates (candidates(), run()). A new grace period starts
        // as soon as the last one ended, as on a live system.
        if (gp_.gp_active())
            std::erase_if(gp_readers_, [this](const auto& r) {
                const explore_task& t = *tasks_[static_cast<std::size_t>(r.first)];
                return t.section_gen != r.second || !t.in_section();
            });
        else
            start_gp();
        return true;
    }
    for (auto& t : tasks_)
        if (t->state == task_state::blocked && t->wake_at >= 0 && static_cast<std::int64_t>(step_) >= t->wake_at) {
            t->timed_out = true;
            wake(*t);
        }
    if (gp_.gp_active()) {
        std::erase_if(gp_readers_, [this](const auto& r) {
            const explore_task& t = *tasks_[static_cast<std::size_t>(r.first)];
            return t.section_gen != r.second || !t.in_section();
        });
        // The callbacks of the last grace period run before the next one
        // ends (the kernel invokes them promptly; here the rcu task is one
        // candidate among many, and a slow pick must not look like a stall).
        if (gp_readers_.empty() && due_.empty() && step_ >= gp_started_ + gp_length_)
            end_gp();
    }
    // Grace periods keep coming while anything runs, as on a live system
    // (other CPUs, other processes): a stalled pivot is measured against them.
    if (!gp_.gp_active())
        start_gp();
    return true;
}

void explore_env::rcu_task_body()
{
    explore_task& self = current();
    for (;;) {
        while (due_.empty())
            block("idle", this);
        const kernel::rcu_gp::ready_callback cb = std::move(due_.front());
        due_.erase(due_.begin());
        // Move to the callback's CPU first, as a step of its own: the
        // softirq then starts only when no task there is in a section.
        self.cpu = cb.cpu;
        user_step("softirq on cpu" + std::to_string(cb.cpu));
        ++self.preempt_count;  // softirq: not preemptible
        note("rcu callback");
        cb.fn();
        --self.preempt_count;
        leave_section(self);
    }
}

// --- exhaustive search support -------------------------------------------

void explore_env::record_object(std::uint64_t id, bool write, std::uint32_t sub) const
{
    if (cfg_.record_footprints && !footprints_.empty())
        footprints_.back().accesses.push_back(step_access{id, sub, write});
}

void explore_env::record_gp_read() const
{
    if (cfg_.record_footprints && !footprints_.empty())
        record_object(obj_id(obj_class::rcu, 0, 0), false);
}

void explore_env::record_access(const void* obj, bool write, std::uint32_t sub)
{
    if (cfg_.record_footprints && !footprints_.empty())
        record_object(object_name(obj), write, sub);
}

// What the environment can name itself: tasks, their stacks (a futex_q
// lives on its waiter's), per-CPU counters, its own CPU and RCU state.
std::uint64_t explore_env::object_name(const void* p) const
{
    if (p == &cfg_)
        return obj_id(obj_class::cpu, 0, 0);
    if (p == &gp_)
        return obj_id(obj_class::rcu, 0, 0);
    if (auto it = percpu_index_.find(p); it != percpu_index_.end())
        return obj_id(obj_class::percpu, it->second, 0);
    const char* c = static_cast<const char*>(p);
    for (const auto& t : tasks_) {
        if (p == t.get())
            return obj_id(obj_class::task, static_cast<std::uint64_t>(t->id), 0);
        const char* base = static_cast<const char*>(t->stack_base);
        if (base && c >= base && c < base + stack_bytes)
            return obj_id(obj_class::stack, static_cast<std::uint64_t>(t->id), static_cast<std::uint64_t>(c - base));
    }
    return reinterpret_cast<std::uintptr_t>(p);  // raw: the harness names it or the step goes global
}

void explore_env::mark_global()
{
    if (cfg_.record_footprints && !footprints_.empty())
        footprints_.back().global = true;
}

// Every step reads its own task (a wake-up of it writes it) and its CPU
// (entering or leaving a non-preemptible section writes it: that decides
// who else on the CPU is a candidate). The rcu task moves between CPUs and
// runs callbacks: its steps commute with nothing.
void explore_env::begin_footprint(int task)
{
    if (!cfg_.record_footprints)
        return;
    footprints_.push_back(step_footprint{task, task < 0, {}});
    if (task >= 0) {
        const explore_task& t = *tasks_[static_cast<std::size_t>(task)];
        record_access(&t, false);
        record_access(&cfg_, false, t.cpu);
        if (t.kernel)
            mark_global();
    }
}

void explore_env::record_section_change(const explore_task& t, bool was_in_section)
{
    if (t.in_section() != was_in_section)
        record_access(&cfg_, true, t.cpu);
}

bool explore_env::gp_can_end() const
{
    return gp_.gp_active() && gp_readers_.empty() && due_.empty();
}

// A grace period ends as a step of its own (timing as choices). It writes
// RCU's state, wakes whom it wakes, and the next grace period, which starts
// at once, reads who is inside a read-side section on every CPU; frees
// (kvfree_rcu) make it commute with nothing.
void explore_env::end_gp_step(bool forced)
{
    ++step_;
    begin_footprint(-1);
    if (cfg_.record_footprints) {
        footprints_.back().global = gp_.frees_waiting();
        record_access(&gp_, true);
        for (unsigned cpu = 0; cpu < cfg_.cpus; cpu++)
            record_access(&cfg_, false, cpu);
    }
    if (!forced)
        ++gp_ends_chosen_;
    explore_task& rcu = *tasks_[static_cast<std::size_t>(rcu_task_)];
    end_gp();
    rcu.notes.clear();
    const op_event ev{op_kind::user, nullptr, 0, 0, rcu.cpu, "",
                      fmt::format("grace period {} ends{}", gp_.completed(), forced ? " (nothing else can run)" : "")};
    for (explore_observer* o : observers_)
        o->on_step(rcu, ev);
    advance_time();
}

void explore_env::switch_to(explore_task& t)
{
    current_ = t.id;
    t.notes.clear();
    t.fib = std::move(t.fib).resume();
    current_ = -1;
    if (task_error_) {
        auto e = task_error_;
        task_error_ = nullptr;
        std::rethrow_exception(e);
    }
}

void explore_env::run()
{
    advance_time();
    while (!violation_ && step_ < cfg_.max_steps) {
        const std::vector<int> c = candidates();
        const bool offer_gp_end = cfg_.timing_choices && gp_can_end() && gp_ends_chosen_ < cfg_.max_gp_ends;
        if (cfg_.timing_choices && c.empty() && !offer_gp_end) {
            if (gp_can_end() && rcu_work_pending()) {
                end_gp_step(true);  // everyone waits for it: not a choice
                continue;
            }
            return;  // everyone is blocked for good, or done
        }
        if (c.empty() && !offer_gp_end) {
            // Nothing can run: let time pass until a timer or a grace period is due.
            std::int64_t next = -1;
            for (const auto& t : tasks_)
                if (t->state == task_state::blocked && t->wake_at >= 0 && (next < 0 || t->wake_at < next))
                    next = t->wake_at;
            if (gp_.gp_active() && gp_readers_.empty() && rcu_work_pending()) {
                const auto gp_end = static_cast<std::int64_t>(gp_started_ + gp_length_);
                if (next < 0 || gp_end < next)
                    next = gp_end;
            }
            if (next < 0)
                return;  // everyone is blocked for good, or done
            step_ = std::max<std::uint64_t>(step_ + 1, static_cast<std::uint64_t>(next));
            advance_time();
            continue;
        }
        std::vector<std::uint32_t> ids(c.begin(), c.end());
        if (offer_gp_end)
            ids.push_back(gp_end_candidate);
        const std::optional<std::size_t> choice = strategy_->pick_or_stop(ids);
        if (!choice) {
            stopped_ = true;
            return;
        }
        const std::size_t pick = *choice;
        if (ids[pick] == gp_end_candidate) {
            end_gp_step(false);
            continue;
        }
        explore_task& t = *tasks_[ids[pick]];
        ++step_;
        begin_footprint(t.id);
        if (t.state == task_state::blocked) {  // timing as choices: its timeout ends now
            t.timed_out = true;
            wake(t);
        }
        // What the step shows if the task only blocks: the operation it tried.
        t.last = t.pending;
        t.last.note += t.last.note.empty() ? "(blocks)" : " (blocks)";
        switch_to(t);
        if (t.state == task_state::exited)
            mark_global();  // get_nr_threads(), the CPU it held
        for (explore_observer* o : observers_)
            o->on_step(t, t.last);
        advance_time();
    }
}

}  // namespace futexsim::sim::explore
