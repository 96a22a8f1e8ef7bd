// Reading litmus tests (litmus_test.h): the kernel's file format and this
// project's compact list, over one statement grammar.
#include "sim/explore/litmus/litmus_test.h"

#include <cctype>
#include <charconv>
#include <map>

#include <fmt/format.h>

namespace futexsim::sim::explore {

std::string_view litmus_result_name(litmus_result r)
{
    return r == litmus_result::never ? "Never" : "Sometimes";
}

namespace {

std::string_view trim(std::string_view s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

std::optional<long> number(std::string_view s)
{
    s = trim(s);
    long v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc{} || end != s.data() + s.size())
        return std::nullopt;
    return v;
}

bool identifier(std::string_view s)
{
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s.front())))
        return false;
    for (char c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
            return false;
    return true;
}

// `&x` and `x` both name x's address where a value is a pointer.
std::string_view without_ampersand(std::string_view s)
{
    return !s.empty() && s.front() == '&' ? trim(s.substr(1)) : s;
}

std::vector<std::string_view> split(std::string_view s, char sep)
{
    std::vector<std::string_view> out;
    std::size_t pos = 0;
    for (;;) {
        const std::size_t at = s.find(sep, pos);
        out.push_back(
            trim(s.substr(pos, at == std::string_view::npos ? std::string_view::npos : at - pos)));
        if (at == std::string_view::npos)
            return out;
        pos = at + 1;
    }
}

// Building one test: variables and locks by name, registers by thread.
class builder {
public:
    explicit builder(litmus_test& t) : t_(t) {}

    int var(std::string_view name, bool lock = false)
    {
        while (!name.empty() && (name.front() == '*' || name.front() == '&'))
            name = trim(name.substr(1));
        const auto it = vars_.find(std::string(name));
        if (it != vars_.end()) {
            if (lock)
                t_.is_lock[static_cast<std::size_t>(it->second)] = true;
            return it->second;
        }
        const int i = static_cast<int>(t_.vars.size());
        vars_.emplace(std::string(name), i);
        t_.vars.emplace_back(name);
        t_.is_lock.push_back(lock);
        t_.init.push_back(0);
        return i;
    }
    bool has_var(std::string_view name) const { return vars_.count(std::string(name)) > 0; }

    int reg(litmus_thread& th, std::string_view name)
    {
        if (const int r = find_reg(th, name); r >= 0)
            return r;
        th.regs.emplace_back(name);
        return static_cast<int>(th.regs.size() - 1);
    }
    static int find_reg(const litmus_thread& th, std::string_view name)
    {
        for (std::size_t i = 0; i < th.regs.size(); i++)
            if (th.regs[i] == name)
                return static_cast<int>(i);
        return -1;
    }

    // A value: a number, &var or a bare pointer name (its address), or a
    // register of this thread.
    bool value(litmus_thread& th, std::string_view s, litmus_stmt& st, std::string& why)
    {
        s = trim(s);
        if (const auto n = number(s)) {
            st.value = *n;
            return true;
        }
        s = without_ampersand(s);
        if (!identifier(s)) {
            why = fmt::format("'{}' is not a number, a variable or a register", s);
            return false;
        }
        if (const int r = find_reg(th, s); r >= 0) {
            st.src_reg = r;
            return true;
        }
        st.value = var(s) + 1;
        return true;
    }

