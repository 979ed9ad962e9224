#include "app/report/markdown.hpp"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>

#include <memory>
#include <stdexcept>

namespace pollscale::app::report {
namespace {

std::string escape_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out;
}

}  // namespace

std::string md_table(const std::vector<std::string>& columns, const std::vector<std::vector<std::string>>& rows) {
  std::string out = "|";
  for (const auto& c : columns) out += " " + escape_cell(c) + " |";
  out += "\n|";
  for (std::size_t i = 0; i < columns.size(); ++i) out += "---|";
  out += "\n";
  for (const auto& r : rows) {
    out += "|";
    for (std::size_t i = 0; i < columns.size(); ++i)
      out += " " + (i < r.size() ? escape_cell(r[i]) : std::string{}) + " |";
    out += "\n";
  }
  return out;
}

std::string markdown_to_html(const std::string& markdown) {
  cmark_gfm_core_extensions_ensure_registered();
  std::unique_ptr<cmark_parser, decltype(&cmark_parser_free)> parser(cmark_parser_new(CMARK_OPT_DEFAULT),
                                                                     cmark_parser_free);
  cmark_syntax_extension* table = cmark_find_syntax_extension("table");
  if (!table) throw std::runtime_error("cmark-gfm: table extension not found");
  cmark_parser_attach_syntax_extension(parser.get(), table);
  cmark_parser_feed(parser.get(), markdown.data(), markdown.size());
  std::unique_ptr<cmark_node, decltype(&cmark_node_free)> doc(cmark_parser_finish(parser.get()), cmark_node_free);
  char* html = cmark_render_html(doc.get(), CMARK_OPT_DEFAULT, cmark_parser_get_syntax_extensions(parser.get()));
  std::string out(html);
  cmark_get_default_mem_allocator()->free(html);
  return out;
}

std::string html_page(const std::string& title, const std::string& body_html) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + title +
         "</title>\n<style>body{font-family:sans-serif;max-width:70em;margin:2em auto;padding:0 1em;line-height:1.4}"
         "table{border-collapse:collapse;font-size:90%}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
         "th{background:#eee}img{max-width:100%}code{background:#f4f4f4}</style></head><body>\n" +
         body_html + "</body></html>\n";
}

}  // namespace pollscale::app::report
