// Choosing the wording that fits: a label has its wordings, longest first, and a narrow plot takes the
// first that fits its room instead of drawing letters over letters or past its edge.

// The first of `wordings` no wider than roomPx in the canvas context's font (its pixels), or null.
export function firstThatFits(ctx, wordings, roomPx) {
  return wordings.find((text) => ctx.measureText(text).width <= roomPx) ?? null;
}
