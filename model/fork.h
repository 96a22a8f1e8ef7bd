// The futex part of copy_process() in kernel/fork.c (Linux v6.17).
#pragma once

#include <sched.h>  // CLONE_VM, CLONE_THREAD: the uapi values

#include "model/core.h"

namespace futexsim::model {

// need_futex_hash_allocate_default(): only a new thread of the same mm.
inline bool need_futex_hash_allocate_default(unsigned long clone_flags)
{
    return (clone_flags & (CLONE_THREAD | CLONE_VM)) == (CLONE_THREAD | CLONE_VM);
}

// copy_process(), futex step: runs in the parent before the child is
// attached to the thread group, so get_nr_threads() does not count the
// child yet. The environment adds the child after this returns.
template <class Env>
int copy_process_futex(mm_struct<Env>* mm, unsigned long clone_flags)
{
    if (!need_futex_hash_allocate_default(clone_flags))
        return 0;
    return futex_hash_allocate_default(mm);
}

}  // namespace futexsim::model
