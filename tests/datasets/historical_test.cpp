// The historical record (datasets/historical/*.csv) against the seed texts it was
// transcribed from (the LKML threads each row's `source` names). The expected figures below
// were typed from the seeds, independently of the CSV files, so a mistyped or rounded value
// fails here. The seed texts themselves are not part of the repository: with
// POLLSCALE_SEEDS_DIR set to a directory holding them, two more tests check that every
// source names one of them and every value is printed verbatim in it.
#include "datasets/historical.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "datasets/csv_table.hpp"

namespace pollscale::datasets {
namespace {

namespace fs = std::filesystem;

const fs::path historical_dir = fs::path(POLLSCALE_SOURCE_DIR) / "datasets" / "historical";

/// The seed texts, when the environment names a directory holding them.
std::optional<fs::path> seeds_dir() {
  const char* dir = std::getenv("POLLSCALE_SEEDS_DIR");
  if (dir && *dir && fs::is_directory(dir)) return fs::path(dir);
  return std::nullopt;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// One transcribed table family: its file, the seed it came from, its published row count
/// (the seed's table cells, less the '-' entries and the repeated AIM9 baseline column),
/// and the scenario, metric and unit every row must carry.
struct family {
  std::string file;
  std::string seed;
  std::size_t rows;
  std::string scenario, metric, unit;
};

const std::vector<family>& families() {
  static const std::vector<family> f = {
      // 3 platforms: Solaris 1+3+3, Linux 2.2.14 1+3+3, Linux 2.4.0-test10-pre4 1+3.
      {"kegel_2000_poller_bench.csv", "001_f7a4936b12da3f8e.txt", 18, "find_active", "time_per_op", "us"},
      // 3 kernels x 3 pipe counts, then 2 kernels x 4 pipe counts.
      {"dan_2001_sys_poll_patch.csv", "000_0de41412d7299481.txt", 17, "find_active", "time_per_op", "us"},
      // 19 pipe counts x 3 mechanisms; 19 connection counts x 3 mechanisms.
      {"lse_2002_pipetest.csv", "003_987f0634b221eac1.txt", 57, "token_ring", "throughput", "1/s"},
      {"lse_2002_dphttpd.csv", "003_987f0634b221eac1.txt", 57, "server", "throughput", "1/s"},
      // 4 tests x (3 on Linux + 2 on Solaris + 2 on IRIX).
      {"gooch_1997_polling.csv", "004_4a94aeea0ca8ff53.txt", 28, "fd_range", "time_per_call", "us"},
      // 6 AIM9 tests x (baseline, slab1, slab2).
      {"aim9_2007_slab.csv", "002_abad32a7d23794c3.txt", 18, "ipc", "throughput", "1/s"},
  };
  return f;
}

std::vector<historical_row> rows_of(const family& f) { return read_historical(historical_dir / f.file); }

/// What identifies one published cell, besides the family's fixed columns.
struct cell {
  std::string mechanism;
  std::string variant;
  std::optional<std::int64_t> n_fds;
  std::string platform;
  std::string kernel;
};

bool matches(const historical_row& r, const cell& c) {
  return r.k.mechanism == c.mechanism && r.k.variant == c.variant && r.k.n_fds == c.n_fds && r.platform == c.platform &&
         r.kernel == c.kernel;
}

std::vector<double> values_at(const std::vector<historical_row>& rows, const cell& c) {
  std::vector<double> out;
  for (const auto& r : rows)
    if (matches(r, c)) out.push_back(r.value);
  return out;
}

/// The one row at `c`; fails the test when there is none or more than one.
historical_row only_row(const std::vector<historical_row>& rows, const cell& c) {
  std::vector<historical_row> hits;
  std::copy_if(rows.begin(), rows.end(), std::back_inserter(hits),
               [&](const historical_row& r) { return matches(r, c); });
  EXPECT_EQ(hits.size(), 1u) << c.mechanism << "/" << c.variant << " n=" << (c.n_fds ? *c.n_fds : -1) << " on "
                             << c.platform << ", " << c.kernel;
  return hits.empty() ? historical_row{} : hits.front();
}

TEST(HistoricalTest, DirectoryHoldsExactlyTheTranscribedFamilies) {
  std::set<std::string> present;
  for (const auto& e : fs::directory_iterator(historical_dir))
    if (e.path().extension() == ".csv") present.insert(e.path().filename().string());
  std::set<std::string> expected;
  for (const auto& f : families()) expected.insert(f.file);
  EXPECT_EQ(present, expected);
}

TEST(HistoricalTest, EveryFileLoadsWithThePublishedRowCount) {
  std::size_t total = 0;
  for (const auto& f : families()) {
    const auto rows = rows_of(f);
    EXPECT_EQ(rows.size(), f.rows) << f.file;
    total += f.rows;
    for (const auto& r : rows) {
      EXPECT_EQ(r.k.scenario, f.scenario) << f.file << ":" << r.line;
      EXPECT_EQ(r.k.metric, f.metric) << f.file << ":" << r.line;
      EXPECT_EQ(r.k.unit, f.unit) << f.file << ":" << r.line;
      EXPECT_FALSE(r.kernel.empty()) << f.file << ":" << r.line;
    }
  }
  EXPECT_EQ(read_historical_dir(historical_dir).size(), total);
}

TEST(HistoricalTest, KegelPollerBenchMatchesSeed001) {
  const auto rows = rows_of(families()[0]);
  const std::string sun = "Sun Ultra-1 167 MHz", piii = "dual Pentium III 650 MHz";
  const std::string solaris = "SunOS 5.7 (Solaris 7) Generic_106541-11";
  const std::string k22 = "2.2.14smp + /dev/poll patch", k24 = "2.4.0-test10-pre4 smp";
  EXPECT_EQ(rows.front().value, 151);   // Solaris select, 100 pipes
  EXPECT_EQ(rows.back().value, 14660);  // 2.4.0-test10-pre4 poll, 10000 pipes
  EXPECT_EQ(only_row(rows, {"select", "", 100, sun, solaris}).value, 151);
  EXPECT_EQ(only_row(rows, {"devpoll", "", 10000, sun, solaris}).value, 92);
  EXPECT_EQ(only_row(rows, {"poll", "", 1000, piii, k22}).value, 890);
  EXPECT_EQ(only_row(rows, {"devpoll", "", 10000, piii, k22}).value, 4264);
  EXPECT_EQ(only_row(rows, {"select", "", 100, piii, k24}).value, 52);
  EXPECT_EQ(only_row(rows, {"poll", "", 10000, piii, k24}).value, 14660);
  // '-' in the source: select beyond 100 pipes was not published, so no row exists.
  EXPECT_TRUE(values_at(rows, {"select", "", 1000, sun, solaris}).empty());
  EXPECT_TRUE(values_at(rows, {"devpoll", "", 100, piii, k24}).empty());
  for (const auto& r : rows) {
    EXPECT_EQ(r.k.n_active, 1);
    EXPECT_EQ(r.k.blocking, 0);
    EXPECT_EQ(r.k.fd_kind, "pipe");
  }
}

TEST(HistoricalTest, DanSysPollPatchMatchesSeed000) {
  const auto rows = rows_of(families()[1]);
  const std::string piii = "dual Pentium III 650 MHz";
  EXPECT_EQ(rows.front().value, 49);    // 2.4.0-t10pre4, 100 pipes
  EXPECT_EQ(rows.back().value, 44903);  // 2.4.0-pp, 30000 pipes
  EXPECT_EQ(only_row(rows, {"poll", "", 1000, piii, "2.4.0-t10pre4"}).value, 1184);
  EXPECT_EQ(only_row(rows, {"poll", "pp", 1000, piii, "2.4.0"}).value, 1103);
  EXPECT_EQ(only_row(rows, {"poll", "", 1, piii, "2.4.0"}).value, 7);
  EXPECT_EQ(only_row(rows, {"poll", "pp", 8, piii, "2.4.0"}).value, 8);
  EXPECT_EQ(only_row(rows, {"poll", "", 30000, piii, "2.4.0"}).value, 45843);
  // 10000 pipes appears in both of Dan's tables: two runs, both kept.
  auto plain = values_at(rows, {"poll", "", 10000, piii, "2.4.0"});
  auto patched = values_at(rows, {"poll", "pp", 10000, piii, "2.4.0"});
  std::sort(plain.begin(), plain.end());
  std::sort(patched.begin(), patched.end());
  EXPECT_EQ(plain, (std::vector<double>{14600, 14702}));
  EXPECT_EQ(patched, (std::vector<double>{14205, 14321}));
}

TEST(HistoricalTest, LsePipetestMatchesSeed003) {
  const auto rows = rows_of(families()[2]);
  const std::string lse = rows.front().platform, k = "2.5.x SMP (release not given)";
  EXPECT_EQ(rows.front().value, 289160);  // sys_epoll 0.9, 10 pipes
  EXPECT_EQ(rows.back().value, 38);       // poll, 16000 pipes
  EXPECT_EQ(only_row(rows, {"epoll", "0.14", 10, lse, k}).value, 285510);
  EXPECT_EQ(only_row(rows, {"poll", "", 10, lse, k}).value, 98469);
  EXPECT_EQ(only_row(rows, {"epoll", "0.9", 5000, lse, k}).value, 274687);
  EXPECT_EQ(only_row(rows, {"poll", "", 5000, lse, k}).value, 295);
  EXPECT_EQ(only_row(rows, {"epoll", "0.14", 16000, lse, k}).value, 272928);
  for (const auto& r : rows) EXPECT_EQ(r.k.fd_kind, "pipe");
}

TEST(HistoricalTest, LseDphttpdMatchesSeed003) {
  const auto rows = rows_of(families()[3]);
  const std::string lse = rows.front().platform, k = "2.5.x SMP (release not given)";
  EXPECT_EQ(rows.front().value, 13459.7);  // sys_epoll 0.9, 0 connections
  EXPECT_EQ(rows.back().value, 414.5);     // poll, 60000 connections
  EXPECT_EQ(only_row(rows, {"poll", "", 0, lse, k}).value, 13331.1);
  EXPECT_EQ(only_row(rows, {"epoll", "0.14", 400, lse, k}).value, 13507.5);
  EXPECT_EQ(only_row(rows, {"epoll", "0.9", 400, lse, k}).value, 13507.5);
  EXPECT_EQ(only_row(rows, {"poll", "", 1000, lse, k}).value, 12900.2);
  EXPECT_EQ(only_row(rows, {"epoll", "0.9", 45000, lse, k}).value, 12644.8);
  EXPECT_EQ(only_row(rows, {"epoll", "0.14", 60000, lse, k}).value, 13781.0);
  for (const auto& r : rows) EXPECT_EQ(r.k.fd_kind, "tcp");
}

TEST(HistoricalTest, GoochPollingMatchesSeed004) {
  const auto rows = rows_of(families()[4]);
  const std::string linux_k = "Linux 2.1.51 + Gooch's submitted patches";
  EXPECT_EQ(rows.front().value, 619);  // Pentium 100 select, descriptors 24-1023
  EXPECT_EQ(rows.back().value, 1993);  // IRIX poll, descriptors 924-1023
  EXPECT_EQ(only_row(rows, {"poll", "", 1000, "Pentium 100", linux_k}).value, 893);
  EXPECT_EQ(only_row(rows, {"poll2", "", 100, "Pentium 100", linux_k}).value, 73);
  EXPECT_EQ(only_row(rows, {"poll", "", 500, "HyperSPARC 90", "Solaris 2.5"}).value, 983);
  EXPECT_EQ(only_row(rows, {"select", "", 1000, "SGI R8000 75 MHz", "IRIX 6.2"}).value, 69483);
  EXPECT_EQ(only_row(rows, {"select", "", 200, "SGI R8000 75 MHz", "IRIX 6.2"}).value, 4536);
  // poll2 was Gooch's Linux patch: the Solaris and IRIX tables have no poll2 line.
  EXPECT_TRUE(values_at(rows, {"poll2", "", 1000, "HyperSPARC 90", "Solaris 2.5"}).empty());
  for (const auto& r : rows) {
    EXPECT_EQ(r.k.max_fd, 1023);
    EXPECT_EQ(r.k.n_active, 10);
    EXPECT_EQ(r.k.active_pos, "top");
    EXPECT_EQ(r.k.fd_kind, "");
  }
}

TEST(HistoricalTest, Aim9SlabMatchesSeed002) {
  const auto rows = rows_of(families()[5]);
  const std::string p = rows.front().platform;
  const auto at = [&](const std::string& fd_kind, const std::string& variant) {
    std::vector<historical_row> hits;
    for (const auto& r : rows)
      if (r.k.fd_kind == fd_kind && r.k.variant == variant) hits.push_back(r);
    EXPECT_EQ(hits.size(), 1u) << fd_kind << " " << variant;
    return hits.empty() ? historical_row{} : hits.front();
  };
  EXPECT_EQ(rows.front().value, 2124.48);  // tcp_test, 2.6.21-rc5
  EXPECT_EQ(rows.front().stddev, 10.85);
  EXPECT_EQ(rows.back().value, 27870.70);  // pipe_cpy, 2.6.21-rc5-slab2
  EXPECT_EQ(rows.back().stddev, 65.50);
  const auto fifo = at("fifo", "slab1");
  EXPECT_EQ(fifo.value, 19675.97);
  EXPECT_EQ(fifo.stddev, 56.35);
  EXPECT_EQ(fifo.kernel, "2.6.21-rc5-slab1");
  const auto stream = at("socketpair", "slab2+stream");
  EXPECT_EQ(stream.value, 9940.87);
  EXPECT_EQ(stream.stddev, 280.73);
  EXPECT_EQ(at("socketpair", "baseline+dgram").value, 9460.18);
  EXPECT_EQ(at("udp", "slab2").stddev, 62.31);
  EXPECT_EQ(at("pipe", "baseline").kernel, "2.6.21-rc5");
  for (const auto& r : rows) {
    EXPECT_TRUE(r.stddev.has_value()) << "line " << r.line;
    EXPECT_EQ(r.k.threads, 1);
    EXPECT_EQ(r.platform, p);
  }
}

TEST(HistoricalTest, NoTwoRowsClaimTheSameCellUnlessTheSourceRepeatsIt) {
  for (const auto& f : families()) {
    std::map<std::tuple<key, std::string, std::string>, int> seen;
    int repeats = 0;
    for (const auto& r : rows_of(f))
      if (++seen[{r.k, r.platform, r.kernel}] > 1) ++repeats;
    // Dan's rerun table repeats 10000 pipes for 2.4.0 and 2.4.0-pp (two runs each).
    EXPECT_EQ(repeats, f.file == "dan_2001_sys_poll_patch.csv" ? 2 : 0) << f.file;
  }
}

TEST(HistoricalTest, EverySourceNamesAnExistingSeedFile) {
  const auto seeds = seeds_dir();
  if (!seeds) GTEST_SKIP() << "POLLSCALE_SEEDS_DIR names no directory of seed texts";
  for (const auto& f : families()) {
    for (const auto& r : rows_of(f)) {
      const std::string prefix = "seeds/" + f.seed + "; ";
      ASSERT_EQ(r.source.rfind(prefix, 0), 0u) << f.file << ":" << r.line << ": " << r.source;
      EXPECT_TRUE(fs::is_regular_file(*seeds / f.seed)) << f.seed;
    }
  }
}

/// True when `token` occurs in `text` not as part of a longer number.
bool has_number_token(const std::string& text, const std::string& token) {
  const auto numeric = [](char c) { return (c >= '0' && c <= '9') || c == '.'; };
  for (auto pos = text.find(token); pos != std::string::npos; pos = text.find(token, pos + 1)) {
    const bool left = pos == 0 || !numeric(text[pos - 1]);
    const auto end = pos + token.size();
    const bool right = end == text.size() || !numeric(text[end]) ||
                       (text[end] == '.' && (end + 1 == text.size() || !numeric(text[end + 1])));
    if (left && right) return true;
  }
  return false;
}

TEST(HistoricalTest, EveryValueIsAVerbatimNumberOfItsSeed) {
  const auto seeds = seeds_dir();
  if (!seeds) GTEST_SKIP() << "POLLSCALE_SEEDS_DIR names no directory of seed texts";
  for (const auto& f : families()) {
    const std::string seed = slurp(*seeds / f.seed);
    const csv_table t = read_csv(historical_dir / f.file);
    for (const auto& r : t.records) {
      for (auto column : {"value", "stddev"}) {
        const std::string& text = r.fields[t.require_column(column)];
        if (text.empty()) continue;
        EXPECT_TRUE(has_number_token(seed, text))
            << t.where(r) << column << " '" << text << "' is not printed in " << f.seed;
      }
    }
  }
}

TEST(HistoricalTest, NumberTokenMatchingRejectsPartsOfLongerNumbers) {
  EXPECT_TRUE(has_number_token("select 151 - -", "151"));
  EXPECT_TRUE(has_number_token("ends in 92.", "92"));
  EXPECT_FALSE(has_number_token("poll 1184 14660", "118"));
  EXPECT_FALSE(has_number_token("13781.0", "13781"));
  EXPECT_FALSE(has_number_token("2124.48", "124.48"));
}

// The CPU-scaling tables (datasets/historical/scaling/, docs/historical.md): Roman
// Penyaev's stress-epoll figures from two kernel patches, events/ms against producer
// threads, typed here again from the commit messages.
TEST(HistoricalTest, ScalingTablesHoldThePublishedStressEpollFigures) {
  const auto rows = read_historical(historical_dir / "scaling" / "penyaev_stress_epoll.csv");
  ASSERT_EQ(rows.size(), 16u);  // 2019: two columns x 3 thread counts; 2020: two tables x 5
  for (const auto& r : rows) {
    EXPECT_EQ(r.k.scenario, "producers") << r.line;  // vocabulary: the scenario under test
    EXPECT_EQ(r.k.unit, "1/ms") << r.line;
    ASSERT_TRUE(r.k.threads && r.k.n_fds) << r.line;
    EXPECT_EQ(*r.k.threads, *r.k.n_fds + 1) << r.line;  // one eventfd per producer, and the consumer
  }
  auto at = [&](const std::string& kernel_part, std::int64_t producers) {
    std::vector<double> v;
    for (const auto& r : rows)
      if (r.kernel.find(kernel_part) != std::string::npos && r.k.n_fds == producers) v.push_back(r.value);
    EXPECT_EQ(v.size(), 1u) << kernel_part << " " << producers;
    return v.empty() ? -1.0 : v.front();
  };
  EXPECT_EQ(at("ep->lock a spinlock", 8), 6402);
  EXPECT_EQ(at("rwlock + xchg", 32), 13223);
  EXPECT_EQ(at("explicit wakeup", 128), 6991);
  EXPECT_EQ(at("atomically remove", 64), 7640);
  EXPECT_EQ(at("atomically remove", 8), 5598);
}

}  // namespace
}  // namespace pollscale::datasets
