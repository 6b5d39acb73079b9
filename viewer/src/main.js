// touche's viewer (docs/viewer.md): plays back a run that `touche view` embedded into the page,
// or shows a live run (`touche run --live PORT`) streamed over a WebSocket, where a body can be
// dragged through a spring.
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import uplotCss from 'uplot/dist/uPlot.min.css';
import viewerCss from './viewer.css';
import { readPart, parseTrajectory, parseContacts, summarize, frameAt } from './data.js';
import { buildGeoms } from './shapes.js';
import { colorBar } from './colors.js';
import { ContactOverlay, largestPointForce } from './overlay.js';
import { Plots } from './plots.js';
import { LiveLink } from './live.js';

const BACKGROUND = 0xf4f5f7;
const SPEEDS = [0.05, 0.1, 0.25, 0.5, 1, 2, 4];

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function addStyle(text) {
  const style = document.createElement('style');
  style.textContent = text;
  document.head.append(style);
}

// The page: the 3D view on the left, the controls, colour bar and plots on the right.
function layout(scene, live) {
  addStyle(uplotCss);
  addStyle(viewerCss);
  const app = element('div', 'touche-app');
  const view = element('div', 'touche-view');
  const panel = element('div', 'touche-panel');
  app.append(view, panel);
  document.body.append(app);
  panel.append(element('h1', '', live ? 'touche live' : 'touche view'));
  panel.append(element('div', 'touche-source', scene.source));
  const ui = { view, panel };
  const row = element('div', 'touche-row');
  if (!live) {
    ui.play = element('button', '', 'play');
    ui.speed = element('select');
    for (const s of SPEEDS) {
      const option = element('option', '', `${s}x`);
      option.value = String(s);
      option.selected = s === 1;
      ui.speed.append(option);
    }
    ui.slider = element('input');
    ui.slider.type = 'range';
    ui.slider.step = 'any';
    row.append(ui.play, ui.speed, ui.slider);
  }
  ui.time = element('span', 'touche-time', 't = 0 s');
  row.append(ui.time);
  panel.append(row);
  if (live) {
    ui.status = element('div', 'touche-status', 'connecting');
    panel.append(ui.status, element('div', '', 'drag a body with the mouse: a spring pulls it'));
  }
  const bodyRow = element('div', 'touche-row');
  ui.body = element('select');
  ui.body.append(element('option', '', '(no body)'));
  scene.bodies.forEach((b, i) => {
    if (i === 0) return;
    const option = element('option', '', b.name || `body ${i}`);
    option.value = String(i);
    ui.body.append(option);
  });
  ui.body.firstChild.value = '0';
  bodyRow.append(element('span', '', 'body'), ui.body);
  panel.append(bodyRow);
  ui.info = element('div', 'touche-info', '');
  panel.append(ui.info);
  const toggles = element('div', 'touche-row');
  ui.transparent = element('input');
  ui.transparent.type = 'checkbox';
  ui.contacts = element('input');
  ui.contacts.type = 'checkbox';
  ui.contacts.checked = true;
  const label = (input, text) => {
    const l = element('label');
    l.append(input, document.createTextNode(` ${text}`));
    return l;
  };
  toggles.append(label(ui.transparent, 'see-through bodies'), label(ui.contacts, 'contacts'));
  panel.append(toggles);
  ui.colorbar = element('div', 'touche-colorbar');
  panel.append(ui.colorbar);
  ui.plots = element('div');
  panel.append(ui.plots);
  return ui;
}

class Viewer {
  constructor(scene, live) {
    THREE.Object3D.DEFAULT_UP.set(0, 0, 1);
    this.scene = scene;
    this.ui = layout(scene, live);
    this.renderer = new THREE.WebGLRenderer({ antialias: true });
    this.renderer.setPixelRatio(window.devicePixelRatio || 1);
    this.renderer.setClearColor(BACKGROUND);
    this.ui.view.append(this.renderer.domElement);
    this.world = new THREE.Scene();
    this.world.add(new THREE.HemisphereLight(0xffffff, 0x707070, 2.0));
    const sun = new THREE.DirectionalLight(0xffffff, 1.5);
    sun.position.set(1, -2, 3);
    this.world.add(sun);
    this.groups = scene.bodies.map(() => {
      const group = new THREE.Group();
      this.world.add(group);
      return group;
    });
    const built = buildGeoms(scene, this.groups, 1);
    this.meshes = built.meshes;
    this.materials = built.materials;
    this.overlay = new ContactOverlay(this.world);
    this.camera = new THREE.PerspectiveCamera(40, 1, 0.01, 1000);
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    this.controls.addEventListener('change', () => this.requestRender());
    this.selected = 0;
    this.ui.body.addEventListener('change', () => this.select(Number(this.ui.body.value)));
    this.ui.transparent.addEventListener('change', () => this.setTransparent(this.ui.transparent.checked));
    this.ui.contacts.addEventListener('change', () => {
      this.overlay.setVisible(this.ui.contacts.checked, this.ui.contacts.checked);
      this.requestRender();
    });
    this.setColorBarMax = null;
    this.plots = new Plots(this.ui.plots, 340, (t) => this.seek(t));
    window.addEventListener('resize', () => this.resize());
    this.needsRender = true;
  }

