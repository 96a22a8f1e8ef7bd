// A litmus test (the kernel's tools/memory-model/litmus-tests and
// Documentation/litmus-tests): a few threads of straight-line code over
// shared variables, and an `exists` clause on the registers and the final
// memory. The explorer runs every schedule of one under a memory model
// (litmus_run.h) and says whether the clause can hold: the kernel's own
// tests are the referee of the explorer's weak memory (docs/testing.md).
//
// Two ways in, one subset of C:
// - the kernel's file format (`C name`, the comment with "Result:",
//   `{ init }`, `P0(int *x, ...) { ... }`, `exists (...)`), read as is;
// - this project's compact list (tests/explore/litmus/ports.txt): a test per
//   paragraph, `test NAME`, `lkmm Never` (the header's), `expect
//   tso=Never arm64=Sometimes ...` (the hardware's), `gap arm64 REASON`
//   (what the explorer cannot produce, and why), `init x=1 p=&y`, a line
//   `P0: stmt; stmt` per thread, `exists ...`.
//
// Statements: rN = READ_ONCE(x) | smp_load_acquire(x) | rcu_dereference(p)
// | READ_ONCE(*rM) | atomic_read(x) | atomic_add_return(V, x) | xchg(x, V)
// | cmpxchg(x, OLD, NEW);
// WRITE_ONCE(x, V) | smp_store_release(x, V) | rcu_assign_pointer(p, &y) |
// atomic_set(x, V) | atomic_inc(x) | atomic_dec(x); smp_mb() | smp_wmb() |
// smp_rmb() | smp_mb__after_atomic() | smp_mb__before_atomic() |
// smp_mb__after_spinlock(); spin_lock(s) | spin_unlock(s);
// rcu_read_lock() | rcu_read_unlock() | synchronize_rcu(). A `*` before a
// variable is optional. No `if`, no loops: a test that needs them is refused
// with the statement it could not read.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/explore/memory_model.h"

namespace futexsim::sim::explore {

enum class litmus_kind : unsigned char {
    read,
    read_acquire,
    rcu_dereference,
    read_deref,
    atomic_add_return,
    xchg,
    cmpxchg,
    write,
    write_release,
    assign_pointer,
    atomic_inc,
    atomic_dec,
    mb,
    wmb,
    rmb,
    mb_after_atomic,
    mb_before_atomic,
    mb_after_spinlock,
    lock,
    unlock,
    rcu_lock,
    rcu_unlock,
    sync_rcu,
};

struct litmus_stmt {
    litmus_kind kind = litmus_kind::mb;
    int reg = -1;      // the register written (loads, value-returning atomics)
    int var = -1;      // the variable or lock
    int src_reg = -1;  // read_deref: the register holding the address
    long value = 0;    // a constant; a variable's address is its index + 1
    long value2 = 0;   // cmpxchg: the new value (`value` is the old)
};

struct litmus_thread {
    std::vector<litmus_stmt> body;
    std::vector<std::string> regs;  // register names, by index
};

// One atom of the exists clause: thread:reg = value, or var = value.
struct litmus_atom {
    int thread = -1;  // -1: a variable's final value
    int index = 0;    // the register or the variable
    long value = 0;
};

// "Never" or "Sometimes" (what the outcome the clause names can be).
enum class litmus_result : unsigned char { never, sometimes };

struct litmus_test {
    std::string name;
    std::vector<std::string> vars;  // variables, then locks, by index
    std::vector<bool> is_lock;
    std::vector<long> init;  // by variable
    std::vector<litmus_thread> threads;
    std::vector<litmus_atom> exists;  // a conjunction
    bool negated = false;             // `~exists`
    // What is expected, by who says it: the LKMM file's header, and this
    // project's reasoning for each memory model (ports.txt says why where
    // the hardware is stronger than the LKMM).
    std::optional<litmus_result> lkmm;
    std::optional<litmus_result> expect[3];  // by memory_model
    // A known gap, by memory model: why the explorer cannot produce what
    // the hardware allows (the test then checks the gap is still there).
    std::optional<std::string> gap[3];
};

std::string_view litmus_result_name(litmus_result r);

// The kernel's format: one test per file's text. nullopt and the reason in
// `error` when it uses what the subset lacks.
std::optional<litmus_test> parse_kernel_litmus(std::string_view text, std::string* error);
// The compact list: every test in it, or nullopt and the line at fault.
std::optional<std::vector<litmus_test>> parse_litmus_list(std::string_view text,
                                                          std::string* error);

}  // namespace futexsim::sim::explore
