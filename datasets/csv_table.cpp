#include "datasets/csv_table.hpp"

#include <csv.h>

#include <algorithm>
#include <exception>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>

#include "datasets/gzip_file.hpp"
#include "datasets/interruption.hpp"

namespace pollscale::datasets {
namespace {

// The header is kept; every later record goes to the sink as soon as it is complete. An
// exception from the sink (or a record of the wrong width) is caught here and rethrown
// once libcsv has returned: it must not unwind through libcsv's C frames.
struct parse_state {
  std::vector<std::string> current;
  std::size_t line = 1;
  csv_table head;  // path and header, no records
  bool have_header = false;
  const csv_record_sink* each = nullptr;
  std::exception_ptr failed;
};

extern "C" void on_field(void* data, size_t len, void* ctx) {
  auto* st = static_cast<parse_state*>(ctx);
  if (st->failed) return;
  try {
    st->current.emplace_back(data ? static_cast<const char*>(data) : "", len);
  } catch (...) {
    st->failed = std::current_exception();
  }
}

void take_record(parse_state& st) {
  const bool blank = st.current.size() == 1 && st.current[0].empty();
  if (blank) return;
  csv_record r{st.line, std::move(st.current)};
  if (!st.have_header) {
    st.head.header = std::move(r.fields);
    st.have_header = true;
    return;
  }
  if (r.fields.size() != st.head.header.size())
    throw input_error(st.head.where(r) + "expected " + std::to_string(st.head.header.size()) + " fields, found " +
                      std::to_string(r.fields.size()));
  (*st.each)(st.head, r);
}

extern "C" void on_record(int, void* ctx) {
  auto* st = static_cast<parse_state*>(ctx);
  if (!st->failed) try {
      take_record(*st);
    } catch (...) {
      st->failed = std::current_exception();
    }
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

csv_table for_each_csv_record(std::string_view text, const std::filesystem::path& name, const csv_record_sink& each) {
  std::unique_ptr<csv_parser, csv_parser_deleter> p(new csv_parser);
  if (csv_init(p.get(), CSV_STRICT | CSV_APPEND_NULL | CSV_STRICT_FINI) != 0)
    throw std::runtime_error("libcsv: csv_init failed");
  parse_state st;
  st.head.path = name;
  st.each = &each;
  // Feed one line at a time so that each record knows the line it ended on.
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    const std::size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    const std::string_view chunk = text.substr(pos, end - pos);
    const std::size_t parsed = csv_parse(p.get(), chunk.data(), chunk.size(), on_field, on_record, &st);
    if (st.failed) std::rethrow_exception(st.failed);
    if (parsed != chunk.size())
      throw input_error(name.string(), st.line, std::string("malformed CSV: ") + csv_strerror(csv_error(p.get())));
    pos = end;
    if (nl != std::string_view::npos) ++st.line;
    if (st.line % 8192 == 0) interruption_point();  // a long file: Ctrl-C within milliseconds
  }
  if (st.line > 1 && !text.empty() && text.back() == '\n') --st.line;
  const int fini = csv_fini(p.get(), on_field, on_record, &st);
  if (st.failed) std::rethrow_exception(st.failed);
  if (fini != 0) throw input_error(name.string(), st.line, "malformed CSV: unterminated quoted field");
  if (!st.have_header) throw input_error(name.string(), 1, "empty file, no header");
  return std::move(st.head);
}

csv_table parse_csv(std::string_view text, const std::filesystem::path& name) {
  std::vector<csv_record> records;
  csv_table t =
      for_each_csv_record(text, name, [&](const csv_table&, csv_record& r) { records.push_back(std::move(r)); });
  t.records = std::move(records);
  return t;
}

std::string read_csv_text(const std::filesystem::path& path) {
  // A directory opens as a stream and fails at the first read with the library's words.
  std::error_code is_dir;
  if (std::filesystem::is_directory(path, is_dir))
    throw input_error(path.string() + ": is a directory, not a CSV file");
  if (path.extension() == ".gz") return read_gzip_file(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(path.string() + ": cannot open for reading");
  std::string text;
  std::error_code ec;
  if (const auto size = std::filesystem::file_size(path, ec); !ec) text.reserve(size);
  text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad()) throw input_error(path.string() + ": read error");
  return text;
}

csv_table read_csv(const std::filesystem::path& path) { return parse_csv(read_csv_text(path), path); }

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
