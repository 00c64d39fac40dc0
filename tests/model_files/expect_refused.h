#pragma once
// The check every test of a hostile model file makes.
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "common/input_error.h"

namespace kvlab::test {

// The error `read` throws: its field's path must be `path`, and its message must hold `words`.
inline void expect_refused(const std::function<void()>& read, const std::string& path, const std::string& words = "") {
  try {
    read();
    ADD_FAILURE() << "no error; expected one about " << path;
  } catch (const InputError& e) {
    EXPECT_EQ(e.field().path, path) << e.what();
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

}  // namespace kvlab::test
