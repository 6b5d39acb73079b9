// The pressure colour map (a rainbow from dark blue through cyan, green and yellow to red,
// saturated so that it stands apart from the muted bodies) and its colour bar.

const STOPS = [
  [0.0, [0.19, 0.07, 0.55]],
  [0.2, [0.1, 0.4, 0.95]],
  [0.4, [0.05, 0.85, 0.85]],
  [0.6, [0.3, 0.95, 0.2]],
  [0.8, [0.98, 0.85, 0.1]],
  [1.0, [0.9, 0.1, 0.05]],
];

// RGB in [0, 1] for u in [0, 1] (clamped).
export function pressureColor(u, out = [0, 0, 0]) {
  const x = Math.min(1, Math.max(0, Number.isFinite(u) ? u : 0));
  for (let i = 1; i < STOPS.length; ++i) {
    if (x <= STOPS[i][0]) {
      const [x0, c0] = STOPS[i - 1];
      const [x1, c1] = STOPS[i];
      const w = (x - x0) / (x1 - x0);
      for (let k = 0; k < 3; ++k) out[k] = c0[k] + w * (c1[k] - c0[k]);
      return out;
    }
  }
  return out;
}

function formatPressure(p) {
  if (p >= 1e6) return `${(p / 1e6).toPrecision(3)} MPa`;
  if (p >= 1e3) return `${(p / 1e3).toPrecision(3)} kPa`;
  return `${p.toPrecision(3)} Pa`;
}

// A vertical colour bar from 0 to `max` Pa, drawn into `node`; returns a function that
// changes its maximum.
export function colorBar(node) {
  node.innerHTML = '';
  const title = document.createElement('div');
  title.textContent = 'pressure';
  const row = document.createElement('div');
  row.className = 'touche-colorbar-row';
  const canvas = document.createElement('canvas');
  canvas.width = 16;
  canvas.height = 128;
  const ctx = canvas.getContext('2d');
  for (let y = 0; y < canvas.height; ++y) {
    const [r, g, b] = pressureColor(1 - y / (canvas.height - 1));
    ctx.fillStyle = `rgb(${Math.round(255 * r)},${Math.round(255 * g)},${Math.round(255 * b)})`;
    ctx.fillRect(0, y, canvas.width, 1);
  }
  const labels = document.createElement('div');
  labels.className = 'touche-colorbar-labels';
  const top = document.createElement('div');
  const bottom = document.createElement('div');
  bottom.textContent = '0 Pa';
  labels.append(top, bottom);
  row.append(canvas, labels);
  node.append(title, row);
  return (max) => {
    top.textContent = formatPressure(max);
  };
}
