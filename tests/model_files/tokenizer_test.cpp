// The tokenizer encodes as llama2.c's run.c does (BOS, the dummy-prefix space, characters, byte
// fallback, best-scored merges first) and decodes back (byte tokens, no space right after BOS).
#include <gtest/gtest.h>

#include "common/input_error.h"
#include "model_file_writers.h"
#include "model_files/tokenizer.h"

namespace kvlab {
namespace {

class TokenizerTest : public ::testing::Test {
 protected:
  TokenizerTest() : tokenizer(test::tiny_vocabulary()) {}
  int id(const std::string& piece) const { return test::piece_id(tokenizer.vocabulary(), piece); }
  int byte(int value) const { return value + 3; }  // <0x00> is id 3, as in Llama 2's vocabulary
  Tokenizer tokenizer;
};

TEST_F(TokenizerTest, EmptyTextIsBosAlone) { EXPECT_EQ(tokenizer.encode(""), (std::vector<int>{1})); }

TEST_F(TokenizerTest, DummyPrefixSpaceMergesWithTheFirstCharacter) {
  EXPECT_EQ(tokenizer.encode("a"), (std::vector<int>{1, id(" a")}));
}

TEST_F(TokenizerTest, BestScoredPairMergesFirst) {
  // " a" (score -10) merges before "ab" (-11), then " a" + "b" is " ab".
  EXPECT_EQ(tokenizer.encode("ab"), (std::vector<int>{1, id(" ab")}));
  // o n c e: "on" (-13), then "ce" (-14) before " on" (-15), then " on", then " once".
  EXPECT_EQ(tokenizer.encode("once"), (std::vector<int>{1, id(" once")}));
  // " a" (-10) outranks "t " (-18), which then has no space left to take; " t" is no piece.
  EXPECT_EQ(tokenizer.encode("t a"), (std::vector<int>{1, id(" "), id("t"), id(" a")}));
  EXPECT_EQ(tokenizer.encode("t b"), (std::vector<int>{1, id(" "), id("t "), id("b")}));
}

TEST_F(TokenizerTest, UnknownCharactersFallBackToTheirBytes) {
  EXPECT_EQ(tokenizer.encode("x"), (std::vector<int>{1, id(" "), byte('x')}));
  EXPECT_EQ(tokenizer.encode("\xC3\xA9"), (std::vector<int>{1, id(" "), id("\xC3\xA9")}));          // é is a piece
  EXPECT_EQ(tokenizer.encode("\xC3\xBC"), (std::vector<int>{1, id(" "), byte(0xC3), byte(0xBC)}));  // ü is not
}

// stories15M's tokenizer file writes its byte pieces as the bytes themselves ("." at id 49, as well as
// the real piece "." at 29889): the real piece, the later id, spells the character.
TEST(TokenizerPieces, APieceSpelledTwiceEncodesAsItsLaterId) {
  Vocabulary v;
  v.pieces = {"<unk>", "<s>", "</s>", ".", " ", "a", " a", "."};
  v.scores = {0, 0, 0, 0, -1, -2, -3, -4};
  const Tokenizer tokenizer(v);
  EXPECT_EQ(tokenizer.encode("a."), (std::vector<int>{1, 6, 7}));
  EXPECT_EQ(tokenizer.decode(6, 3), ".");
}

TEST_F(TokenizerTest, DecodeDropsTheSpaceRightAfterBosAndTurnsByteTokensIntoBytes) {
  EXPECT_EQ(tokenizer.decode(1, id(" once")), "once");
  EXPECT_EQ(tokenizer.decode(id("a"), id(" once")), " once");
  EXPECT_EQ(tokenizer.decode({id(" once"), id(" a"), byte(0xC3), byte(0xBC), byte('!')}, 1), "once a\xC3\xBC!");
}

TEST_F(TokenizerTest, EncodeThenDecodeGivesTheTextBack) {
  for (const std::string text : {"once a cab", "a b\xC3\xA9 x!", "\n  tab\tend "}) {
    const std::vector<int> tokens = tokenizer.encode(text);
    EXPECT_EQ(tokenizer.decode(std::vector<int>(tokens.begin() + 1, tokens.end()), tokens[0]), text);
  }
}

TEST(Tokenizer, AByteWithoutAByteTokenIsAnInputErrorNamingTheField) {
  Vocabulary v;
  v.pieces = {"<unk>", "<s>", "</s>", " ", "a"};
  v.scores = {0, 0, 0, 0, 0};
  const Tokenizer tokenizer(v);
  try {
    tokenizer.encode("ax", "prompt");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field().path, "prompt");
    EXPECT_NE(std::string(e.what()).find("0x78"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kvlab
