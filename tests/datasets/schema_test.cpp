#include "datasets/schema.hpp"

#include <gtest/gtest.h>

namespace pollscale::datasets {
namespace {

TEST(SchemaTest, KeyFieldsRoundTripThroughText) {
  key k;
  k.scenario = "find_active";
  k.mechanism = "epoll";
  k.variant = "et";
  k.fd_kind = "pipe";
  k.n_fds = 19000;
  k.n_active = 1;
  k.active_pos = "middle";
  k.blocking = 0;
  k.threads = 1;
  k.cpus = 1;
  k.pinning = "0";
  k.metric = "time_per_call";
  k.unit = "ns";
  key back;
  for (auto c : key_columns()) set_key_field(back, c, key_field(k, c));
  EXPECT_EQ(back, k);
  EXPECT_EQ(key_field(k, "max_fd"), "");
}

TEST(SchemaTest, RejectsUnknownNamesAndBadCounts) {
  key k;
  EXPECT_THROW(set_key_field(k, "mechanism", "kqueue2"), std::invalid_argument);
  EXPECT_THROW(set_key_field(k, "fd_kind", "socket"), std::invalid_argument);
  EXPECT_THROW(set_key_field(k, "unit", "usec"), std::invalid_argument);
  EXPECT_THROW(set_key_field(k, "n_fds", "-3"), std::invalid_argument);
  EXPECT_THROW(set_key_field(k, "n_fds", "12x"), std::invalid_argument);
  EXPECT_THROW(set_key_field(k, "blocking", "2"), std::invalid_argument);
  EXPECT_NO_THROW(set_key_field(k, "mechanism", "devpoll"));
  EXPECT_NO_THROW(set_key_field(k, "mechanism", ""));
  EXPECT_NO_THROW(set_key_field(k, "unit", "1"));          // a count per operation (shared_epoll's wakeups)
  EXPECT_THROW(to_si_factor("1"), std::invalid_argument);  // neither a time nor a rate
}

TEST(SchemaTest, SiFactors) {
  EXPECT_DOUBLE_EQ(to_si_factor("us"), 1e-6);
  EXPECT_DOUBLE_EQ(to_si_factor("1/ms"), 1e3);
  EXPECT_THROW(to_si_factor("B"), std::invalid_argument);
}

}  // namespace
}  // namespace pollscale::datasets