  // Frames the camera on the bodies (not the infinite planes, which are sized to them) over
  // the poses `showPose(i)` shows for i < count (sampled), or as they are.
  fit(showPose = null, count = 0) {
    const box = new THREE.Box3();
    const samples = showPose ? Math.min(count, 24) : 1;
    for (let k = 0; k < samples; ++k) {
      if (showPose) showPose(Math.round((k * (count - 1)) / Math.max(1, samples - 1)));
      this.world.updateMatrixWorld(true);
      for (const mesh of this.meshes) {
        if (!mesh.userData.plane) box.expandByObject(mesh);
      }
    }
    if (box.isEmpty()) box.setFromCenterAndSize(new THREE.Vector3(), new THREE.Vector3(1, 1, 1));
    const sphere = box.getBoundingSphere(new THREE.Sphere());
    const r = Math.max(sphere.radius, 1e-3);
    this.extent = r;
    for (const mesh of this.meshes) {
      const geom = this.scene.geoms[mesh.userData.geom];
      if (mesh.userData.plane && !(geom.size[0] > 0)) mesh.scale.set(4 * r, 4 * r, 1);
    }
    const direction = new THREE.Vector3(1.0, -1.6, 0.9).normalize();
    this.camera.position.copy(sphere.center).addScaledVector(direction, 2.6 * r);
    this.camera.near = r / 100;
    this.camera.far = r * 200;
    this.controls.target.copy(sphere.center);
    this.controls.update();
    this.resize();
  }

  resize() {
    const w = this.ui.view.clientWidth;
    const h = this.ui.view.clientHeight;
    this.renderer.setSize(w, h);
    this.camera.aspect = w / Math.max(1, h);
    this.camera.updateProjectionMatrix();
    this.requestRender();
  }

  requestRender() {
    this.needsRender = true;
  }

  render() {
    this.renderer.render(this.world, this.camera);
    this.needsRender = false;
  }

  setTransparent(on) {
    for (const list of this.materials.slice(1)) {
      for (const m of list) {
        m.transparent = on;
        m.opacity = on ? 0.35 : 1;
        m.depthWrite = !on;
        m.needsUpdate = true;
      }
    }
    this.ui.transparent.checked = on;
    this.requestRender();
  }

  select(body) {
    this.selected = body;
    this.ui.body.value = String(body);
    this.materials.forEach((list, b) => {
      for (const m of list) m.emissive.setHex(b === body && body > 0 ? 0x553300 : 0x000000);
    });
    this.showInfo();
    this.requestRender();
  }

  // poses: [x y z qw qx qy qz] per body, from `offset`.
  setPoses(poses, offset = 0) {
    for (let b = 1; b < this.groups.length; ++b) {
      const i = offset + 7 * b;
      this.groups[b].position.set(poses[i], poses[i + 1], poses[i + 2]);
      this.groups[b].quaternion.set(poses[i + 4], poses[i + 5], poses[i + 6], poses[i + 3]);
    }
    this.showInfo();
    this.requestRender();
  }

  showInfo() {
    const b = this.selected;
    if (!(b > 0)) {
      this.ui.info.textContent = '';
      return;
    }
    const p = this.groups[b].position;
    const body = this.scene.bodies[b];
    this.ui.info.textContent = `mass ${body.mass.toPrecision(4)} kg\n` +
      `x ${p.x.toFixed(4)}  y ${p.y.toFixed(4)}  z ${p.z.toFixed(4)} m`;
  }

  setContacts(pairs) {
    this.overlay.update(pairs);
    this.requestRender();
  }

  setMaxPressure(max) {
    this.overlay.maxPressure = max;
    if (max > 0 && !this.setColorBarMax) this.setColorBarMax = colorBar(this.ui.colorbar);
    if (this.setColorBarMax) this.setColorBarMax(max);
  }

  showTime(t) {
    this.ui.time.textContent = `t = ${t.toFixed(4)} s`;
    this.plots.setTime(t);
  }

  seek() {}

  // The body under the mouse: {body, point} or null.
  pick(event) {
    const rect = this.renderer.domElement.getBoundingClientRect();
    const ndc = new THREE.Vector2(
      ((event.clientX - rect.left) / rect.width) * 2 - 1,
      -((event.clientY - rect.top) / rect.height) * 2 + 1,
    );
    const ray = new THREE.Raycaster();
    ray.setFromCamera(ndc, this.camera);
    const hits = ray.intersectObjects(this.meshes.filter((m) => m.userData.body > 0), false);
    return hits.length ? { body: hits[0].object.userData.body, point: hits[0].point, ray } : null;
  }

