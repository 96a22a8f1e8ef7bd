// Every field of a machine description as text, one per line, so that two
// descriptions compare field by field and a difference names the field.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "machine/machine.h"

namespace futexsim::test {

inline std::string describe(const machine& m)
{
    std::string s;
    const auto field = [&s](const char* name, const auto& v) { s += fmt::format("{} = {}\n", name, v); };
    field("name", m.name);
    field("description", m.description);
    field("arch", static_cast<int>(m.arch));
    field("arbitration", static_cast<int>(m.arbitration));
    field("modified_read", static_cast<int>(m.modified_read));
    for (std::size_t i = 0; i < m.cpus.size(); i++)
        s += fmt::format("cpu {}: socket {} node {} die {} core {}\n", i, m.cpus[i].socket, m.cpus[i].node,
                         m.cpus[i].die, m.cpus[i].core);
    field("transfer_ns.smt_sibling", m.transfer_ns.smt_sibling);
    field("transfer_ns.same_die", m.transfer_ns.same_die);
    field("transfer_ns.other_die", m.transfer_ns.other_die);
    field("transfer_ns.per_die_hop", m.transfer_ns.per_die_hop);
    field("transfer_ns.other_socket", m.transfer_ns.other_socket);
    field("local_hit_ns", m.local_hit_ns);
    field("local_rmw_ns", m.local_rmw_ns);
    field("far_atomic_ns", m.far_atomic_ns);
    field("lock_hold_ns", m.lock_hold_ns);
    field("snoop_leg_fraction", m.snoop_leg_fraction);
    field("timing_jitter", m.timing_jitter);
    field("core_ghz", m.core_ghz);
    field("kernel_cpi", m.kernel_cpi);
    field("kernel_sites_cpu", m.kernel_sites_cpu);
    field("syscall_insn_cycles", m.syscall_insn_cycles);
    field("syscall_entry_instructions", m.syscall_entry_instructions);
    field("syscall_exit_instructions", m.syscall_exit_instructions);
    field("full_barrier_ns", m.full_barrier_ns);
    field("hz", m.hz);
    field("rcu_preemptible", m.rcu_preemptible);
    field("preempt_full", m.preempt_full);
    field("rcu_fqs_jiffies", m.rcu_fqs_jiffies);
    field("syscall_entry_ns", m.syscall_entry_ns);
    field("syscall_exit_ns", m.syscall_exit_ns);
    field("clone_ns", m.clone_ns);
    field("thread_exit_ns", m.thread_exit_ns);
    field("context_switch_ns", m.context_switch_ns);
    field("tick_irq_ns", m.tick_irq_ns);
    for (const auto& st : m.idle_states)
        s += fmt::format("idle state {}: exit {} ns, residency {} ns\n", st.name, st.exit_latency_ns,
                         st.target_residency_ns);
    return s;
}

// FNV-1a of describe(m): a preset's fingerprint, to pin it in a test.
inline std::uint64_t fingerprint(const machine& m)
{
    std::uint64_t h = 14695981039346656037ull;
    for (const unsigned char c : describe(m)) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

}  // namespace futexsim::test
