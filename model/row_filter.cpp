#include "model/row_filter.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include "datasets/number_text.hpp"

namespace pollscale::model {

struct row_filter::node {
  enum class type { any, all, negate, compare } t = type::compare;
  std::vector<node> kids;
  std::string column, op, value;
  bool numeric = false;  ///< value is a number (or max/min)
  double number = 0;
  int extreme = 0;     ///< -1: min, +1: max, 0: a literal
  double modulus = 0;  ///< compare column % modulus (0: no modulus)
};

namespace {

using node = row_filter::node;

node make(node::type t, std::vector<node> kids) {
  node n;
  n.t = t;
  n.kids = std::move(kids);
  return n;
}

class parser {
 public:
  explicit parser(std::string_view text) : text_(text) {}

  node parse() {
    node n = expr();
    skip_space();
    if (pos_ != text_.size()) fail("unexpected '" + std::string(text_.substr(pos_)) + "'");
    return n;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument("--train '" + std::string(text_) + "': " + what);
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool eat(std::string_view token, bool word = false) {
    skip_space();
    if (text_.substr(pos_, token.size()) != token) return false;
    const std::size_t end = pos_ + token.size();
    if (word && end < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_'))
      return false;
    pos_ = end;
    return true;
  }
  node expr() {
    node n = make(node::type::any, {and_expr()});
    while (eat("||") || eat("or", true)) n.kids.push_back(and_expr());
    return n.kids.size() == 1 ? n.kids[0] : n;
  }
  node and_expr() {
    node n = make(node::type::all, {unary()});
    while (eat("&&") || eat(",") || eat("and", true)) n.kids.push_back(unary());
    return n.kids.size() == 1 ? n.kids[0] : n;
  }
  // Every "!" and "(" is one level; a bound keeps a pathological expression (thousands of
  // them) from exhausting the stack here and in eval().
  node unary() {
    if (++depth_ > max_depth) fail("nested deeper than " + std::to_string(max_depth) + " levels");
    struct leave {
      int& d;
      ~leave() { --d; }
    } guard{depth_};
    if (eat("!") || eat("not", true)) return make(node::type::negate, {unary()});
    if (eat("(")) {
      node n = expr();
      if (!eat(")")) fail("missing ')'");
      return n;
    }
    return comparison();
  }
  std::string word() {
    skip_space();
    const std::size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
                                   std::string_view("_.+-/").find(text_[pos_]) != std::string_view::npos))
      ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }
  std::string value_text() {
    skip_space();
    if (pos_ < text_.size() && (text_[pos_] == '\'' || text_[pos_] == '"')) {
      const char q = text_[pos_++];
      const std::size_t end = text_.find(q, pos_);
      if (end == std::string_view::npos) fail("unterminated quote");
      std::string v(text_.substr(pos_, end - pos_));
      pos_ = end + 1;
      return v;
    }
    const std::string v = word();
    if (v.empty()) fail("expected a value at '" + std::string(text_.substr(pos_)) + "'");
    return v;
  }
  node comparison();

  static constexpr int max_depth = 64;
  std::string_view text_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

node parser::comparison() {
  node n;
  n.column = word();
  if (n.column.empty()) fail("expected a column at '" + std::string(text_.substr(pos_)) + "'");
  const auto cols = observation_columns();
  if (std::find(cols.begin(), cols.end(), n.column) == cols.end()) {
    std::string list;
    for (auto c : cols) list += (list.empty() ? "" : ", ") + std::string(c);
    fail("unknown column '" + n.column + "' (columns: " + list + ")");
  }
  if (eat("%")) {
    const std::string m = word();
    const auto v = datasets::parse_number(m);
    if (!v || *v < 1 || *v != std::floor(*v)) fail("'" + m + "' after % is not a positive integer");
    n.modulus = *v;
  }
  for (std::string_view op : {"<=", ">=", "==", "!=", "<", ">", "="})
    if (eat(op)) {
      n.op = op == "=" ? "==" : std::string(op);
      break;
    }
  if (n.op.empty()) fail("expected <, <=, >, >=, == or != after '" + n.column + "'");
  n.value = value_text();
  if (n.value == "max" || n.value == "min") {
    n.numeric = true;
    n.extreme = n.value == "max" ? 1 : -1;
  } else if (const auto v = datasets::parse_number(n.value)) {
    n.numeric = true;
    n.number = *v;
  } else if (n.op != "==" && n.op != "!=") {
    fail("'" + n.value + "' is not a number: text compares only with == or !=");
  }
  if (n.modulus > 0 && (!n.numeric || n.extreme != 0)) fail("a % comparison needs a number on the right");
  return n;
}

bool compare(double a, const std::string& op, double b) {
  if (op == "<") return a < b;
  if (op == "<=") return a <= b;
  if (op == ">") return a > b;
  if (op == ">=") return a >= b;
  if (op == "==") return a == b;
  return a != b;
}

bool eval(const node& n, const observation& o, const column_extremes& ext) {
  switch (n.t) {
    case node::type::any:
      return std::any_of(n.kids.begin(), n.kids.end(), [&](const node& k) { return eval(k, o, ext); });
    case node::type::all:
      return std::all_of(n.kids.begin(), n.kids.end(), [&](const node& k) { return eval(k, o, ext); });
    case node::type::negate: return !eval(n.kids[0], o, ext);
    case node::type::compare: break;
  }
  const std::string text = column_text(o, n.column);
  if (text.empty()) return true;  // the row has no such dimension
  if (!n.numeric) return (text == n.value) == (n.op == "==");
  auto v = datasets::parse_number(text);
  if (!v) return (text == n.value) == (n.op == "==");  // a text column compared to a number
  if (n.modulus > 0) v = std::fmod(*v, n.modulus);
  double rhs = n.number;
  if (n.extreme != 0) {
    const auto it = ext.find(n.column);
    if (it == ext.end()) return true;
    rhs = n.extreme > 0 ? it->second.second : it->second.first;
  }
  return compare(*v, n.op, rhs);
}

void collect(const node& n, std::vector<std::string>& out) {
  if (n.t == node::type::compare && n.extreme != 0 && std::find(out.begin(), out.end(), n.column) == out.end())
    out.push_back(n.column);
  for (const auto& k : n.kids) collect(k, out);
}

}  // namespace

row_filter row_filter::parse(std::string_view text) {
  if (text.find_first_not_of(" \t") == std::string_view::npos) throw std::invalid_argument("--train: empty expression");
  row_filter f;
  f.root_ = std::make_shared<const node>(parser(text).parse());
  return f;
}

bool row_filter::operator()(const observation& o, const column_extremes& e) const { return eval(*root_, o, e); }

std::vector<std::string> row_filter::columns_needing_extremes() const {
  std::vector<std::string> out;
  collect(*root_, out);
  return out;
}

column_extremes extremes_of(const std::vector<const observation*>& rows, const std::vector<std::string>& columns) {
  column_extremes out;
  for (const auto& c : columns)
    for (const auto* o : rows)
      if (const auto v = datasets::parse_number(column_text(*o, c))) {
        auto [it, fresh] = out.try_emplace(c, *v, *v);
        it->second.first = std::min(it->second.first, *v);
        it->second.second = std::max(it->second.second, *v);
      }
  return out;
}

}  // namespace pollscale::model
