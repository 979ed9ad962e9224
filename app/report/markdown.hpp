// A report is written as Markdown (readable as text, diffable) and rendered to HTML with
// cmark-gfm, whose table extension handles our tables.
#pragma once

#include <string>
#include <vector>

namespace pollscale::app::report {

/// A GitHub-flavoured Markdown table; cells are escaped ('|' and line breaks).
std::string md_table(const std::vector<std::string>& columns, const std::vector<std::vector<std::string>>& rows);

/// Renders Markdown (with tables) to an HTML fragment.
std::string markdown_to_html(const std::string& markdown);

/// A complete, self-contained HTML page around `body_html`.
std::string html_page(const std::string& title, const std::string& body_html);

}  // namespace pollscale::app::report
