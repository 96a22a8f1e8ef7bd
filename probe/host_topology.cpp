#include "probe/host_topology.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

namespace futexsim::probe {

namespace {

namespace fs = std::filesystem;

std::string first_line(const fs::path& p)
{
    std::ifstream in(p);
    std::string line;
    std::getline(in, line);
    return line;
}

// A sysfs CPU list ("0-3,8"), or empty if it is not one.
std::vector<unsigned> cpu_list(const std::string& text)
{
    try {
        return text.empty() ? std::vector<unsigned>{} : parse_cpu_list(text, 1u << 20);
    } catch (const std::exception&) {
        return {};
    }
}

// A key's number in order of first appearance.
template <class Key>
unsigned number_of(std::map<Key, unsigned>& ids, const Key& key)
{
    return ids.emplace(key, static_cast<unsigned>(ids.size())).first->second;
}

}  // namespace

const char* pair_class_name(pair_class c)
{
    switch (c) {
    case pair_class::smt_sibling:
        return "smt_sibling";
    case pair_class::same_llc:
        return "same_llc";
    case pair_class::other_llc:
        return "other_llc";
    case pair_class::other_node:
        return "other_node";
    case pair_class::other_socket:
        return "other_socket";
    }
    return "?";
}

pair_class classify(const host_cpu& a, const host_cpu& b)
{
    if (a.core == b.core)
        return pair_class::smt_sibling;
    if (a.socket != b.socket)
        return pair_class::other_socket;
    if (a.llc == b.llc)
        return pair_class::same_llc;
    if (a.node == b.node)
        return pair_class::other_llc;
    return pair_class::other_node;
}

host_topology read_host_topology(const std::string& sysfs_root)
{
    const fs::path cpu_dir = fs::path(sysfs_root) / "devices/system/cpu";
    const fs::path node_dir = fs::path(sysfs_root) / "devices/system/node";
    host_topology t;
    std::vector<unsigned> ids = cpu_list(first_line(cpu_dir / "online"));
    if (ids.empty())
        throw std::runtime_error(fmt::format("cannot read the online CPUs from {}", (cpu_dir / "online").string()));

    // NUMA nodes: node<N>/cpulist.
    std::map<unsigned, unsigned> node_of;
    for (unsigned n = 0; n < 1024; n++) {
        const fs::path p = node_dir / fmt::format("node{}", n) / "cpulist";
        if (!fs::exists(p))
            continue;
        for (unsigned c : cpu_list(first_line(p)))
            node_of.emplace(c, n);
    }

    std::map<std::string, unsigned> sockets, nodes, llcs, cores;
    std::set<std::string> llc_sources;
    for (unsigned id : ids) {
        const fs::path base = cpu_dir / fmt::format("cpu{}", id);
        host_cpu c;
        c.id = id;
        const std::string pkg = first_line(base / "topology/physical_package_id");
        c.socket = number_of(sockets, pkg);
        c.node = number_of(nodes, std::to_string(node_of.count(id) ? node_of.at(id) : 0));
        // The core: the CPUs sharing it (thread_siblings_list), else the CPU alone.
        std::string siblings = first_line(base / "topology/thread_siblings_list");
        if (cpu_list(siblings).empty())
            siblings = std::to_string(id);
        c.core = number_of(cores, pkg + ":" + siblings);
        // The LLC: the shared_cpu_list of the highest-level cache listed;
        // without cache information, the package.
        int best_level = -1;
        std::string llc;
        for (unsigned i = 0; i < 16; i++) {
            const fs::path idx = base / fmt::format("cache/index{}", i);
            const std::string level = first_line(idx / "level");
            const std::string type = first_line(idx / "type");
            if (level.empty() || level.find_first_not_of("0123456789") != std::string::npos || type == "Instruction")
                continue;
            const std::string shared = first_line(idx / "shared_cpu_list");
            if (std::stoi(level) > best_level && !cpu_list(shared).empty()) {
                best_level = std::stoi(level);
                llc = shared;
            }
        }
        if (best_level < 0) {
            llc = "package " + pkg;
            llc_sources.insert("no cache information in sysfs: one LLC domain per package");
        } else {
            llc_sources.insert(fmt::format("cache/index*/shared_cpu_list of the level-{} cache", best_level));
        }
        c.llc = number_of(llcs, pkg + ":" + llc);
        t.cpus.push_back(c);
    }
    for (const auto& s : llc_sources)
        t.llc_source += (t.llc_source.empty() ? "" : "; ") + s;

    // The shape: counts per socket, LLC and core, from the totals.
    const auto n = [](std::size_t v) { return static_cast<unsigned>(std::max<std::size_t>(v, 1)); };
    topology_shape& s = t.shape;
    s.sockets = n(sockets.size());
    s.dies_per_socket = n(llcs.size() / s.sockets);
    s.nodes_per_socket = n(nodes.size() / s.sockets);
    s.cores_per_die = n(cores.size() / llcs.size());
    s.threads_per_core = n(ids.size() / cores.size());
    auto note = [&](std::string line) { t.approximations.push_back(std::move(line)); };
    if (llcs.size() % s.sockets || nodes.size() % s.sockets || cores.size() % llcs.size() ||
        ids.size() % cores.size())
        note(fmt::format("the host is not uniform ({} CPUs, {} cores, {} LLC domains, {} nodes, {} sockets): the "
                         "file's counts are rounded down",
                         ids.size(), cores.size(), llcs.size(), nodes.size(), sockets.size()));
    if (s.dies_per_socket % s.nodes_per_socket != 0 && s.nodes_per_socket % s.dies_per_socket != 0) {
        note(fmt::format("{} nodes and {} LLC domains per socket do not divide: the file says 1 node per socket",
                         s.nodes_per_socket, s.dies_per_socket));
        s.nodes_per_socket = 1;
    }
    if ((s.dies_per_socket * s.cores_per_die) % s.nodes_per_socket != 0) {
        note(fmt::format("{} cores per socket do not split into {} nodes: the file says 1 node per socket",
                         s.dies_per_socket * s.cores_per_die, s.nodes_per_socket));
        s.nodes_per_socket = 1;
    }
    // The simulated machine numbers CPUs as build_topology() does; say so
    // where the host's numbering differs (then --cpus lists mean other CPUs).
    const std::vector<cpu_topology> built = build_topology(s);
    bool same = built.size() == t.cpus.size();
    for (std::size_t i = 0; same && i < built.size(); i++)
        same = built[i].socket == t.cpus[i].socket && built[i].die == t.cpus[i].llc && built[i].core == t.cpus[i].core;
    if (!same && t.approximations.empty())
        note("the host numbers its CPUs otherwise than the simulated machine (all first SMT threads, socket by "
             "socket, then their siblings): a --cpus list names other CPUs there");
    return t;
}

std::vector<std::size_t> count_pairs(const host_topology& t)
{
    std::vector<std::size_t> n(num_pair_classes, 0);
    for (std::size_t a = 0; a < t.cpus.size(); a++)
        for (std::size_t b = a + 1; b < t.cpus.size(); b++)
            n[static_cast<unsigned>(classify(t.cpus[a], t.cpus[b]))]++;
    return n;
}

std::vector<std::vector<std::pair<unsigned, unsigned>>> sample_pairs(const host_topology& t, unsigned per_class)
{
    const std::vector<std::size_t> total = count_pairs(t);
    std::vector<std::vector<std::pair<unsigned, unsigned>>> out(num_pair_classes);
    std::vector<std::size_t> seen(num_pair_classes, 0);
    // The k-th pick of a class with N pairs is its pair number floor(k * N / picks).
    for (std::size_t a = 0; a < t.cpus.size(); a++)
        for (std::size_t b = a + 1; b < t.cpus.size(); b++) {
            const auto c = static_cast<unsigned>(classify(t.cpus[a], t.cpus[b]));
            const std::size_t picks = std::min<std::size_t>(per_class, total[c]);
            const std::size_t i = seen[c]++;
            if (picks > 0 && out[c].size() < picks && i == out[c].size() * total[c] / picks)
                out[c].emplace_back(t.cpus[a].id, t.cpus[b].id);
        }
    return out;
}

}  // namespace futexsim::probe
