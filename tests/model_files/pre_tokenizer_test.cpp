// The pre-tokenizers cut text as their llama.cpp regexes do (pre_tokenizer.h): the expected pieces are
// worked out by hand from each regex, alternative by alternative, on text that tells the families apart
// (runs of spaces and newlines, digits, contractions, punctuation, emoji, CJK, Cyrillic, combining
// marks); and the character classes they use are Unicode's.
#include <gtest/gtest.h>

#include "model_files/pre_tokenizer.h"
#include "model_files/unicode_categories.h"

namespace kvlab {
namespace {

using Pieces = std::vector<std::string>;

Pieces gpt2(const std::string& text) { return pre_tokenize(text, PreTokenizer::gpt2); }
Pieces smollm(const std::string& text) { return pre_tokenize(text, PreTokenizer::smollm); }
Pieces qwen2(const std::string& text) { return pre_tokenize(text, PreTokenizer::qwen2); }
Pieces llama3(const std::string& text) { return pre_tokenize(text, PreTokenizer::llama3); }

TEST(UnicodeCategories, LettersNumbersAndWhitespaceAreUnicodes) {
  EXPECT_EQ(char_class('a'), CharClass::letter);
  EXPECT_EQ(char_class(0x4F60), CharClass::letter);  // 你 (Lo)
  EXPECT_EQ(char_class(0x0416), CharClass::letter);  // Ж (Lu)
  EXPECT_EQ(char_class(0x02B0), CharClass::letter);  // ʰ (Lm)
  EXPECT_EQ(char_class('7'), CharClass::number);
  EXPECT_EQ(char_class(0x0661), CharClass::number);  // Arabic-Indic digit one (Nd)
  EXPECT_EQ(char_class(0x2167), CharClass::number);  // Roman numeral eight (Nl)
  EXPECT_EQ(char_class(0x00BD), CharClass::number);  // ½ (No)
  EXPECT_EQ(char_class(' '), CharClass::whitespace);
  EXPECT_EQ(char_class('\n'), CharClass::whitespace);
  EXPECT_EQ(char_class(0x0085), CharClass::whitespace);  // next line
  EXPECT_EQ(char_class(0x00A0), CharClass::whitespace);  // no-break space
  EXPECT_EQ(char_class(0x3000), CharClass::whitespace);  // ideographic space
  EXPECT_EQ(char_class(0x001C), CharClass::other);       // a separator Python calls a space; White_Space does not
  EXPECT_EQ(char_class(0x200B), CharClass::other);       // zero-width space (Cf)
  EXPECT_EQ(char_class(0x0301), CharClass::other);       // combining acute accent (Mn)
  EXPECT_EQ(char_class(0x1F44B), CharClass::other);      // 👋 (So)
  EXPECT_EQ(char_class('!'), CharClass::other);
  EXPECT_EQ(char_class(0x0378), CharClass::other);  // unassigned
  EXPECT_EQ(char_class(0x110000), CharClass::other);
}

TEST(PreTokenizer, NamesAreLlamaCppsWithTheirAliases) {
  std::vector<std::string> names;
  for (const auto& [name, kind] : pre_tokenizer_names()) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"gpt-2", "smollm", "qwen2", "llama-bpe", "llama3", "llama-v3"}));
}

TEST(PreTokenizer, WordsKeepTheirLeadingSpaceInEveryFamily) {
  for (PreTokenizer pre : {PreTokenizer::gpt2, PreTokenizer::smollm, PreTokenizer::qwen2, PreTokenizer::llama3}) {
    EXPECT_EQ(pre_tokenize("Hello world", pre), (Pieces{"Hello", " world"}));
    EXPECT_EQ(pre_tokenize("Привет, мир", pre), (Pieces{"Привет", ",", " мир"}));
    EXPECT_EQ(pre_tokenize("你好世界", pre), (Pieces{"你好世界"}));
    EXPECT_EQ(pre_tokenize("", pre), Pieces{});
  }
}

