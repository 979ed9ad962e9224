// The shared names: each value has one distinct name that reads back to it, the tables
// follow the enums' order, the mechanism traits say what the model and the simulator
// assume, and the schema's lists are the vocabulary's.

#include "datasets/vocabulary.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "datasets/schema.hpp"

namespace pollscale::datasets {
namespace {

template <class E>
void expect_round_trip(std::size_t count) {
  const auto values = all<E>();
  ASSERT_EQ(values.size(), count);
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(values[i]), i) << "table out of the enum's order at " << i;
    const std::string_view n = name(values[i]);
    EXPECT_FALSE(n.empty());
    EXPECT_NE(n, "?");
    EXPECT_TRUE(names.insert(n).second) << "name used twice: " << n;
    EXPECT_EQ(parse<E>(n), values[i]) << n;
  }
  EXPECT_EQ(parse<E>(""), std::nullopt);
  EXPECT_EQ(parse<E>("no such name"), std::nullopt);
}

TEST(VocabularyTest, EveryNameReadsBackToItsValue) {
  expect_round_trip<scenario>(17);
  expect_round_trip<metric>(13);
  expect_round_trip<mechanism>(10);
  expect_round_trip<variant>(7);
  expect_round_trip<fd_kind>(7);
  expect_round_trip<position>(6);
}

TEST(VocabularyTest, NamesAreTheStoredSpellings) {
  // These spellings are in every dataset, model file and historical table: changing one
  // would orphan them.
  EXPECT_EQ(name(scenario::find_active), "find_active");
  EXPECT_EQ(name(scenario::interest_churn), "interest_churn");
  EXPECT_EQ(name(scenario::cold_scan), "cold_scan");
  EXPECT_EQ(name(variant::cold), "cold");
  EXPECT_EQ(name(metric::time_per_call), "time_per_call");
  EXPECT_EQ(name(metric::latency_p99), "latency_p99");
  EXPECT_EQ(name(mechanism::io_uring), "io_uring");
  EXPECT_EQ(name(fd_kind::socketpair), "socketpair");
  EXPECT_EQ(name(position::middle), "middle");
  EXPECT_EQ(name(variant::oneshot), "oneshot");
  EXPECT_EQ(parse<scenario>("Find_Active"), std::nullopt);  // case matters
}

TEST(VocabularyTest, KeyColumnsCompareWithNames) {
  key k;
  k.scenario = "token_ring";
  k.metric = "throughput";
  EXPECT_TRUE(k.scenario == scenario::token_ring);
  EXPECT_TRUE(scenario::token_ring == k.scenario);
  EXPECT_TRUE(k.metric != metric::time_per_op);
  EXPECT_FALSE(k.scenario == scenario::find_active);
  k.scenario.clear();
  EXPECT_FALSE(k.scenario == scenario::find_active);
}

TEST(VocabularyTest, MechanismTraits) {
  for (mechanism m : {mechanism::select, mechanism::pselect, mechanism::poll, mechanism::ppoll}) {
    EXPECT_TRUE(traits(m).scans_every_fd) << name(m);
    EXPECT_TRUE(traits(m).measured_here) << name(m);
    EXPECT_EQ(traits(m).default_wake, wake::all) << name(m);
  }
  EXPECT_TRUE(traits(mechanism::select).fd_bitmap);
  EXPECT_TRUE(traits(mechanism::pselect).fd_bitmap);
  EXPECT_FALSE(traits(mechanism::poll).fd_bitmap);
  for (mechanism m : {mechanism::epoll, mechanism::io_uring, mechanism::rtsig}) {
    EXPECT_FALSE(traits(m).scans_every_fd) << name(m);
    EXPECT_EQ(traits(m).default_wake, wake::one) << name(m);
  }
  EXPECT_TRUE(traits(mechanism::rtsig).signal_queue);
  EXPECT_FALSE(traits(mechanism::epoll).signal_queue);
  // The historical tables' /dev/poll and poll2 grow with n as published; kqueue does not scan.
  EXPECT_TRUE(traits(mechanism::devpoll).scans_every_fd);
  EXPECT_TRUE(traits(mechanism::poll2).scans_every_fd);
  EXPECT_FALSE(traits(mechanism::kqueue).scans_every_fd);
}

TEST(VocabularyTest, AFlavourLabelSplitsIntoMechanismAndVariant) {
  EXPECT_EQ(split_flavour("epoll/lt").mechanism, "epoll");
  EXPECT_EQ(split_flavour("epoll/lt").variant, "lt");
  EXPECT_EQ(split_flavour("poll").mechanism, "poll");
  EXPECT_EQ(split_flavour("poll").variant, "");
  EXPECT_EQ(split_flavour("poll/").variant, "");
  EXPECT_EQ(split_flavour("poll/dan/patch").variant, "dan/patch");  // text after the first slash
  EXPECT_EQ(split_flavour("").mechanism, "");
}

TEST(VocabularyTest, OnlyTheThreadScalingScenariosScaleWithThreads) {
  for (auto s : all<scenario>())
    EXPECT_EQ(scales_with_threads(s), s == scenario::producers || s == scenario::private_sets ||
                                          s == scenario::shared_epoll || s == scenario::accept_herd ||
                                          s == scenario::private_processes)
        << name(s);
}

TEST(VocabularyTest, OnlyTheMachineScenariosArePrimitives) {
  for (auto s : all<scenario>())
    EXPECT_EQ(is_machine_primitive(s), s == scenario::memory_latency || s == scenario::cache_line ||
                                           s == scenario::call_spread || s == scenario::cold_scan)
        << name(s);
}

TEST(VocabularyTest, SchemaListsAreTheVocabulary) {
  std::set<std::string_view> measured(measured_mechanisms().begin(), measured_mechanisms().end());
  EXPECT_EQ(measured, (std::set<std::string_view>{"select", "pselect", "poll", "ppoll", "epoll", "rtsig", "io_uring"}));
  std::set<std::string_view> historical(historical_mechanisms().begin(), historical_mechanisms().end());
  EXPECT_EQ(historical, (std::set<std::string_view>{"devpoll", "poll2", "kqueue"}));
  EXPECT_EQ(fd_kinds().size(), all<fd_kind>().size());
  EXPECT_TRUE(is_known_mechanism("kqueue"));
  EXPECT_FALSE(is_known_mechanism("epoll2"));
  EXPECT_TRUE(is_known_fd_kind("tmpfile"));
  EXPECT_FALSE(is_known_fd_kind(""));
}

}  // namespace
}  // namespace pollscale::datasets
