#include "sim/explore/checks/lost_wakeup.h"

#include <fmt/format.h>

namespace futexsim::sim::explore {

namespace {
bool is_wake(const case_op& op)
{
    return op.kind == 'K' || op.kind == 'V' || op.kind == 'O' || op.kind == 'R';
}
}  // namespace

void lost_wakeup_check::on_op(const explore_task& t, const op_event& ev)
{
    if (ev.kind == op_kind::wake_task)
        woken_by_[t.id].push_back(static_cast<const explore_task*>(ev.addr)->id);
}

// Tasks asleep in futex_sleep() with their futex_q queued on `word`. A
// waiter whose bucket lock is held is being moved (requeue, rehash) or
// woken right now: not counted either way.
std::set<lost_wakeup_check::sleeper> lost_wakeup_check::sleepers_on(unsigned word) const
{
    std::set<sleeper> out;
    const std::uint64_t addr = word_address(word);
    for (const auto& t : ctx_.env.tasks())
        if (t->futex_q) {
            const auto* q = static_cast<const explored_futex_q*>(t->futex_q);
            if (q->lock_ptr && q->lock_ptr->owner < 0 && q->key.address == (addr & ~0xfffull) &&
                q->key.offset == (addr & 0xfff))
                out.emplace(t->id, t->sleeps);
        }
    return out;
}

void lost_wakeup_check::call_entered(const case_op& op)
{
    if (!is_wake(op))
        return;
    const int self = ctx_.env.current().id;
    queued_at_entry_[self] = sleepers_on(op.a);
    ctx_.env.commute_with_nothing();  // sleepers_on() reads every task's state
    woken_by_[self].clear();
}

void lost_wakeup_check::call_returned(const case_op& op, long ret)
{
    if (!is_wake(op))
        return;
    const int self = ctx_.env.current().id;
    check(op, ret, queued_at_entry_[self], woken_by_[self]);
    ctx_.env.commute_with_nothing();
}

void lost_wakeup_check::check(const case_op& op, long ret, const std::set<sleeper>& before,
                              const std::vector<int>& woken) const
{
    explore_env& env = ctx_.env;
    if (env.violation())
        return;
    if (ret < 0) {
        env.fail(fmt::format("{} returned {}", format_op(op), ret));
        return;
    }
    const long woke = static_cast<long>(woken.size());
    if (op.kind != 'R' ? ret != woke : ret < woke) {
        env.fail(
            fmt::format("{} returned {} but woke {} task(s)", format_op(op), ret, woken.size()));
        return;
    }
    const long want = op.kind == 'K' || op.kind == 'V' ? static_cast<long>(op.n)
                      : op.kind == 'O' ? 1
                                       : 1 + static_cast<long>(op.n);
    const bool short_count = op.kind == 'O' ? woken.empty() : ret < want;
    if (!short_count)
        return;
    const auto still = sleepers_on(op.a);
    for (const auto& s : before)
        if (still.count(s)) {
            env.fail(fmt::format(
                "lost wake-up: {} returned {} while {} was queued on word{} since before the "
                "call and still is",
                format_op(op), ret, env.tasks()[static_cast<std::size_t>(s.first)]->name, op.a));
            return;
        }
}

}  // namespace futexsim::sim::explore
