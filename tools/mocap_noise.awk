#!/usr/bin/awk -f
# Turns a trajectory.csv of `touche run` into a motion-capture-like recording for `touche fit`
# (docs/fit.md): each pose gets Gaussian noise, `sigma_p` m on each position axis (default
# 0.0005) and a rotation by a vector of `sigma_deg` degrees on each world axis (default 0.5),
# and the velocity columns are dropped, as a capture system gives poses only.
#   awk -v seed=1 -f tools/mocap_noise.awk out/trajectory.csv > recording.csv
function gauss(   u, v) {
  u = rand(); v = rand()
  if (u < 1e-300) u = 1e-300
  return sqrt(-2 * log(u)) * cos(6.283185307179586 * v)
}
BEGIN {
  FS = OFS = ","
  if (sigma_p == "") sigma_p = 0.0005
  if (sigma_deg == "") sigma_deg = 0.5
  srand(seed == "" ? 1 : seed)
  sigma_r = sigma_deg * 3.141592653589793 / 180
}
NR == 1 { print "time,body,x,y,z,qw,qx,qy,qz"; next }
{
  x = $3 + sigma_p * gauss(); y = $4 + sigma_p * gauss(); z = $5 + sigma_p * gauss()
  rx = sigma_r * gauss(); ry = sigma_r * gauss(); rz = sigma_r * gauss()
  a = sqrt(rx * rx + ry * ry + rz * rz)
  s = a > 1e-12 ? sin(a / 2) / a : 0.5
  dw = cos(a / 2); dx = rx * s; dy = ry * s; dz = rz * s
  # q' = dq q: the noise rotates the body about world axes
  w = dw * $6 - dx * $7 - dy * $8 - dz * $9
  qx = dw * $7 + dx * $6 + dy * $9 - dz * $8
  qy = dw * $8 - dx * $9 + dy * $6 + dz * $7
  qz = dw * $9 + dx * $8 - dy * $7 + dz * $6
  printf "%.9g,%s,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", $1, $2, x, y, z, w, qx, qy, qz
}
