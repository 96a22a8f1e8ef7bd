// A machine preset: hardware and kernel-configuration facts only. The stall,
// its threshold and the throughput come out of the model run on these; no
// field here names a workload or a thread count.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace futexsim {

struct cpu_topology {
    unsigned socket = 0;
    unsigned node = 0;  // NUMA node (a sub-NUMA cluster under SNC)
    unsigned die = 0;   // last-level-cache domain: compute die, CCD, or the socket on a mesh
    unsigned core = 0;  // physical core, unique machine-wide
};

// How the interconnect picks the next owner of a contended line.
enum class line_arbitration : unsigned char {
    fifo,     // requests are served in arrival order
    nearest,  // the requester closest to the current holder goes first
};

// What a core's load does to a line another core holds Modified.
enum class modified_read_rule : unsigned char {
    share,    // MESI as textbooks give it: both keep a Shared copy, so a locked
              // RMW right after the load needs a second transaction (the upgrade)
    migrate,  // the owner gives the line up: the reader gets it exclusive
              // (clean), and its locked RMW right after is local
};

enum class atomic_arch {
    x86,        // lock-prefixed RMWs pull the line into the core (a failed cmpxchg too)
    arm64_lse,  // LSE far atomics (ldadd, cas) execute at the line's home, the line stays put
};

// The machine file's word for each value of the enums above, the default
// first: one table per enum, read by the parser and the writer
// (machine/machine_file.cpp) and by `futexsim sensitivity`'s levels.
template <class E>
struct enum_word {
    const char* word;
    E value;
};
inline constexpr enum_word<line_arbitration> line_arbitration_words[] = {
    {"fifo", line_arbitration::fifo}, {"nearest", line_arbitration::nearest}};
inline constexpr enum_word<modified_read_rule> modified_read_words[] = {
    {"share", modified_read_rule::share}, {"migrate", modified_read_rule::migrate}};
inline constexpr enum_word<atomic_arch> atomic_arch_words[] = {{"x86", atomic_arch::x86},
                                                               {"arm64-lse", atomic_arch::arm64_lse}};

// The word for `value` in `words`.
template <class E, std::size_t N>
const char* word_for(const enum_word<E> (&words)[N], E value)
{
    for (const auto& w : words)
        if (w.value == value)
            return w.word;
    throw std::logic_error("machine: an enum value with no word in its table");
}

// Every word of `words`, in order.
template <class E, std::size_t N>
std::vector<std::string> words_of(const enum_word<E> (&words)[N])
{
    std::vector<std::string> out;
    for (const auto& w : words)
        out.emplace_back(w.word);
    return out;
}

// A cpuidle state (drivers/idle/intel_idle.c, ACPI _CST): how long a CPU in
// it takes to run again when woken, and how long it must stay idle for the
// state to be worth entering.
struct idle_state {
    std::string name;
    double exit_latency_ns = 0;
    double target_residency_ns = 0;
};

struct machine {
    std::string name;
    std::string description;
    atomic_arch arch = atomic_arch::x86;
    line_arbitration arbitration = line_arbitration::fifo;
    modified_read_rule modified_read = modified_read_rule::share;
    std::vector<cpu_topology> cpus;  // index: logical CPU number

    // One-way cache-line transfer latency between two cores, in ns, by how
    // far apart they are (core-to-core CAS ping-pong round trip / 2).
    struct {
        double smt_sibling = 10;   // same physical core
        double same_die = 60;      // same LLC domain
        double other_die = 100;    // same socket, adjacent die
        double per_die_hop = 0;    // added per further die hop (dies in a row)
        double other_socket = 140;
    } transfer_ns;
    double local_hit_ns = 1;       // a load that hits the core's own cache
    double local_rmw_ns = 8;       // a locked RMW on a line the core already owns
    double far_atomic_ns = 9;      // arm64_lse: one far atomic at the home node
    double lock_hold_ns = 3;       // x86: a core keeps a line this long after a locked op
    double snoop_leg_fraction = 0.5; // share of a transfer spent by the next request's snoop
                                   // reaching the holder (which keeps the line meanwhile)
    double timing_jitter = 0.3;    // +/- share of random variation of syscall entry/exit
    double full_barrier_ns = 7;    // smp_mb(): x86 `lock addl` on the stack, arm64 `dmb ish`

