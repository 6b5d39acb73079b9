// Three.js objects for the scene's geoms (scene.json, cli/scene_json.c), in their body frames.
import * as THREE from 'three';

// Bodies in muted colours, so that the pressure colours (saturated) stand out.
function bodyColor(body) {
  if (body === 0) return new THREE.Color(0.62, 0.63, 0.65);
  const hue = (body * 0.618034) % 1;
  return new THREE.Color().setHSL(hue, 0.22, 0.62);
}

// A convex hull's polygons as triangle fans (flat shaded).
function hullGeometry(hull) {
  const positions = [];
  const v = hull.vertices;
  for (const face of hull.faces) {
    for (let i = 1; i + 1 < face.length; ++i) {
      for (const k of [face[0], face[i], face[i + 1]]) positions.push(v[3 * k], v[3 * k + 1], v[3 * k + 2]);
    }
  }
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.Float32BufferAttribute(positions, 3));
  geometry.computeVertexNormals();
  return geometry;
}

// The boundary triangles of a tet mesh (outward), flat shaded.
function tetSurfaceGeometry(tets) {
  const indexed = new THREE.BufferGeometry();
  indexed.setAttribute('position', new THREE.Float32BufferAttribute(tets.vertices, 3));
  indexed.setIndex(tets.triangles);
  const geometry = indexed.toNonIndexed();
  geometry.computeVertexNormals();
  return geometry;
}

// The surface of a primitive about its geom frame (z is the axis of capsules and cylinders).
// `extent` sizes an infinite plane. Returns {geometry, scale}.
function primitiveGeometry(geom, extent) {
  const s = geom.size;
  switch (geom.type) {
    case 'plane': {
      const hx = s[0] > 0 ? s[0] : extent;
      const hy = s[1] > 0 ? s[1] : extent;
      return { geometry: new THREE.PlaneGeometry(2 * hx, 2 * hy) };
    }
    case 'sphere':
      return { geometry: new THREE.SphereGeometry(s[0], 32, 16) };
    case 'ellipsoid':
      return { geometry: new THREE.SphereGeometry(1, 32, 16), scale: s };
    case 'capsule':
      return { geometry: new THREE.CapsuleGeometry(s[0], 2 * s[1], 8, 24).rotateX(Math.PI / 2) };
    case 'cylinder':
      return { geometry: new THREE.CylinderGeometry(s[0], s[0], 2 * s[1], 32).rotateX(Math.PI / 2) };
    case 'box':
      return { geometry: new THREE.BoxGeometry(2 * s[0], 2 * s[1], 2 * s[2]) };
    default:
      return null;
  }
}

// One THREE.Object3D per geom, added to its body's group; returns the geoms' meshes (for
// picking) and the materials (for transparency and highlighting).
export function buildGeoms(scene, groups, extent) {
  const meshes = [];
  const materials = groups.map(() => []);
  scene.geoms.forEach((geom, index) => {
    let shape;
    if (geom.tets) shape = { geometry: tetSurfaceGeometry(geom.tets) };
    else if (geom.hull) shape = { geometry: hullGeometry(geom.hull) };
    else shape = primitiveGeometry(geom, extent);
    if (!shape) return;
    const material = new THREE.MeshStandardMaterial({
      color: bodyColor(geom.body),
      roughness: 0.8,
      metalness: 0.0,
      side: geom.type === 'plane' ? THREE.DoubleSide : THREE.FrontSide,
      flatShading: Boolean(geom.tets || geom.hull),
    });
    const mesh = new THREE.Mesh(shape.geometry, material);
    if (shape.scale) mesh.scale.set(shape.scale[0], shape.scale[1], shape.scale[2]);
    mesh.position.set(geom.pos[0], geom.pos[1], geom.pos[2]);
    mesh.quaternion.set(geom.quat[1], geom.quat[2], geom.quat[3], geom.quat[0]);
    mesh.userData = { body: geom.body, geom: index, plane: geom.type === 'plane' };
    groups[geom.body].add(mesh);
    meshes.push(mesh);
    materials[geom.body].push(material);
    if (geom.tets) {
      const edges = new THREE.LineSegments(
        new THREE.WireframeGeometry(shape.geometry),
        new THREE.LineBasicMaterial({ color: 0x303030, transparent: true, opacity: 0.25 }),
      );
      edges.position.copy(mesh.position);
      edges.quaternion.copy(mesh.quaternion);
      groups[geom.body].add(edges);
    }
    if (geom.type === 'plane') {
      const size = 2 * (geom.size[0] > 0 ? Math.max(geom.size[0], geom.size[1]) : extent);
      const grid = new THREE.GridHelper(size, 20, 0x808080, 0xa0a0a0);
      grid.rotateX(Math.PI / 2);
      grid.position.z = 1e-4;
      mesh.add(grid);
    }
  });
  return { meshes, materials };
}
