// The engine's CPU scheduler: where a woken task runs (place(), its CPU
// chosen as select_idle_sibling() would), where a new one starts
// (place_new()), what an idle CPU takes from a busy one (pull_task()), what
// a CPU runs next (dispatch()), and a task leaving its CPU to sleep
// (block()) or coming back (wake()). The event loop and the fiber hand-offs
// are engine.cpp's; both define members of the one `engine`.
#include "sim/timed/engine.h"

#include <algorithm>
#include <climits>

namespace futexsim::sim {

void engine::block()
{
    if (tearing_down_)
        return;
    task& t = current();
    if (!t.sleep_begins())  // woken between prepare-to-wait and now
        return;
    t.state = task_state::blocked;
    vcpu& c = cpus_[static_cast<std::size_t>(t.cpu)];
    c.current = -1;
    note_cpu_leave(t);
    note_context_switch(static_cast<unsigned>(t.cpu));
    dispatch(static_cast<unsigned>(t.cpu), now_ + static_cast<vtime>(machine_.context_switch_ns));
    leave();
}

void engine::wake(task& t, vtime at)
{
    if (t.state == task_state::exited)
        return;
    if (t.state != task_state::blocked) {
        t.wake_running();
        return;
    }
    ++t.gen;
    t.timed_out = false;
    place(t, std::max(at, now_));
}

void engine::wake_on_timeout(task& t, vtime at) { push_timeout(at, t); }

// Where a woken task runs: its last CPU if idle, else an idle allowed CPU,
// else the allowed CPU with the shortest queue (ties: lowest number). On an
// idle CPU it starts once the CPU has left its idle state.
void engine::place(task& t, vtime at)
{
    t.state = task_state::runnable;
    auto idle = [&](unsigned c) { return cpus_[c].current < 0 && cpus_[c].runqueue.empty(); };
    int chosen = -1;
    if (t.last_cpu >= 0 &&
        std::binary_search(t.allowed.begin(), t.allowed.end(), static_cast<unsigned>(t.last_cpu)) &&
        idle(static_cast<unsigned>(t.last_cpu)))
        chosen = t.last_cpu;
    if (chosen < 0 && t.last_cpu < 0)
        chosen = place_new(t);
    if (chosen < 0)
        for (unsigned c : t.allowed)
            if (idle(c)) {
                chosen = static_cast<int>(c);
                break;
            }
    if (chosen < 0) {
        std::size_t best = SIZE_MAX;
        for (unsigned c : t.allowed) {
            const std::size_t load = cpus_[c].runqueue.size() + (cpus_[c].current >= 0 ? 1 : 0);
            if (load < best) {
                best = load;
                chosen = static_cast<int>(c);
            }
        }
    }
    t.cpu = chosen;
    vcpu& c = cpus_[static_cast<std::size_t>(chosen)];
    if (t.kernel_thread) {
        c.runqueue.push_front(t.id);
        if (!c.urgent_resched && !c.need_resched)
            set_resched_flags(resched_flags_ + 1);
        c.urgent_resched = true;
    } else {
        c.runqueue.push_back(t.id);
    }
    if (c.current < 0) {
        // An idle CPU first finishes switching to idle if it still is (the
        // task that slept there may be this one: it must be switched out
        // before it can be switched back in), leaves its idle state (the
        // governor picked the state its idle period turned out to be
        // worth), then schedule() switches from the idle task to this one.
        const vtime from = std::max(at, c.idle_since);
        const auto exit =
            static_cast<vtime>(machine_.idle_exit_ns(static_cast<double>(at - c.idle_since)));
        dispatch(static_cast<unsigned>(chosen),
                 from + exit + static_cast<vtime>(machine_.context_switch_ns));
    }
}

// A new thread (fork/clone balancing, find_idlest_cpu()): the allowed LLC
// domain with the fewest busy CPUs, then an idle CPU in it; ties between
// domains and between CPUs are broken by the seed.
int engine::place_new(const task& t)
{
    std::vector<unsigned> busy_per_die;
    for (unsigned c : t.allowed) {
        const unsigned die = machine_.cpus[c].die;
        if (busy_per_die.size() <= die)
            busy_per_die.resize(die + 1, 0);
        if (!cpu_idle(c))
            ++busy_per_die[die];
    }
    // candidates: idle allowed CPUs in the least busy domains
    unsigned least = UINT_MAX;
    for (unsigned c : t.allowed)
        if (cpu_idle(c))
            least = std::min(least, busy_per_die[machine_.cpus[c].die]);
    std::vector<unsigned> candidates;
    for (unsigned c : t.allowed)
        if (cpu_idle(c) && busy_per_die[machine_.cpus[c].die] == least)
            candidates.push_back(c);
    if (candidates.empty())
        return -1;
    return static_cast<int>(candidates[placement_rng_.below(candidates.size())]);
}

// The CPU is free: start the next queued task at `at`.
// newidle_balance(): a CPU about to go idle pulls a waiting task it may run
// from the longest queue elsewhere (lowest CPU number on ties).
bool engine::pull_task(unsigned cpu)
{
    int busiest = -1;
    std::size_t longest = 0;
    for (unsigned other = 0; other < cpus_.size(); other++) {
        const auto& q = cpus_[other].runqueue;
        if (other == cpu || q.size() <= longest)
            continue;
        for (std::uint32_t id : q) {
            const task& t = *tasks_[id];
            if (std::binary_search(t.allowed.begin(), t.allowed.end(), cpu)) {
                busiest = static_cast<int>(other);
                longest = q.size();
                break;
            }
        }
    }
    if (busiest < 0)
        return false;
    auto& q = cpus_[static_cast<std::size_t>(busiest)].runqueue;
    for (auto it = q.rbegin(); it != q.rend(); ++it) {
        const task& t = *tasks_[*it];
        if (std::binary_search(t.allowed.begin(), t.allowed.end(), cpu)) {
            cpus_[cpu].runqueue.push_back(*it);
            q.erase(std::next(it).base());
            return true;
        }
    }
    return false;
}

void engine::dispatch(unsigned cpu, vtime at)
{
    vcpu& c = cpus_[cpu];
    if (c.current >= 0)
        return;
    if (c.runqueue.empty() && !pull_task(cpu)) {
        c.idle_since = at;
        return;
    }
    // The scheduling point a strategy decides (sim/schedule.h).
    std::size_t pick = 0;
    if (strategy_ && c.runqueue.size() > 1)
        pick = strategy_->pick(std::vector<std::uint32_t>(c.runqueue.begin(), c.runqueue.end()));
    const std::uint32_t id = c.runqueue[pick];
    c.runqueue.erase(c.runqueue.begin() + static_cast<std::ptrdiff_t>(pick));
    if (c.need_resched || c.urgent_resched) {  // the switch it asked for is happening
        set_resched_flags(resched_flags_ - 1);
        c.need_resched = c.urgent_resched = false;
    }
    task& t = *tasks_[id];
    c.current = static_cast<int>(id);
    c.slice_start = at;
    t.cpu = static_cast<int>(cpu);
    t.last_cpu = static_cast<int>(cpu);
    t.state = task_state::running;
    if (!observers_.empty()) [[unlikely]]
        observers_.notify([&](sim_observer& o) { o.cpu_enter(cpu, t, at); });
    push_resume(at, t);
}

}  // namespace futexsim::sim
