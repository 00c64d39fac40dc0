// SentencePiece's merges with a priority queue give exactly the tokens of run.c's scan (every pair
// looked at again for every merge, the best-scored and leftmost merging), on random vocabularies and
// texts built to have ties, pieces spelled twice, empty pieces, NaN and very low scores.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/rng.h"
#include "model_file_writers.h"
#include "model_files/tokenizer.h"

namespace kvlab {
namespace {

// run.c's encoding, quadratic, kept here only as the reference the tokenizer must agree with.
std::vector<int> reference_encode(const Vocabulary& v, const std::string& text) {
  std::unordered_map<std::string, int> ids;
  std::vector<int> byte_tokens(256, -1);
  for (int id = 0; id < static_cast<int>(v.pieces.size()); ++id) {
    ids[v.pieces[id]] = id;
    unsigned value = 0;
    if (v.pieces[id].size() == 6 && std::sscanf(v.pieces[id].c_str(), "<0x%2X>", &value) == 1 && byte_tokens[value] < 0)
      byte_tokens[value] = id;
  }
  const auto lookup = [&](const std::string& piece) {
    const auto found = ids.find(piece);
    return found == ids.end() ? -1 : found->second;
  };
  std::vector<int> tokens = {v.bos};
  const auto add_piece = [&](const std::string& piece) {
    const int id = lookup(piece);
    if (id >= 0) {
      tokens.push_back(id);
      return;
    }
    for (unsigned char byte : piece) tokens.push_back(byte_tokens[byte]);
  };
  if (!text.empty()) add_piece(" ");
  for (size_t start = 0; start < text.size();) {
    size_t end = start + 1;
    while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80 && end - start < 4) ++end;
    add_piece(text.substr(start, end - start));
    start = end;
  }
  while (true) {
    float best_score = -1e10f;
    int best_id = -1;
    size_t best_index = 0;
    for (size_t i = 0; i + 1 < tokens.size(); ++i) {
      const int id = lookup(v.pieces[tokens[i]] + v.pieces[tokens[i + 1]]);
      if (id >= 0 && v.scores[id] > best_score) {
        best_score = v.scores[id];
        best_id = id;
        best_index = i;
      }
    }
    if (best_id < 0) break;
    tokens[best_index] = best_id;
    tokens.erase(tokens.begin() + static_cast<std::ptrdiff_t>(best_index) + 1);
  }
  return tokens;
}

const std::vector<std::string> kCharacters = {"a", "b", "c", " ", "\xC3\xA9", "\n"};

std::string random_text(Rng& rng, int max_characters) {
  std::string text;
  const int64_t n = rng.uniform_int(0, max_characters);
  for (int64_t i = 0; i < n; ++i) text += kCharacters[static_cast<size_t>(rng.uniform_int(0, 5))];
  return text;
}

Vocabulary random_vocabulary(Rng& rng) {
  // <unk>, BOS, EOS and the 256 byte pieces, as the tiny vocabulary starts.
  Vocabulary v = test::tiny_vocabulary();
  v.pieces.resize(3 + 256);
  v.scores.resize(3 + 256);
  const float special_scores[] = {std::numeric_limits<float>::quiet_NaN(), -1e10f, -2e10f,
                                  std::numeric_limits<float>::infinity()};
  const int64_t n_pieces = rng.uniform_int(5, 60);
  for (int64_t i = 0; i < n_pieces; ++i) {
    // Short pieces, so that many pairs spell one; sometimes empty, sometimes a byte piece's text.
    std::string piece = random_text(rng, 4);
    if (rng.uniform_int(0, 30) == 0) piece = "<0x61>";
    v.pieces.push_back(piece);
    // Few distinct scores, so that ties are common.
    v.scores.push_back(rng.uniform_int(0, 20) == 0 ? special_scores[rng.uniform_int(0, 3)]
                                                   : -static_cast<float>(rng.uniform_int(0, 4)));
  }
  return v;
}

TEST(TokenizerMergeOrder, EqualsRunCsScanOnRandomVocabulariesAndTexts) {
  Rng rng(55);
  int compared = 0;
  for (int vocabulary = 0; vocabulary < 300; ++vocabulary) {
    const Vocabulary v = random_vocabulary(rng);
    const Tokenizer tokenizer(v);
    for (int text_index = 0; text_index < 40; ++text_index) {
      const std::string text = random_text(rng, 80);
      ASSERT_EQ(tokenizer.encode(text), reference_encode(v, text))
          << "vocabulary " << vocabulary << ", text \"" << text << "\"";
      ++compared;
    }
  }
  EXPECT_EQ(compared, 12000);
}

}  // namespace
}  // namespace kvlab
