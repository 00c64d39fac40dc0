#include "model/packed_matrix.h"

#include <algorithm>

#include "model/kernels.h"

namespace kvlab {

ArenaLayout lay_out_in_one_arena(const std::vector<MatrixShape>& shapes, NumberFormat format,
                                 std::shared_ptr<ByteBuffer> blocks) {
  ArenaLayout layout;
  layout.arena = std::make_shared<WeightArena>();
  const int stripes = kernels::one_row_panels();
  size_t block_bytes = 0;
  for (const MatrixShape& shape : shapes) {
    PackedMatrix m;
    m.n_out = shape.n_out;
    m.n_in = shape.n_in;
    m.blocks = shape.blocks;
    if (m.blocks) {
      m.block_start = blocks ? shape.block_start : block_bytes;
      block_bytes += m.bytes();
    }
    m.format = format;
    m.stripes = stripes;
    m.arena = layout.arena;
    m.stripe_starts.resize(static_cast<size_t>(stripes) + 1);
    layout.matrices.push_back(std::move(m));
  }
  // Stripe s of every matrix in order, for s = 0 .. stripes - 1, then every matrix's tail.
  size_t words = 0;
  for (int s = 0; s <= stripes; ++s) {
    for (PackedMatrix& m : layout.matrices) {
      if (m.blocks) continue;
      m.stripe_starts[s] = words;
      const int panels = s < stripes ? m.panels_per_stripe() : m.n_panels() - m.panels_per_stripe() * stripes;
      words += static_cast<size_t>(panels) * m.words_per_panel();
    }
  }
  if (format == NumberFormat::f32)
    layout.arena->panels.assign(words, 0.0f);
  else
    layout.arena->pairs.assign(words, 0u);
  layout.arena->blocks = blocks ? std::move(blocks) : std::make_shared<ByteBuffer>(block_bytes);
  return layout;
}

void copy_blocks_into(WeightArena& arena, const PackedMatrix& m, const uint8_t* rows) {
  std::copy(rows, rows + m.bytes(), arena.blocks->begin() + static_cast<std::ptrdiff_t>(m.block_start));
}

void pack_into(WeightArena& arena, const PackedMatrix& m, const float* row_major) {
  const auto w = [&](int o, int i) { return row_major[static_cast<size_t>(o) * m.n_in + i]; };
  for (int o = 0; o < m.n_out; ++o) {
    const size_t panel = m.panel_offset(o / kPanelWidth) + o % kPanelWidth;
    for (int i = 0; i < m.n_in; ++i) {
      if (m.format == NumberFormat::f32)
        arena.panels[panel + static_cast<size_t>(i) * kPanelWidth] = w(o, i);
      else
        arena.pairs[panel + static_cast<size_t>(i / 2) * kPanelWidth] |= static_cast<uint32_t>(to_bf16(w(o, i)))
                                                                         << (i % 2 == 0 ? 0 : 16);
    }
  }
}

PackedMatrix pack(const float* row_major, int n_out, int n_in, NumberFormat format) {
  ArenaLayout layout = lay_out_in_one_arena({{n_out, n_in}}, format);
  pack_into(*layout.arena, layout.matrices[0], row_major);
  return layout.matrices[0];
}

PackedMatrix pack_blocks(const uint8_t* rows, BlockFormat blocks, int n_out, int n_in) {
  ArenaLayout layout = lay_out_in_one_arena({{n_out, n_in, blocks}}, NumberFormat::f32);
  copy_blocks_into(*layout.arena, layout.matrices[0], rows);
  return layout.matrices[0];
}

FloatBuffer unpack(const PackedMatrix& m) {
  FloatBuffer row_major(static_cast<size_t>(m.n_out) * m.n_in);
  if (m.blocks) {
    dequantize_blocks(*m.blocks, m.block_row(0), static_cast<int64_t>(m.n_out) * (m.n_in / traits(*m.blocks).elements),
                      row_major.data());
    return row_major;
  }
  for (int o = 0; o < m.n_out; ++o)
    for (int i = 0; i < m.n_in; ++i) row_major[static_cast<size_t>(o) * m.n_in + i] = m.at(o, i);
  return row_major;
}

}  // namespace kvlab
