// The pivot policies (model/policies/) and the mismatch precheck on the
// step environment: who blocks where, who pivots, and that the hash
// reference count is what it should be after every operation.
#include <catch2/catch.hpp>

#include <climits>
#include <string>

#include "sim/step/step_process.h"
#include "sim/timed/sim_env.h"
#include "tests/model/policy_fixture.h"

using namespace futexsim::test;
using futexsim::sim::step_env;

static_assert(model::futex_env<step_env>);
static_assert(model::futex_env<futexsim::sim::sim_env>);  // synchronize_rcu() included

TEST_CASE("the registry: names, ids, the default, unknown names", "[policy]")
{
    CHECK(model::pivot_policy_names() == "stock, wait-for-new, rwsem-gate, rwsem-gate-v1, wait-for-new-wake");
    CHECK(model::pivot_policy_id("stock") == model::pivot_policy_stock);
    CHECK(model::pivot_policy_id("wait-for-new").value() ==
          model::registered_policies::id_of<model::wait_for_new_policy>());
    CHECK(model::pivot_policy_id("rwsem-gate").value() ==
          model::registered_policies::id_of<model::rwsem_gate_policy>());
    CHECK_FALSE(model::pivot_policy_id("rwsem_gate").has_value());
    CHECK(model::pivot_policy_name(2) == "rwsem-gate");
    CHECK(model::pivot_policy_id("rwsem-gate-v1").value() ==
          model::registered_policies::id_of<model::rwsem_gate_v1_policy>());
    CHECK(model::pivot_policy_id("wait-for-new-wake").value() ==
          model::registered_policies::id_of<model::wait_for_new_wake_policy>());
    CHECK(model::pivot_policy_name(7).empty());

    step_process p(4);
    CHECK(p.mm.futex_policy == model::pivot_policy_stock);  // the default
    CHECK(p.set_policy("nope") == -model::EINVAL_);
    CHECK(model::futex_set_pivot_policy(&p.mm, 5) == -model::EINVAL_);
    CHECK(model::futex_set_pivot_policy(&p.mm, -1) == -model::EINVAL_);
    CHECK(p.mm.futex_policy == model::pivot_policy_stock);
}

TEST_CASE("stock: a parked pivot and a held reference block nobody", "[policy]")
{
    fixture f("stock");
    auto* held = f.take_ref();
    f.park_pivot();
    f.p.env.end_grace_period();  // the fold: one reference left, ours
    f.check_refs();
    CHECK(f.p.futex_wake(F1, 1) == 0);  // on the atomic, not blocked
    CHECK(f.p.env.blocks() == 0);
    CHECK(f.p.get_slots() == 16);
    f.check_refs();
    f.drop_ref(held);
    CHECK(f.p.futex_wake(F1, 1) == 0);  // fails the get, pivots, retries
    CHECK(f.p.get_slots() == 32);
    f.check_refs();
}

TEST_CASE("wait-for-new: futex_wake sleeps until the holder drops its reference", "[policy]")
{
    fixture f("wait-for-new");
    auto* held = f.take_ref();
    f.park_pivot();
    f.check_refs();

    std::vector<std::string> steps;
    f.p.env.on_block([&] {
        // The caller sleeps on the mm, having taken no reference.
        CHECK(f.p.env.blocked_on() == &f.p.mm);
        CHECK_FALSE(traced(f.p.env, model::trace_kind::ref_get_percpu));
        CHECK_FALSE(traced(f.p.env, model::trace_kind::ref_get_atomic));
        if (f.p.env.pending_callbacks() > 0) {
            f.p.env.end_grace_period();  // the fold: our reference is left
            steps.emplace_back("fold");
            CHECK(f.p.env.atomic_read(f.p.mm.futex_atomic) == 1);
            f.check_refs();
            return true;
        }
        if (f.held) {
            const unsigned wakes = f.p.env.wake_ups();
            f.drop_ref(held);  // the count drains: wake_up_var(mm)
            CHECK(f.p.env.wake_ups() == wakes + 1);
            steps.emplace_back("drop");
            f.check_refs();
            return true;
        }
        return false;
    });
    f.p.env.clear_trace();
    CHECK(f.p.futex_wake(F1, 1) == 0);
    CHECK(steps == std::vector<std::string>{"fold", "drop"});
    CHECK(f.p.env.blocks() == 2);
    // The caller then took a reference, found the hash dead and pivoted.
    CHECK(traced(f.p.env, model::trace_kind::pivot_install));
    CHECK(f.p.get_slots() == 32);
    CHECK(f.p.mm.futex_phash_new == nullptr);
    f.check_refs();

    // Nothing parked: no sleep.
    CHECK(f.p.futex_wake(F1, 1) == 0);
    CHECK(f.p.env.blocks() == 2);
    f.check_refs();
}

