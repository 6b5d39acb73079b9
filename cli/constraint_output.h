/* The constraint solve's diagnostics (lcp model) in the CLI's JSON outputs: run's
 * contacts.jsonl, query and islands. Defined in cmd_run.c. */
#pragma once

#include <stdio.h>

#include "touche/touche.h"

/* Writes ,"constraint":{...} (islands, iterations, residual, failed first attempts and the
 * islands per solver path of the last step) when the step solved constraint islands; nothing
 * otherwise. */
void cli_json_constraint(FILE* f, const tch_data* data);

/* The name of a constraint path in the outputs ("lemke", "pgs", "normal_lemke", "normal_pgs"). */
const char* cli_constraint_path_name(tch_constraint_path path);
