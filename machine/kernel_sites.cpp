// Reads the compiled-in site table (machine/kernel_sites.h).
#include "machine/kernel_sites.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <map>
#include <stdexcept>

#include "machine/embedded_sites.h"
#include "machine/machine.h"

namespace futexsim {
namespace {

const std::string syscall_path_prefix = "syscall-futex-wake/";

std::vector<kernel_sites_build> parse_builds()
{
    const auto j = nlohmann::json::parse(embedded_kernel_sites_json());
    std::vector<kernel_sites_build> out;
    for (const char* name : {"amd64", "arm64"}) {
        const auto& b = j.at("builds").at(name);
        kernel_sites_build build;
        build.name = name;
        build.package = b.at("package").get<std::string>();
        double futex_instructions = 0;
        unsigned futex_segments = 0;
        std::map<std::string, std::string> first_cpu;  // a path walked per CPU: the CPU the mean takes
        for (const auto& s : b.at("sites")) {
            kernel_site_segment seg;
            seg.path = s.at("path").get<std::string>();
            seg.from = s.at("from").get<std::string>();
            seg.to = s.at("site").get<std::string>();
            seg.instructions = s.at("instructions").get<unsigned>();
            seg.locked = s.at("locked").get<unsigned>();
            seg.calls = s.at("calls").get<unsigned>();
            seg.returns = s.at("returns").get<unsigned>();
            if (kernel_path_in_mean(seg.path)) {
                const std::string base = kernel_path_base(seg.path);
                const std::string cpu = seg.path.substr(base.size());  // "" or "/CPU"
                if (first_cpu.emplace(base, cpu).first->second == cpu) {
                    futex_instructions += seg.instructions;
                    ++futex_segments;
                }
            }
            build.segments.push_back(std::move(seg));
        }
        build.uncounted_segment_instructions = futex_segments ? futex_instructions / futex_segments : 0;
        out.push_back(std::move(build));
    }
    return out;
}

unsigned syscall_segment(const kernel_sites_build& b, const std::string& cpu, const char* to)
{
    for (const auto& s : b.segments)
        if (s.path == syscall_path_prefix + cpu && s.to == to)
            return s.instructions;
    std::string known;
    for (const auto& c : b.cpus())
        known += (known.empty() ? "" : ", ") + c;
    throw std::invalid_argument(fmt::format("no counted system-call path for CPU '{}' in the {} build (counted: {})",
                                            cpu, b.name, known));
}

}  // namespace

std::string kernel_path_syscall(const std::string& path)
{
    if (path.rfind("syscall-", 0) == 0 || path.rfind("lock-", 0) == 0 || path.rfind("loop-", 0) == 0)
        return "";
    if (path.rfind("wake-op-", 0) == 0)  // before wake-*
        return "FUTEX_WAKE_OP";
    if (path.rfind("wake-", 0) == 0)
        return "FUTEX_WAKE";
    if (path.rfind("wait-", 0) == 0)
        return "FUTEX_WAIT";
    if (path.rfind("requeue-", 0) == 0)
        return "FUTEX_CMP_REQUEUE";
    throw std::invalid_argument(fmt::format(
        "site table path '{}': no system call for it (wake-*, wait-*, wake-op-*, requeue-*, syscall-*, lock-*, loop-*)",
        path));
}

bool kernel_path_in_mean(const std::string& path)
{
    const std::string syscall = kernel_path_syscall(path);
    return syscall == "FUTEX_WAKE" || syscall == "FUTEX_WAIT";
}

std::string kernel_path_base(const std::string& path) { return path.substr(0, path.find('/')); }

unsigned kernel_sites_build::syscall_entry_instructions(const std::string& cpu) const
{
    return syscall_segment(*this, cpu, "syscall:entry");
}

unsigned kernel_sites_build::syscall_exit_instructions(const std::string& cpu) const
{
    return syscall_segment(*this, cpu, "syscall:exit");
}

std::vector<std::string> kernel_sites_build::cpus() const
{
    std::vector<std::string> out;
    for (const auto& s : segments)
        if (s.path.rfind(syscall_path_prefix, 0) == 0 && s.to == "syscall:exit")
            out.push_back(s.path.substr(syscall_path_prefix.size()));
    return out;
}

const std::vector<kernel_sites_build>& kernel_sites_builds()
{
    static const std::vector<kernel_sites_build> all = parse_builds();
    return all;
}

const kernel_sites_build& kernel_sites_for(atomic_arch arch)
{
    return kernel_sites_builds()[arch == atomic_arch::x86 ? 0 : 1];
}

}  // namespace futexsim
