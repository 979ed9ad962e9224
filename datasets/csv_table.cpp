#include "datasets/csv_table.hpp"

#include <csv.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <sstream>

#include "datasets/gzip_file.hpp"
#include "datasets/interruption.hpp"

namespace pollscale::datasets {
namespace {

struct parse_state {
  std::vector<std::string> current;
  std::vector<csv_record> records;
  std::size_t line = 1;
};

extern "C" void on_field(void* data, size_t len, void* ctx) {
  auto* st = static_cast<parse_state*>(ctx);
  st->current.emplace_back(data ? static_cast<const char*>(data) : "", len);
}

extern "C" void on_record(int, void* ctx) {
  auto* st = static_cast<parse_state*>(ctx);
  const bool blank = st->current.size() == 1 && st->current[0].empty();
  if (!blank) st->records.push_back({st->line, std::move(st->current)});
  st->current.clear();
}

struct csv_parser_deleter {
  void operator()(csv_parser* p) const {
    csv_free(p);
    delete p;
  }
};

}  // namespace

std::optional<std::size_t> csv_table::column(std::string_view name) const {
  const auto it = std::find(header.begin(), header.end(), name);
  if (it == header.end()) return std::nullopt;
  return static_cast<std::size_t>(it - header.begin());
}

std::size_t csv_table::require_column(std::string_view name) const {
  if (auto c = column(name)) return *c;
  throw input_error(path.string(), 1, "missing column '" + std::string(name) + "'");
}

std::string csv_table::where(const csv_record& r) const { return path.string() + ":" + std::to_string(r.line) + ": "; }

csv_table parse_csv(std::string_view text, const std::filesystem::path& name) {
  std::unique_ptr<csv_parser, csv_parser_deleter> p(new csv_parser);
  if (csv_init(p.get(), CSV_STRICT | CSV_APPEND_NULL | CSV_STRICT_FINI) != 0)
    throw std::runtime_error("libcsv: csv_init failed");
  parse_state st;
  // Feed one line at a time so that each record knows the line it ended on.
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    const std::size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    const std::string_view chunk = text.substr(pos, end - pos);
    if (csv_parse(p.get(), chunk.data(), chunk.size(), on_field, on_record, &st) != chunk.size())
      throw input_error(name.string(), st.line, std::string("malformed CSV: ") + csv_strerror(csv_error(p.get())));
    pos = end;
    if (nl != std::string_view::npos) ++st.line;
    if (st.line % 8192 == 0) interruption_point();  // a long file: Ctrl-C within milliseconds
  }
  if (st.line > 1 && !text.empty() && text.back() == '\n') --st.line;
  if (csv_fini(p.get(), on_field, on_record, &st) != 0)
    throw input_error(name.string(), st.line, "malformed CSV: unterminated quoted field");
  csv_table t;
  t.path = name;
  if (st.records.empty()) throw input_error(name.string(), 1, "empty file, no header");
  t.header = std::move(st.records.front().fields);
  for (auto& r : st.records) {
    if (&r == &st.records.front()) continue;
    if (r.fields.size() != t.header.size())
      throw input_error(t.where(r) + "expected " + std::to_string(t.header.size()) + " fields, found " +
                        std::to_string(r.fields.size()));
    t.records.push_back(std::move(r));
  }
  return t;
}

csv_table read_csv(const std::filesystem::path& path) {
  if (path.extension() == ".gz") return parse_csv(read_gzip_file(path), path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(path.string() + ": cannot open for reading");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw input_error(path.string() + ": read error");
  return parse_csv(ss.str(), path);
}

std::string csv_escape(std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(field);
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace pollscale::datasets
