#pragma once
// A weight matrix W [n_out, n_in] stored in the order the matmul kernel reads it: panels of
// kPanelWidth consecutive outputs, each panel [n_in, kPanelWidth] with the panel's outputs side by
// side for every input index. The kernel then loads one vector of weights per input index and
// multiplies it by each row's input value (broadcast), so every weight loaded serves all rows of a
// block and every output keeps one running sum in input order (no horizontal reductions).
//
// The panels are stored in stripes (measured: docs/benchmarks.md, "The one-row kernel" and "One
// buffer for all weights"). The one-row matmul reads `stripes` panels side by side (as many as it
// keeps running sums for); each of those reads is one memory stream, and a stream that stops and
// starts anew elsewhere keeps the hardware prefetcher from running ahead. So the panels of whole
// groups of `stripes` panels are dealt out to `stripes` stripes, panel p to stripe p % stripes, in
// order: panel p + stripes right after panel p. Panels past the last whole group are the matrix's
// tail, in order.
//
// All matrices of a model share one arena (lay_out_in_one_arena), laid out stripe by stripe across
// them: stripe 0 of every matrix in the order the forward pass reads them, then stripe 1 of every
// matrix, and so on, then the tails. The one-row matmul's streams then run through the whole model
// instead of restarting at each matrix. A PackedMatrix is a view: its dimensions and format, the
// arena, and where each of its stripes starts in it. A matrix packed alone (pack) has an arena of its
// own, which holds its stripes one after the other and then its tail.
//
// In bfloat16 (config.h, float16.h) a panel holds pairs of inputs instead: [ceil(n_in / 2), kPanelWidth]
// 32-bit words, word (j, o) = bf16(W[o, 2j]) in its low half and bf16(W[o, 2j + 1]) in its high half
// (0 past n_in). One 32-bit vector load then gives two inputs' weights for the same outputs: a shift
// left by 16 widens the first to float32 and a mask of the low half the second.
//
// A quantized matrix (a GGUF file's weights in a block format: Q4_0, Q4_K, Q5_0 ...) keeps its file's blocks instead:
// row o of W is n_in / elements blocks (block_format.h), rows one after another, in the arena's byte
// buffer, which is the model file's bytes themselves when every quantized matrix lies in them (then
// the matrices sit in the file's order, and the model holds its file once). Its blocks run along the input, so panels do not suit it; kernels::matmul_blocks computes an
// output as one row's dot product, block by block. Its "panels" are then groups of kPanelWidth rows, the
// unit threads share a product by.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <xsimd/memory/xsimd_aligned_allocator.hpp>

#include "model/block_format.h"
#include "model/buffer.h"
#include "model/float16.h"
#include "model/number_format.h"

namespace kvlab {

constexpr int kPanelWidth = 8;

using Bf16PairBuffer = std::vector<uint32_t, xsimd::aligned_allocator<uint32_t, 64>>;

// The packed weights of one or more matrices: f32 panels or bf16 pairs (the other buffer empty), and
// the quantized matrices' blocks (never null). Outputs past n_out in a matrix's last panel, and inputs
// past n_in in bf16, are zero.
struct WeightArena {
  FloatBuffer panels;
  Bf16PairBuffer pairs;
  std::shared_ptr<ByteBuffer> blocks = std::make_shared<ByteBuffer>();
};

struct PackedMatrix {
  int n_out = 0;
  int n_in = 0;
  NumberFormat format = NumberFormat::f32;
  int stripes = 1;  // panels the one-row matmul reads side by side (kernels::one_row_panels())
  std::shared_ptr<const WeightArena> arena;
  // Words from the arena's start where stripe s's first panel is (s < stripes), then where the tail is.
  std::vector<size_t> stripe_starts;
  // Set for a quantized matrix: its blocks' format. Its rows start at (*arena->blocks)[block_start]; the
  // format, stripes and stripe_starts above are unused.
  std::optional<BlockFormat> blocks;
  size_t block_start = 0;

  // Bytes a quantized matrix's row takes: n_in / elements blocks.
  size_t row_bytes() const { return bytes_of_weights(*blocks, n_in); }
  // Where row o of a quantized matrix starts.
  const uint8_t* block_row(int o) const {
    return arena->blocks->data() + block_start + static_cast<size_t>(o) * row_bytes();
  }

