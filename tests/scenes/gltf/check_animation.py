"""Checks that a glTF written by `touche run --gltf` animates the bodies as the run's
trajectory.csv says: every body node's translation and rotation samples equal the trajectory's
x, y, z and qx, qy, qz, qw at the same times (to float precision), and every geom of the body
is a child node with a triangle mesh. Reads .gltf (buffer as a data URI) and .glb.

Usage: python3 check_animation.py FILE TRAJECTORY.csv"""
import base64
import csv
import json
import struct
import sys


def load(path):
    raw = open(path, "rb").read()
    if path.endswith(".glb"):
        magic, version, length = struct.unpack_from("<III", raw, 0)
        assert magic == 0x46546C67 and version == 2 and length == len(raw), "GLB header"
        json_length, json_type = struct.unpack_from("<II", raw, 12)
        assert json_type == 0x4E4F534A, "first chunk is not JSON"
        doc = json.loads(raw[20:20 + json_length])
        bin_start = 20 + json_length
        bin_length, bin_type = struct.unpack_from("<II", raw, bin_start)
        assert bin_type == 0x004E4942, "second chunk is not BIN"
        return doc, raw[bin_start + 8:bin_start + 8 + bin_length]
    doc = json.loads(raw)
    uri = doc["buffers"][0]["uri"]
    return doc, base64.b64decode(uri.split(",", 1)[1])


def floats(doc, buffer, accessor_index):
    accessor = doc["accessors"][accessor_index]
    view = doc["bufferViews"][accessor["bufferView"]]
    width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[accessor["type"]]
    values = struct.unpack_from("<%df" % (accessor["count"] * width), buffer, view["byteOffset"])
    return [values[i:i + width] for i in range(0, len(values), width)]


def main(path, trajectory):
    doc, buffer = load(path)
    rows = {}
    for row in csv.DictReader(open(trajectory)):
        rows.setdefault(row["body"], {})[round(float(row["time"]), 9)] = row
    nodes = doc["nodes"]
    animation = doc["animations"][0]
    checked = 0
    for channel in animation["channels"]:
        sampler = animation["samplers"][channel["sampler"]]
        node = nodes[channel["target"]["node"]]
        times = [t[0] for t in floats(doc, buffer, sampler["input"])]
        values = floats(doc, buffer, sampler["output"])
        columns = (("x", "y", "z") if channel["target"]["path"] == "translation"
                   else ("qx", "qy", "qz", "qw"))
        body_rows = rows[node["name"]]
        for t, value in zip(times, values):
            row = min(body_rows.items(), key=lambda item: abs(item[0] - t))[1]
            expected = [float(row[c]) for c in columns]
            assert all(abs(a - b) <= 1e-5 * max(1.0, abs(b)) for a, b in zip(value, expected)), (
                node["name"], t, value, expected)
            checked += 1
        for child in node.get("children", []):
            mesh = doc["meshes"][nodes[child]["mesh"]]
            assert mesh["primitives"][0]["indices"] is not None
    bodies = len({row for row in rows})
    assert len(animation["channels"]) == 2 * bodies, (len(animation["channels"]), bodies)
    print("%s: %d bodies, %d samples match the trajectory" % (path, bodies, checked))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