    bool statement(litmus_thread& th, std::string_view s, std::string& why)
    {
        s = trim(s);
        if (s.empty())
            return true;
        if (s.rfind("int ", 0) == 0 || s.rfind("int*", 0) == 0) {  // a declaration
            s = trim(s.substr(3));
            while (!s.empty() && s.front() == '*')
                s = trim(s.substr(1));
            if (s.find('=') == std::string_view::npos) {
                if (!identifier(s)) {
                    why = fmt::format("cannot read the declaration 'int {}'", s);
                    return false;
                }
                reg(th, s);
                return true;
            }
        }
        std::string_view dest;
        if (const std::size_t eq = s.find('='); eq != std::string_view::npos && s.find('(') > eq) {
            dest = trim(s.substr(0, eq));
            s = trim(s.substr(eq + 1));
            if (!identifier(dest)) {
                why = fmt::format("'{}': only a register may be assigned (plain C accesses are not "
                                  "in the subset)",
                                  dest);
                return false;
            }
        }
        const std::size_t open = s.find('('), close = s.rfind(')');
        if (open == std::string_view::npos || close != s.size() - 1 ||
            !identifier(trim(s.substr(0, open)))) {
            why = fmt::format("cannot read the statement '{}'", s);
            return false;
        }
        const std::string_view fn = trim(s.substr(0, open));
        std::vector<std::string_view> args = split(s.substr(open + 1, close - open - 1), ',');
        if (args.size() == 1 && args[0].empty())
            args.clear();
        litmus_stmt st;
        static const std::map<std::string_view, litmus_kind> fences{
            {"smp_mb", litmus_kind::mb},
            {"smp_wmb", litmus_kind::wmb},
            {"smp_rmb", litmus_kind::rmb},
            {"smp_mb__after_atomic", litmus_kind::mb_after_atomic},
            {"smp_mb__before_atomic", litmus_kind::mb_before_atomic},
            {"smp_mb__after_spinlock", litmus_kind::mb_after_spinlock},
            {"rcu_read_lock", litmus_kind::rcu_lock},
            {"rcu_read_unlock", litmus_kind::rcu_unlock},
            {"synchronize_rcu", litmus_kind::sync_rcu}};
        static const std::map<std::string_view, litmus_kind> loads{
            {"READ_ONCE", litmus_kind::read},
            {"atomic_read", litmus_kind::read},
            {"smp_load_acquire", litmus_kind::read_acquire},
            {"rcu_dereference", litmus_kind::rcu_dereference}};
        static const std::map<std::string_view, litmus_kind> stores{
            {"WRITE_ONCE", litmus_kind::write},
            {"atomic_set", litmus_kind::write},
            {"smp_store_release", litmus_kind::write_release},
            {"rcu_assign_pointer", litmus_kind::assign_pointer}};
        auto want = [&](std::size_t n, bool with_dest) {
            if (args.size() != n || dest.empty() != !with_dest)
                why = fmt::format("'{}' takes {} argument(s){}", s, n,
                                  with_dest ? " and a register" : "");
            return args.size() == n && dest.empty() == !with_dest;
        };
        if (const auto f = fences.find(fn); f != fences.end()) {
            if (!want(0, false))
                return false;
            st.kind = f->second;
        } else if (fn == "spin_lock" || fn == "spin_unlock") {
            if (!want(1, false))
                return false;
            st.kind = fn == "spin_lock" ? litmus_kind::lock : litmus_kind::unlock;
            st.var = var(args[0], true);
        } else if (fn == "atomic_inc" || fn == "atomic_dec") {
            if (!want(1, false))
                return false;
            st.kind = fn == "atomic_inc" ? litmus_kind::atomic_inc : litmus_kind::atomic_dec;
            st.var = var(args[0]);
        } else if (const auto l = loads.find(fn); l != loads.end()) {
            if (!want(1, true))
                return false;
            st.kind = l->second;
            std::string_view a = args[0];
            if (!a.empty() && a.front() == '*' && find_reg(th, trim(a.substr(1))) >= 0) {
                st.kind = litmus_kind::read_deref;  // through a pointer in a register
                st.src_reg = find_reg(th, trim(a.substr(1)));
            } else {
                st.var = var(a);
            }
            st.reg = reg(th, dest);
        } else if (const auto w = stores.find(fn); w != stores.end()) {
            if (!want(2, false) || !value(th, args[1], st, why))
                return false;
            st.kind = w->second;
            st.var = var(args[0]);
        } else if (fn == "cmpxchg") {
            const auto old = args.size() == 3 ? number(args[1]) : std::nullopt;
            const auto new_ = args.size() == 3 ? number(args[2]) : std::nullopt;
            if (!want(3, true) || !old || !new_) {
                why = fmt::format("'{}': cmpxchg(x, OLD, NEW) with numbers, into a register", s);
                return false;
            }
            st.kind = litmus_kind::cmpxchg;
            st.var = var(args[0]);
            st.value = *old;
            st.value2 = *new_;
            st.reg = reg(th, dest);
        } else if (fn == "atomic_add_return" || fn == "xchg") {
            if (!want(2, true))
                return false;
            const bool add = fn == "atomic_add_return";
            if (!value(th, add ? args[0] : args[1], st, why))
                return false;
            st.kind = add ? litmus_kind::atomic_add_return : litmus_kind::xchg;
            st.var = var(add ? args[1] : args[0]);
            st.reg = reg(th, dest);
        } else {
            why = fmt::format("'{}' is not in the subset the explorer runs", fn);
            return false;
        }
        th.body.push_back(st);
        return true;
    }

