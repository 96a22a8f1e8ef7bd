#include "cli/commands.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <utility>
#include <vector>

namespace futexsim::cli {

namespace {
std::vector<std::pair<CLI::App*, std::function<int()>>>& table()
{
    static std::vector<std::pair<CLI::App*, std::function<int()>>> t;
    return t;
}
}  // namespace

void add_command(CLI::App* sub, std::function<int()> run)
{
    table().emplace_back(sub, std::move(run));
}

void check_output()
{
    errno = 0;
    std::cout.flush();
    if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout))
        throw output_error(fmt::format("cannot write to standard output{}",
                                       errno ? std::string(": ") + std::strerror(errno) : std::string()));
}

void print_line(const std::string& line)
{
    std::cout << line << '\n';
    check_output();
}

int run_selected(CLI::App& /*app*/)
{
    for (auto& [sub, run] : table())
        if (sub->parsed())
            return run();
    throw usage_error("no command given");
}

}  // namespace futexsim::cli
