// The structural limits of JSON input (json_input.h): each limit accepts a document right at it and
// refuses one just past it, with a message that names the input, the place and the limit; bytes after
// the value are refused; hostile shapes far past the limits are refused without a crash.
#include "common/json_input.h"

#include <gtest/gtest.h>

#include <string>

#include "common/input_error.h"

namespace kvlab::json_input {
namespace {

// The message of the InputError that parsing `text` throws ("" if it parses).
std::string refusal(const std::string& text, const Limits& limits = kLimits) {
  try {
    parse(text, "--steps file", limits);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// Small limits, so that the boundaries are quick to reach.
constexpr Limits kSmall = {64, 10, 3, 4, 8};

TEST(JsonInput, TheDefaultLimitsAreTheDocumentedOnes) {
  EXPECT_EQ(kLimits.max_bytes, 268'435'456u);
  EXPECT_EQ(kLimits.max_values, 8'000'000u);
  EXPECT_EQ(kLimits.max_depth, 32);
  EXPECT_EQ(kLimits.max_members, 1024u);
  EXPECT_EQ(kLimits.max_string_bytes, 4096u);
}

TEST(JsonInput, NestingDepth) {
  EXPECT_EQ(refusal(nested(32)), "");
  EXPECT_EQ(refusal(nested(33)),
            "--steps file at [0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]"
            "[0][0]: nests deeper than 32 levels, the limit on nesting depth");
  EXPECT_EQ(refusal(R"({"decode": {"ms": [1, 2]}})", kSmall), "");
  EXPECT_EQ(refusal(R"({"decode": {"ms": [1, [2]]}})", kSmall),
            "--steps file at decode.ms[1]: nests deeper than 3 levels, the limit on nesting depth");
}

TEST(JsonInput, ADeepFileIsRefusedNotCrashed) {
  // 100,000 levels crashed both builds in dump() (a recursive walk) before the limit existed.
  EXPECT_NE(refusal(nested(100'000)).find("the limit on nesting depth"), std::string::npos);
  EXPECT_NE(refusal(std::string(100'000, '[')).find("the limit on nesting depth"), std::string::npos);
  EXPECT_NE(refusal(std::string(50'000, '{') + "").find("not valid JSON"), std::string::npos);
  std::string objects;
  for (int i = 0; i < 100'000; ++i) objects += R"({"a":)";
  EXPECT_NE(refusal(objects).find("at a.a.a.a.a"), std::string::npos);
}

TEST(JsonInput, TotalBytes) {
  const std::string at_limit = "[" + std::string(62, ' ') + "]";
  ASSERT_EQ(at_limit.size(), 64u);
  EXPECT_EQ(refusal(at_limit, kSmall), "");
  EXPECT_EQ(refusal(at_limit + " ", kSmall),
            "--steps file is 65 bytes: more than 64 bytes (0 MiB), the limit on input size");
  EXPECT_EQ(size_limit_text(), "more than 268,435,456 bytes (256 MiB), the limit on input size");
}

TEST(JsonInput, ValuesInADocument) {
  EXPECT_EQ(refusal("[1, 2, 3, [4, 5], {\"a\": 6, \"b\": []}]", kSmall), "");  // 10 values
  EXPECT_EQ(refusal("[1, 2, 3, [4, 5], {\"a\": 6, \"b\": [7]}]", kSmall),
            "--steps file at [4].b[0]: more than 10 values (numbers, strings, lists, objects), the limit on values");
}

TEST(JsonInput, MembersOfAnObject) {
  EXPECT_EQ(refusal(R"({"a": 1, "b": 2, "c": 3, "d": {"e": 4}})", kSmall), "");
  EXPECT_EQ(refusal(R"({"model": {"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}})", kSmall),
            "--steps file at model.e: more than 4 members in one object, the limit on object members");
  std::string object = "{";
  for (int i = 0; i < 1024; ++i) object += (i ? ",\"k" : "\"k") + std::to_string(i) + "\": 0";
  EXPECT_EQ(refusal(object + "}"), "");
  EXPECT_NE(refusal(object + ", \"one more\": 0}").find("more than 1,024 members in one object"), std::string::npos);
}

TEST(JsonInput, StringLength) {
  const std::string at_limit(4096, 'x'), past(4097, 'x');
  EXPECT_EQ(refusal("{\"preset\": \"" + at_limit + "\"}"), "");
  EXPECT_EQ(refusal("{\"model\": {\"preset\": \"" + past + "\"}}"),
            "--steps file at model.preset: a string of 4,097 bytes, more than 4,096, the limit on string length");
  EXPECT_EQ(refusal("{\"" + at_limit + "\": 1}"), "");
  EXPECT_NE(refusal("{\"model\": {\"" + past + "\": 1}}").find("a key of 4,097 bytes, more than 4,096"),
            std::string::npos);
  // Bytes of UTF-8, not characters: 2,049 two-byte letters are 4,098 bytes.
  std::string letters;
  for (int i = 0; i < 2049; ++i) letters += "\xc3\xa9";
  EXPECT_NE(refusal("[\"" + letters + "\"]").find("a string of 4,098 bytes"), std::string::npos);
  // A long path is cut short in the message.
  const std::string long_key(1000, 'k');
  EXPECT_EQ(refusal("{\"" + long_key + "\": [\"" + past + "\"]}"),
            "--steps file at " + std::string(40, 'k') +
                "...[0]: a string of 4,097 bytes, more than 4,096, the limit on "
                "string length");
}

TEST(JsonInput, BytesAfterTheValueAreRefused) {
  EXPECT_EQ(refusal("{} x"), "--steps file has bytes after its JSON value, from line 1, column 4");
  EXPECT_EQ(refusal("{\"a\": 1}\n{\"a\": 2}\n"), "--steps file has bytes after its JSON value, from line 2, column 1");
  EXPECT_EQ(refusal("[1]]"), "--steps file has bytes after its JSON value, from line 1, column 4");
  EXPECT_EQ(refusal("1 2"), "--steps file has bytes after its JSON value, from line 1, column 3");
  // nlohmann's parser stops at a NUL byte as at the end of input: what follows one is refused too.
  EXPECT_EQ(refusal(std::string("{}\0", 3)), "--steps file has bytes after its JSON value, from line 1, column 3");
  EXPECT_EQ(refusal(std::string("{\"a\": 1}\n\0{\"b\": 2}", 18)),
            "--steps file has bytes after its JSON value, from line 2, column 1");
  EXPECT_EQ(refusal(std::string("[1,\0 2]", 7)), "--steps file is not valid JSON (at line 1, column 4)");
  EXPECT_EQ(refusal(" {}\n\t \r\n"), "");  // whitespace is not a value
}

TEST(JsonInput, SyntaxErrorsNameTheirPlace) {
  EXPECT_EQ(refusal(""), "--steps file is not valid JSON (at line 1, column 1)");
  EXPECT_EQ(refusal("{\n  \"a\": tru\n}"), "--steps file is not valid JSON (at line 2, column 11)");
  try {
    parse("[1,", "options");
    FAIL() << "parsed";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.js_class(), "TypeError");
  }
  try {
    parse(nested(40), "options");
    FAIL() << "parsed";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.js_class(), "RangeError");
  }
}

TEST(JsonInput, AListOfManyObjectsIsReadInLinearTime) {
  // nlohmann's parser callback scans the enclosing list at the end of every object: this workload took
  // minutes that way (the large-input fuzz run timed out on 9,000 requests). ctest's TIMEOUT of 60 s
  // fails the quadratic version; the linear one takes well under a second.
  std::string text = "{\"requests\": [";
  for (int i = 0; i < 200'000; ++i)
    text += (i ? "," : "") + std::string("{\"arrival_ms\": ") + std::to_string(i) + ", \"prompt\": 8, \"answer\": 16}";
  const nlohmann::json workload = parse(text + "]}", "--workload file");
  ASSERT_EQ(workload["requests"].size(), 200'000u);
  EXPECT_EQ(workload["requests"][199'999]["arrival_ms"], 199'999);
}

TEST(JsonInput, WhatIsReadIsTheDocument) {
  const nlohmann::json value = parse(R"({"decode": {"rows": [1, 2], "ms": [[0.5], [1e3]]}, "name": "x"})", "steps");
  EXPECT_EQ(value["decode"]["rows"], nlohmann::json::array({1, 2}));
  EXPECT_EQ(value["decode"]["ms"][1][0].get<double>(), 1000.0);
  EXPECT_EQ(value["name"], "x");
}

}  // namespace
}  // namespace kvlab::json_input