    // `x=1`, `p=&y`, `p=y` (a pointer to y)
    bool init(std::string_view item, std::string& why)
    {
        const std::size_t eq = item.find('=');
        if (eq == std::string_view::npos) {  // `int x`: a declaration, 0
            std::string_view decl = trim(item);
            if (decl.rfind("int ", 0) == 0 && identifier(trim(decl.substr(4)))) {
                var(trim(decl.substr(4)));
                return true;
            }
            why = fmt::format("cannot read the initial value '{}'", item);
            return false;
        }
        std::string_view name = trim(item.substr(0, eq)), v = trim(item.substr(eq + 1));
        if (name.rfind("int ", 0) == 0)
            name = trim(name.substr(4));
        const int i = var(name);
        if (const auto n = number(v)) {
            t_.init[static_cast<std::size_t>(i)] = *n;
            return true;
        }
        v = without_ampersand(v);
        if (!identifier(v)) {
            why = fmt::format("cannot read the initial value '{}'", item);
            return false;
        }
        t_.init[static_cast<std::size_t>(i)] = var(v) + 1;
        return true;
    }

    // `1:r0=1 /\ x=2 /\ 1:r0=x`
    bool exists(std::string_view clause, std::string& why)
    {
        clause = trim(clause);
        if (clause.rfind("~exists", 0) == 0) {
            t_.negated = true;
            clause = trim(clause.substr(7));
        } else if (clause.rfind("exists", 0) == 0) {
            clause = trim(clause.substr(6));
        }
        if (!clause.empty() && clause.front() == '(' && clause.back() == ')')
            clause = trim(clause.substr(1, clause.size() - 2));
        std::size_t pos = 0;
        for (;;) {
            const std::size_t at = clause.find("/\\", pos);
            const std::string_view atom = trim(clause.substr(
                pos, at == std::string_view::npos ? std::string_view::npos : at - pos));
            const std::size_t eq = atom.find('=');
            if (eq == std::string_view::npos) {
                why = fmt::format(
                    "cannot read '{}' in the exists clause (only conjunctions of equalities)",
                    atom);
                return false;
            }
            const std::string_view lhs = trim(atom.substr(0, eq)), rhs = trim(atom.substr(eq + 1));
            litmus_atom a;
            if (const auto v = number(rhs)) {
                a.value = *v;
            } else if (identifier(rhs) || (!rhs.empty() && rhs.front() == '&')) {
                a.value = var(rhs) + 1;
            } else {
                why = fmt::format("cannot read the value '{}' in the exists clause", rhs);
                return false;
            }
            if (const std::size_t colon = lhs.find(':'); colon != std::string_view::npos) {
                const auto th = number(lhs.substr(0, colon));
                if (!th || *th < 0 || static_cast<std::size_t>(*th) >= t_.threads.size() ||
                    find_reg(t_.threads[static_cast<std::size_t>(*th)],
                             trim(lhs.substr(colon + 1))) < 0) {
                    why =
                        fmt::format("'{}' in the exists clause names no register of a thread", lhs);
                    return false;
                }
                a.thread = static_cast<int>(*th);
                a.index = find_reg(t_.threads[static_cast<std::size_t>(*th)],
                                   trim(lhs.substr(colon + 1)));
            } else {
                if (!has_var(lhs)) {
                    why = fmt::format("'{}' in the exists clause is no variable of the test", lhs);
                    return false;
                }
                a.index = var(lhs);
            }
            t_.exists.push_back(a);
            if (at == std::string_view::npos)
                return true;
            pos = at + 2;
        }
    }

private:
    litmus_test& t_;
    std::map<std::string, int> vars_;
};