TEST_CASE("wait-for-new gates wake, wake_op and wait but not cmp_requeue", "[policy]")
{
    fixture f("wait-for-new");
    auto* held = f.take_ref();
    f.park_pivot();
    f.p.env.end_grace_period();
    f.check_refs();
    f.p.env.on_block([] { return false; });  // nobody will drain the count

    CHECK_THROWS_AS(f.p.futex_wake(F1, 1), step_deadlock);
    CHECK_THROWS_AS(f.p.futex_wake_op(F1, F2, 1, 1, model::FUTEX_OP(model::FUTEX_OP_ADD, 1, 0, 0)),
                    step_deadlock);
    CHECK_THROWS_AS(f.p.futex_wait(F1, 0, 1000), step_deadlock);
    f.check_refs();

    // Requeue takes its references on the atomic while the pivot waits.
    const unsigned long blocks = f.p.env.blocks();
    f.p.env.clear_trace();
    CHECK(f.p.futex_cmp_requeue(F1, F2, 1, 1, 0) == 0);
    CHECK(f.p.futex_cmp_requeue(F1, F2, 1, 1, 5) == -model::EAGAIN_);
    CHECK(f.p.futex_requeue(F1, F2, 1, 1) == 0);
    CHECK(f.p.env.blocks() == blocks);
    CHECK(traced(f.p.env, model::trace_kind::ref_get_atomic));
    CHECK(f.p.get_slots() == 16);
    f.check_refs();

    f.p.env.on_block(nullptr);
    f.drop_ref(held);
    CHECK(f.p.futex_wake(F1, 1) == 0);
    CHECK(f.p.get_slots() == 32);
    f.check_refs();
}

TEST_CASE("rwsem-gate: readers take the per-CPU fast path while the gate is idle", "[policy]")
{
    fixture f("rwsem-gate");
    CHECK(f.gate_state() == model::GP_IDLE);
    unsigned readers_inside = 0;
    f.p.env.on_trace = [&](const model::trace_point& tp) {
        if (tp.kind == model::trace_kind::ref_get_percpu)
            readers_inside = f.gate_readers();
    };
    for (unsigned cpu = 0; cpu < 8; cpu++) {
        f.p.env.set_cpu(cpu);
        const unsigned long writes = f.p.env.shared_writes();
        readers_inside = 0;
        CHECK(f.p.futex_wake(F1, 1) == 0);
        CHECK(readers_inside == 1);  // counted while it held its reference
        CHECK(f.p.env.shared_writes() == writes);  // no shared line written
        CHECK(f.gate_readers() == 0);
        f.check_refs();
    }
    // The other operations are readers too.
    f.p.env.user_memory[F1] = 1;
    CHECK(f.p.futex_wait(F1, 0) == -model::EWOULDBLOCK_);
    CHECK(f.p.futex_cmp_requeue(F1, F2, 1, 1, 1) == 0);
    CHECK(f.gate_readers() == 0);
    CHECK(f.p.env.blocks() == 0);
    CHECK(f.p.env.synchronize_rcu_calls() == 0);
    f.check_refs();
}

TEST_CASE("rwsem-gate: the next operation after a park is the writer, drains the readers and pivots",
          "[policy]")
{
    fixture f("rwsem-gate");
    // A reader inside its section, holding a hash reference (an operation
    // in progress on CPU 3).
    f.p.env.set_cpu(3);
    model::percpu_down_read(&f.gate().sem);
    auto* held = f.take_ref();
    f.p.env.set_cpu(0);
    f.park_pivot();
    CHECK(f.gate_state() == model::GP_IDLE);  // clone() did not enter the gate

    std::vector<std::string> steps;
    f.p.env.on_block([&] {
        const void* on = f.p.env.blocked_on();
        if (on == &f.p.env) {
            // rcu_sync_enter()'s synchronous grace period; it also runs the
            // fold, which leaves the reader's reference.
            CHECK(f.gate_state() == model::GP_ENTER);
            f.p.env.end_grace_period();
            steps.emplace_back("enter-gp");
            CHECK(f.p.env.atomic_read(f.p.mm.futex_atomic) == 1);
            f.check_refs();
            return true;
        }
        if (on == &f.gate().sem) {
            // Waiting for readers: `block` is set, newcomers back out.
            CHECK(f.gate_state() == model::GP_PASSED);
            CHECK(f.p.env.atomic_read(f.gate().sem.block) == 1);
            CHECK(f.gate_readers() == 1);
            {
                model::preempt_guard<step_env> preempt(f.p.env);
                CHECK_FALSE(model::__percpu_down_read_trylock(&f.gate().sem));
            }
            CHECK(f.gate_readers() == 1);
            // The reader finishes, on another CPU: drops its reference (the
            // count drains) and leaves by the slow path.
            f.p.env.set_cpu(5);
            f.drop_ref(held);
            model::percpu_up_read(&f.gate().sem);
            f.p.env.set_cpu(0);
            steps.emplace_back("reader-out");
            f.check_refs();
            return true;
        }
        return false;
    });
    f.p.env.clear_trace();
    CHECK(f.p.futex_wake(F1, 1) == 0);
    CHECK(steps == std::vector<std::string>{"enter-gp", "reader-out"});
    CHECK(f.p.env.synchronize_rcu_calls() == 1);
    CHECK(traced(f.p.env, model::trace_kind::pivot_install));
    CHECK(f.p.get_slots() == 32);
    CHECK(f.p.mm.futex_phash_new == nullptr);
    CHECK(f.p.env.atomic_read(f.gate().sem.block) == 0);
    CHECK(f.p.env.atomic_read(f.gate().pivot_writer) == 0);
    CHECK(f.gate_readers() == 0);
    f.check_refs();

    // Until a grace period after rcu_sync_exit(), readers take the slow
    // path (count, barrier, look at `block`) and pass: no writer.
    CHECK(f.gate_state() == model::GP_EXIT);
    CHECK(f.p.futex_wake(F1, 1) == 0);
    CHECK(f.gate_readers() == 0);
    f.p.env.end_grace_period();
    CHECK(f.gate_state() == model::GP_IDLE);
    const unsigned long writes = f.p.env.shared_writes();
    CHECK(f.p.futex_wake(F1, 1) == 0);
    CHECK(f.p.env.shared_writes() == writes);  // the fast path again
    CHECK(f.p.env.warnings().empty());
    f.check_refs();
}

