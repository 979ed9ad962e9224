// Factories of the concrete waiters, one file each; make_waiter() (waiter.hpp) picks one.
#pragma once

#include <cstddef>
#include <memory>

#include "calibrate/waiter.hpp"

namespace pollscale::calibrate::waiters {

std::unique_ptr<waiter> make_select(bool with_sigmask, std::size_t capacity);
std::unique_ptr<waiter> make_poll(bool with_sigmask, std::size_t capacity);
std::unique_ptr<waiter> make_epoll(std::string_view variant, std::size_t capacity);
std::unique_ptr<waiter> make_rtsig(std::size_t capacity);
std::unique_ptr<waiter> make_io_uring(std::string_view variant, std::size_t capacity);

}  // namespace pollscale::calibrate::waiters
