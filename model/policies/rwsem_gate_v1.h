// rwsem-gate-v1: rwsem-gate as it was first reconstructed and booted
// (docs/vm.md's rwsem-gate rows before the PI fix), kept so that the hangs
// it has can be replayed (docs/findings.md, "rwsem-gate and requeue-PI"):
// every waiter, a futex_wait_requeue_pi() one included, may take the
// writer's role once it is queued. A requeue-PI waiter that does can be
// handed a hash reference while it waits for the count (a self-deadlock)
// or the PI lock while it runs (a lost hand-off).
#pragma once

#include <string_view>

#include "model/policies/rwsem_gate.h"

namespace futexsim::model {

struct rwsem_gate_v1_policy : rwsem_gate_policy {
    static constexpr std::string_view name = "rwsem-gate-v1";
    static constexpr std::string_view summary =
        "rwsem-gate before the PI fix: a requeue-PI waiter may become the writer";

    static bool may_write(futex_op) { return true; }

    template <class Env>
    static void futex_op_end(mm_struct<Env>* mm, futex_op op)
    {
        rwsem_gate_policy::futex_op_end<Env, rwsem_gate_v1_policy>(mm, op);
    }
};

}  // namespace futexsim::model
