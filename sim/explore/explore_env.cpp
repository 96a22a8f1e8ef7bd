// The explorer's runtime (explore_env.h): tasks as fibers, the scheduling
// point every operation stops at, sleeping and waking, and the run loop
// that asks the strategy which candidate takes the next step. The
// primitives are in explore_primitives.cpp, the grace-period clock in
// rcu_step_clock.cpp, the footprints in step_footprints.cpp.
#include "sim/explore/explore_env.h"

#include "sim/explore/fiber_stack_pool.h"
#include "sim/kernel/task_fiber.h"

#include <boost/context/preallocated.hpp>

#include <algorithm>
#include <exception>
#include <new>

namespace futexsim::sim::explore {

namespace ctx = boost::context;

explore_env::explore_env(const config& c)
    : cfg_(c), strategy_(make_strategy(c.strategy)), mem_(c.memory, c.cpus), views_(c.cpus),
      weak_(c.memory != memory_model::sc), arm64_(c.memory == memory_model::arm64), last_on_cpu_(c.cpus, -1)
{
    mem_.on_commit([this](unsigned cpu, const buffered_store& e, std::uint64_t before) {
        record_commit(cpu, e, before);
    });
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
    quarantine_.release();
    for (auto& [p, del] : allocations_)
        del(p);
}

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
        return_stack(t->stack_base);
    }
}

int explore_env::spawn(std::string name, unsigned cpu, std::function<void()> body, bool kernel)
{
    // clone() and wake_up_new_task(): what the parent stored before is
    // visible to the child (a full barrier on the parent's CPU).
    full_barrier();
    auto t = std::make_unique<explore_task>();
    t->id = static_cast<int>(tasks_.size());
    t->name = std::move(name);
    t->cpu = cpu % cfg_.cpus;
    t->kernel = kernel;
    t->cloned = in_task();
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
    commute_with_nothing();  // a new candidate
    return ref.id;
}

void explore_env::fail(std::string what)
{
    commute_with_nothing();
    if (!violation_)
        violation_ = std::move(what);
}

void explore_env::warn(const char* what)
{
    commute_with_nothing();
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
            // A store that waits in the store buffer touches only the
            // buffer (mem_store()); memory is the drain's.
            if (addr && !(weak_ && (k == op_kind::write ||
                                    (arm64_ && (k == op_kind::inc || k == op_kind::dec)))))
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
    full_barrier();  // schedule()
    if (!self.sleep_begins())
        return true;
    self.state = task_state::blocked;
    self.blocked_in = in;
    self.blocked_on = on;
    sched_fiber_ = std::move(sched_fiber_).resume();
    self.blocked_in = "";
    self.blocked_on = nullptr;
    views_full(self.cpu);  // the wake-up and schedule() order what it sees next
    return true;
}

bool explore_env::block_uninterruptible(const char* in, const void* on)
{
    if (in_task())
        current().kstate = model::TASK_UNINTERRUPTIBLE;
    const bool slept = block(in, on);
    if (in_task())
        current().kstate = model::TASK_RUNNING;
    return slept;
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

// --- the scheduler -------------------------------------------------------

std::vector<int> explore_env::candidates() const
{
    std::vector<int> out;
    for (const auto& t : tasks_) {
        // With timing as choices a sleeper with a timeout may wake now.
        const bool timer =
            cfg_.timing_choices && t->state == task_state::blocked && t->wake_at >= 0;
        if (t->state != task_state::runnable && !timer)
            continue;
        bool cpu_taken = false;  // by another task in a non-preemptible section
        for (const auto& u : tasks_)
            if (u.get() != t.get() && u->state != task_state::exited && u->cpu == t->cpu &&
                u->in_section())
                cpu_taken = true;
        // Weak memory: a barrier waits for its drains, and so does a
        // context switch (schedule()'s full barrier) to another task.
        if (weak_ && t->awaiting_drain && mem_.holds(t->cpu, t->drain_word))
            continue;
        if (weak_ && last_on_cpu_[t->cpu] >= 0 && last_on_cpu_[t->cpu] != t->id && !mem_.empty(t->cpu))
            continue;
        if (!cpu_taken)
            out.push_back(t->id);
    }
    return out;
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
        const bool offer_gp_end =
            cfg_.timing_choices && gp_can_end() && gp_ends_chosen_ < cfg_.max_gp_ends;
        if (c.empty() && !offer_gp_end && (!weak_ || mem_.all_empty())) {
            if (!let_time_pass())
                return;  // everyone is blocked for good, or done
            continue;
        }
        std::vector<std::uint32_t> ids(c.begin(), c.end());
        if (weak_)
            add_memory_candidates(ids);
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
        if (is_drain_candidate(ids[pick])) {
            drain_step(drain_candidate_cpu(ids[pick]), drain_candidate_index(ids[pick]));
            continue;
        }
        explore_task& t = *tasks_[candidate_task(ids[pick])];
        if (arm64_)
            t.load_choice = candidate_version(ids[pick]);
        ++step_;
        begin_footprint(t.id);
        if (t.state == task_state::blocked) {  // timing as choices: its timeout ends now
            t.timed_out = true;
            fire_hrtimer(t, true);
            wake(t);
        }
        // Another task's step on the CPU is a context switch, which waited
        // for the CPU's store buffer to drain (candidates()).
        if (weak_ && last_on_cpu_[t.cpu] != t.id) {
            record_access(&mem_, true, t.cpu);
            if (last_on_cpu_[t.cpu] >= 0 || t.cloned)
                views_full(t.cpu);  // schedule() into it, also a cloned task's first run
            last_on_cpu_[t.cpu] = t.id;
        }
        // What the step shows if the task only blocks: the operation it tried.
        t.last = t.pending;
        t.last.note += t.last.note.empty() ? "(blocks)" : " (blocks)";
        switch_to(t);
        if (t.state == task_state::exited)
            commute_with_nothing();  // get_nr_threads(), the CPU it held
        for (explore_observer* o : observers_)
            o->on_step(t, t.last);
        advance_time();
    }
}

}  // namespace futexsim::sim::explore
