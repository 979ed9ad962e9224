#include "datasets/dataset.hpp"
#include "datasets/interruption.hpp"
#include "datasets/memory_budget.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <system_error>

#include "datasets/atomic_file.hpp"
#include "datasets/csv_table.hpp"
#include "datasets/dataset_files.hpp"
#include "datasets/historical.hpp"
#include "datasets/json_file.hpp"
#include "datasets/memory_budget.hpp"

namespace pollscale::datasets {
namespace {

namespace fs = std::filesystem;

class DatasetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pollscale_ds_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static dataset small() {
    dataset d;
    d.context = {{"schema_version", schema_version}, {"host", "test"}};
    key k;
    k.scenario = "find_active";
    k.mechanism = "poll";
    k.fd_kind = "pipe";
    k.n_fds = 10;
    k.metric = "time_per_call";
    k.unit = "ns";
    for (int i = 0; i < 7; ++i) d.samples.push_back({k, i, 100.0 + i * 0.1, 1, 0, {}, {}, {}, {}});
    k.n_fds = 100;
    for (int i = 0; i < 7; ++i) d.samples.push_back({k, i, 1000.0 / 3 + i, 1, 0, {}, {}, {}, {}});
    d.summaries = summarise_samples(d.samples);
    return d;
  }

  // Hand-edited files stand for files made elsewhere (an older pollscale, another tool):
  // without the write's list of files, which would refuse them as not its own.
  void hand_edited() { fs::remove(dir_ / dataset_files_name); }

  void replace_in(const std::string& file, const std::string& from, const std::string& to) {
    hand_edited();
    std::ifstream in(dir_ / file);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto pos = text.find(from);
    ASSERT_NE(pos, std::string::npos) << from;
    text.replace(pos, from.size(), to);
    std::ofstream(dir_ / file) << text;
  }

  std::string read_error() {
    try {
      read_dataset(dir_);
    } catch (const input_error& e) {
      return e.what();
    }
    return "no error";
  }

