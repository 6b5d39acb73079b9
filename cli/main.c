/* touche: the command-line tool. */
#include <string.h>

#include "cli.h"

static const cli_command commands[] = {
    {"run", "simulate a scene and write its trajectory and contacts",
     "touche run SCENE [--duration S] [--dt S] [--every N] [--out DIR] [--vtk DIR] "
     "[--key NAME] [--contact MODEL] [--threads N] [--strict] [--checkpoint-every S] "
     "[--restore FILE]",
     cli_cmd_run},
    {"info", "describe a scene: bodies, geoms, masses, contact models", "touche info SCENE",
     cli_cmd_info},
    {"query", "print the contacts of the scene's initial state as JSON",
     "touche query SCENE [--key NAME] [--contact MODEL] [--threads N]", cli_cmd_query},
    {"speed", "measure steps per second", "touche speed SCENE [--steps N] [--dt S] "
     "[--key NAME] [--contact MODEL] [--threads N]", cli_cmd_speed},
    {"export-mjcf", "write the scene as plain MJCF that MuJoCo loads",
     "touche export-mjcf SCENE OUT.xml [--keep-touche]", cli_cmd_export},
    {"islands", "write the lcp model's island problems of a run as JSON lines",
     "touche islands SCENE OUT.jsonl [--steps N] [--every N] [--dt S] [--key NAME] "
     "[--contact MODEL]", cli_cmd_islands},
    {"haptic", "run the haptic loop of a scene's haptic body with a device",
     "touche haptic SCENE --device scripted:FILE|playback:FILE|udp:PORT|model [--rate HZ] "
     "[--duration S] [--out DIR] [--json] [--no-passivity] [--realtime]",
     cli_cmd_haptic},
    {"mesh", "tetrahedralize a closed surface (gmsh or tetgen) into a .vtk or .msh with its pressure field",
     "touche mesh IN.obj|IN.stl OUT.vtk|OUT.msh", cli_cmd_mesh},
};
enum { COMMAND_COUNT = sizeof commands / sizeof commands[0] };

static void print_help(void) {
    printf("touche %s: rigid bodies in contact, for simulation and haptics\n\n"
           "usage: touche COMMAND SCENE [options]    (touche COMMAND --help for its options)\n\n"
           "commands:\n", tch_version());
    for (int i = 0; i < COMMAND_COUNT; ++i) {
        printf("  %-12s %s\n", commands[i].name, commands[i].summary);
    }
    printf("\nexit codes: 0 success, 2 bad input or usage, 3 the simulation diverged (or, with\n"
           "run --strict, the watch warned)\n");
}

static void print_command_help(const cli_command* c) {
    printf("usage: %s\n\n%s.\n\n"
           "options:\n"
           "  --duration S     simulated time, s (run: default 5)\n"
           "  --dt S           time step, s (default: the scene's)\n"
           "  --every N        write every N-th step (run: default, every 10 ms of simulated time;\n"
           "                   islands: every step)\n"
           "  --out DIR        output directory (run: default ./out)\n"
           "  --vtk DIR        run: also write each written step's contact patches as VTK\n"
           "                   PolyData (DIR/patches_NNNNNN.vtk, point field 'pressure')\n"
           "  --key NAME       start from the scene's keyframe NAME\n"
           "  --contact MODEL  use MODEL (point, volume, pressure or lcp) for every pair\n"
           "  --threads N      threads a step may use (default 1); results are identical\n"
           "                   for every N\n"
           "  --steps N        steps to time (speed: default 10000) or to run (islands:\n"
           "                   default 1)\n"
           "  --keep-touche    keep touche's attributes (export-mjcf)\n"
           "  --device D       haptic: scripted:FILE (a pose CSV), playback:FILE (a force log),\n"
           "                   udp:PORT (a bridged device, docs/haptics.md; with --realtime)\n"
           "                   or model (a simulated device)\n"
           "  --rate HZ        haptic: servo rate (default 1000); the scene's step must be a\n"
           "                   whole number of servo periods\n"
           "  --json           haptic: print one JSON object (ledger, tick statistics)\n"
           "  --no-passivity   haptic: the passivity controller only observes\n"
           "  --realtime       haptic: pace the ticks on the wall clock (absolute deadlines);\n"
           "                   default: a simulated clock, bit-identical force logs\n"
           "  --checkpoint-every S  run: write OUT/checkpoint.bin (replaced atomically) every\n"
           "                   S of simulated time (docs/checkpoints.md)\n"
           "  --restore FILE   run: continue from checkpoint FILE (its time; --duration S\n"
           "                   more), bit-identical to the run that wrote it\n"
           "  --strict         run: stop with exit code 3 at the first warning of the watch\n"
           "                   (the energy grew without input, or a body sank past half its\n"
           "                   size into another)\n",
           c->usage, c->summary);
}

int main(int argc, char** argv) {
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        print_help();
        return argc < 2 ? EXIT_BAD_INPUT : EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("touche %s\n", tch_version());
        return EXIT_OK;
    }
    for (int i = 0; i < COMMAND_COUNT; ++i) {
        if (strcmp(argv[1], commands[i].name) != 0) continue;
        cli_options options;
        int help = 0;
        int code = cli_parse_options(&commands[i], argc - 2, argv + 2, &options, &help);
        if (help) {
            print_command_help(&commands[i]);
            return EXIT_OK;
        }
        return code == EXIT_OK ? commands[i].run(&options) : code;
    }
    fprintf(stderr, "touche: unknown command '%s' (see touche --help)\n", argv[1]);
    return EXIT_BAD_INPUT;
}