    unsigned hz = 1000;            // CONFIG_HZ: the scheduler tick
    bool rcu_preemptible = true;   // CONFIG_PREEMPT_RCU (PREEMPT_DYNAMIC kernels)
    bool preempt_full = false;     // preempt=full; distributions boot preempt=voluntary
    unsigned rcu_fqs_jiffies = 3;  // jiffies_till_first_fqs / next_fqs (kernel_default_fqs_jiffies())
    // The kernel's own instructions: each segment between two of the model's
    // accesses costs its instructions counted in the compiled 7.2.13
    // (machine/kernel_sites.h) times kernel_cpi / core_ghz.
    double core_ghz = 3.0;         // the core clock the kernel runs at
    double kernel_cpi = 1.0;       // cycles per instruction on the kernel's futex paths
    // The system call's entry and exit. With kernel_sites_cpu set (the
    // presets), they are that CPU's counted, boot-patched entry and exit
    // paths at kernel_cpi plus syscall_insn_cycles, the mode-switch
    // instructions themselves (syscall + sysretq, svc + eret); without it,
    // syscall_entry_ns and syscall_exit_ns as given (a host's measured split).
    std::string kernel_sites_cpu;
    double syscall_insn_cycles = 100;
    unsigned syscall_entry_instructions = 0;  // kernel_sites_cpu's, filled by the parser
    unsigned syscall_exit_instructions = 0;
    double syscall_entry_ns = 22;  // user -> kernel, without kernel_sites_cpu
    double syscall_exit_ns = 22;   // kernel -> user, without kernel_sites_cpu
    double clone_ns = 25000;       // pthread_create(): clone() and thread start
    double thread_exit_ns = 10000; // do_exit() until mm_release() clears the tid
    double context_switch_ns = 1500;
    // The scheduler tick's interrupt on a busy CPU (the local timer's
    // handler: hrtimer_interrupt(), tick_sched_timer(),
    // update_process_times(), sched_tick(), rcu_sched_clock_irq()): time
    // the task executing there when it fires does not get.
    double tick_irq_ns = 2000;
    // cpuidle states, shallowest first. Empty: a task woken onto an idle CPU
    // runs at once.
    std::vector<idle_state> idle_states;

    unsigned num_cpus() const { return static_cast<unsigned>(cpus.size()); }
    // The time one of the kernel's instructions takes, on average.
    double ns_per_instruction() const { return core_ghz > 0 ? kernel_cpi / core_ghz : 0; }
    // What the simulator charges for a system call's entry and exit.
    double syscall_entry_cost_ns() const
    {
        if (kernel_sites_cpu.empty())
            return syscall_entry_ns;
        return syscall_entry_instructions * ns_per_instruction() + syscall_insn_cycles / 2 / core_ghz;
    }
    double syscall_exit_cost_ns() const
    {
        if (kernel_sites_cpu.empty())
            return syscall_exit_ns;
        return syscall_exit_instructions * ns_per_instruction() + syscall_insn_cycles / 2 / core_ghz;
    }
    unsigned num_nodes() const;
    // Transfer latency of a line from CPU a's cache to CPU b's. Inline: the
    // simulator asks on every cache-line service.
    double transfer(unsigned a, unsigned b) const
    {
        const cpu_topology& x = cpus[a];
        const cpu_topology& y = cpus[b];
        if (x.core == y.core)
            return a == b ? 0.0 : transfer_ns.smt_sibling;
        if (x.socket != y.socket)
            return transfer_ns.other_socket;
        if (x.die == y.die)
            return transfer_ns.same_die;
        const unsigned hops = x.die > y.die ? x.die - y.die : y.die - x.die;
        return transfer_ns.other_die + transfer_ns.per_die_hop * (hops - 1);
    }
    // How long a CPU that has been idle for `idle_ns` takes to run a task
    // woken onto it: the exit latency of the deepest state whose target
    // residency that idle period covers.
    double idle_exit_ns(double idle_ns) const;
};

// The kernel's default jiffies_till_first_fqs (rcu_init_geometry()):
// RCU_JIFFIES_TILL_FORCE_QS, 1 + (HZ > 250) + (HZ > 500), plus one jiffy per
// 256 CPUs (RCU_JIFFIES_FQS_DIV). 3 ms at HZ=1000, 4 ms at HZ=250.
unsigned kernel_default_fqs_jiffies(unsigned hz, unsigned num_cpus);

// Names accepted by --machine, in the order --help lists them: host, then
// the presets of machine/presets/ (machine/CMakeLists.txt lists them).
std::vector<std::string> machine_preset_names();
// Throws std::invalid_argument naming the problem.
machine load_machine_preset(const std::string& name);
machine load_machine_file(const std::string& path);
// A machine file's text; `origin` (its path, or the preset) names it in
// messages and in the default description. Presets go through this too.
machine parse_machine_json(const std::string& json_text, const std::string& origin);
// A machine file's "topology": the counts a uniform machine is built from.
struct topology_shape {
    unsigned sockets = 1;
    unsigned dies_per_socket = 1;
    unsigned nodes_per_socket = 1;
    unsigned cores_per_die = 1;
    unsigned threads_per_core = 1;
};
// The CPUs of a machine of that shape, numbered as Linux numbers them:
// thread 0 of every core of every socket first, then the SMT siblings in
// the same order. Throws std::invalid_argument naming a count that does not fit.
std::vector<cpu_topology> build_topology(const topology_shape& s);
// A machine file's text for `m` (whose CPUs are build_topology(shape)) and
// `sources` (parameter to "kind: where from"), in the format
// parse_machine_json() reads back to the same machine: the one writer of
// the one format (futexsim probe writes through it).
std::string machine_file_json(const machine& m, const topology_shape& shape,
                              const std::map<std::string, std::string>& sources);
// The kinds of provenance a parameter's source may give, as the first word
// of its "sources" entry: published, measured, fitted, assumed.
extern const std::set<std::string> provenance_kinds;
// The machine this runs on, from /proc/cpuinfo and /sys/devices/system/cpu.
machine read_host_machine();

// Parses a taskset-style CPU list ("0-31,96-127"); throws std::invalid_argument
// naming the bad part or a CPU the machine does not have.
std::vector<unsigned> parse_cpu_list(const std::string& list, unsigned num_cpus);

}  // namespace futexsim