std::optional<litmus_result> result_word(std::string_view w)
{
    w = trim(w);
    if (w == "Never")
        return litmus_result::never;
    if (w == "Sometimes")
        return litmus_result::sometimes;
    return std::nullopt;
}

// Comments of both kinds the kernel's files use, `(* *)` and `//`; the
// header comment `/* */` is read for its Result first.
std::string strip_comments(std::string_view text)
{
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
        // `(*` opens a comment only before a blank: READ_ONCE(*x) is code.
        const bool ml_comment = text.compare(i, 2, "(*") == 0 && i + 2 < text.size() &&
                                std::isspace(static_cast<unsigned char>(text[i + 2]));
        if (ml_comment || text.compare(i, 2, "/*") == 0) {
            const std::size_t end = text.find(text[i] == '(' ? "*)" : "*/", i + 2);
            i = end == std::string_view::npos ? text.size() : end + 2;
        } else if (text.compare(i, 2, "//") == 0) {
            i = text.find('\n', i);
            if (i == std::string_view::npos)
                i = text.size();
        } else {
            out += text[i++];
        }
    }
    return out;
}

}  // namespace

std::optional<litmus_test> parse_kernel_litmus(std::string_view text, std::string* error)
{
    std::string why;
    auto fail = [&](std::string w) {
        if (error)
            *error = std::move(w);
        return std::nullopt;
    };
    litmus_test t;
    builder b(t);
    if (const std::size_t r = text.find("Result:"); r != std::string_view::npos) {
        const std::size_t end = text.find('\n', r);
        t.lkmm = result_word(text.substr(
            r + 7, end == std::string_view::npos ? std::string_view::npos : end - r - 7));
    }
    const std::string body = strip_comments(text);
    std::string_view s = body;
    const std::size_t c = s.find("C ");
    if (c == std::string_view::npos)
        return fail("no 'C name' line: not a litmus test");
    t.name = std::string(trim(s.substr(c + 2, s.find('\n', c) - c - 2)));
    std::size_t pos = s.find('{', c);
    const std::size_t init_end = s.find('}', pos);
    if (pos == std::string_view::npos || init_end == std::string_view::npos)
        return fail("no initial-state block '{ ... }'");
    for (std::string_view item : split(s.substr(pos + 1, init_end - pos - 1), ';'))
        if (!item.empty() && !b.init(item, why))
            return fail(why);
    pos = init_end + 1;
    for (;;) {
        const std::size_t p = s.find('P', pos);
        const std::size_t ex = s.find("exists", pos);
        if (p == std::string_view::npos || (ex != std::string_view::npos && p > ex))
            break;
        const std::size_t open = s.find('{', p), close = s.find('}', open);
        if (open == std::string_view::npos || close == std::string_view::npos)
            return fail("a thread without a body");
        if (s.substr(open + 1, close - open - 1).find("if") != std::string_view::npos &&
            s.substr(open + 1, close - open - 1).find('{') != std::string_view::npos)
            return fail("a thread with a nested block (if, while): not in the subset");
        litmus_thread th;
        for (std::string_view st : split(s.substr(open + 1, close - open - 1), ';'))
            if (!b.statement(th, st, why))
                return fail(fmt::format("P{}: {}", t.threads.size(), why));
        t.threads.push_back(std::move(th));
        pos = close + 1;
    }
    const std::size_t ex = s.find("exists", pos);
    if (ex == std::string_view::npos || t.threads.empty())
        return fail("no threads, or no exists clause");
    std::size_t start = ex;
    if (start > 0 && s[start - 1] == '~')
        --start;
    if (!b.exists(s.substr(start), why))
        return fail(why);
    return t;
}

