// Small canvas pieces the chapters' drawings share.

import { firstThatFits } from '../shared/fit-text.js';

const AXIS = '#344054';

// A time axis under a plot from x0 to x1 at y: the line, `left` and `right` at its ends and centred
// under it the first of `middle` (its wordings, longest first) that fits between them; none if none
// fits, rather than letters over letters on a narrow panel.
export function drawTimeAxis(g, { x0, x1, y, left, right, middle }) {
  g.strokeStyle = AXIS;
  g.beginPath();
  g.moveTo(x0, y + 0.5);
  g.lineTo(x1, y + 0.5);
  g.stroke();
  g.fillStyle = AXIS;
  g.font = '10px system-ui, sans-serif';
  g.textBaseline = 'top';
  g.textAlign = 'left';
  g.fillText(left, x0, y + 3);
  g.textAlign = 'right';
  g.fillText(right, x1, y + 3);
  const gapPx = 8;
  const room = x1 - x0 - 2 * Math.max(g.measureText(left).width, g.measureText(right).width) - 2 * gapPx;
  const fits = firstThatFits(g, middle, room);
  g.textAlign = 'center';
  if (fits) g.fillText(fits, (x0 + x1) / 2, y + 3);
  // What the axis says and the room it had, for the page's tests.
  g.canvas.dataset.axisMiddle = fits || '';
  g.canvas.dataset.axisRoomPx = room.toFixed(1);
  g.textAlign = 'left';
}

// Sets up a frame: the pixel ratio's transform, a clear canvas, 1 px lines. Returns the context.
export function beginFrame(canvas, layout, dpr) {
  const g = canvas.getContext('2d');
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, layout.width, layout.height);
  g.lineWidth = 1;
  return g;
}
