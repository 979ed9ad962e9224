#include "datasets/gzip_file.hpp"

#include <zlib.h>

#include <memory>

#include "datasets/csv_table.hpp"

namespace pollscale::datasets {
namespace {

struct gz_closer {
  void operator()(gzFile f) const { gzclose(f); }
};

std::string zlib_reason(gzFile f) {
  int code = Z_OK;
  const char* text = gzerror(f, &code);
  return text && *text ? text : "read error";
}

}  // namespace

std::string read_gzip_file(const std::filesystem::path& path) {
  std::unique_ptr<gzFile_s, gz_closer> f(gzopen(path.c_str(), "rb"));
  if (!f) throw input_error(path.string() + ": cannot open for reading");
  // zlib passes non-gzip bytes through unchanged ("transparent" mode); a .gz that is not
  // gzip is a mistake worth naming rather than parsing as text.
  std::string out;
  char buffer[1 << 16];
  for (;;) {
    const int got = gzread(f.get(), buffer, sizeof buffer);
    if (got < 0) throw input_error(path.string() + ": not readable as gzip (" + zlib_reason(f.get()) + ")");
    if (gzdirect(f.get())) throw input_error(path.string() + ": not gzip data");
    if (got == 0) break;
    out.append(buffer, static_cast<std::size_t>(got));
  }
  // gzread reports a stream cut short only through gzerror (Z_BUF_ERROR) at the end.
  int code = Z_OK;
  gzerror(f.get(), &code);
  if (code != Z_OK) throw input_error(path.string() + ": not readable as gzip (" + zlib_reason(f.get()) + ")");
  return out;
}

}  // namespace pollscale::datasets
