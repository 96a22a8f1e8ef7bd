// The names the trace gives operations and model functions (op_event.h).
#include "sim/explore/op_event.h"

namespace futexsim::sim::explore {

const char* op_name(op_kind k)
{
    switch (k) {
    case op_kind::read:
        return "read";
    case op_kind::write:
        return "write";
    case op_kind::cmpxchg_ok:
        return "cmpxchg(ok)";
    case op_kind::cmpxchg_fail:
        return "cmpxchg(failed)";
    case op_kind::add_return:
        return "add_return";
    case op_kind::inc:
        return "inc";
    case op_kind::dec:
        return "dec";
    case op_kind::percpu_inc:
        return "this_cpu_inc";
    case op_kind::percpu_dec:
        return "this_cpu_dec";
    case op_kind::percpu_read:
        return "per_cpu_read";
    case op_kind::percpu_write:
        return "per_cpu_write";
    case op_kind::rcu_lock:
        return "rcu_read_lock";
    case op_kind::rcu_unlock:
        return "rcu_read_unlock";
    case op_kind::preempt_off:
        return "preempt_disable";
    case op_kind::preempt_on:
        return "preempt_enable";
    case op_kind::mutex_lock:
        return "mutex_lock";
    case op_kind::mutex_unlock:
        return "mutex_unlock";
    case op_kind::spin_lock:
        return "spin_lock";
    case op_kind::spin_unlock:
        return "spin_unlock";
    case op_kind::wait_var:
        return "wait_var_event(sleep)";
    case op_kind::wake_var:
        return "wake_up_var";
    case op_kind::wake_task:
        return "wake_up_task";
    case op_kind::sleep:
        return "futex_sleep";
    case op_kind::call_rcu:
        return "call_rcu";
    case op_kind::sync_rcu:
        return "synchronize_rcu";
    case op_kind::user:
        return "user";
    case op_kind::syscall:
        return "syscall";
    case op_kind::drain:
        return "drain";
    }
    return "?";
}

std::string_view bare_function(const char* pretty)
{
    // "ret ns::name<args>(params) [with ...]": the last word before the
    // parameters, without its template arguments and namespaces.
    std::string_view s(pretty);
    const std::size_t paren = s.find('(');
    if (paren != std::string_view::npos)
        s = s.substr(0, paren);
    const std::size_t space = s.rfind(' ');
    if (space != std::string_view::npos)
        s = s.substr(space + 1);
    const std::size_t lt = s.find('<');
    const std::size_t colon = s.rfind("::");
    if (lt != std::string_view::npos && (colon == std::string_view::npos || lt < colon)) {
        // ns::type<Env>::member: the member's name
        s = s.substr(colon + 2);
    } else if (colon != std::string_view::npos) {
        s = s.substr(colon + 2);
    }
    const std::size_t lt2 = s.find('<');
    if (lt2 != std::string_view::npos)
        s = s.substr(0, lt2);
    return s;
}

}  // namespace futexsim::sim::explore