std::optional<std::vector<litmus_test>> parse_litmus_list(std::string_view text, std::string* error)
{
    std::vector<litmus_test> out;
    std::optional<builder> b;
    std::string why;
    std::size_t line_no = 0, pos = 0;
    auto fail = [&](const std::string& w) {
        if (error)
            *error = fmt::format("line {}: {}", line_no, w);
        return std::nullopt;
    };
    while (pos < text.size()) {
        const std::size_t nl = text.find('\n', pos);
        std::string_view line =
            text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
        pos = nl == std::string_view::npos ? text.size() : nl + 1;
        ++line_no;
        if (const std::size_t hash = line.find('#'); hash != std::string_view::npos)
            line = line.substr(0, hash);
        line = trim(line);
        if (line.empty())
            continue;
        if (line.rfind("test ", 0) == 0) {
            out.emplace_back();
            out.back().name = std::string(trim(line.substr(5)));
            b.emplace(out.back());
            continue;
        }
        if (out.empty())
            return fail("a line before the first 'test NAME'");
        litmus_test& t = out.back();
        if (line.rfind("lkmm ", 0) == 0) {
            t.lkmm = result_word(line.substr(5));
            if (!t.lkmm)
                return fail("'lkmm' takes Never or Sometimes");
        } else if (line.rfind("expect ", 0) == 0) {
            for (std::string_view item : split(line.substr(7), ' ')) {
                const std::size_t eq = item.find('=');
                const auto m = parse_memory_model(item.substr(0, eq));
                const auto r =
                    eq == std::string_view::npos ? std::nullopt : result_word(item.substr(eq + 1));
                if (!m || !r)
                    return fail(fmt::format(
                        "'{}': expected MODEL=Never or MODEL=Sometimes (sc, tso, arm64)", item));
                t.expect[static_cast<std::size_t>(*m)] = r;
            }
        } else if (line.rfind("gap ", 0) == 0) {
            const std::string_view rest = trim(line.substr(4));
            const std::size_t sp = rest.find(' ');
            const auto m = parse_memory_model(rest.substr(0, sp));
            if (!m || sp == std::string_view::npos)
                return fail("'gap' takes a memory model and the reason");
            t.gap[static_cast<std::size_t>(*m)] = std::string(trim(rest.substr(sp)));
        } else if (line.rfind("init ", 0) == 0) {
            for (std::string_view item : split(line.substr(5), ' '))
                if (!item.empty() && !b->init(item, why))
                    return fail(why);
        } else if (line.front() == 'P' && line.find(':') != std::string_view::npos) {
            const auto n = number(line.substr(1, line.find(':') - 1));
            if (!n || static_cast<std::size_t>(*n) != t.threads.size())
                return fail("threads are P0, P1, ... in order");
            litmus_thread th;
            for (std::string_view st : split(line.substr(line.find(':') + 1), ';'))
                if (!b->statement(th, st, why))
                    return fail(why);
            t.threads.push_back(std::move(th));
        } else if (line.rfind("exists", 0) == 0 || line.rfind("~exists", 0) == 0) {
            if (!b->exists(line, why))
                return fail(why);
        } else {
            return fail(fmt::format("cannot read '{}'", line));
        }
    }
    for (const litmus_test& t : out)
        if (t.threads.empty() || t.exists.empty()) {
            if (error)
                *error = fmt::format("test {}: no threads or no exists clause", t.name);
            return std::nullopt;
        }
    return out;
}

}  // namespace futexsim::sim::explore
