// Measures the live mode's cost to the simulation (docs/viewer.md). One run with --live; a
// client connects and disconnects in turn, ROUNDS times (SECONDS each way), and the run prints
// its steps per second without and with a client connected (cli/live.c counts each step by
// whether a page was connected at its start): both measured in one process, interleaved.
// CLIENT is `page` (headless Chromium drawing the viewer, on the same machine) or `socket` (a
// bare WebSocket client that only receives the frames: the server's own cost).
// Usage: node --experimental-websocket measure_live.mjs TOUCHE VIEWER_DIR CLIENT ROUNDS SECONDS
//        SCENE [run options...]
import { spawn } from 'node:child_process';
import net from 'node:net';
import { launch, tempDir } from './browser.mjs';

const [touche, viewerDir, client, rounds, seconds, scene, ...options] = process.argv.slice(2);
const sleep = (s) => new Promise((r) => setTimeout(r, s * 1000));
const port = await new Promise((resolve) => {
  const probe = net.createServer().listen(0, '127.0.0.1', () => {
    const { port: free } = probe.address();
    probe.close(() => resolve(free));
  });
});
const browser = client === 'page' ? await launch(viewerDir) : null;
const run = spawn(touche, ['run', scene, '--live', String(port), '--duration', '1e6',
  '--no-contacts', '--out', tempDir(), ...options], { stdio: ['ignore', 'ignore', 'pipe'] });
let log = '';
run.stderr.on('data', (d) => { log += d; });
let received = 0;
for (let i = 0; i < Number(rounds); ++i) {
  await sleep(Number(seconds));
  if (browser) {
    const page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
    await page.goto(`http://127.0.0.1:${port}/`);
    await sleep(Number(seconds));
    received += await page.evaluate(() => (window.touche ? window.touche.stats().frames : 0));
    await page.close();
  } else {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/ws`);
    socket.onmessage = () => { received += 1; };
    await sleep(Number(seconds));
    socket.close();
  }
}
await sleep(Number(seconds));
const exited = new Promise((resolve) => run.on('exit', resolve));
run.kill('SIGINT');
await exited;
if (browser) await browser.close();
console.log(`${scene} ${options.join(' ')} (${client}): the client received ${received} frames`);
console.log(log.split('\n').filter((l) => l.includes('live:')).join('\n'));
