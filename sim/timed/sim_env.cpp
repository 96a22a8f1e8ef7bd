#include "sim/timed/sim_env.h"

#include <algorithm>

namespace futexsim::sim {

// struct mutex (sim/kernel/mutex.h): the owner word is taken by a cmpxchg
// and handed over by a store, each a cache-line access.
void sim_env::mutex_lock(mutex_t& m)
{
    task& self = eng_.current();
    const long me = static_cast<long>(self.id) + 1;
    kernel::mutex_lock(
        m, &self,
        [&] {
            long expected = 0;
            return atomic_try_cmpxchg(m.owner, expected, me);
        },
        [&] { return m.owner.v == me; }, [this] { eng_.block(); });
}

void sim_env::mutex_unlock(mutex_t& m)
{
    kernel::mutex_unlock(
        m,
        [&](kernel::task_struct* next) {
            atomic_set(m.owner, next ? static_cast<long>(static_cast<task*>(next)->id) + 1 : 0L);
        },
        [this](kernel::task_struct& next) { eng_.wake(static_cast<task&>(next), eng_.now()); });
}

std::uint64_t sim_env::alloc_user_word(std::uint32_t initial)
{
    user_memory_.emplace_back();
    user_memory_.back().w.v = initial;
    return user_memory_base + 64 * (user_memory_.size() - 1);
}

sim_env::word<std::uint32_t>* sim_env::user_word(std::uint64_t uaddr)
{
    if (uaddr < user_memory_base || (uaddr - user_memory_base) % 64 != 0)
        return nullptr;
    const std::uint64_t i = (uaddr - user_memory_base) / 64;
    return i < user_memory_.size() ? &user_memory_[i].w : nullptr;
}

// x86 arch_futex_atomic_op_inuser(): one locked RMW on the word (xchg, xadd,
// or a cmpxchg loop for the bit operations), old value out.
int sim_env::arch_futex_atomic_op_inuser(int op, int oparg, int* oval, std::uint64_t uaddr)
{
    word<std::uint32_t>* w = user_word(uaddr);
    if (!w)
        return -model::EFAULT_;
    std::uint32_t old = 0;
    int ret = 0;
    access(*w, true, site(std::source_location::current(), "arch_futex_atomic_op_inuser"), [&](word<std::uint32_t>& x) {
        old = x.v;
        ret = model::futex_atomic_op_inuser_local(op, static_cast<std::uint32_t>(oparg), old, &x.v);
        return 0;
    });
    *oval = static_cast<int>(old);
    return ret;
}

void sim_env::hrtimer_sleeper_start_expires(model::hrtimer_sleeper* sl)
{
    if (!timers_)
        timers_ = std::make_unique<hrtimers>(eng_);
    timers_->start(sl);
}

void sim_env::hrtimer_cancel(model::hrtimer_sleeper* sl)
{
    if (timers_)
        timers_->cancel(sl);
}

}  // namespace futexsim::sim