  fs::path dir_;
};

TEST_F(DatasetTest, RoundTripIsExact) {
  const dataset d = small();
  write_dataset(dir_, d);
  const dataset back = read_dataset(dir_);
  ASSERT_EQ(back.samples.size(), d.samples.size());
  for (std::size_t i = 0; i < d.samples.size(); ++i) {
    EXPECT_EQ(back.samples[i].k, d.samples[i].k);
    EXPECT_EQ(back.samples[i].value, d.samples[i].value);  // shortest round-trip text
  }
  ASSERT_EQ(back.summaries.size(), 2u);
  EXPECT_EQ(back.summaries[1].s.median, d.summaries[1].s.median);
  EXPECT_EQ(back.context["host"], "test");
  // Atomic writes leave no temporary files behind.
  for (const auto& e : fs::directory_iterator(dir_)) EXPECT_NE(e.path().filename().string()[0], '.');
}

TEST_F(DatasetTest, VisitsMomentsSentinelAndMarksRoundTrip) {
  dataset d = small();
  for (std::size_t i = 0; i < d.samples.size(); ++i) {
    d.samples[i].visit = static_cast<std::int64_t>(i % 3);
    d.samples[i].t_s = 0.25 * static_cast<double>(i);
    if (i % 2) d.samples[i].sentinel_ns = 1000.0 + static_cast<double>(i);
    if (i % 3) d.samples[i].wake_sentinel_ns = 19000.5 + static_cast<double>(i);
    if (i % 4) d.samples[i].placement_ns = i % 2 ? 65.5 : 455.25;
  }
  d.summaries = summarise_samples(d.samples);
  d.sentinel = {{0.0, 1001.5, 360}, {0.5, 1650.25, 360}};
  d.wake_sentinel = {{0.0, 19250.5, 72}, {1.25, 26012.0, 72}, {2.5, 19311.0, 72}};
  d.placement_sentinel = {{0.0, 455.25, 1000}, {1.5, 65.5, 1000}};
  d.consistency = {"op_below_call", ""};
  write_dataset(dir_, d);
  const dataset back = read_dataset(dir_);
  ASSERT_EQ(back.samples.size(), d.samples.size());
  for (std::size_t i = 0; i < d.samples.size(); ++i) {
    EXPECT_EQ(back.samples[i].visit, d.samples[i].visit);
    EXPECT_EQ(back.samples[i].t_s, d.samples[i].t_s);
    EXPECT_EQ(back.samples[i].sentinel_ns, d.samples[i].sentinel_ns);  // absent stays absent
    EXPECT_EQ(back.samples[i].wake_sentinel_ns, d.samples[i].wake_sentinel_ns);
    EXPECT_EQ(back.samples[i].placement_ns, d.samples[i].placement_ns);
  }
  ASSERT_EQ(back.wake_sentinel.size(), 3u);
  EXPECT_EQ(back.wake_sentinel[1].t_s, 1.25);
  EXPECT_EQ(back.wake_sentinel[1].ns_per_call, 26012.0);
  EXPECT_EQ(back.wake_sentinel[1].calls, 72);
  ASSERT_EQ(back.placement_sentinel.size(), 2u);
  EXPECT_EQ(back.placement_sentinel[1].t_s, 1.5);
  EXPECT_EQ(back.placement_sentinel[1].ns_per_call, 65.5);
  EXPECT_EQ(back.placement_sentinel[1].calls, 1000);
  ASSERT_EQ(back.sentinel.size(), 2u);
  EXPECT_EQ(back.sentinel[1].ns_per_call, 1650.25);
  EXPECT_EQ(back.sentinel[1].calls, 360);
  EXPECT_EQ(back.consistency, d.consistency);
  // Summaries are rebuilt from the visits the same way after reading.
  const auto again = summarise_samples(back.samples);
  EXPECT_EQ(again[0].s.ci95_hi, d.summaries[0].s.ci95_hi);
}

TEST_F(DatasetTest, DatasetsWithoutVisitColumnsReadAsOneVisit) {
  write_dataset(dir_, small());
  // An older samples.csv: no visit, t_s or sentinel columns; no sentinel files.
  replace_in("samples.csv", "rep,value,batch,visit,t_s,sentinel_ns,wake_sentinel_ns,placement_ns", "rep,value,batch");
  {
    std::ifstream in(dir_ / "samples.csv");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()), out, line;
    std::istringstream lines(text);
    std::getline(lines, line);
    out = line + "\n";
    while (std::getline(lines, line)) out += line.substr(0, line.size() - 6) + "\n";  // drop ",0,,,,"
    std::ofstream(dir_ / "samples.csv") << out;
  }
  const dataset back = read_dataset(dir_);
  for (const auto& s : back.samples) {
    EXPECT_EQ(s.visit, 0);
    EXPECT_FALSE(s.t_s.has_value());
    EXPECT_FALSE(s.sentinel_ns.has_value());
    EXPECT_FALSE(s.wake_sentinel_ns.has_value());
    EXPECT_FALSE(s.placement_ns.has_value());
  }
  EXPECT_TRUE(back.sentinel.empty());
  EXPECT_TRUE(back.wake_sentinel.empty());
  EXPECT_TRUE(back.placement_sentinel.empty());
}

TEST_F(DatasetTest, RejectsFractionalOrNegativeVisitAndBadSentinel) {
  dataset d = small();
  d.sentinel = {{0.0, 1000, 36}};
  d.wake_sentinel = {{0.0, 20000, 72}};
  write_dataset(dir_, d);
  replace_in("samples.csv", ",1,0,,,,\n", ",1,1.5,,,,\n");
  EXPECT_NE(read_error().find("'visit'"), std::string::npos) << read_error();
  write_dataset(dir_, d);
  replace_in("sentinel.csv", "0,1000,36", "0,-1000,36");
  EXPECT_NE(read_error().find("sentinel.csv:2"), std::string::npos) << read_error();
  write_dataset(dir_, d);
  replace_in("wake_sentinel.csv", "0,20000,72", "0,20000,7.5");
  EXPECT_NE(read_error().find("wake_sentinel.csv:2: column 'round_trips'"), std::string::npos) << read_error();
}

