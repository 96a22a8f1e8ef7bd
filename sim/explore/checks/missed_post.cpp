#include "sim/explore/checks/missed_post.h"

#include <fmt/format.h>

namespace futexsim::sim::explore {

// The value futex_wait() compares is the last read of its word it makes
// (futex_get_value_locked()).
void missed_post_check::on_op(const explore_task& t, const op_event& ev)
{
    const auto it = waiting_on_.find(t.id);
    if (it != waiting_on_.end() && ev.kind == op_kind::read &&
        ev.addr == &ctx_.env.user_word_at(word_address(it->second)))
        compared_[t.id] = static_cast<std::uint32_t>(ev.after);
}

void missed_post_check::call_entered(const case_op& op)
{
    if (op.kind != 'W')
        return;
    waiting_on_[ctx_.env.current().id] = op.a;
    waiters_[op.a].insert(ctx_.env.current().id);
}

void missed_post_check::after_call(const case_op& op, long)
{
    if (op.kind == 'W')
        waiting_on_.erase(ctx_.env.current().id);
    else if (op.kind == 'V' && op.n >= 1)
        posted_.insert(op.a);
}

void missed_post_check::at_end()
{
    explore_env& env = ctx_.env;
    if (env.violation() || env.step() >= ctx_.cfg.max_steps)
        return;  // stopped, not ended
    for (const unsigned word : posted_) {
        const auto waiters = waiters_.find(word);
        if (waiters == waiters_.end() || waiters->second.size() != 1)
            continue;  // several waiters: a post may rightly wake another
        const int id = *waiters->second.begin();
        const explore_task& t = *env.tasks()[static_cast<std::size_t>(id)];
        const auto w = waiting_on_.find(id);
        if (t.state != task_state::blocked || !t.futex_q || w == waiting_on_.end() ||
            w->second != word)
            continue;
        const std::uint32_t now = env.user_word_at(word_address(word)).v;
        if (compared_[id] != now)
            env.fail(fmt::format(
                "lost wake-up: {} sleeps in futex_wait(word{}, {}) for good, but word{} "
                "= {} since a post that returned",
                t.name, word, compared_[id], word, now));
    }
}

}  // namespace futexsim::sim::explore