  // Where body b appears on the page, CSS pixels (for the tests).
  bodyScreenPosition(b) {
    this.world.updateMatrixWorld(true);
    const box = new THREE.Box3();
    for (const mesh of this.meshes) {
      if (mesh.userData.body === b) box.expandByObject(mesh);
    }
    const center = box.getCenter(new THREE.Vector3()).project(this.camera);
    const rect = this.renderer.domElement.getBoundingClientRect();
    return { x: rect.left + ((center.x + 1) / 2) * rect.width, y: rect.top + ((1 - center.y) / 2) * rect.height };
  }

  bodyPosition(b) {
    const p = this.groups[b].position;
    return [p.x, p.y, p.z];
  }

  loop(tick) {
    const frame = (now) => {
      tick(now);
      if (this.needsRender) this.render();
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  }
}

// ---- playback of a recorded run ----

class Playback extends Viewer {
  constructor(scene, trajectoryText, contactsText) {
    super(scene, false);
    const bodyCount = scene.bodies.length;
    this.trajectory = parseTrajectory(trajectoryText, bodyCount);
    this.contacts = contactsText ? parseContacts(contactsText) : null;
    const times = this.trajectory.times;
    this.start = times.length ? times[0] : 0;
    this.end = times.length ? times[times.length - 1] : 0;
    this.time = this.start;
    this.playing = false;
    this.speed = 1;
    const ui = this.ui;
    ui.slider.min = String(this.start);
    ui.slider.max = String(this.end);
    ui.slider.value = String(this.start);
    ui.slider.addEventListener('input', () => this.seek(Number(ui.slider.value)));
    ui.play.addEventListener('click', () => this.setPlaying(!this.playing));
    ui.speed.addEventListener('change', () => {
      this.speed = Number(ui.speed.value);
    });
    this.renderer.domElement.addEventListener('click', (event) => {
      const hit = this.pick(event);
      if (hit) this.select(hit.body);
    });
    this.fit((i) => this.showFrame(i), this.trajectory.times.length);
    if (this.contacts) {
      const series = this.contacts.series;
      this.plots.setData(series);
      this.setMaxPressure(series.maxPressure);
      this.overlay.setForceScale(0.3 * this.extent, largestPointForce(this.contacts.frames));
      if (series.maxPressure > 0) this.setTransparent(true);
    }
    this.seek(this.start);
  }

  setPlaying(on) {
    this.playing = on;
    this.ui.play.textContent = on ? 'pause' : 'play';
    if (on && this.time >= this.end) this.seek(this.start);
  }

  showFrame(index) {
    const bodyCount = this.scene.bodies.length;
    if (this.trajectory.times.length) this.setPoses(this.trajectory.poses, index * bodyCount * 7);
  }

  seek(t) {
    this.time = Math.min(this.end, Math.max(this.start, t));
    const index = frameAt(this.trajectory.times, this.time);
    this.showFrame(index);
    if (this.contacts && this.contacts.frames.length) {
      const shown = this.trajectory.times.length ? this.trajectory.times[index] : this.time;
      this.setContacts(this.contacts.frames[frameAt(this.contacts.series.time, shown)].pairs);
    }
    this.ui.slider.value = String(this.time);
    this.showTime(this.time);
  }

  run() {
    let last = null;
    this.loop((now) => {
      if (this.playing && last !== null) {
        this.seek(this.time + ((now - last) / 1000) * this.speed);
        if (this.time >= this.end) this.setPlaying(false);
      }
      last = now;
    });
  }
}

// ---- a live run ----

const LIVE_HISTORY = 1200; // samples the live plots keep (20 s at 60 Hz)

class Live extends Viewer {
  constructor(scene) {
    super(scene, true);
    this.framesReceived = 0;
    this.series = { time: [], force: [], depth: [], energy: [] };
    this.maxPressure = 0;
    this.maxForce = 0;
    this.fitted = false;
    this.link = new LiveLink(`ws://${window.location.host}/ws`, {
      frame: (frame) => this.onFrame(frame),
      status: (text) => {
        this.ui.status.textContent = text;
      },
    });
    this.setupDrag();
  }

  onFrame(frame) {
    this.framesReceived += 1;
    this.lastFrame = frame;
    this.setPoses(frame.poses);
    if (!this.fitted) {
      this.fit();
      this.fitted = true;
    }
    const s = summarize(frame);
    this.maxPressure = Math.max(this.maxPressure, s.maxPressure);
    this.setMaxPressure(this.maxPressure);
    this.maxForce = Math.max(this.maxForce, largestPointForce([frame]));
    this.overlay.setForceScale(0.3 * this.extent, this.maxForce);
    this.setContacts(frame.pairs);
    const series = this.series;
    series.time.push(frame.time);
    series.force.push(s.force);
    series.depth.push(s.depth);
    series.energy.push(s.energy);
    if (series.time.length > LIVE_HISTORY) for (const k in series) series[k].shift();
    this.plots.setData(series);
    this.showTime(frame.time);
  }

