#!/usr/bin/awk -f
# N random 1 s tosses of examples/cube_toss.xml's cube as an MJCF scene with one keyframe per
# toss, t000 to t(N-1), from a seeded draw (srand(17)): height 0.15-0.35 m, a yaw and a tilt
# of up to 10 degrees, 0.5-2 m/s across, 0-0.5 m/s up, a spin mostly about the vertical. Used
# by bench/fit/run.sh and tests/scenes/test_fit_cli.sh (docs/fit.md).
#   awk -v n=100 -f bench/fit/cube_tosses.awk > tosses.xml
BEGIN {
  srand(17); pi = 3.141592653589793
  print "<mujoco model=\"cube_tosses\"><option timestep=\"0.002\"/><worldbody>"
  print "<geom name=\"floor\" type=\"plane\" size=\"0 0 1\"/>"
  print "<body name=\"cube\" pos=\"0 0 0.3\"><freejoint/>"
  print "<geom name=\"cube\" type=\"box\" size=\"0.05 0.05 0.05\" mass=\"0.5\"/></body>"
  print "</worldbody><keyframe>"
  for (i = 0; i < n; ++i) {
    yaw = 2 * pi * rand(); tilt = pi / 18 * rand(); azimuth = 2 * pi * rand()
    # q = yaw about z, then tilt about a horizontal axis at azimuth
    cy = cos(yaw / 2); sy = sin(yaw / 2); ct = cos(tilt / 2); st = sin(tilt / 2)
    ax = cos(azimuth); ay = sin(azimuth)
    qw = ct * cy; qx = st * ax * cy + st * ay * sy; qy = st * ay * cy - st * ax * sy; qz = ct * sy
    speed = 0.5 + 1.5 * rand(); heading = 2 * pi * rand()
    printf "<key name=\"t%03d\" qpos=\"0 0 %.4f %.6f %.6f %.6f %.6f\" qvel=\"%.4f %.4f %.4f %.4f %.4f %.4f\"/>\n",
      i, 0.15 + 0.2 * rand(), qw, qx, qy, qz, speed * cos(heading), speed * sin(heading),
      0.5 * rand(), rand() - 0.5, rand() - 0.5, 10 * rand() - 5
  }
  print "</keyframe></mujoco>"
}
