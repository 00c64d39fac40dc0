// Small canvas pieces the chapters' drawings share.

const AXIS = '#344054';

// A time axis under a plot from x0 to x1 at y: the line, `left` and `right` at its ends and `middle`
// centred under it.
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
  g.textAlign = 'center';
  g.fillText(middle, (x0 + x1) / 2, y + 3);
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
