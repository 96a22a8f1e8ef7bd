// The machine this runs on (--machine host), from /proc, /sys and the
// kernel's config.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include "machine/kernel_sites.h"
#include "machine/machine.h"

namespace futexsim {

namespace {

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

// The preset CPU whose counted entry and exit paths are nearest this one's:
// the same vendor's (AMD: the EPYC 9R45's Zen 5; Intel: the Xeon 6975P's
// Redwood Cove; arm64: Graviton4's Neoverse V2).
std::string nearest_counted_cpu()
{
#if defined(__aarch64__)
    return "graviton4";
#else
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("vendor_id", 0) == 0)
            return line.find("AuthenticAMD") != std::string::npos ? "epyc-9r45" : "xeon-6975p";
    return "xeon-6975p";
#endif
}

// The core clock as the kernel reports it: cpufreq's maximum where a
// driver exposes it, else /proc/cpuinfo's "cpu MHz" (in a VM, the clock the
// hypervisor advertises), else 3 GHz. `futexsim probe` times it instead.
double read_core_ghz()
{
    const std::string max_khz = read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
    if (!max_khz.empty() && max_khz.find_first_not_of("0123456789") == std::string::npos) {
        const double ghz = std::stod(max_khz) / 1e6;
        if (ghz >= 0.5 && ghz <= 6.5)
            return ghz;
    }
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("cpu MHz", 0) != 0)
            continue;
        const auto colon = line.find(':');
        try {
            const double ghz = std::stod(line.substr(colon + 1)) / 1e3;
            if (ghz >= 0.5 && ghz <= 6.5)
                return ghz;
        } catch (const std::exception&) {
        }
        break;
    }
    return 3.0;
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
    m.idle_states = read_host_idle_states();
    // The kernel's own instructions, counted as the presets' are: system-call
    // entry and exit are the counted, boot-patched paths of the preset CPU
    // nearest this one (sites-7.2.13.json; the host's kernel is not 7.2.13,
    // so this is the nearest counted path, not this kernel's), at the
    // presets' kernel_cpi (measured on a Zen 5 host, docs/probe.md) and this
    // CPU's clock as the kernel reports it. `futexsim probe` measures all
    // three here and writes them into a machine file.
    m.kernel_sites_cpu = nearest_counted_cpu();
    m.kernel_cpi = 1.48;
    m.core_ghz = read_core_ghz();
    const kernel_sites_build& sites = kernel_sites_for(m.arch);
    m.syscall_entry_instructions = sites.syscall_entry_instructions(m.kernel_sites_cpu);
    m.syscall_exit_instructions = sites.syscall_exit_instructions(m.kernel_sites_cpu);
    // A small VM: one core and its sibling, or two cores of one cluster.
    m.transfer_ns.smt_sibling = 9;
    m.transfer_ns.same_die = 40;
    m.transfer_ns.other_die = 100;
    m.transfer_ns.other_socket = 140;
    return m;
}

}  // namespace futexsim
