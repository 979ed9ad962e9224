// What every subcommand shares: the usage error type, the parsed output format and the
// signature of a subcommand's entry point.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <boost/program_options.hpp>

#include "datasets/input_error.hpp"

namespace pollscale::app {

/// Bad usage or a bad flag value: a kind of datasets::input_error, so main prints
/// "pollscale: <message>" and exits 2 for it and for every reader's complaint alike.
class usage_error : public datasets::input_error {
 public:
  explicit usage_error(const std::string& message) : datasets::input_error(message) {}
};

enum class output_format { table, csv, json };

/// Parses "table", "csv" or "json"; throws usage_error naming --format otherwise.
output_format parse_format(std::string_view text);

/// A subcommand: receives its own arguments (argv after the subcommand name).
using command_fn = std::function<int(const std::vector<std::string>& args)>;

struct command {
  std::string_view name;
  std::string_view summary;  ///< one line for `pollscale --help`
  command_fn run;
};

/// An option's typed value, shown in --help as `--name PLACEHOLDER` (FILE, DIR, N, ...)
/// instead of Boost's "arg".
template <typename T>
boost::program_options::typed_value<T>* arg(const char* placeholder) {
  return boost::program_options::value<T>()->value_name(placeholder);
}

/// Parses `args` against `opts` (and positional `pos`), turning every Boost error into a
/// usage_error that names the flag. Option names must be spelled in full: a unique prefix is
/// not guessed, so adding an option never breaks a script. Returns false after printing help when --help is given.
/// `hidden` options are accepted but not listed (older spellings kept for scripts).
bool parse_command_line(const std::vector<std::string>& args, const boost::program_options::options_description& opts,
                        const boost::program_options::positional_options_description& pos,
                        boost::program_options::variables_map& vm, std::string_view usage,
                        const boost::program_options::options_description& hidden = {});

/// A comma list of a flag's values ("" gives none). An empty item ("10,,20", "poll,") is a
/// usage_error naming --flag rather than dropped: it is most often a value the user meant.
std::vector<std::string> split_list(const std::string& text, const char* flag);

/// A comma list of counts in 1..1000000 ("1,2,4,16"), else a usage_error naming --flag and
/// the item.
std::vector<std::int64_t> parse_count_list(const std::string& text, const char* flag);

/// A duration in seconds from a flag's text: a number with an optional unit — s (the
/// default), ms, us or µs, ns — such as "2ms", "500us", "0.002". Finite and > 0, else a
/// usage_error naming --flag and the text.
double parse_duration_s(const std::string& text, const char* flag);

/// A seed from --seed's text: a decimal integer in 0 .. 2^64 - 1, else a usage_error naming
/// the text (Boost would read "-1" as 2^64 - 1 without a word).
std::uint64_t parse_seed(const std::string& text);

}  // namespace pollscale::app
