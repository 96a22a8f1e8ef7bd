// Machine presets, machine files and the host machine. Where each number
// comes from is in docs/simulator.md ("Machine presets").
#include "machine/machine.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

namespace futexsim {

namespace {

struct topology_shape {
    unsigned sockets = 1;
    unsigned dies_per_socket = 1;
    unsigned nodes_per_socket = 1;
    unsigned cores_per_die = 1;
    unsigned threads_per_core = 1;
};

// Linux numbering: thread 0 of every core of every socket first, then the
// SMT siblings in the same order.
std::vector<cpu_topology> build_topology(const topology_shape& s)
{
    if (s.sockets == 0 || s.dies_per_socket == 0 || s.nodes_per_socket == 0 ||
        s.cores_per_die == 0 || s.threads_per_core == 0)
        throw std::invalid_argument("topology: every count must be at least 1");
    if (s.dies_per_socket % s.nodes_per_socket != 0 && s.nodes_per_socket % s.dies_per_socket != 0)
        throw std::invalid_argument("topology: nodes_per_socket and dies_per_socket must divide");
    // In 64 bits: four counts of up to 8192 each multiply past 32 bits.
    const std::uint64_t wide_total = std::uint64_t{s.sockets} * s.dies_per_socket * s.cores_per_die *
                                     s.threads_per_core;
    if (wide_total > 8192)
        throw std::invalid_argument(fmt::format(
            "topology: {} logical CPUs (sockets x dies_per_socket x cores_per_die x threads_per_core); at most 8192",
            wide_total));
    const unsigned cores_per_socket = s.dies_per_socket * s.cores_per_die;
    if (cores_per_socket % s.nodes_per_socket != 0)
        throw std::invalid_argument("topology: cores per socket must split evenly into nodes");
    const auto total = static_cast<unsigned>(wide_total);

    std::vector<cpu_topology> cpus;
    cpus.reserve(total);
    for (unsigned t = 0; t < s.threads_per_core; t++)
        for (unsigned sock = 0; sock < s.sockets; sock++)
            for (unsigned c = 0; c < cores_per_socket; c++) {
                cpu_topology cpu;
                cpu.socket = sock;
                cpu.die = sock * s.dies_per_socket + c / s.cores_per_die;
                cpu.node = sock * s.nodes_per_socket + c / (cores_per_socket / s.nodes_per_socket);
                cpu.core = sock * cores_per_socket + c;
                cpus.push_back(cpu);
            }
    return cpus;
}

}  // namespace

double machine::idle_exit_ns(double idle_ns) const
{
    double exit = 0;
    for (const idle_state& st : idle_states)
        if (st.target_residency_ns <= idle_ns)
            exit = st.exit_latency_ns;
    return exit;
}

unsigned kernel_default_fqs_jiffies(unsigned hz, unsigned num_cpus)
{
    return 1 + (hz > 250 ? 1 : 0) + (hz > 500 ? 1 : 0) + num_cpus / 256;
}

namespace {

machine xeon_6975p_snc3()
{
    machine m;
    m.name = "xeon-6975p-snc3";
    m.description = "Intel Xeon 6975P-C (Granite Rapids-AP), 2 sockets x 96 cores, SNC=3, SMT off";
    m.arch = atomic_arch::x86;
    m.cpus = build_topology({2, 3, 3, 32, 1});
    m.transfer_ns.smt_sibling = 10;
    m.transfer_ns.same_die = 60;
    m.transfer_ns.other_die = 95;
    m.transfer_ns.per_die_hop = 20;
    m.transfer_ns.other_socket = 140;
    // intel_idle's gnr_cstates (exit latency, target residency), measured by
    // Intel with wult and pbe.
    m.idle_states = {{"C1", 1'000, 1'000}, {"C1E", 4'000, 4'000}, {"C6", 170'000, 650'000},
                     {"C6P", 210'000, 1'000'000}};
    m.hz = 1000;
    m.rcu_fqs_jiffies = kernel_default_fqs_jiffies(m.hz, m.num_cpus());
    return m;
}

machine epyc_9r45()
{
    machine m;
    m.name = "epyc-9r45";
    m.description = "AMD EPYC 9R45 (Turin, Zen 5), 2 sockets x 96 cores in 12 CCDs, NPS1, SMT off";
    m.arch = atomic_arch::x86;
    m.cpus = build_topology({2, 12, 1, 8, 1});
    m.transfer_ns.smt_sibling = 10;
    m.transfer_ns.same_die = 45;
    m.transfer_ns.other_die = 150;
    m.transfer_ns.per_die_hop = 0;
    m.transfer_ns.other_socket = 260;
    m.hz = 1000;
    m.rcu_fqs_jiffies = kernel_default_fqs_jiffies(m.hz, m.num_cpus());
    return m;
}

machine graviton4()
{
    machine m;
    m.name = "graviton4";
    m.description = "AWS Graviton4 (Neoverse V2), 2 sockets x 96 cores, flat mesh, LSE atomics";
    m.arch = atomic_arch::arm64_lse;
    m.cpus = build_topology({2, 1, 1, 96, 1});
    m.transfer_ns.smt_sibling = 10;
    m.transfer_ns.same_die = 45;
    m.transfer_ns.other_die = 45;
    m.transfer_ns.per_die_hop = 0;
    m.transfer_ns.other_socket = 139;
    m.far_atomic_ns = 9;
    m.hz = 250;
    m.rcu_fqs_jiffies = kernel_default_fqs_jiffies(m.hz, m.num_cpus());
    return m;
}

std::string read_first_line(const std::filesystem::path& p)
{
    std::ifstream in(p);
    std::string line;
    std::getline(in, line);
    return line;
}

// The kernel's own config, when the distribution ships it.
std::map<std::string, std::string> read_kernel_config()
{
    std::map<std::string, std::string> cfg;
    std::string release = read_first_line("/proc/sys/kernel/osrelease");
    std::ifstream in("/boot/config-" + release);
    std::string line;
    while (std::getline(in, line)) {
        auto eq = line.find('=');
        if (line.rfind("CONFIG_", 0) == 0 && eq != std::string::npos)
            cfg[line.substr(0, eq)] = line.substr(eq + 1);
    }
    return cfg;
}

double number(const nlohmann::json& j, const char* key, double fallback, double lo, double hi)
{
    if (!j.contains(key))
        return fallback;
    if (!j[key].is_number())
        throw std::invalid_argument(fmt::format("machine file: '{}' must be a number", key));
    double v = j[key].get<double>();
    if (!(v >= lo && v <= hi))
        throw std::invalid_argument(fmt::format("machine file: '{}' = {} is outside [{}, {}]", key, v, lo, hi));
    return v;
}

// A count (CPUs, HZ, jiffies): a number with no fraction, which is refused
// rather than truncated.
unsigned whole(const nlohmann::json& j, const char* key, unsigned fallback, unsigned lo, unsigned hi)
{
    const double v = number(j, key, fallback, lo, hi);
    if (v != std::floor(v))
        throw std::invalid_argument(fmt::format("machine file: '{}' = {} must be a whole number", key, v));
    return static_cast<unsigned>(v);
}

std::string text(const nlohmann::json& j, const char* key, const std::string& fallback)
{
    if (!j.contains(key))
        return fallback;
    if (!j[key].is_string())
        throw std::invalid_argument(fmt::format("machine file: '{}' must be a string", key));
    return j[key].get<std::string>();
}

// An object whose keys are all in `known`; `what` names it in the message.
void check_fields(const nlohmann::json& j, const std::string& what, const std::set<std::string>& known)
{
    if (!j.is_object())
        throw std::invalid_argument(fmt::format("machine file: {} must be an object", what));
    for (const auto& [key, _] : j.items())
        if (!known.count(key)) {
            std::string valid;
            for (const auto& k : known)
                valid += (valid.empty() ? "" : ", ") + k;
            throw std::invalid_argument(
                fmt::format("machine file: unknown field '{}' in {} (valid: {})", key, what, valid));
        }
}

void require_fields(const nlohmann::json& j, const std::string& what, const std::vector<const char*>& keys)
{
    for (const char* key : keys)
        if (!j.contains(key))
            throw std::invalid_argument(fmt::format("machine file: {} needs '{}'", what, key));
}

}  // namespace

unsigned machine::num_nodes() const
{
    unsigned n = 0;
    for (const auto& c : cpus)
        n = std::max(n, c.node + 1);
    return n;
}

double machine::transfer(unsigned a, unsigned b) const
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

std::vector<std::string> machine_preset_names()
{
    return {"host", "xeon-6975p-snc3", "epyc-9r45", "graviton4"};
}

machine load_machine_preset(const std::string& name)
{
    if (name == "xeon-6975p-snc3")
        return xeon_6975p_snc3();
    if (name == "epyc-9r45")
        return epyc_9r45();
    if (name == "graviton4")
        return graviton4();
    if (name == "host")
        return read_host_machine();
    std::string valid;
    for (const auto& n : machine_preset_names())
        valid += (valid.empty() ? "" : ", ") + n;
    throw std::invalid_argument(fmt::format("unknown machine '{}' (valid: {})", name, valid));
}

namespace {

// The cpuidle states CPU 0 offers (/sys/devices/system/cpu/cpu0/cpuidle),
// shallowest first, without the disabled ones and polling (no exit cost).
std::vector<idle_state> read_host_idle_states()
{
    std::vector<idle_state> out;
    for (unsigned i = 0; i < 16; i++) {
        const std::filesystem::path dir = fmt::format("/sys/devices/system/cpu/cpu0/cpuidle/state{}", i);
        const std::string name = read_first_line(dir / "name");
        if (name.empty())
            break;
        const std::string latency = read_first_line(dir / "latency");
        const std::string residency = read_first_line(dir / "residency");
        const auto is_num = [](const std::string& v) {
            return !v.empty() && v.find_first_not_of("0123456789") == std::string::npos;
        };
        if (read_first_line(dir / "disable") == "1" || !is_num(latency) || !is_num(residency) ||
            std::stoul(latency) == 0)
            continue;
        out.push_back({name, 1e3 * std::stod(latency), 1e3 * std::stod(residency)});
    }
    return out;
}

}  // namespace

machine read_host_machine()
{
    namespace fs = std::filesystem;
    machine m;
    m.name = "host";
    m.arch =
#if defined(__aarch64__)
        atomic_arch::arm64_lse;
#else
        atomic_arch::x86;
#endif
    // CPU numbers as the kernel lists them online.
    std::vector<unsigned> ids;
    try {
        ids = parse_cpu_list(read_first_line("/sys/devices/system/cpu/online"), 1u << 20);
    } catch (const std::exception&) {
        ids.clear();
    }
    if (ids.empty())
        ids.push_back(0);
    std::map<std::string, unsigned> die_ids;
    std::map<std::pair<unsigned, unsigned>, unsigned> core_ids;
    for (unsigned id : ids) {
        const fs::path base = fmt::format("/sys/devices/system/cpu/cpu{}", id);
        cpu_topology t;
        auto num = [&](const char* rel) {
            std::string s = read_first_line(base / rel);
            return s.empty() ? 0u : static_cast<unsigned>(std::stoul(s));
        };
        t.socket = num("topology/physical_package_id");
        const unsigned core_id = num("topology/core_id");
        // The LLC domain: the CPUs sharing this CPU's L3 (or its L2 if none).
        std::string llc = read_first_line(base / "cache/index3/shared_cpu_list");
        if (llc.empty())
            llc = read_first_line(base / "cache/index2/shared_cpu_list");
        t.die = die_ids.emplace(fmt::format("{}:{}", t.socket, llc), die_ids.size()).first->second;
        t.core = core_ids.emplace(std::make_pair(t.socket, core_id), core_ids.size()).first->second;
        for (unsigned node = 0; node < 64; node++) {
            const fs::path p = fmt::format("/sys/devices/system/node/node{}/cpu{}", node, id);
            if (fs::exists(p)) {
                t.node = node;
                break;
            }
        }
        m.cpus.push_back(t);
    }
    // The model numbers CPUs densely; a machine with holes in its online
    // list is renumbered in order.
    m.description = fmt::format("this machine: {} logical CPUs, {} cores, {} LLC domains",
                                m.cpus.size(), core_ids.size(), die_ids.size());

    const auto cfg = read_kernel_config();
    if (auto it = cfg.find("CONFIG_HZ"); it != cfg.end())
        m.hz = static_cast<unsigned>(std::stoul(it->second));
    else
        m.hz = 250;  // Debian's default
    m.rcu_preemptible = cfg.count("CONFIG_PREEMPT_RCU") ? cfg.at("CONFIG_PREEMPT_RCU") == "y" : true;
    m.rcu_fqs_jiffies = kernel_default_fqs_jiffies(m.hz, m.num_cpus());
    // The kernel picks it from HZ and the CPU count at boot and shows it
    // here; the default above is the same rule.
    if (const std::string fqs = read_first_line("/sys/module/rcutree/parameters/jiffies_till_first_fqs");
        !fqs.empty() && fqs.find_first_not_of("0123456789") == std::string::npos && std::stoul(fqs) >= 1 &&
        std::stoul(fqs) <= 1000)
        m.rcu_fqs_jiffies = static_cast<unsigned>(std::stoul(fqs));
    // System call entry + exit: `futexsim calibrate` measured 275 ns per
    // FUTEX_WAKE with nobody waiting on the 2-vCPU VM of docs/calibration.md
    // (mitigations on), against 99 ns simulated with 22 + 22 ns; 110 + 110
    // closes the gap. A machine file sets other values.
    m.idle_states = read_host_idle_states();
    m.syscall_entry_ns = 110;
    m.syscall_exit_ns = 110;
    // A small VM: one core and its sibling, or two cores of one cluster.
    m.transfer_ns.smt_sibling = 9;
    m.transfer_ns.same_die = 40;
    m.transfer_ns.other_die = 100;
    m.transfer_ns.other_socket = 140;
    return m;
}

machine load_machine_file(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        throw std::invalid_argument(fmt::format("machine file '{}' cannot be read", path));
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {  // bad syntax, or a number no double holds
        throw std::invalid_argument(fmt::format("machine file '{}' is not JSON: {}", path, e.what()));
    }
    if (!j.is_object())
        throw std::invalid_argument("machine file: the top level must be an object");
    static const std::set<std::string> known = {
        "name", "description", "arch", "arbitration", "topology", "transfer_ns", "local_hit_ns", "local_rmw_ns", "lock_hold_ns", "full_barrier_ns", "snoop_leg_fraction", "timing_jitter", "kernel_step_ns",
        "far_atomic_ns", "hz", "rcu_preemptible", "preempt_full", "rcu_fqs_jiffies", "syscall_entry_ns",
        "syscall_exit_ns", "clone_ns", "thread_exit_ns", "context_switch_ns", "idle_states"};
    for (const auto& [key, _] : j.items())
        if (!known.count(key))
            throw std::invalid_argument(fmt::format("machine file: unknown field '{}'", key));

    machine m;
    m.name = text(j, "name", "custom");
    m.description = text(j, "description", "from " + path);
    const std::string arch = text(j, "arch", "x86");
    if (arch == "x86")
        m.arch = atomic_arch::x86;
    else if (arch == "arm64-lse")
        m.arch = atomic_arch::arm64_lse;
    else
        throw std::invalid_argument(fmt::format("machine file: arch '{}' (valid: x86, arm64-lse)", arch));

    const std::string arb = text(j, "arbitration", "fifo");
    if (arb == "fifo")
        m.arbitration = line_arbitration::fifo;
    else if (arb == "nearest")
        m.arbitration = line_arbitration::nearest;
    else
        throw std::invalid_argument(fmt::format("machine file: arbitration '{}' (valid: fifo, nearest)", arb));

    if (!j.contains("topology") || !j["topology"].is_object())
        throw std::invalid_argument("machine file: 'topology' object is required");
    const auto& t = j["topology"];
    static const std::vector<const char*> shape = {"sockets", "dies_per_socket", "nodes_per_socket",
                                                   "cores_per_die", "threads_per_core"};
    check_fields(t, "'topology'", {shape.begin(), shape.end()});
    require_fields(t, "'topology'", shape);
    auto count = [&](const char* key) { return whole(t, key, 1, 1, 8192); };
    m.cpus = build_topology({count("sockets"), count("dies_per_socket"), count("nodes_per_socket"),
                             count("cores_per_die"), count("threads_per_core")});

    if (j.contains("transfer_ns")) {
        const auto& x = j["transfer_ns"];
        check_fields(x, "'transfer_ns'", {"smt_sibling", "same_die", "other_die", "per_die_hop", "other_socket"});
        m.transfer_ns.smt_sibling = number(x, "smt_sibling", m.transfer_ns.smt_sibling, 0, 10000);
        m.transfer_ns.same_die = number(x, "same_die", m.transfer_ns.same_die, 0, 10000);
        m.transfer_ns.other_die = number(x, "other_die", m.transfer_ns.other_die, 0, 10000);
        m.transfer_ns.per_die_hop = number(x, "per_die_hop", m.transfer_ns.per_die_hop, 0, 10000);
        m.transfer_ns.other_socket = number(x, "other_socket", m.transfer_ns.other_socket, 0, 10000);
    }
    m.local_hit_ns = number(j, "local_hit_ns", m.local_hit_ns, 0, 1000);
    m.local_rmw_ns = number(j, "local_rmw_ns", m.local_rmw_ns, 0, 1000);
    m.far_atomic_ns = number(j, "far_atomic_ns", m.far_atomic_ns, 0, 1000);
    m.lock_hold_ns = number(j, "lock_hold_ns", m.lock_hold_ns, 0, 1000);
    m.full_barrier_ns = number(j, "full_barrier_ns", m.full_barrier_ns, 0, 1000);
    m.snoop_leg_fraction = number(j, "snoop_leg_fraction", m.snoop_leg_fraction, 0, 1);
    m.timing_jitter = number(j, "timing_jitter", m.timing_jitter, 0, 0.9);
    m.kernel_step_ns = number(j, "kernel_step_ns", m.kernel_step_ns, 0, 1000);
    m.hz = whole(j, "hz", m.hz, 100, 10000);
    if (j.contains("rcu_preemptible")) {
        if (!j["rcu_preemptible"].is_boolean())
            throw std::invalid_argument("machine file: 'rcu_preemptible' must be true or false");
        m.rcu_preemptible = j["rcu_preemptible"].get<bool>();
    }
    if (j.contains("preempt_full")) {
        if (!j["preempt_full"].is_boolean())
            throw std::invalid_argument("machine file: 'preempt_full' must be true or false");
        m.preempt_full = j["preempt_full"].get<bool>();
    }
    m.rcu_fqs_jiffies = whole(j, "rcu_fqs_jiffies", kernel_default_fqs_jiffies(m.hz, m.num_cpus()), 1, 1000);
    m.syscall_entry_ns = number(j, "syscall_entry_ns", m.syscall_entry_ns, 0, 1e6);
    m.syscall_exit_ns = number(j, "syscall_exit_ns", m.syscall_exit_ns, 0, 1e6);
    m.clone_ns = number(j, "clone_ns", m.clone_ns, 0, 1e9);
    m.thread_exit_ns = number(j, "thread_exit_ns", m.thread_exit_ns, 0, 1e9);
    m.context_switch_ns = number(j, "context_switch_ns", m.context_switch_ns, 0, 1e7);
    if (j.contains("idle_states")) {
        if (!j["idle_states"].is_array())
            throw std::invalid_argument("machine file: 'idle_states' must be a list of "
                                        "{name, exit_latency_us, target_residency_us}");
        for (const auto& st : j["idle_states"]) {
            const std::string what = fmt::format("'idle_states'[{}]", m.idle_states.size());
            check_fields(st, what, {"name", "exit_latency_us", "target_residency_us"});
            require_fields(st, what, {"exit_latency_us", "target_residency_us"});
            idle_state is;
            is.name = text(st, "name", "C" + std::to_string(m.idle_states.size() + 1));
            is.exit_latency_ns = 1e3 * number(st, "exit_latency_us", 0, 0, 1e6);
            is.target_residency_ns = 1e3 * number(st, "target_residency_us", 0, 0, 1e7);
            if (!m.idle_states.empty() && is.target_residency_ns < m.idle_states.back().target_residency_ns)
                throw std::invalid_argument(fmt::format(
                    "machine file: idle state '{}' is shallower than the one before it (list them shallowest first)",
                    is.name));
            m.idle_states.push_back(is);
        }
    }
    return m;
}

std::vector<unsigned> parse_cpu_list(const std::string& list, unsigned num_cpus)
{
    // Every element must be there and name CPUs once: "0-1," and "0,0-3"
    // are more likely typos than requests.
    if (list.empty())
        throw std::invalid_argument("empty CPU list (give CPUs, e.g. 0-3,8)");
    std::vector<unsigned> out;
    auto parse_num = [&](const std::string& s) {
        if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
            throw std::invalid_argument(fmt::format("bad CPU list '{}': '{}' is not a CPU number (0-{})", list, s,
                                                    num_cpus - 1));
        const unsigned long v = std::stoul(s);
        if (v >= num_cpus)
            throw std::invalid_argument(
                fmt::format("CPU {} in '{}' does not exist (this machine has CPUs 0-{})", v, list, num_cpus - 1));
        return static_cast<unsigned>(v);
    };
    std::size_t from = 0;
    while (true) {
        const std::size_t comma = list.find(',', from);
        const std::string part = list.substr(from, comma == std::string::npos ? comma : comma - from);
        if (part.empty())
            throw std::invalid_argument(fmt::format("bad CPU list '{}': empty element", list));
        const auto dash = part.find('-');
        const unsigned lo = parse_num(part.substr(0, dash));
        const unsigned hi = dash == std::string::npos ? lo : parse_num(part.substr(dash + 1));
        if (lo > hi)
            throw std::invalid_argument(fmt::format("bad CPU list '{}': range {} is backwards", list, part));
        for (unsigned c = lo; c <= hi; c++)
            out.push_back(c);
        if (comma == std::string::npos)
            break;
        from = comma + 1;
    }
    std::sort(out.begin(), out.end());
    if (const auto dup = std::adjacent_find(out.begin(), out.end()); dup != out.end())
        throw std::invalid_argument(fmt::format("bad CPU list '{}': CPU {} is listed twice", list, *dup));
    return out;
}

}  // namespace futexsim