  int n_panels() const { return (n_out + kPanelWidth - 1) / kPanelWidth; }
  int n_pairs() const { return (n_in + 1) / 2; }
  // 32-bit words a panel takes: n_in floats or ceil(n_in / 2) pairs, times kPanelWidth outputs.
  size_t words_per_panel() const {
    return static_cast<size_t>(format == NumberFormat::f32 ? n_in : n_pairs()) * kPanelWidth;
  }
  // Panels each stripe holds: one per whole group of `stripes` panels.
  int panels_per_stripe() const { return n_panels() / stripes; }
  // Where panel p starts, in words from the arena's start (see the stripes above).
  size_t panel_offset(int p) const {
    const int striped = panels_per_stripe() * stripes;
    if (p >= striped) return stripe_starts[stripes] + static_cast<size_t>(p - striped) * words_per_panel();
    return stripe_starts[p % stripes] + static_cast<size_t>(p / stripes) * words_per_panel();
  }
  // W[o, i], widened to float32 (dequantized, for a quantized matrix)
  float at(int o, int i) const {
    if (blocks) {
      const BlockFormatTraits& t = traits(*blocks);
      float block[256];
      dequantize_blocks(*blocks, block_row(o) + static_cast<size_t>(i / t.elements) * t.bytes, 1, block);
      return block[i % t.elements];
    }
    const size_t panel = panel_offset(o / kPanelWidth);
    if (format == NumberFormat::f32)
      return arena->panels[panel + static_cast<size_t>(i) * kPanelWidth + o % kPanelWidth];
    const uint32_t pair = arena->pairs[panel + static_cast<size_t>(i / 2) * kPanelWidth + o % kPanelWidth];
    return from_bf16(static_cast<uint16_t>(i % 2 == 0 ? pair : pair >> 16));
  }
  // Bytes this matrix's weights take in the arena (padding of the last panel included).
  size_t bytes() const {
    if (blocks) return static_cast<size_t>(n_out) * row_bytes();
    return static_cast<size_t>(n_panels()) * words_per_panel() * sizeof(uint32_t);
  }
};

struct MatrixShape {
  int n_out = 0;
  int n_in = 0;
  std::optional<BlockFormat> blocks = std::nullopt;  // set: a quantized matrix, n_in a multiple of its block's elements
  size_t block_start = 0;  // a quantized matrix's place in the blocks given to lay_out_in_one_arena
};

// Views of matrices of these shapes, listed in the order the forward pass reads them, in one new
// arena laid out stripe by stripe across them (above), in stripes of kernels::one_row_panels() (this
// build's one-row matmul). The quantized ones view `blocks` at their shape's block_start when given (the
// blocks are already there); otherwise their rows go one after another into new blocks, in the same
// order. The new storage is zero until pack_into or copy_blocks_into fills each matrix.
struct ArenaLayout {
  std::shared_ptr<WeightArena> arena;
  std::vector<PackedMatrix> matrices;
};
ArenaLayout lay_out_in_one_arena(const std::vector<MatrixShape>& shapes, NumberFormat format,
                                 std::shared_ptr<ByteBuffer> blocks = nullptr);

// Writes a row-major [m.n_out, m.n_in] matrix of float32 values, rounded to m.format, into m's place
// in `arena` (the one m views).
void pack_into(WeightArena& arena, const PackedMatrix& m, const float* row_major);

// Copies a quantized matrix's rows of blocks [m.n_out, m.row_bytes()] into m's place in `arena`.
void copy_blocks_into(WeightArena& arena, const PackedMatrix& m, const uint8_t* rows);

// Packs one row-major [n_out, n_in] matrix of float32 values, rounding them to `format`, into an arena
// of its own.
PackedMatrix pack(const float* row_major, int n_out, int n_in, NumberFormat format = NumberFormat::f32);
// A quantized matrix's rows of blocks [n_out, n_in / elements blocks], copied into an arena of its own.
PackedMatrix pack_blocks(const uint8_t* rows, BlockFormat blocks, int n_out, int n_in);

// The row-major [n_out, n_in] matrix back, in float32 (for exporting weights to other implementations).
FloatBuffer unpack(const PackedMatrix& m);

}  // namespace kvlab