// One row per point: a summary with the same key twice (two calibrations merged by hand)
// is refused naming both lines, not fitted as if the point had been measured twice.
TEST_F(DatasetTest, RejectsTheSamePointTwice) {
  write_dataset(dir_, small());
  hand_edited();
  {
    std::ifstream in(dir_ / "summary.csv");
    std::string header, first;
    std::getline(in, header);
    std::getline(in, first);
    std::ofstream(dir_ / "summary.csv", std::ios::app) << first << "\n";
  }
  const std::string e = read_error();
  EXPECT_NE(e.find("summary.csv:4: the same point as line 2"), std::string::npos) << e;
}

// A long read stops at its next interruption point once the app's check throws (Ctrl-C):
// every 8192 lines of a CSV and every 8192 rows of a table, never at the end only.
TEST_F(DatasetTest, ALongReadStopsAtItsNextInterruptionPoint) {
  dataset d = small();
  const key base = d.samples.front().k;
  d.samples.clear();
  for (int n = 1; n <= 20000; ++n) {  // 20000 points, 40000 samples
    key k = base;
    k.n_fds = n;
    for (int i = 0; i < 2; ++i) d.samples.push_back({k, i, 100.0 + n + i, 1, 0, {}, {}, {}, {}});
  }
  d.summaries = summarise_samples(d.samples);
  write_dataset(dir_, d);
  struct stop {};
  int calls = 0;
  set_interruption_check([&] {
    if (++calls == 3) throw stop{};
  });
  EXPECT_THROW(read_dataset(dir_), stop);
  EXPECT_EQ(calls, 3);
  set_interruption_check({});
  EXPECT_EQ(read_dataset(dir_).summaries.size(), 20000u);  // without a check, read whole
}

TEST_F(DatasetTest, RejectsNaNNamingFileAndLine) {
  write_dataset(dir_, small());
  replace_in("samples.csv", ",100.1,", ",nan,");
  EXPECT_EQ(read_error(), (dir_ / "samples.csv").string() + ":3: column 'value': not finite ('nan')");
}

TEST_F(DatasetTest, RejectsNegativeEmptyAndTextValues) {
  write_dataset(dir_, small());
  replace_in("samples.csv", ",100.1,", ",-5,");
  EXPECT_NE(read_error().find("samples.csv:3: column 'value': negative value -5"), std::string::npos);
  write_dataset(dir_, small());
  replace_in("samples.csv", ",100.1,", ",,");
  EXPECT_NE(read_error().find("samples.csv:3: column 'value': '' is not a number"), std::string::npos);
  write_dataset(dir_, small());
  replace_in("samples.csv", ",100.1,", ",fast,");
  EXPECT_NE(read_error().find(":3: column 'value': 'fast' is not a number"), std::string::npos);
}

TEST_F(DatasetTest, RejectsMissingColumnUnknownMechanismAndBadSummary) {
  write_dataset(dir_, small());
  replace_in("samples.csv", "scenario,", "scenery,");
  EXPECT_NE(read_error().find("samples.csv:1: missing column 'scenario'"), std::string::npos);
  write_dataset(dir_, small());
  replace_in("samples.csv", "find_active,poll,", "find_active,pole,");
  EXPECT_NE(read_error().find("samples.csv:2: column 'mechanism': unknown name 'pole'"), std::string::npos);
  write_dataset(dir_, small());
  replace_in("summary.csv", ",100.3,", ",1e9,");  // a median above the max
  EXPECT_NE(read_error().find("summary.csv:2: inconsistent summary"), std::string::npos);
}

TEST_F(DatasetTest, RejectsMissingFilesAndBadContext) {
  EXPECT_NE(read_error().find("not a dataset directory"), std::string::npos);
  write_dataset(dir_, small());
  hand_edited();
  std::ofstream(dir_ / "context.json") << "{\"schema_version\": ";
  EXPECT_NE(read_error().find("context.json: invalid JSON"), std::string::npos);
  std::ofstream(dir_ / "context.json") << "{\"schema_version\": 99}";
  EXPECT_NE(read_error().find("schema_version 99 is not supported"), std::string::npos);
  write_dataset(dir_, small());
  hand_edited();
  fs::remove(dir_ / "summary.csv");
  EXPECT_NE(read_error().find("summary.csv: cannot open"), std::string::npos);
}

