// The run's data as `touche view` embeds it (docs/viewer.md): scene.json, trajectory.csv and
// contacts.jsonl in <script type="text/plain"> blocks, with "</" written as "<\/" and "<\" as
// "<\\" so that no block can end its script early.

export function readPart(id) {
  const node = document.getElementById(id);
  if (!node) return null;
  return node.textContent.replace(/<\\(.)/g, '<$1');
}

// trajectory.csv: one row per moving body (bodies 1..n-1 in model order) per written state,
// `time,body,x,y,z,qw,qx,qy,qz,...` (docs/cli.md). A body name may hold commas, so the numbers
// are read from the end of the row, as many as the header names after `body`. Returns
// {times, poses}: poses[(frame * bodyCount + b) * 7] = x y z qw qx qy qz, with the world
// (body 0) at the identity.
export function parseTrajectory(text, bodyCount) {
  const lines = text.split('\n').filter((l) => l.length > 0);
  const numbers = lines.length ? lines[0].split(',').length - 2 : 0;
  const rows = lines.slice(1);
  const moving = bodyCount - 1;
  const frameCount = moving > 0 ? Math.floor(rows.length / moving) : 0;
  const times = new Float64Array(frameCount);
  const poses = new Float64Array(frameCount * bodyCount * 7);
  for (let f = 0; f < frameCount; ++f) {
    poses[f * bodyCount * 7 + 3] = 1;
    for (let b = 1; b < bodyCount; ++b) {
      const fields = rows[f * moving + b - 1].split(',');
      const n = fields.length;
      if (b === 1) times[f] = Number(fields[0]);
      const base = (f * bodyCount + b) * 7;
      for (let k = 0; k < 7; ++k) poses[base + k] = Number(fields[n - numbers + k]);
    }
  }
  return { times, poses };
}

// The summary of one contacts line (or live frame): total contact force (sum over pairs of the
// magnitude of each pair's net force), the deepest point's penetration and the energy (kinetic,
// gravitational and the pressure model's elastic energy) when the line has it.
export function summarize(frame) {
  let force = 0;
  let depth = 0;
  let elastic = 0;
  let maxPressure = 0;
  for (const pair of frame.pairs) {
    const f = pair.force;
    force += Math.hypot(f[0], f[1], f[2]);
    for (const point of pair.points) depth = Math.max(depth, point.depth);
    if (pair.elastic_energy) elastic += pair.elastic_energy;
    if (pair.max_pressure) maxPressure = Math.max(maxPressure, pair.max_pressure);
  }
  const energy = frame.energy === undefined ? NaN : frame.energy + elastic;
  return { force, depth, energy, maxPressure };
}

// contacts.jsonl: one JSON object per written step. Returns {frames, series} with series the
// columns the plots draw.
export function parseContacts(text) {
  const frames = [];
  for (const line of text.split('\n')) {
    if (line.trim().length > 0) frames.push(JSON.parse(line));
  }
  const n = frames.length;
  const series = {
    time: new Float64Array(n),
    force: new Float64Array(n),
    depth: new Float64Array(n),
    energy: new Float64Array(n),
    maxPressure: 0,
  };
  frames.forEach((frame, i) => {
    const s = summarize(frame);
    series.time[i] = frame.time;
    series.force[i] = s.force;
    series.depth[i] = s.depth;
    series.energy[i] = s.energy;
    series.maxPressure = Math.max(series.maxPressure, s.maxPressure);
  });
  return { frames, series };
}

// Index of the last entry of the sorted `times` not after t (0 when t is before the first).
export function frameAt(times, t) {
  let lo = 0;
  let hi = times.length - 1;
  if (hi < 0 || t <= times[0]) return 0;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (times[mid] <= t + 1e-12) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
