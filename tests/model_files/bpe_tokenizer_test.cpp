// Byte-level BPE on a hand-made vocabulary (test::tiny_bpe_vocabulary: ids 0-255 the bytes, then a few
// merged tokens and special ones): the token ids below are worked out by hand from its merge ranks, not
// taken from llama.cpp. Encoding merges the lowest rank first (the leftmost of equals), matches special
// tokens whole, adds BOS only when the vocabulary says to; decoding gives the text back.
#include <algorithm>

#include <gtest/gtest.h>

#include "common/input_error.h"
#include "model_file_writers.h"
#include "model_files/tokenizer.h"

namespace kvlab {
namespace {

using Ids = std::vector<int>;

constexpr int kTh = 256, kSpaceC = 257, kThe = 258, kAt = 259, kSpaceCat = 260, kAa = 262, kEndOfText = 263,
              kImStart = 264, kTool = 265, kDog = 266, kUnused = 267;
int byte(char c) { return static_cast<unsigned char>(c); }  // ids 0-255 are the bytes

class BpeTokenizerTest : public ::testing::Test {
 protected:
  Tokenizer with(PreTokenizer pre, bool add_bos = false) const {
    Vocabulary v = test::tiny_bpe_vocabulary();
    v.pre = pre;
    v.add_bos = add_bos;
    return Tokenizer(std::move(v));
  }
  Tokenizer tokenizer{test::tiny_bpe_vocabulary()};
};

TEST(GptByteSpelling, SpellsEveryByteAsOneOf256Characters) {
  EXPECT_EQ(test::gpt2_byte_spelling(' '), "\xC4\xA0");   // Ġ, U+0120
  EXPECT_EQ(test::gpt2_byte_spelling('\n'), "\xC4\x8A");  // Ċ, U+010A
  EXPECT_EQ(test::gpt2_byte_spelling('a'), "a");
  EXPECT_EQ(test::gpt2_byte_spelling(0xAD), "\xC5\x83");  // the soft hyphen is the 68th: U+0143
  EXPECT_EQ(test::gpt2_byte_spelling(0xE9), "\xC3\xA9");  // é stands for itself
}

TEST_F(BpeTokenizerTest, MergesTheLowestRankFirst) {
  // "the": t h (rank 0) -> th, then th e (rank 2) -> the. " cat": Ġ c (1) -> Ġc, a t (3) -> at, Ġc at (4).
  EXPECT_EQ(tokenizer.encode("the cat"), (Ids{kThe, kSpaceCat}));
  // " th": Ġ t is rank 5, t h rank 0: th first, and no merge then joins Ġ to it.
  EXPECT_EQ(tokenizer.encode(" th"), (Ids{byte(' '), kTh}));
  // "tat": only a t merges.
  EXPECT_EQ(tokenizer.encode("tat"), (Ids{byte('t'), kAt}));
}

TEST_F(BpeTokenizerTest, TheLeftmostOfEqualRanksMergesFirst) {
  EXPECT_EQ(tokenizer.encode("aaa"), (Ids{kAa, byte('a')}));
  EXPECT_EQ(tokenizer.encode("aaaa"), (Ids{kAa, kAa}));
}

TEST_F(BpeTokenizerTest, AMergeWithNoTokenFallsBackToItsBytes) {
  // c a (rank 7) merges, but the vocabulary has no "ca".
  EXPECT_EQ(tokenizer.encode("ca"), (Ids{byte('c'), byte('a')}));
}

TEST_F(BpeTokenizerTest, MergesNeverCrossPreTokenizerPieces) {
  // t h would merge first of all, but "t he" is the pieces "t" and " he"; nothing merges in " he".
  EXPECT_EQ(tokenizer.encode("t he"), (Ids{byte('t'), byte(' '), byte('h'), byte('e')}));
}

TEST_F(BpeTokenizerTest, Llama3TakesAWholeWordThatIsAToken) {
  // No merge makes "dog"; llama.cpp's ignore_merges (Llama 3) looks the whole piece up first.
  EXPECT_EQ(tokenizer.encode("dog"), (Ids{byte('d'), byte('o'), byte('g')}));
  EXPECT_EQ(with(PreTokenizer::llama3, true).encode("dog"), (Ids{kEndOfText, kDog}));
}

TEST_F(BpeTokenizerTest, ControlAndUserDefinedTokensAreMatchedWhole) {
  EXPECT_EQ(tokenizer.encode("<|im_start|>the<|endoftext|>"), (Ids{kImStart, kThe, kEndOfText}));
  EXPECT_EQ(tokenizer.encode("the<tool> cat"), (Ids{kThe, kTool, kSpaceCat}));
  // The text beside a special token is pre-tokenized on its own: " cat" keeps its space.
  EXPECT_EQ(tokenizer.encode("<|endoftext|> cat"), (Ids{kEndOfText, kSpaceCat}));
  // An unused token's text, and a special token's text cut short, are plain text.
  const Ids unused = tokenizer.encode("<unused0>");
  EXPECT_EQ(std::count(unused.begin(), unused.end(), kUnused), 0);
  // "<|im_start" is the pieces "<|", "im", "_", "start", which no merge touches.
  Ids bytes;
  for (char c : std::string("<|im_start")) bytes.push_back(byte(c));
  EXPECT_EQ(tokenizer.encode("<|im_start"), bytes);
}

TEST_F(BpeTokenizerTest, BosOnlyWhenTheVocabularySays) {
  EXPECT_EQ(tokenizer.encode("the"), (Ids{kThe}));
  EXPECT_FALSE(tokenizer.adds_bos());
  const Tokenizer with_bos = with(PreTokenizer::gpt2, true);
  EXPECT_TRUE(with_bos.adds_bos());
  EXPECT_EQ(with_bos.encode("the"), (Ids{kEndOfText, kThe}));
  EXPECT_EQ(with_bos.encode(""), (Ids{kEndOfText}));
  try {
    tokenizer.encode("", "story opening");
    ADD_FAILURE() << "empty text without BOS encoded to no tokens";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field().path, "story opening");
    EXPECT_NE(std::string(e.what()).find("adds no BOS"), std::string::npos) << e.what();
  }
}

TEST_F(BpeTokenizerTest, DecodeGivesTheTextBack) {
  const std::string tricky =
      "Hello  w\xC3\xB6rld\n\n\t\xF0\x9F\x91\x8B\xF0\x9F\x8F\xBD \xE4\xBD\xA0\xE5\xA5\xBD\xE4\xB8\x96\xE7\x95\x8C "
      "\xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82 cafe\xCC\x81 12345 I'm <|im_start|>the cat<|endoftext|>  ";
  for (PreTokenizer pre : {PreTokenizer::gpt2, PreTokenizer::smollm, PreTokenizer::qwen2, PreTokenizer::llama3}) {
    const Tokenizer t = with(pre);
    const Ids ids = t.encode(tricky);
    EXPECT_EQ(t.decode(ids, -1), tricky);
    std::string one_at_a_time;
    for (int id : ids) one_at_a_time += t.decode(-1, id);
    EXPECT_EQ(one_at_a_time, tricky);
  }
}

TEST_F(BpeTokenizerTest, DecodeSpellsBytesBackAndSpecialTokensAsTheyStand) {
  EXPECT_EQ(tokenizer.decode(-1, kSpaceCat), " cat");
  EXPECT_EQ(tokenizer.decode(-1, byte('\n')), "\n");
  EXPECT_EQ(tokenizer.decode(-1, 0xE4), "\xE4");  // one byte of a character: the byte alone
  EXPECT_EQ(tokenizer.decode(-1, kImStart), "<|im_start|>");
  EXPECT_EQ(tokenizer.decode(-1, kTool), "<tool>");
  EXPECT_EQ(tokenizer.decode(-1, kUnused), "");
}

TEST_F(BpeTokenizerTest, IllFormedUtf8IsEncodedAsReplacementCharacters) {
  const Ids ids = tokenizer.encode("a\xFF");
  EXPECT_EQ(ids, (Ids{byte('a'), 0xEF, 0xBF, 0xBD}));
  EXPECT_EQ(tokenizer.decode(ids, -1), "a\xEF\xBF\xBD");
}

TEST_F(BpeTokenizerTest, AByteWithNoTokenIsRefusedNamingTheField) {
  Vocabulary v = test::tiny_bpe_vocabulary();
  v.pieces[1] = "<missing 0x01>";  // byte 0x01's token gone
  const Tokenizer t(std::move(v));
  try {
    t.encode("a\x01", "prompt");
    ADD_FAILURE() << "encoded a byte the vocabulary has no token for";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field().path, "prompt");
    EXPECT_NE(std::string(e.what()).find("0x01"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kvlab
