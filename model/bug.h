// WARN_ON_ONCE() of include/asm-generic/bug.h: the model reports through
// the environment, which decides whether a warning is fatal (the explorer
// makes it a violation) or is counted (the simulator, the threads backend).
#pragma once

namespace futexsim::model {

// WARN_ON_ONCE(): the environment decides whether a warning is fatal.
template <class Env>
inline bool WARN_ON_ONCE(Env& env, bool cond, const char* what)
{
    if (cond) [[unlikely]]
        env.warn(what);
    return cond;
}

}  // namespace futexsim::model