TEST_CASE("rwsem-gate: a writer soon after the last one skips the grace period", "[policy]")
{
    fixture f("rwsem-gate", 16);
    f.p.env.on_block([&] {
        f.p.env.end_grace_period();
        return true;
    });
    f.park_pivot();  // 32
    CHECK(f.p.futex_wake(F1, 1) == 0);
    CHECK(f.p.get_slots() == 32);
    CHECK(f.p.env.synchronize_rcu_calls() == 1);
    CHECK(f.gate_state() == model::GP_EXIT);

    // 9 threads on 16 CPUs ask for 64 slots while the gate is still GP_EXIT:
    // the next writer's rcu_sync_enter() needs no grace period of its own
    // (it still waits for the new hash's publication and fold).
    for (int i = 0; i < 4; i++)
        f.p.clone_thread();
    REQUIRE(f.p.mm.futex_phash_new != nullptr);
    CHECK(f.p.futex_wake(F1, 1) == 0);
    CHECK(f.p.get_slots() == 32 * 2);
    CHECK(f.p.env.synchronize_rcu_calls() == 1);
    CHECK(f.p.env.warnings().empty());
    f.check_refs();
}

TEST_CASE("precheck: a mismatched wait returns EWOULDBLOCK with no bucket lock and no reference",
          "[policy]")
{
    for (const char* policy : {"stock", "wait-for-new", "rwsem-gate"}) {
        INFO(policy);
        fixture f(policy);
        f.p.env.user_memory[F1] = 1;

        // Without the precheck: the reference and the bucket lock, then the mismatch.
        f.p.env.clear_trace();
        unsigned long locks = f.p.env.spin_locks();
        CHECK(f.p.futex_wait(F1, 0) == -model::EWOULDBLOCK_);
        CHECK(f.p.env.spin_locks() == locks + 1);
        CHECK(traced(f.p.env, model::trace_kind::ref_get_percpu));
        f.check_refs();

        f.p.mm.futex_precheck = true;
        f.p.env.clear_trace();
        locks = f.p.env.spin_locks();
        CHECK(f.p.futex_wait(F1, 0) == -model::EWOULDBLOCK_);
        CHECK(f.p.env.spin_locks() == locks);
        CHECK_FALSE(traced(f.p.env, model::trace_kind::ref_get_percpu));
        CHECK_FALSE(traced(f.p.env, model::trace_kind::ref_get_atomic));
        CHECK(f.p.env.futex_sleeps() == 0);
        f.check_refs();

        // A matching word goes the locked way and sleeps as before.
        int task = 0;
        f.p.env.set_task(&task);
        f.p.env.on_futex_sleep([&](model::futex_q<step_env>*) {
            f.check_refs();  // a sleeper holds no reference
            CHECK(f.p.futex_wake(F1, 1) == 1);
        });
        CHECK(f.p.futex_wait(F1, 1) == 0);
        CHECK(f.p.env.futex_sleeps() == 1);
        f.check_refs();

        // A fault falls through to the locked path's handling.
        CHECK(f.p.futex_wait(0x7f0000009000ull, 0) == -model::EFAULT_);
        f.check_refs();
    }
}