// The machine corpus keeps samples.csv (and sentinel.csv) gzipped; a dataset reads the same
// from either form, and a damaged or mislabelled .gz is named, not parsed as garbage.
// A dataset too large for half the machine's memory is refused before it is read, with the
// arithmetic; a gzipped samples file counts at its uncompressed size (its gzip trailer).
TEST_F(DatasetTest, ADatasetTooLargeForMemoryIsRefusedWithTheArithmetic) {
  write_dataset(dir_, small());
  hand_edited();
  EXPECT_NO_THROW(check_dataset_memory(dir_, UINT64_MAX));
  const std::uint64_t summary = fs::file_size(dir_ / "summary.csv"), samples = fs::file_size(dir_ / "samples.csv");
  try {
    check_dataset_memory(dir_, 1000);
    FAIL() << "not refused";
  } catch (const input_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(": reading it would take about "), std::string::npos) << m;
    EXPECT_NE(
        m.find(std::to_string(summary) + " B of summary.csv x 6, " + std::to_string(samples) + " B of samples x 5"),
        std::string::npos)
        << m;
    EXPECT_NE(m.find("more than half of this machine's memory"), std::string::npos) << m;
  }
  {
    std::ifstream in(dir_ / "samples.csv", std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    gzFile f = gzopen((dir_ / "samples.csv.gz").c_str(), "wb9");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
    ASSERT_EQ(gzclose(f), Z_OK);
  }
  EXPECT_EQ(content_bytes(dir_ / "samples.csv.gz"), samples);
  EXPECT_EQ(content_bytes(dir_ / "no-such-file"), 0u);
  // Cut short, its last four bytes are data, not the trailer: read as the file's size
  // rather than as the gigabytes those bytes may spell.
  std::ofstream(dir_ / "cut.csv.gz", std::ios::binary) << std::string(100, 'x') + std::string("\xff\xff\xff\x7f");
  EXPECT_EQ(content_bytes(dir_ / "cut.csv.gz"), 104u);
}

