// Machine presets, machine files and CPU lists.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "machine/machine.h"

using namespace futexsim;

TEST_CASE("the Xeon preset: 2 sockets of 96 cores in 3 sub-NUMA clusters", "[machine]")
{
    const machine m = load_machine_preset("xeon-6975p-snc3");
    REQUIRE(m.num_cpus() == 192);
    CHECK(m.num_nodes() == 6);
    CHECK(m.cpus[0].node == 0);
    CHECK(m.cpus[31].node == 0);
    CHECK(m.cpus[32].node == 1);
    CHECK(m.cpus[95].socket == 0);
    CHECK(m.cpus[96].socket == 1);
    CHECK(m.transfer(0, 1) == m.transfer_ns.same_die);
    CHECK(m.transfer(0, 40) == m.transfer_ns.other_die);
    CHECK(m.transfer(0, 70) == m.transfer_ns.other_die + m.transfer_ns.per_die_hop);
    CHECK(m.transfer(0, 100) == m.transfer_ns.other_socket);
}

TEST_CASE("every preset loads and has CPUs", "[machine]")
{
    for (const auto& name : machine_preset_names()) {
        INFO(name);
        const machine m = load_machine_preset(name);
        CHECK(m.num_cpus() >= 1);
        CHECK(m.hz >= 100);
    }
    CHECK(load_machine_preset("epyc-9r45").num_cpus() == 192);
    CHECK(load_machine_preset("graviton4").arch == atomic_arch::arm64_lse);
    CHECK_THROWS_WITH(load_machine_preset("cray-1"), Catch::Contains("valid: host"));
}

TEST_CASE("CPU lists as taskset takes them", "[machine]")
{
    CHECK(parse_cpu_list("0-3,8", 16) == std::vector<unsigned>{0, 1, 2, 3, 8});
    CHECK(parse_cpu_list("5,1-2", 16) == std::vector<unsigned>{1, 2, 5});
    CHECK_THROWS_WITH(parse_cpu_list("0-16", 16), Catch::Contains("CPU 16"));
    CHECK_THROWS_WITH(parse_cpu_list("3-1", 16), Catch::Contains("backwards"));
    CHECK_THROWS_WITH(parse_cpu_list("a", 16), Catch::Contains("not a CPU number"));
    CHECK_THROWS(parse_cpu_list("", 16));
    CHECK_THROWS(parse_cpu_list("1,,2", 16));
}

TEST_CASE("a machine file describes a user's machine", "[machine]")
{
    const std::string path = "futexsim_test_machine.json";
    {
        std::ofstream f(path);
        f << R"({"name": "lab-box", "arch": "x86",
                 "topology": {"sockets": 1, "dies_per_socket": 2, "nodes_per_socket": 1,
                              "cores_per_die": 4, "threads_per_core": 2},
                 "transfer_ns": {"same_die": 40, "other_die": 90}, "hz": 250})";
    }
    const machine m = load_machine_file(path);
    CHECK(m.name == "lab-box");
    CHECK(m.num_cpus() == 16);
    CHECK(m.hz == 250);
    CHECK(m.cpus[0].core == m.cpus[8].core);  // SMT siblings numbered after all cores
    CHECK(m.transfer(0, 8) == m.transfer_ns.smt_sibling);
    CHECK(m.transfer(0, 4) == 90);
    {
        std::ofstream f(path);
        f << R"({"topology": {"sockets": 1, "dies_per_socket": 1, "nodes_per_socket": 1, "cores_per_die": 1, "threads_per_core": 1}, "hz": 5})";
    }
    CHECK_THROWS_WITH(load_machine_file(path), Catch::Contains("'hz'"));
    {
        std::ofstream f(path);
        f << R"({"topology": {"sockets": 1, "dies_per_socket": 1, "nodes_per_socket": 1, "cores_per_die": 1, "threads_per_core": 1}, "colour": "red"})";
    }
    CHECK_THROWS_WITH(load_machine_file(path), Catch::Contains("unknown field 'colour'"));
    CHECK(m.rcu_fqs_jiffies == 1);  // the kernel's default at HZ=250
    CHECK(m.idle_states.empty());
    {
        std::ofstream f(path);
        f << R"({"topology": {"sockets": 1, "dies_per_socket": 1, "nodes_per_socket": 1, "cores_per_die": 1, "threads_per_core": 1},
                 "idle_states": [{"name": "C1", "exit_latency_us": 1, "target_residency_us": 1},
                                 {"name": "C6", "exit_latency_us": 100, "target_residency_us": 400}]})";
    }
    const machine idle = load_machine_file(path);
    REQUIRE(idle.idle_states.size() == 2);
    CHECK(idle.idle_states[1].name == "C6");
    CHECK(idle.idle_exit_ns(1e6) == 100'000);
    CHECK(idle.idle_exit_ns(10'000) == 1'000);
    {
        std::ofstream f(path);
        f << R"({"topology": {"sockets": 1, "dies_per_socket": 1, "nodes_per_socket": 1, "cores_per_die": 1, "threads_per_core": 1},
                 "idle_states": [{"name": "C6", "exit_latency_us": 100, "target_residency_us": 400},
                                 {"name": "C1", "exit_latency_us": 1, "target_residency_us": 1}]})";
    }
    CHECK_THROWS_WITH(load_machine_file(path), Catch::Contains("shallower"));
    std::remove(path.c_str());
}

