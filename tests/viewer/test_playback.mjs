// touche view: a recorded run of every example played back in headless Chromium. Each page renders
// its bodies (pixels unlike the background where they are), draws its plots, and changes when
// scrubbed; a pressure run shows its patches in the colour map's colours.
// Usage: node test_playback.mjs TOUCHE SOURCE_DIR VIEWER_DIR
import { execFileSync } from 'node:child_process';
import { copyFileSync, readdirSync } from 'node:fs';
import { launch, open, check, tempDir, decodePng, pixel } from './browser.mjs';

const [touche, sourceDir, viewerDir] = process.argv.slice(2);
const BACKGROUND = [0xf4, 0xf5, 0xf7];

// A short run of every example: [example, extra arguments, a pressure run whose patches the
// page must colour]. The run lasts 0.1 s (11 written states) unless the example needs longer
// to show what it is about, starts from the keyframe that sets it in motion, and cube_drop
// runs the volume model so that its overlap polygons are drawn.
const SPECIAL = {
  'stack13.xml': ['--duration', '0.5'],
  'pressure_ball.xml': ['--duration', '0.3'],
  'cube_drop.xml': ['--contact', 'volume', '--duration', '1'],
  'newton_cradle.xml': ['--key', 'launch'],
  'gripper_hinge.xml': ['--key', 'grip'],
};
const RUNS = readdirSync(`${sourceDir}/examples`)
  .filter((name) => name.endsWith('.xml'))
  .sort()
  .map((name) => [name, SPECIAL[name] || ['--duration', '0.1'], name === 'pressure_ball.xml']);

// The scene to run: the example itself, or for torus_ball.xml (whose torus.vtk is made by
// `touche mesh` from torus.obj, never stored) a copy beside a freshly meshed torus.
function scenePath(example) {
  if (example !== 'torus_ball.xml') return `${sourceDir}/examples/${example}`;
  const dir = tempDir();
  for (const file of ['torus_ball.xml', 'torus.obj']) copyFileSync(`${sourceDir}/examples/${file}`, `${dir}/${file}`);
  execFileSync(touche, ['mesh', `${sourceDir}/examples/torus.obj`, `${dir}/torus.vtk`], { stdio: 'pipe' });
  return `${dir}/torus_ball.xml`;
}

function differs(a, b, tolerance = 12) {
  return a.some((v, k) => Math.abs(v - b[k]) > tolerance);
}

// Saturated pixels inside the 3D view (the colour bar is outside it): the pressure colours.
function saturatedPixels(image, width) {
  let n = 0;
  for (let y = 0; y < image.height; ++y) {
    for (let x = 0; x < width; ++x) {
      const [r, g, b] = pixel(image, x, y);
      const max = Math.max(r, g, b);
      const min = Math.min(r, g, b);
      if (max > 60 && (max - min) / max > 0.55) n += 1;
    }
  }
  return n;
}

const browser = await launch(viewerDir);
try {
  for (const [example, args, pressure] of RUNS) {
    const out = `${tempDir()}/run`;
    execFileSync(touche, ['run', scenePath(example), ...args, '--out', out], { stdio: 'pipe' });
    execFileSync(touche, ['view', out], { stdio: 'pipe' });
    const page = await open(browser, `file://${out}/view.html`);
    const stats = await page.evaluate(() => window.touche.stats());
    check(stats.frames > 5, `${example}: ${stats.frames} frames loaded`);
    check(stats.plotPoints.every((n) => n > 5), `${example}: plots drawn (${stats.plotPoints.join(', ')} points)`);
    const plotInk = await page.evaluate(() => Array.from(document.querySelectorAll('.touche-plot canvas')).map((c) => {
      const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let ink = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i + 3] > 0) ink += 1;
      return ink;
    }));
    check(plotInk.length === 3 && plotInk.every((n) => n > 100), `${example}: plot canvases have ink (${plotInk.join(', ')} pixels)`);
    const viewWidth = await page.evaluate(() => document.querySelector('.touche-view').clientWidth);
    // The frame of the largest contact force, where the patches are (the last frame when
    // nothing touches, a body still in flight).
    const busiest = await page.evaluate(() => {
      const s = window.touche.viewer.contacts.series;
      let i = 0;
      for (let k = 0; k < s.force.length; ++k) if (s.force[k] > s.force[i]) i = k;
      return s.force[i] > 0 ? s.time[i] : window.touche.stats().end;
    });
    await page.evaluate((t) => window.touche.seek(t), busiest);
    const end = await decodePng(await page.screenshot());
    const bodyCount = await page.evaluate(() => window.touche.viewer.scene.bodies.length);
    for (let b = 1; b < bodyCount; ++b) {
      const at = await page.evaluate((i) => window.touche.bodyScreenPosition(i), b);
      // a body with no geom is not drawn (the PUMA's links: the example is dynamics only)
      const drawn = await page.evaluate((i) => window.touche.viewer.meshes.some((m) => m.userData.body === i), b);
      if (!drawn) continue;
      if (at.x < 0 || at.y < 0 || at.x >= viewWidth || at.y >= end.height) continue;
      check(differs(pixel(end, at.x, at.y), BACKGROUND), `${example}: body ${b} drawn at (${at.x.toFixed(0)}, ${at.y.toFixed(0)})`);
    }
    const overlap = await page.evaluate(() => window.touche.stats().overlapTriangles);
    if (overlap > 0) console.log(`ok: ${example}: ${overlap} overlap (volume model) triangles drawn`);
    if (pressure) {
      check(stats.maxPressure > 0, `${example}: pressure up to ${stats.maxPressure.toFixed(0)} Pa`);
      const endStats = await page.evaluate(() => window.touche.stats());
      check(endStats.patchTriangles > 0, `${example}: ${endStats.patchTriangles} patch triangles`);
      const colored = saturatedPixels(end, viewWidth);
      check(colored > 50, `${example}: ${colored} pixels in the pressure colours`);
    }
    const positions = () => page.evaluate((n) => Array.from({ length: n }, (_, b) => window.touche.viewer.bodyPosition(b)), bodyCount);
    const atEnd = await positions();
    await page.evaluate((t) => window.touche.seek(t), stats.start);
    const start = await decodePng(await page.screenshot());
    const atStart = await positions();
    const drawn = await page.evaluate((n) => Array.from({ length: n }, (_, b) => window.touche.viewer.meshes.some((m) => m.userData.body === b)), bodyCount);
    const moved = Math.max(0, ...atEnd.map((p, b) => (drawn[b] ? Math.hypot(...p.map((v, k) => v - atStart[b][k])) : 0)));
    if (moved > 1e-3) {
      let changed = 0;
      for (let y = 0; y < end.height; y += 2) {
        for (let x = 0; x < viewWidth; x += 2) if (differs(pixel(start, x, y), pixel(end, x, y), 30)) changed += 1;
      }
      check(changed > 20, `${example}: scrubbing from the busiest frame to the start changed ${changed} sampled pixels`);
    } else {
      // no drawn body moves by a millimetre between the two frames (a robot holding its pose,
      // the PUMA without geoms): the scrub is checked on the time the page shows
      const shown = await page.evaluate(() => window.touche.viewer.time);
      check(Math.abs(shown - stats.start) < 1e-9, `${example}: scrubbed to the start (t = ${shown}); bodies moved ${moved.toExponential(1)} m`);
    }
    check(page.errors.length === 0, `${example}: no page errors (${page.errors.join('; ')})`);
    await page.close();
  }
} finally {
  await browser.close();
}
