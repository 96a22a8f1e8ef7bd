#include "cli/commands.h"

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

int run_selected(CLI::App& /*app*/)
{
    for (auto& [sub, run] : table())
        if (sub->parsed())
            return run();
    throw usage_error("no command given");
}

}  // namespace futexsim::cli
