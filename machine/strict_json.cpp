// A SAX pass over nlohmann's DOM builder (the same parser, the same
// values), checking keys and number lexemes as they go by.
#include "machine/strict_json.h"

#include <fmt/format.h>

#include <set>
#include <stdexcept>
#include <vector>

namespace futexsim {

namespace {

using dom_parser = nlohmann::detail::json_sax_dom_parser<nlohmann::json>;

class strict_parser : public dom_parser {
public:
    explicit strict_parser(nlohmann::json& result) : dom_parser(result, true) {}

    bool start_object(std::size_t n)
    {
        scopes_.push_back({true, {}, pending_key_});
        return dom_parser::start_object(n);
    }
    bool end_object()
    {
        scopes_.pop_back();
        return dom_parser::end_object();
    }
    bool start_array(std::size_t n)
    {
        scopes_.push_back({false, {}, pending_key_});
        return dom_parser::start_array(n);
    }
    bool end_array()
    {
        scopes_.pop_back();
        return dom_parser::end_array();
    }
    bool key(std::string& k)
    {
        auto& scope = scopes_.back();
        if (!scope.keys.insert(k).second)
            throw std::invalid_argument(fmt::format(
                "'{}' appears twice in one object (JSON would silently keep the last); remove one",
                path_to(k)));
        pending_key_ = k;
        return dom_parser::key(k);
    }
    bool number_float(double value, const std::string& lexeme)
    {
        // Zero from a lexeme with a non-zero digit before its exponent is
        // an underflow, not a zero.
        if (value == 0.0 && lexeme.find_first_of("123456789") < lexeme.find_first_of("eE"))
            throw std::invalid_argument(fmt::format(
                "{}: {} is too small for a double (it would read as 0)", where(), lexeme));
        return dom_parser::number_float(value, lexeme);
    }

private:
    struct scope {
        bool is_object;
        std::set<std::string> keys;
        std::string name;  // the key this object or array is the value of
    };

    // The keys leading to the current object or array ("transfer_ns").
    std::string scope_path() const
    {
        std::string path;
        for (std::size_t i = 1; i < scopes_.size(); i++)
            path += (path.empty() ? "" : ".") + scopes_[i].name;
        return path;
    }
    // The dotted path of `k` in the current object ("transfer_ns.same_die").
    std::string path_to(const std::string& k) const
    {
        const std::string outer = scope_path();
        return outer.empty() ? k : outer + "." + k;
    }
    // Where a value being read sits, for an error.
    std::string where() const
    {
        if (scopes_.empty())
            return "the value";
        if (scopes_.back().is_object)
            return "'" + path_to(pending_key_) + "'";
        return "an element of '" + scope_path() + "'";
    }

    std::vector<scope> scopes_;
    std::string pending_key_;
};

}  // namespace

nlohmann::json parse_strict_json(const std::string& text)
{
    nlohmann::json result;
    strict_parser sax(result);
    nlohmann::json::sax_parse(text, &sax);
    return result;
}

}  // namespace futexsim
