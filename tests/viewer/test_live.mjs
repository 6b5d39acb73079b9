// touche run --live: the page receives frames and a drag moves the body.
// Usage: node test_live.mjs TOUCHE SOURCE_DIR VIEWER_DIR
import { spawn } from 'node:child_process';
import net from 'node:net';
import { launch, open, check, tempDir } from './browser.mjs';

const [touche, sourceDir, viewerDir] = process.argv.slice(2);
// A port that is free now (the system's choice for port 0).
const port = await new Promise((resolve) => {
  const probe = net.createServer().listen(0, '127.0.0.1', () => {
    const { port: free } = probe.address();
    probe.close(() => resolve(free));
  });
});
const out = tempDir();
const run = spawn(touche, ['run', `${sourceDir}/examples/box_slide.xml`, '--live', String(port),
  '--realtime', '--duration', '60', '--out', out], { stdio: ['ignore', 'inherit', 'pipe'] });
let log = '';
run.stderr.on('data', (d) => { log += d; });
const listening = () => new Promise((resolve, reject) => {
  const poll = setInterval(() => {
    if (log.includes('live at')) { clearInterval(poll); resolve(); }
    if (run.exitCode !== null) { clearInterval(poll); reject(new Error(`run exited: ${log}`)); }
  }, 50);
});

let browser;
try {
  await listening();
  browser = await launch(viewerDir);
  const page = await open(browser, `http://127.0.0.1:${port}/`);
  await page.waitForFunction(() => window.touche.stats().frames > 10, null, { timeout: 20000, polling: 100 });
  const stats = await page.evaluate(() => window.touche.stats());
  check(stats.frames > 10, `the live page received ${stats.frames} frames`);
  check(stats.contactPoints > 0, `the live frames carry the box's ${stats.contactPoints} contact points`);
  const before = await page.evaluate(() => window.touche.bodyPosition(1));
  const at = await page.evaluate(() => window.touche.bodyScreenPosition(1));
  // Grab the box at its centre on screen and pull it 250 px to the right and 150 px up.
  await page.mouse.move(at.x, at.y);
  await page.mouse.down();
  for (let i = 1; i <= 10; ++i) {
    await page.mouse.move(at.x + 25 * i, at.y - 15 * i);
    await page.waitForTimeout(40);
  }
  await page.waitForTimeout(1200);
  const during = await page.evaluate(() => window.touche.bodyPosition(1));
  await page.mouse.up();
  const moved = Math.hypot(during[0] - before[0], during[1] - before[1], during[2] - before[2]);
  check(moved > 0.03, `the drag moved the box ${moved.toFixed(3)} m (from ${before.map((v) => v.toFixed(3))} to ${during.map((v) => v.toFixed(3))})`);
  check(during[2] > before[2] + 0.005, `the drag lifted the box ${((during[2] - before[2]) * 1000).toFixed(1)} mm`);
  check(page.errors.length === 0, `no page errors (${page.errors.join('; ')})`);
} finally {
  if (browser) await browser.close();
  if (run.exitCode === null) {
    const exited = new Promise((resolve) => run.on('exit', resolve));
    run.kill('SIGINT');
    await exited;
  }
  console.log(log.split('\n').filter((l) => l.includes('live')).join('\n'));
}