TEST_CASE("RCU's force-quiescent-state delay follows the kernel's default for HZ and CPUs", "[machine]")
{
    CHECK(kernel_default_fqs_jiffies(1000, 192) == 3);
    CHECK(kernel_default_fqs_jiffies(250, 192) == 1);
    CHECK(kernel_default_fqs_jiffies(300, 8) == 2);
    CHECK(kernel_default_fqs_jiffies(1000, 512) == 5);
    CHECK(load_machine_preset("xeon-6975p-snc3").rcu_fqs_jiffies == 3);
    CHECK(load_machine_preset("graviton4").rcu_fqs_jiffies == 1);
}

TEST_CASE("a machine file with a wrong type, an overflow or a field the model would guess is refused", "[machine]")
{
    const std::string path = "futexsim_test_bad_machine.json";
    const std::string topo = R"("topology": {"sockets": 1, "dies_per_socket": 1, "nodes_per_socket": 1,
                                             "cores_per_die": 2, "threads_per_core": 1})";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"{" + topo + R"(, "arch": 1})", "'arch' must be a string"},
        {"{" + topo + R"(, "name": []})", "'name' must be a string"},
        {"{" + topo + R"(, "description": {}})", "'description' must be a string"},
        {"{" + topo + R"(, "arbitration": true})", "'arbitration' must be a string"},
        {"{" + topo + R"(, "modified_read": "exclusive"})", "modified_read 'exclusive' (valid: share, migrate)"},
        {"{" + topo + R"(, "modified_read": 1})", "'modified_read' must be a string"},
        {"{" + topo + R"(, "idle_states": [{"name": 6, "exit_latency_us": 1, "target_residency_us": 1}]})",
         "'name' must be a string"},
        {R"({"topology": {"sockets": 1e400}})", "is not JSON"},
        {R"({"topology": {"sockets": 256, "dies_per_socket": 256, "nodes_per_socket": 1, "cores_per_die": 256,
                          "threads_per_core": 256}})",
         "at most 8192"},
        {"{" + topo + R"(, "transfer_ns": {"same_die": 40, "sideways": 3}})", "unknown field 'sideways' in 'transfer_ns'"},
        {"{" + topo + R"(, "transfer_ns": [1, 2]})", "'transfer_ns' must be an object"},
        {"{" + topo + R"(, "idle_states": [{}]})", "needs 'exit_latency_us'"},
        {"{" + topo + R"(, "idle_states": [{"exit_latency_us": 1, "target_residency_us": 1, "power": 3}]})",
         "unknown field 'power'"},
        {R"({"topology": {"sockets": 1.5, "dies_per_socket": 1, "nodes_per_socket": 1, "cores_per_die": 1,
                          "threads_per_core": 1}})",
         "'sockets' = 1.5 must be a whole number"},
        {"{" + topo + R"(, "hz": 250.7})", "'hz' = 250.7 must be a whole number"},
        {R"({"topology": {"sockets": 2}})", "'topology' needs 'dies_per_socket'"},
        {R"({"topology": {"sockets": 1, "dies_per_socket": 1, "nodes_per_socket": 1, "cores_per_die": 1,
                          "threads_per_core": 1, "books": 2}})",
         "unknown field 'books' in 'topology'"},
    };
    for (const auto& [text, why] : cases) {
        INFO(text);
        {
            std::ofstream f(path);
            f << text;
        }
        CHECK_THROWS_WITH(load_machine_file(path), Catch::Contains(why));
    }
    std::remove(path.c_str());
}

TEST_CASE("a CPU list names every CPU once, with no empty element", "[machine]")
{
    CHECK_THROWS_WITH(parse_cpu_list("0-1,", 16), Catch::Contains("empty element"));
    CHECK_THROWS_WITH(parse_cpu_list("", 16), Catch::Contains("empty CPU list"));
    CHECK_THROWS_WITH(parse_cpu_list("0-3,2", 16), Catch::Contains("CPU 2 is listed twice"));
    CHECK_THROWS_WITH(parse_cpu_list("1,1", 16), Catch::Contains("CPU 1 is listed twice"));
    CHECK_THROWS_WITH(parse_cpu_list("99999999999999999999", 16), Catch::Contains("not a CPU number"));
    CHECK_THROWS_WITH(parse_cpu_list("0-1-2", 16), Catch::Contains("not a CPU number"));
    CHECK(parse_cpu_list("3,0-1", 16) == std::vector<unsigned>{0, 1, 3});
}
