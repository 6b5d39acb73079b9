/* touche: the command-line tool. */
#include <string.h>

#include "cli.h"

static const cli_command commands[] = {
    {"run", CLI_RUN, "SCENE", "simulate a scene and write its trajectory and contacts",
     cli_cmd_run},
    {"info", CLI_INFO, "SCENE", "describe a scene: bodies, geoms, masses, contact models",
     cli_cmd_info},
    {"query", CLI_QUERY, "SCENE", "print the contacts of the scene's initial state as JSON",
     cli_cmd_query},
    {"speed", CLI_SPEED, "SCENE", "measure steps per second", cli_cmd_speed},
    {"export-mjcf", CLI_EXPORT, "SCENE OUT.xml", "write the scene as plain MJCF that MuJoCo loads",
     cli_cmd_export},
    {"islands", CLI_ISLANDS, "SCENE OUT.jsonl",
     "write the lcp model's island problems of a run as JSON lines", cli_cmd_islands},
    {"haptic", CLI_HAPTIC, "SCENE", "run the haptic loop of a scene's haptic body with a device",
     cli_cmd_haptic},
    {"mesh", CLI_MESH, "IN.obj|IN.stl OUT.vtk|OUT.msh",
     "tetrahedralize a closed surface (gmsh or tetgen) into a .vtk or .msh with its pressure "
     "field", cli_cmd_mesh},
    {"view", CLI_VIEW, "OUT_DIR", "write OUT_DIR/view.html, a web page that plays back the run "
     "there", cli_cmd_view},
    {"sweep", CLI_SWEEP, "SPEC", "run a parameter sweep (JSON or TOML spec) on all cores, shards "
     "or MPI ranks", cli_cmd_sweep},
    {"fit", CLI_FIT, "SCENE",
     "fit contact parameters to recorded trajectories (docs/fit.md)", cli_cmd_fit},
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
           "run --strict, the watch warned), 130 interrupted; a run that stops part-way keeps\n"
           "what it wrote as trajectory.partial.csv and contacts.partial.jsonl (docs/cli.md)\n");
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
            cli_print_command_help(&commands[i]);
            return EXIT_OK;
        }
        return code == EXIT_OK ? commands[i].run(&options) : code;
    }
    fprintf(stderr, "touche: unknown command '%s' (see touche --help)\n", argv[1]);
    return EXIT_BAD_INPUT;
}