TEST_F(DatasetTest, GzippedSamplesReadLikePlainOnesAndDamageIsNamed) {
  dataset d = small();
  d.sentinel = {{0.0, 1001.5, 360}};
  write_dataset(dir_, d);
  hand_edited();
  auto gzip = [&](const std::string& name) {
    std::ifstream in(dir_ / name, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    gzFile f = gzopen((dir_ / (name + ".gz")).c_str(), "wb9");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
    ASSERT_EQ(gzclose(f), Z_OK);
    fs::remove(dir_ / name);
  };
  gzip("samples.csv");
  gzip("sentinel.csv");
  const dataset back = read_dataset(dir_);
  ASSERT_EQ(back.samples.size(), d.samples.size());
  EXPECT_EQ(back.samples.back().value, d.samples.back().value);
  ASSERT_EQ(back.sentinel.size(), 1u);
  EXPECT_EQ(back.sentinel[0].ns_per_call, 1001.5);

  // Cut short: the reader names the file instead of returning the first half.
  fs::resize_file(dir_ / "samples.csv.gz", fs::file_size(dir_ / "samples.csv.gz") / 2);
  EXPECT_NE(read_error().find("samples.csv.gz: not readable as gzip"), std::string::npos) << read_error();
  // Plain text under a .gz name.
  std::ofstream(dir_ / "samples.csv.gz") << "scenario,mechanism\n";
  EXPECT_NE(read_error().find("samples.csv.gz: not gzip data"), std::string::npos) << read_error();
  // Neither form: the plain name is the one reported missing.
  fs::remove(dir_ / "samples.csv.gz");
  EXPECT_NE(read_error().find("samples.csv: cannot open"), std::string::npos) << read_error();
}

// -o and --out may name a symlink, a device or a directory: a symlink keeps pointing where
// it did (the file it names is replaced), a device is written to and stays a device, a
// directory is refused naming it.
TEST_F(DatasetTest, AtomicWritesReplaceRegularFilesOnly) {
  fs::create_directories(dir_ / "real");
  std::ofstream(dir_ / "real" / "model.json") << "old";
  fs::create_symlink(dir_ / "real" / "model.json", dir_ / "link.json");
  write_file_atomically(dir_ / "link.json", "new");
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.json"));
  std::ifstream in(dir_ / "real" / "model.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "new");
  fs::create_symlink(dir_ / "real" / "absent.json", dir_ / "dangling.json");
  write_file_atomically(dir_ / "dangling.json", "made");
  EXPECT_TRUE(fs::is_symlink(dir_ / "dangling.json"));
  EXPECT_TRUE(fs::is_regular_file(dir_ / "real" / "absent.json"));

  write_file_atomically("/dev/null", "discarded");
  EXPECT_TRUE(fs::is_character_file("/dev/null"));

  try {
    write_file_atomically(dir_ / "real", "x");
    FAIL() << "a directory was replaced";
  } catch (const std::system_error& e) {
    EXPECT_NE(std::string(e.what()).find((dir_ / "real").string()), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_directory(dir_ / "real"));
}

// Faults injected at each step of an atomic write (datasets/atomic_file.hpp's hook), as a
// full disk, an I/O error or a descriptor limit would make them: the old file stays whole,
// no temporary file is left, and the error names the path and carries the errno.
TEST_F(DatasetTest, AFaultAtAnyStepOfAWriteLeavesTheOldFileWholeAndNoTemporary) {
  fs::create_directories(dir_);
  const fs::path file = dir_ / "model.json";
  write_file_atomically(file, "old");
  const auto text_of = [](const fs::path& p) {
    std::ifstream in(p);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  for (const char* step : {"create", "write", "flush", "rename"}) {
    for (const int error : {ENOSPC, EIO, EMFILE}) {
      SCOPED_TRACE(std::string(step) + " " + std::strerror(error));
      set_write_fault_hook([&](std::string_view s, const fs::path&) { return s == step ? error : 0; });
      try {
        write_file_atomically(file, "new content");
        ADD_FAILURE() << "the write succeeded";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code().value(), error);
        EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
      }
      set_write_fault_hook({});
      EXPECT_EQ(text_of(file), "old");
      std::size_t entries = 0;
      for (const auto& e : fs::directory_iterator(dir_)) {
        ++entries;
        EXPECT_EQ(e.path(), file) << "left behind";
      }
      EXPECT_EQ(entries, 1u);
    }
  }
  // An interrupted write call is retried, not failed.
  int interrupts = 3;
  set_write_fault_hook(
      [&](std::string_view s, const fs::path&) { return s == "write" && interrupts-- > 0 ? EINTR : 0; });
  write_file_atomically(file, "new content");
  set_write_fault_hook({});
  EXPECT_EQ(interrupts, -1);
  EXPECT_EQ(text_of(file), "new content");
}

TEST_F(DatasetTest, HistoricalReaderValidatesProvenance) {
  fs::create_directories(dir_);
  const std::string header =
      "scenario,mechanism,variant,fd_kind,n_fds,n_active,active_pos,max_fd,blocking,threads,"
      "cpus,metric,unit,value,stddev,source,platform,kernel,cpu_mhz,note\n";
  std::ofstream(dir_ / "h.csv") << header
                                << "find_active,poll,,pipe,100,1,,,0,,,time_per_op,us,49,,seed 000 Dan Kegel 2000,"
                                   "dual PIII,2.4.0,650,\n";
  const auto rows = read_historical(dir_ / "h.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].value, 49);
  EXPECT_FALSE(rows[0].stddev.has_value());
  EXPECT_EQ(rows[0].cpu_mhz, 650);
  EXPECT_EQ(rows[0].line, 2u);
  std::ofstream(dir_ / "h.csv") << header
                                << "find_active,poll,,pipe,100,1,,,0,,,time_per_op,us,49,,,dual PIII,2.4.0,650,\n";
  try {
    read_historical(dir_ / "h.csv");
    FAIL();
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("h.csv:2: column 'source' is empty"), std::string::npos);
  }
}

// A dataset is several files; files.json says which belong together. A file of another
// write (copied in, or left by a write replaced file by file that was killed between two
// renames: dataset_commit_test.cpp) is refused naming it, where it used to be read with the
// rest; a file the write did not list (an older sentinel.csv) likewise. Deleting files.json
// reads the files as they are.
TEST_F(DatasetTest, FilesOfAnotherWriteAreRefusedNamingThem) {
  dataset a = small(), b = small();
  b.samples.back().value += 1;
  b.summaries = summarise_samples(b.samples);
  const fs::path other = dir_.string() + "_other";
  write_dataset(other, b);
  write_dataset(dir_, a);
  EXPECT_EQ(read_error(), "no error");
  fs::copy_file(other / "samples.csv", dir_ / "samples.csv", fs::copy_options::overwrite_existing);
  EXPECT_NE(read_error().find((dir_ / "samples.csv").string() + ": not the file files.json lists"), std::string::npos)
      << read_error();
  write_dataset(dir_, a);
  fs::remove(dir_ / "summary.csv");  // killed after removing, before the new one landed
  EXPECT_NE(read_error().find("summary.csv: missing, but files.json lists it"), std::string::npos) << read_error();
  write_dataset(dir_, a);
  fs::copy_file(other / "samples.csv", dir_ / "sentinel.csv");
  EXPECT_NE(read_error().find("sentinel.csv: not part of the dataset files.json lists"), std::string::npos)
      << read_error();
  // A rewrite without readings removes the sentinel.csv of the write before it.
  dataset with = a;
  with.sentinel = {{0.0, 1000, 36}};
  write_dataset(dir_, with);
  EXPECT_TRUE(fs::exists(dir_ / "sentinel.csv"));
  write_dataset(dir_, a);
  EXPECT_FALSE(fs::exists(dir_ / "sentinel.csv"));
  EXPECT_EQ(read_error(), "no error");
  fs::copy_file(other / "samples.csv", dir_ / "samples.csv", fs::copy_options::overwrite_existing);
  hand_edited();
  EXPECT_EQ(read_dataset(dir_).samples.back().value, b.samples.back().value);
  std::ofstream(dir_ / dataset_files_name) << "[1, 2]";
  EXPECT_NE(read_error().find("not a dataset's list of files"), std::string::npos) << read_error();
  fs::remove_all(other);
}

// The check hands back the bytes it verified, and the reader parses those: what was read
// is what was checked, each file once. Messages from the parsed bytes still name the file.
TEST_F(DatasetTest, TheCheckedBytesAreWhatIsRead) {
  write_dataset(dir_, small());
  const auto checked = check_dataset_files(dir_);
  for (const char* name : {"context.json", "samples.csv", "summary.csv"}) {
    ASSERT_TRUE(checked.contains(name)) << name;
    std::ifstream in(dir_ / name, std::ios::binary);
    const std::string on_disk{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    EXPECT_EQ(checked.at(name), on_disk) << name;
  }
  hand_edited();
  EXPECT_TRUE(check_dataset_files(dir_).empty());  // no files.json: nothing checked, files read as they are
  EXPECT_EQ(parse_json_text(R"({"a": [1, 2]})", "x.json")["a"][1], 2);
  try {
    (void)parse_json_text(std::string(100, '[') + std::string(100, ']'), dir_ / "context.json");
    FAIL();
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("context.json: nested deeper than 64 levels"), std::string::npos) << e.what();
  }
}

TEST(DatasetFilesTest, Fnv1a64MatchesItsPublishedVectors) {
  EXPECT_EQ(fnv1a64_hex(""), "cbf29ce484222325");
  EXPECT_EQ(fnv1a64_hex("a"), "af63dc4c8601ec8c");
  EXPECT_EQ(fnv1a64_hex("foobar"), "85944171f73967e8");
}

}  // namespace
}  // namespace pollscale::datasets