  // Mouse down on a body grabs it at that point; moving drags the spring's other end over the
  // plane through the grabbed point that faces the camera; releasing lets go.
  setupDrag() {
    const canvas = this.renderer.domElement;
    const plane = new THREE.Plane();
    const target = new THREE.Vector3();
    this.dragLine = new THREE.Line(
      new THREE.BufferGeometry().setFromPoints([new THREE.Vector3(), new THREE.Vector3()]),
      new THREE.LineBasicMaterial({ color: 0x2040ff, depthTest: false }),
    );
    this.dragLine.visible = false;
    this.dragLine.frustumCulled = false;
    this.world.add(this.dragLine);
    this.grabbed = null;
    canvas.addEventListener('pointerdown', (event) => {
      const hit = this.pick(event);
      if (!hit || event.button !== 0) return;
      event.stopImmediatePropagation();
      this.controls.enabled = false;
      const normal = this.camera.getWorldDirection(new THREE.Vector3());
      plane.setFromNormalAndCoplanarPoint(normal, hit.point);
      const group = this.groups[hit.body];
      const local = group.worldToLocal(hit.point.clone());
      this.grabbed = { body: hit.body, local };
      this.select(hit.body);
      this.link.send(`grab ${hit.body} ${local.x} ${local.y} ${local.z} ${hit.point.x} ${hit.point.y} ${hit.point.z}`);
      this.showSpring(hit.point);
    }, { capture: true });
    canvas.addEventListener('pointermove', (event) => {
      if (!this.grabbed) return;
      const hit = this.pick(event);
      const ray = hit ? hit.ray : null;
      const caster = ray || new THREE.Raycaster();
      if (!ray) {
        const rect = canvas.getBoundingClientRect();
        caster.setFromCamera(new THREE.Vector2(
          ((event.clientX - rect.left) / rect.width) * 2 - 1,
          -((event.clientY - rect.top) / rect.height) * 2 + 1,
        ), this.camera);
      }
      if (caster.ray.intersectPlane(plane, target)) {
        this.link.send(`move ${target.x} ${target.y} ${target.z}`);
        this.showSpring(target);
      }
    });
    const release = () => {
      if (!this.grabbed) return;
      this.grabbed = null;
      this.controls.enabled = true;
      this.dragLine.visible = false;
      this.link.send('release');
      this.requestRender();
    };
    canvas.addEventListener('pointerup', release);
    canvas.addEventListener('pointerleave', release);
  }

  showSpring(to) {
    this.springTarget = to.clone();
    this.dragLine.visible = true;
    this.updateSpring();
  }

  updateSpring() {
    if (!this.grabbed || !this.springTarget) return;
    const from = this.groups[this.grabbed.body].localToWorld(this.grabbed.local.clone());
    this.dragLine.geometry.setFromPoints([from, this.springTarget]);
    this.requestRender();
  }

  setPoses(poses, offset) {
    super.setPoses(poses, offset);
    if (this.grabbed) this.updateSpring();
  }

  run() {
    this.loop(() => {});
  }
}

function main() {
  const sceneText = readPart('touche-scene');
  if (!sceneText) {
    document.body.textContent = 'touche: this page holds no scene (touche view writes one)';
    return;
  }
  const scene = JSON.parse(sceneText);
  const liveMode = readPart('touche-live') !== null;
  const viewer = liveMode ? new Live(scene) : new Playback(scene, readPart('touche-trajectory') || '', readPart('touche-contacts'));
  viewer.run();
  // For the tests (tests/viewer) and the curious.
  window.touche = {
    viewer,
    ready: true,
    mode: liveMode ? 'live' : 'playback',
    seek: (t) => {
      viewer.seek(t);
      viewer.render();
    },
    bodyScreenPosition: (b) => viewer.bodyScreenPosition(b),
    bodyPosition: (b) => viewer.bodyPosition(b),
    stats: () => ({
      frames: liveMode ? viewer.framesReceived : viewer.trajectory.times.length,
      time: liveMode ? (viewer.lastFrame ? viewer.lastFrame.time : 0) : viewer.time,
      start: viewer.start,
      end: viewer.end,
      patchTriangles: viewer.overlay.patchTriangles,
      overlapTriangles: viewer.overlay.overlapTriangles,
      contactPoints: viewer.overlay.pointCount,
      plotPoints: viewer.plots.pointCounts(),
      maxPressure: viewer.overlay.maxPressure,
    }),
  };
}

main();
