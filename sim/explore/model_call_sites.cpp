#include "sim/explore/model_call_sites.h"

#include <array>
#include <source_location>
#include <string>
#include <utility>

#include "model/core.h"
#include "sim/explore/explore_env.h"

namespace futexsim::sim::explore {

namespace {

// "... [with auto F = ns::f<args>; ...]" (GCC) or "... [F = &ns::f<args>]"
// (Clang): the compiler's spelling of the pointer F.
template <auto F>
std::string_view pointer_spelling()
{
    const std::string_view s = std::source_location::current().function_name();
    const std::size_t at = s.find("F = ");
    return at == std::string_view::npos ? std::string_view() : s.substr(at + 4);
}

template <auto F>
std::pair<std::string_view, model_call_site> site(model_call_site which)
{
    return {function_named_by(pointer_spelling<F>()), which};
}

using env = explore_env;

const std::array<std::pair<std::string_view, model_call_site>, 7>& sites()
{
    static const std::array<std::pair<std::string_view, model_call_site>, 7> table = {
        site<&model::futex_ref_get<env>>(model_call_site::futex_ref_get),
        site<&model::futex_ref_put<env>>(model_call_site::futex_ref_put),
        site<&model::futex_ref_is_dead<env>>(model_call_site::futex_ref_is_dead),
        site<&model::futex_ref_rcu<env>>(model_call_site::futex_ref_rcu),
        site<&model::__futex_ref_atomic_begin<env>>(model_call_site::futex_ref_atomic_begin),
        site<&model::__futex_ref_atomic_end<env>>(model_call_site::futex_ref_atomic_end),
        site<&model::futex_hash_allocate<env>>(model_call_site::futex_hash_allocate),
    };
    return table;
}

}  // namespace

std::string_view function_named_by(std::string_view pointer)
{
    if (!pointer.empty() && pointer.front() == '&')
        pointer.remove_prefix(1);
    pointer = pointer.substr(0, pointer.find_first_of("<;]"));
    const std::size_t colon = pointer.rfind("::");
    return colon == std::string_view::npos ? pointer : pointer.substr(colon + 2);
}

model_call_site call_site_of(const op_event& ev)
{
    const std::string_view fn = bare_function(ev.function);
    for (const auto& [name, which] : sites())
        if (fn == name)
            return which;
    return model_call_site::other;
}

}  // namespace futexsim::sim::explore
