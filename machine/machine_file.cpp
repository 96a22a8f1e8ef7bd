// Machine files (--machine-file) and the presets (machine/presets/*.json):
// the one JSON parser both go through, so a preset is validated as a file
// is. The format is in docs/simulator.md ("Machine presets").
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "machine/kernel_sites.h"
#include "machine/machine.h"
#include "machine/strict_json.h"

namespace futexsim {

const std::set<std::string> provenance_kinds = {"published", "measured", "fitted", "assumed"};

std::vector<cpu_topology> build_topology(const topology_shape& s)
{
    if (s.sockets == 0 || s.dies_per_socket == 0 || s.nodes_per_socket == 0 ||
        s.cores_per_die == 0 || s.threads_per_core == 0)
        throw std::invalid_argument("topology: every count must be at least 1");
    if (s.dies_per_socket % s.nodes_per_socket != 0 && s.nodes_per_socket % s.dies_per_socket != 0)
        throw std::invalid_argument("topology: nodes_per_socket and dies_per_socket must divide");
    // In 64 bits: four counts of up to 8192 each multiply past 32 bits.
    const std::uint64_t wide_total =
        std::uint64_t{s.sockets} * s.dies_per_socket * s.cores_per_die * s.threads_per_core;
    if (wide_total > 8192)
        throw std::invalid_argument(
            fmt::format("topology: {} logical CPUs (sockets x dies_per_socket x cores_per_die x "
                        "threads_per_core); at most 8192",
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

namespace {

double number(const nlohmann::json& j, const char* key, double fallback, double lo, double hi)
{
    if (!j.contains(key))
        return fallback;
    if (!j[key].is_number())
        throw std::invalid_argument(fmt::format("machine file: '{}' must be a number", key));
    double v = j[key].get<double>();
    if (!(v >= lo && v <= hi))
        throw std::invalid_argument(
            fmt::format("machine file: '{}' = {} is outside [{}, {}]", key, v, lo, hi));
    return v;
}

// A count (CPUs, HZ, jiffies): a number with no fraction, which is refused
// rather than truncated.
unsigned whole(const nlohmann::json& j, const char* key, unsigned fallback, unsigned lo,
               unsigned hi)
{
    const double v = number(j, key, fallback, lo, hi);
    if (v != std::floor(v))
        throw std::invalid_argument(
            fmt::format("machine file: '{}' = {} must be a whole number", key, v));
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

// A field that takes one of a few words; absent, the first of them.
template <class E, std::size_t N>
E word(const nlohmann::json& j, const char* key, const enum_word<E> (&words)[N])
{
    const std::string w = text(j, key, words[0].word);
    std::string valid;
    for (const auto& [name, value] : words) {
        if (w == name)
            return value;
        valid += (valid.empty() ? "" : ", ") + std::string(name);
    }
    throw std::invalid_argument(fmt::format("machine file: {} '{}' (valid: {})", key, w, valid));
}

// An object whose keys are all in `known`; `what` names it in the message.
void check_fields(const nlohmann::json& j, const std::string& what,
                  const std::set<std::string>& known)
{
    if (!j.is_object())
        throw std::invalid_argument(fmt::format("machine file: {} must be an object", what));
    for (const auto& [key, _] : j.items())
        if (!known.count(key)) {
            std::string valid;
            for (const auto& k : known)
                valid += (valid.empty() ? "" : ", ") + k;
            throw std::invalid_argument(fmt::format(
                "machine file: unknown field '{}' in {} (valid: {})", key, what, valid));
        }
}

const std::set<std::string> machine_file_fields = {"name",
                                                   "description",
                                                   "arch",
                                                   "arbitration",
                                                   "modified_read",
                                                   "topology",
                                                   "transfer_ns",
                                                   "local_hit_ns",
                                                   "local_rmw_ns",
                                                   "lock_hold_ns",
                                                   "full_barrier_ns",
                                                   "snoop_leg_fraction",
                                                   "timing_jitter",
                                                   "far_atomic_ns",
                                                   "core_ghz",
                                                   "kernel_cpi",
                                                   "kernel_sites_cpu",
                                                   "syscall_insn_cycles",
                                                   "hz",
                                                   "rcu_preemptible",
                                                   "preempt_full",
                                                   "rcu_fqs_jiffies",
                                                   "syscall_entry_ns",
                                                   "syscall_exit_ns",
                                                   "clone_ns",
                                                   "thread_exit_ns",
                                                   "context_switch_ns",
                                                   "tick_irq_ns",
                                                   "idle_states",
                                                   "sources"};
const std::set<std::string> transfer_fields = {"smt_sibling", "same_die", "other_die",
                                               "per_die_hop", "other_socket"};

// "sources": where each number comes from, since JSON has no comments: a
// parameter ("hz", or "transfer_ns.same_die") to a text that starts with
// its kind of provenance (docs/extending.md). The model reads none of it.
void check_sources(const nlohmann::json& j)
{
    if (!j.contains("sources"))
        return;
    if (!j["sources"].is_object())
        throw std::invalid_argument(
            "machine file: 'sources' must be an object of parameter: \"kind: where from\"");
    for (const auto& [key, value] : j["sources"].items()) {
        const auto dot = key.find('.');
        const bool known =
            dot == std::string::npos
                ? machine_file_fields.count(key) && key != "sources"
                : key.substr(0, dot) == "transfer_ns" && transfer_fields.count(key.substr(dot + 1));
        if (!known)
            throw std::invalid_argument(
                fmt::format("machine file: 'sources' names '{}', which is no parameter", key));
        const std::string source = value.is_string() ? value.get<std::string>() : "";
        const auto colon = source.find(':');
        if (colon == std::string::npos || !provenance_kinds.count(source.substr(0, colon)))
            throw std::invalid_argument(
                fmt::format("machine file: 'sources'.'{}' must be a text starting with published:, "
                            "measured:, fitted: or assumed:",
                            key));
    }
}

void require_fields(const nlohmann::json& j, const std::string& what,
                    const std::vector<const char*>& keys)
{
    for (const char* key : keys)
        if (!j.contains(key))
            throw std::invalid_argument(fmt::format("machine file: {} needs '{}'", what, key));
}

}  // namespace

machine load_machine_file(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        throw std::invalid_argument(fmt::format("machine file '{}' cannot be read", path));
    std::ostringstream text;
    text << in.rdbuf();
    return parse_machine_json(text.str(), path);
}

machine parse_machine_json(const std::string& json_text, const std::string& origin)
{
    nlohmann::json j;
    try {
        j = parse_strict_json(json_text);
    } catch (const nlohmann::json::exception& e) {  // bad syntax, or a number no double holds
        throw std::invalid_argument(
            fmt::format("machine file '{}' is not JSON: {}", origin, e.what()));
    } catch (const std::invalid_argument& e) {  // a key twice, a number that reads as 0
        throw std::invalid_argument(fmt::format("machine file '{}': {}", origin, e.what()));
    }
    if (!j.is_object())
        throw std::invalid_argument("machine file: the top level must be an object");
    if (j.contains("kernel_step_ns") || (j.contains("sources") && j["sources"].is_object() &&
                                         j["sources"].contains("kernel_step_ns")))
        throw std::invalid_argument("machine file: 'kernel_step_ns' is no longer a parameter: each "
                                    "call site costs the instructions "
                                    "counted in the compiled kernel at 'kernel_cpi' / 'core_ghz' "
                                    "(docs/simulator.md, \"Kernel "
                                    "instructions\"); remove it");
    for (const auto& [key, _] : j.items())
        if (!machine_file_fields.count(key))
            throw std::invalid_argument(fmt::format("machine file: unknown field '{}'", key));
    check_sources(j);

    machine m;
    m.name = text(j, "name", "custom");
    // The name goes into one-line headers (selftests, run's JSON, trace
    // metadata): a newline or other control character would break them.
    for (const unsigned char c : m.name)
        if (c < 0x20 || c == 0x7f)
            throw std::invalid_argument(
                fmt::format("machine file: 'name' holds the control character 0x{:02x} (a name is "
                            "one line of text)",
                            c));
    m.description = text(j, "description", "from " + origin);
    m.arch = word(j, "arch", atomic_arch_words);
    m.arbitration = word(j, "arbitration", line_arbitration_words);
    m.modified_read = word(j, "modified_read", modified_read_words);

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
        check_fields(x, "'transfer_ns'", transfer_fields);
        m.transfer_ns.smt_sibling = number(x, "smt_sibling", m.transfer_ns.smt_sibling, 0, 10000);
        m.transfer_ns.same_die = number(x, "same_die", m.transfer_ns.same_die, 0, 10000);
        m.transfer_ns.other_die = number(x, "other_die", m.transfer_ns.other_die, 0, 10000);
        m.transfer_ns.per_die_hop = number(x, "per_die_hop", m.transfer_ns.per_die_hop, 0, 10000);
        m.transfer_ns.other_socket =
            number(x, "other_socket", m.transfer_ns.other_socket, 0, 10000);
    }
    m.local_hit_ns = number(j, "local_hit_ns", m.local_hit_ns, 0, 1000);
    m.local_rmw_ns = number(j, "local_rmw_ns", m.local_rmw_ns, 0, 1000);
    m.far_atomic_ns = number(j, "far_atomic_ns", m.far_atomic_ns, 0, 1000);
    m.lock_hold_ns = number(j, "lock_hold_ns", m.lock_hold_ns, 0, 1000);
    m.full_barrier_ns = number(j, "full_barrier_ns", m.full_barrier_ns, 0, 1000);
    m.snoop_leg_fraction = number(j, "snoop_leg_fraction", m.snoop_leg_fraction, 0, 1);
    m.timing_jitter = number(j, "timing_jitter", m.timing_jitter, 0, 0.9);
    m.core_ghz = number(j, "core_ghz", m.core_ghz, 0.1, 10);
    m.kernel_cpi = number(j, "kernel_cpi", m.kernel_cpi, 0, 20);
    m.syscall_insn_cycles = number(j, "syscall_insn_cycles", m.syscall_insn_cycles, 0, 1e5);
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
    m.rcu_fqs_jiffies =
        whole(j, "rcu_fqs_jiffies", kernel_default_fqs_jiffies(m.hz, m.num_cpus()), 1, 1000);
    m.kernel_sites_cpu = text(j, "kernel_sites_cpu", "");
    if (!m.kernel_sites_cpu.empty()) {
        if (j.contains("syscall_entry_ns") || j.contains("syscall_exit_ns"))
            throw std::invalid_argument("machine file: give either 'kernel_sites_cpu' (entry and "
                                        "exit counted for that CPU) or "
                                        "'syscall_entry_ns' and 'syscall_exit_ns', not both");
        const kernel_sites_build& b = kernel_sites_for(m.arch);
        try {
            m.syscall_entry_instructions = b.syscall_entry_instructions(m.kernel_sites_cpu);
            m.syscall_exit_instructions = b.syscall_exit_instructions(m.kernel_sites_cpu);
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(
                fmt::format("machine file: 'kernel_sites_cpu': {}", e.what()));
        }
    }
    m.syscall_entry_ns = number(j, "syscall_entry_ns", m.syscall_entry_ns, 0, 1e6);
    m.syscall_exit_ns = number(j, "syscall_exit_ns", m.syscall_exit_ns, 0, 1e6);
    m.clone_ns = number(j, "clone_ns", m.clone_ns, 0, 1e9);
    m.thread_exit_ns = number(j, "thread_exit_ns", m.thread_exit_ns, 0, 1e9);
    m.context_switch_ns = number(j, "context_switch_ns", m.context_switch_ns, 0, 1e7);
    m.tick_irq_ns = number(j, "tick_irq_ns", m.tick_irq_ns, 0, 1e5);
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
            if (!m.idle_states.empty() &&
                is.target_residency_ns < m.idle_states.back().target_residency_ns)
                throw std::invalid_argument(
                    fmt::format("machine file: idle state '{}' is shallower than the one before it "
                                "(list them shallowest first)",
                                is.name));
            m.idle_states.push_back(is);
        }
    }
    return m;
}

std::string machine_file_json(const machine& m, const topology_shape& shape,
                              const std::map<std::string, std::string>& sources)
{
    // nlohmann's ordered_json keeps the order below, the presets' order.
    nlohmann::ordered_json j;
    j["name"] = m.name;
    j["description"] = m.description;
    j["arch"] = word_for(atomic_arch_words, m.arch);
    j["arbitration"] = word_for(line_arbitration_words, m.arbitration);
    j["modified_read"] = word_for(modified_read_words, m.modified_read);
    j["topology"] = {{"sockets", shape.sockets},
                     {"dies_per_socket", shape.dies_per_socket},
                     {"nodes_per_socket", shape.nodes_per_socket},
                     {"cores_per_die", shape.cores_per_die},
                     {"threads_per_core", shape.threads_per_core}};
    j["transfer_ns"] = {{"smt_sibling", m.transfer_ns.smt_sibling},
                        {"same_die", m.transfer_ns.same_die},
                        {"other_die", m.transfer_ns.other_die},
                        {"per_die_hop", m.transfer_ns.per_die_hop},
                        {"other_socket", m.transfer_ns.other_socket}};
    j["local_hit_ns"] = m.local_hit_ns;
    j["local_rmw_ns"] = m.local_rmw_ns;
    j["far_atomic_ns"] = m.far_atomic_ns;
    j["lock_hold_ns"] = m.lock_hold_ns;
    j["snoop_leg_fraction"] = m.snoop_leg_fraction;
    j["timing_jitter"] = m.timing_jitter;
    j["core_ghz"] = m.core_ghz;
    j["kernel_cpi"] = m.kernel_cpi;
    j["full_barrier_ns"] = m.full_barrier_ns;
    j["hz"] = m.hz;
    j["rcu_preemptible"] = m.rcu_preemptible;
    j["preempt_full"] = m.preempt_full;
    j["rcu_fqs_jiffies"] = m.rcu_fqs_jiffies;
    if (!m.kernel_sites_cpu.empty()) {
        j["kernel_sites_cpu"] = m.kernel_sites_cpu;
        j["syscall_insn_cycles"] = m.syscall_insn_cycles;
    } else {
        j["syscall_entry_ns"] = m.syscall_entry_ns;
        j["syscall_exit_ns"] = m.syscall_exit_ns;
    }
    j["clone_ns"] = m.clone_ns;
    j["thread_exit_ns"] = m.thread_exit_ns;
    j["context_switch_ns"] = m.context_switch_ns;
    j["tick_irq_ns"] = m.tick_irq_ns;
    j["idle_states"] = nlohmann::ordered_json::array();
    for (const idle_state& st : m.idle_states)
        j["idle_states"].push_back({{"name", st.name},
                                    {"exit_latency_us", st.exit_latency_ns / 1e3},
                                    {"target_residency_us", st.target_residency_ns / 1e3}});
    if (!sources.empty()) {
        j["sources"] = nlohmann::ordered_json::object();
        for (const auto& [key, text] : sources)
            j["sources"][key] = text;
    }
    std::string out = j.dump(2) + "\n";
    // What is written must read back: a value out of range or a source of
    // no known kind is the writer's bug, caught here rather than by run.
    parse_machine_json(out, "the written machine file");
    return out;
}

}  // namespace futexsim
