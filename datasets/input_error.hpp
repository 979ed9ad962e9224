// Bad input as one exception type: a file and the line in it, a flag, or a value the user
// gave. Every reader throws it (a CSV, a dataset, a historical table, model.json, a costs
// file), the app's flag parsing throws its usage_error, which is one of these, and
// app/main.cpp turns it into one line on stderr and exit 2 in one place — so no reader can
// turn bad input into exit 1 by throwing some other type.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace pollscale::datasets {

class input_error : public std::runtime_error {
 public:
  /// what() is "source:line: detail", or "source: detail" when line is 0.
  input_error(std::string source, std::size_t line, std::string detail);
  /// A message that already names its culprit ("--rate: must be > 0", "path:3: ...").
  explicit input_error(const std::string& message);

  const std::string& source() const noexcept { return source_; }  ///< a path or a flag; "" when unstructured
  std::size_t line() const noexcept { return line_; }             ///< 1-based; 0 when none
  const std::string& detail() const noexcept { return detail_; }  ///< what is wrong there

 private:
  std::string source_;
  std::size_t line_ = 0;
  std::string detail_;
};

}  // namespace pollscale::datasets
