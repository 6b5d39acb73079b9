// Headless Chromium for the viewer's tests, driven by playwright-core from the viewer's npm
// packages (the build directory's node_modules). Debian's chromium, started with the flags
// that keep it off the network; playwright gives it a fresh user data directory.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';

export const CHROMIUM = process.env.TOUCHE_CHROMIUM || '/usr/bin/chromium';

export async function launch(viewerDir) {
  const require = createRequire(`${path.resolve(viewerDir)}/`);
  const { chromium } = require('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export async function open(browser, url) {
  const page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(url);
  try {
    await page.waitForFunction(() => window.touche && window.touche.ready, null, { timeout: 30000, polling: 100 });
  } catch (e) {
    throw new Error(`the page did not start: ${e.message}; page errors: ${errors.join('; ')}`);
  }
  page.errors = errors;
  return page;
}

// Decodes a PNG screenshot into {width, height, rgba} with node's zlib (8-bit RGB or RGBA,
// non-interlaced: what Chromium writes).
export async function decodePng(buffer) {
  const zlib = await import('node:zlib');
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 4;
  const chunks = [];
  while (offset < buffer.length) {
    const length = buffer.readUInt32BE(offset);
    const type = buffer.toString('ascii', offset + 4, offset + 8);
    const data = buffer.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      channels = data[9] === 6 ? 4 : 3;
      if (data[8] !== 8 || data[12] !== 0) throw new Error('unsupported PNG');
    } else if (type === 'IDAT') chunks.push(data);
    offset += 12 + length;
  }
  const raw = zlib.inflateSync(Buffer.concat(chunks));
  const stride = width * channels;
  const rgba = new Uint8Array(width * height * 4);
  const previous = new Uint8Array(stride);
  const line = new Uint8Array(stride);
  for (let y = 0; y < height; ++y) {
    const filter = raw[y * (stride + 1)];
    const source = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let i = 0; i < stride; ++i) {
      const a = i >= channels ? line[i - channels] : 0;
      const b = previous[i];
      const c = i >= channels ? previous[i - channels] : 0;
      let v = source[i];
      if (filter === 1) v += a;
      else if (filter === 2) v += b;
      else if (filter === 3) v += (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      line[i] = v & 255;
    }
    for (let x = 0; x < width; ++x) {
      for (let k = 0; k < 3; ++k) rgba[(y * width + x) * 4 + k] = line[x * channels + k];
      rgba[(y * width + x) * 4 + 3] = channels === 4 ? line[x * channels + 3] : 255;
    }
    previous.set(line);
  }
  return { width, height, rgba };
}

export function pixel(image, x, y) {
  const i = (Math.round(y) * image.width + Math.round(x)) * 4;
  return [image.rgba[i], image.rgba[i + 1], image.rgba[i + 2]];
}

export function check(condition, message) {
  if (!condition) throw new Error(message);
  console.log(`ok: ${message}`);
}

export function tempDir() {
  return fs.mkdtempSync('/tmp/touche-viewer-test-');
}
