// The generic atomic fallbacks the kernel builds some operations from
// (include/linux/atomic/atomic-arch-fallback.h, v6.17). Written out here
// because their shape matters: atomic_long_inc_not_zero is a load followed by
// a compare-and-swap loop that can fail and retry, each step a separate access
// to the line, while atomic_long_dec_and_test is a single read-modify-write.
#pragma once

namespace futexsim::model {

// The kernel builds with -fno-strict-overflow: atomics wrap. The bias makes
// futex_atomic pass LONG_MAX, so the model adds in unsigned arithmetic.
inline long wrapping_add(long a, long b)
{
    return static_cast<long>(static_cast<unsigned long>(a) + static_cast<unsigned long>(b));
}

// raw_atomic_long_fetch_add_unless(): read, then try_cmpxchg until it sticks
// or the value is `u`.
template <class Env, class W>
long atomic_long_fetch_add_unless(Env& env, W& v, long a, long u)
{
    long c = env.atomic_read(v);
    do {
        if (c == u)
            break;
    } while (!env.atomic_try_cmpxchg(v, c, wrapping_add(c, a)));
    return c;
}

// raw_atomic_long_add_unless()
template <class Env, class W>
bool atomic_long_add_unless(Env& env, W& v, long a, long u)
{
    return atomic_long_fetch_add_unless(env, v, a, u) != u;
}

// raw_atomic_long_inc_not_zero()
template <class Env, class W>
bool atomic_long_inc_not_zero(Env& env, W& v)
{
    return atomic_long_add_unless(env, v, 1, 0);
}

}  // namespace futexsim::model