TEST(PreTokenizer, RunsOfSpacesLeaveTheirLastSpaceToTheNextWord) {
  // \s+(?!\S) takes all but the space before "b", which " ?\p{L}+" then takes.
  EXPECT_EQ(gpt2("a   b"), (Pieces{"a", "  ", " b"}));
  EXPECT_EQ(qwen2("a   b"), (Pieces{"a", "  ", " b"}));
  // At the end nothing follows, so (?!\S) holds for the whole run.
  EXPECT_EQ(gpt2("a   "), (Pieces{"a", "   "}));
  EXPECT_EQ(llama3("a   "), (Pieces{"a", "   "}));
  // A lone space before a digit: (?!\S) fails, \s+ takes it.
  EXPECT_EQ(qwen2("a 1"), (Pieces{"a", " ", "1"}));
}

TEST(PreTokenizer, NewlinesAndTabs) {
  // gpt-2: \s+(?!\S) keeps one newline back, which \s+ then takes alone.
  EXPECT_EQ(gpt2("a\n\nb"), (Pieces{"a", "\n", "\n", "b"}));
  // qwen2: \s*[\r\n]+ takes the whitespace up to its last newline.
  EXPECT_EQ(qwen2("a\n\nb"), (Pieces{"a", "\n\n", "b"}));
  EXPECT_EQ(qwen2("a \n  b"), (Pieces{"a", " \n", " ", " b"}));
  EXPECT_EQ(gpt2("a \n  b"), (Pieces{"a", " \n ", " b"}));
  // Punctuation takes the newlines after it in qwen2 and Llama 3, not in gpt-2.
  EXPECT_EQ(llama3("x.\n\ny"), (Pieces{"x", ".\n\n", "y"}));
  EXPECT_EQ(gpt2("x.\n\ny"), (Pieces{"x", ".", "\n", "\n", "y"}));
  // A tab is no optional space for gpt-2; qwen2's [^\r\n\p{L}\p{N}]? takes it before a word.
  EXPECT_EQ(gpt2("\tx"), (Pieces{"\t", "x"}));
  EXPECT_EQ(qwen2("\tx"), (Pieces{"\tx"}));
  EXPECT_EQ(gpt2("a\r\nb"), (Pieces{"a", "\r", "\n", "b"}));
  EXPECT_EQ(qwen2("a\r\nb"), (Pieces{"a", "\r\n", "b"}));
}

TEST(PreTokenizer, DigitsWholeAloneOrInThrees) {
  EXPECT_EQ(gpt2("12345"), (Pieces{"12345"}));
  EXPECT_EQ(smollm("12345"), (Pieces{"1", "2", "3", "4", "5"}));
  EXPECT_EQ(qwen2("12345"), (Pieces{"1", "2", "3", "4", "5"}));
  EXPECT_EQ(llama3("12345"), (Pieces{"123", "45"}));
  EXPECT_EQ(llama3("1234567"), (Pieces{"123", "456", "7"}));
  EXPECT_EQ(gpt2("a 12345"), (Pieces{"a", " 12345"}));
  // smollm cuts the digits out first, so gpt-2's regex sees "a " alone and its space ends that piece.
  EXPECT_EQ(smollm("a 12b"), (Pieces{"a", " ", "1", "2", "b"}));
  EXPECT_EQ(llama3("a 12345"), (Pieces{"a", " ", "123", "45"}));
  EXPECT_EQ(qwen2("x2y"), (Pieces{"x", "2", "y"}));
}

