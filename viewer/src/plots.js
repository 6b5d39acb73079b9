// uPlot plots of the contact force, penetration and energy over time, with a line at the time
// shown; a click on a plot seeks there.
import uPlot from 'uplot';

const PLOTS = [
  { key: 'force', title: 'total contact force', unit: 'N', scale: 1, color: '#d02090' },
  { key: 'depth', title: 'deepest penetration', unit: 'mm', scale: 1e3, color: '#1060c0' },
  { key: 'energy', title: 'energy, elastic included', unit: 'J', scale: 1, color: '#208040' },
];

export class Plots {
  constructor(node, width, onSeek) {
    this.time = 0;
    this.plots = PLOTS.map((spec) => {
      const holder = document.createElement('div');
      holder.className = 'touche-plot';
      node.append(holder);
      const plot = new uPlot(
        {
          title: `${spec.title} (${spec.unit})`,
          width,
          height: 140,
          scales: { x: { time: false } },
          legend: { show: false },
          axes: [{ label: 't (s)', size: 30, labelSize: 14 }, { size: 56 }],
          series: [{}, { stroke: spec.color, width: 1.5, spanGaps: true }],
          hooks: { draw: [(u) => this.drawTimeLine(u)] },
        },
        [[], []],
        holder,
      );
      plot.over.addEventListener('click', () => {
        const t = plot.posToVal(plot.cursor.left, 'x');
        if (Number.isFinite(t)) onSeek(t);
      });
      return { spec, plot };
    });
  }

  // series: {time, force, depth, energy}, arrays of the same length.
  setData(series) {
    for (const { spec, plot } of this.plots) {
      const y = Array.from(series[spec.key], (v) => (Number.isFinite(v) ? v * spec.scale : null));
      plot.setData([Array.from(series.time), y]);
    }
  }

  setTime(t) {
    if (t === this.time) return;
    this.time = t;
    for (const { plot } of this.plots) plot.redraw(false, false);
  }

  drawTimeLine(u) {
    const x = u.valToPos(this.time, 'x', true);
    if (!Number.isFinite(x)) return;
    const ctx = u.ctx;
    ctx.save();
    ctx.strokeStyle = '#444';
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(x, u.bbox.top);
    ctx.lineTo(x, u.bbox.top + u.bbox.height);
    ctx.stroke();
    ctx.restore();
  }

  // Points drawn per plot (for the tests).
  pointCounts() {
    return this.plots.map(({ plot }) => (plot.data[1] || []).filter((v) => v !== null).length);
  }
}
