// Generated tokens as text pieces: one per token, each well-formed UTF-8, joining to the decoded text.
#include <gtest/gtest.h>

#include "model_file_writers.h"
#include "model_files/token_pieces.h"

namespace kvlab {
namespace {

int byte_token(int value) { return value + 3; }  // <0x00> is id 3 in the tests' vocabulary

class TokenPiecesTest : public ::testing::Test {
 protected:
  TokenPiecesTest() : tokenizer(test::tiny_vocabulary()) {}
  int id(const std::string& piece) const { return test::piece_id(tokenizer.vocabulary(), piece); }
  Tokenizer tokenizer;
};

TEST_F(TokenPiecesTest, EachTokenIsItsTextAfterTheOneBefore) {
  const std::vector<int> tokens = {id(" once"), id(" a"), id("b")};
  EXPECT_EQ(token_pieces(tokenizer, 1, tokens), (std::vector<std::string>{"once", " a", "b"}));
  EXPECT_EQ(token_pieces(tokenizer, id("a"), tokens), (std::vector<std::string>{" once", " a", "b"}));
}

TEST_F(TokenPiecesTest, ACharacterSpelledInByteTokensComesWithItsLastByte) {
  // é as its two bytes: the first token's piece is empty, the second's the whole character.
  const std::vector<int> tokens = {id("a"), byte_token(0xC3), byte_token(0xA9), id("b")};
  EXPECT_EQ(token_pieces(tokenizer, 1, tokens), (std::vector<std::string>{"a", "", "\xC3\xA9", "b"}));
}

TEST_F(TokenPiecesTest, BytesThatAreNoCharacterBecomeReplacementCharacters) {
  // A lone continuation byte, an overlong form (0xC0 0x80), and a character the answer leaves unfinished.
  EXPECT_EQ(token_pieces(tokenizer, 1, {byte_token(0x80), id("a")}), (std::vector<std::string>{"\xEF\xBF\xBD", "a"}));
  EXPECT_EQ(token_pieces(tokenizer, 1, {byte_token(0xC0), byte_token(0x80)}),
            (std::vector<std::string>{"\xEF\xBF\xBD", "\xEF\xBF\xBD"}));
  EXPECT_EQ(token_pieces(tokenizer, 1, {id("a"), byte_token(0xE2), byte_token(0x82)}),
            (std::vector<std::string>{"a", "", "\xEF\xBF\xBD"}));
}

}  // namespace
}  // namespace kvlab