TEST(PreTokenizer, Contractions) {
  EXPECT_EQ(gpt2("I'm"), (Pieces{"I", "'m"}));
  EXPECT_EQ(gpt2("don't we'll"), (Pieces{"don", "'t", " we", "'ll"}));
  // gpt-2's contractions are lower case only: "'" is punctuation, then "M" a word.
  EXPECT_EQ(gpt2("I'M"), (Pieces{"I", "'", "M"}));
  EXPECT_EQ(smollm("I'M"), (Pieces{"I", "'", "M"}));
  EXPECT_EQ(qwen2("I'M"), (Pieces{"I", "'M"}));
  EXPECT_EQ(llama3("WE'LL"), (Pieces{"WE", "'LL"}));
  // Not a contraction: qwen2's [^\r\n\p{L}\p{N}]? takes the quote into the word.
  EXPECT_EQ(qwen2("'hello'"), (Pieces{"'hello", "'"}));
  EXPECT_EQ(gpt2("'hello'"), (Pieces{"'", "hello", "'"}));
}

TEST(PreTokenizer, Punctuation) {
  EXPECT_EQ(gpt2("Hi!!! ok?"), (Pieces{"Hi", "!!!", " ok", "?"}));
  EXPECT_EQ(qwen2("Hi!!! ok?"), (Pieces{"Hi", "!!!", " ok", "?"}));
  EXPECT_EQ(gpt2("(hello)"), (Pieces{"(", "hello", ")"}));
  EXPECT_EQ(qwen2("(hello)"), (Pieces{"(hello", ")"}));
  EXPECT_EQ(gpt2("a ... b"), (Pieces{"a", " ...", " b"}));
}

TEST(PreTokenizer, EmojiAreOneRunOfPunctuation) {
  // 👋🏽 is U+1F44B (So) and U+1F3FD (Sk): neither a letter nor a number.
  const std::string wave = "\xF0\x9F\x91\x8B\xF0\x9F\x8F\xBD";
  EXPECT_EQ(gpt2("hi " + wave + "!"), (Pieces{"hi", " " + wave + "!"}));
  EXPECT_EQ(qwen2("hi " + wave + "!"), (Pieces{"hi", " " + wave + "!"}));
  EXPECT_EQ(smollm(wave + "2"), (Pieces{wave, "2"}));
}

TEST(PreTokenizer, CombiningMarksAreNotLetters) {
  // "cafés" written with U+0301 after the e: the mark (Mn) ends the word.
  const std::string acute = "\xCC\x81";
  EXPECT_EQ(gpt2("cafe" + acute + "s"), (Pieces{"cafe", acute, "s"}));
  // qwen2's [^\r\n\p{L}\p{N}]? takes the mark into the letters after it.
  EXPECT_EQ(qwen2("cafe" + acute + "s"), (Pieces{"cafe", acute + "s"}));
  EXPECT_EQ(qwen2("cafe" + acute), (Pieces{"cafe", acute}));
}

TEST(PreTokenizer, OtherWhitespaceAndScripts) {
  const std::string nbsp = "\xC2\xA0";
  EXPECT_EQ(gpt2("a" + nbsp + "b"), (Pieces{"a", nbsp, "b"}));
  EXPECT_EQ(qwen2("a" + nbsp + "b"), (Pieces{"a", nbsp + "b"}));
  EXPECT_EQ(llama3("我有3个"), (Pieces{"我有", "3", "个"}));
  EXPECT_EQ(gpt2("Ж1"), (Pieces{"Ж", "1"}));
}

TEST(PreTokenizer, IllFormedBytesBecomeReplacementCharacters) {
  const std::string replacement = "\xEF\xBF\xBD";
  EXPECT_EQ(gpt2("a\xFF"
                 "b"),
            (Pieces{"a", replacement, "b"}));
  // A sequence the text ends inside: each of its bytes is one U+FFFD, a run of punctuation.
  EXPECT_EQ(gpt2("a\xE4\xBD"), (Pieces{"a", replacement + replacement}));
  EXPECT_EQ(qwen2("\xC0\xAF"), (Pieces{replacement + replacement}));  // overlong '/'
}

}  // namespace
}  // namespace kvlab
