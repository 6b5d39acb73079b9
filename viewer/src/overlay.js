// What a frame's contacts look like: points, force arrows and patch polygons coloured by
// pressure (volume-model overlap polygons, which carry no pressure, in one translucent colour).
import * as THREE from 'three';
import { pressureColor } from './colors.js';

// A BufferGeometry whose attributes grow as needed; draws the first `count` items.
class Growable {
  constructor(names) {
    this.geometry = new THREE.BufferGeometry();
    this.names = names;
    this.capacity = 0;
    this.arrays = {};
    this.reserve(256);
  }

  reserve(n) {
    if (n <= this.capacity) return;
    this.capacity = Math.max(n, 2 * this.capacity);
    for (const name of this.names) {
      this.arrays[name] = new Float32Array(3 * this.capacity);
      this.geometry.setAttribute(name, new THREE.BufferAttribute(this.arrays[name], 3));
    }
  }

  finish(count) {
    for (const name of this.names) this.geometry.getAttribute(name).needsUpdate = true;
    this.geometry.setDrawRange(0, count);
    this.geometry.computeBoundingSphere();
  }
}

export class ContactOverlay {
  constructor(scene) {
    this.points = new Growable(['position']);
    this.arrows = new Growable(['position']);
    this.patches = new Growable(['position', 'color']);
    this.overlap = new Growable(['position']);
    const pointObject = new THREE.Points(
      this.points.geometry,
      new THREE.PointsMaterial({ color: 0x111111, size: 6, sizeAttenuation: false, depthTest: false }),
    );
    const arrowObject = new THREE.LineSegments(
      this.arrows.geometry,
      new THREE.LineBasicMaterial({ color: 0xd02090, depthTest: false }),
    );
    const patchObject = new THREE.Mesh(
      this.patches.geometry,
      new THREE.MeshBasicMaterial({ vertexColors: true, side: THREE.DoubleSide }),
    );
    const overlapObject = new THREE.Mesh(
      this.overlap.geometry,
      new THREE.MeshBasicMaterial({ color: 0xff7f00, side: THREE.DoubleSide, transparent: true, opacity: 0.7 }),
    );
    pointObject.renderOrder = arrowObject.renderOrder = 10;
    for (const o of [pointObject, arrowObject, patchObject, overlapObject]) {
      o.frustumCulled = false;
      scene.add(o);
    }
    this.objects = { pointObject, arrowObject, patchObject, overlapObject };
    this.forceScale = 0;
    this.maxPressure = 0;
    this.patchTriangles = 0;
    this.overlapTriangles = 0;
    this.pointCount = 0;
  }

  setVisible(showPoints, showPatches) {
    this.objects.pointObject.visible = this.objects.arrowObject.visible = showPoints;
    this.objects.patchObject.visible = this.objects.overlapObject.visible = showPatches;
  }

  // Arrows of length `length` m for the force `force` N.
  setForceScale(length, force) {
    this.forceScale = force > 0 ? length / force : 0;
  }

  update(pairs) {
    this.updatePoints(pairs);
    this.updatePolygons(pairs);
  }

  updatePoints(pairs) {
    let points = 0;
    for (const pair of pairs) points += pair.points.length + (pair.polygons ? 1 : 0);
    this.points.reserve(points);
    this.arrows.reserve(2 * points);
    const p = this.points.arrays.position;
    const a = this.arrows.arrays.position;
    let n = 0;
    const add = (at, f) => {
      p.set(at, 3 * n);
      a.set(at, 6 * n);
      for (let k = 0; k < 3; ++k) a[6 * n + 3 + k] = at[k] + this.forceScale * f[k];
      n += 1;
    };
    for (const pair of pairs) {
      for (const point of pair.points) add(point.p, point.f);
      if (pair.polygons && pair.polygons.length > 0 && pair.points.length === 0) {
        add(patchCentroid(pair.polygons), pair.force);
      }
    }
    this.pointCount = n;
    this.points.finish(n);
    this.arrows.finish(2 * n);
  }

  updatePolygons(pairs) {
    let colored = 0;
    let plain = 0;
    for (const pair of pairs) {
      for (const poly of pair.polygons || []) {
        const triangles = Math.max(0, poly.vertices.length - 2);
        if (hasPressure(poly)) colored += triangles;
        else plain += triangles;
      }
    }
    this.patches.reserve(3 * colored);
    this.overlap.reserve(3 * plain);
    const rgb = [0, 0, 0];
    let c = 0;
    let o = 0;
    const scale = this.maxPressure > 0 ? 1 / this.maxPressure : 0;
    for (const pair of pairs) {
      for (const poly of pair.polygons || []) {
        const v = poly.vertices;
        const pressured = hasPressure(poly);
        for (let i = 1; i + 1 < v.length; ++i) {
          for (const k of [0, i, i + 1]) {
            if (pressured) {
              this.patches.arrays.position.set(v[k], 3 * c);
              this.patches.arrays.color.set(pressureColor(poly.pressure[k] * scale, rgb), 3 * c);
              c += 1;
            } else {
              this.overlap.arrays.position.set(v[k], 3 * o);
              o += 1;
            }
          }
        }
      }
    }
    this.patchTriangles = c / 3;
    this.overlapTriangles = o / 3;
    this.patches.finish(c);
    this.overlap.finish(o);
  }
}

function hasPressure(poly) {
  return poly.pressure && poly.pressure.some((p) => p > 0);
}

function patchCentroid(polygons) {
  const c = [0, 0, 0];
  let n = 0;
  for (const poly of polygons) {
    for (const v of poly.vertices) {
      for (let k = 0; k < 3; ++k) c[k] += v[k];
      n += 1;
    }
  }
  return c.map((x) => x / Math.max(1, n));
}

// The largest point force over frames, to scale the arrows.
export function largestPointForce(frames) {
  let most = 0;
  for (const frame of frames) {
    for (const pair of frame.pairs) {
      for (const point of pair.points) most = Math.max(most, Math.hypot(...point.f));
      if (pair.points.length === 0) most = Math.max(most, Math.hypot(...pair.force));
    }
  }
  return most;
}
