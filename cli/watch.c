/* The watch's warnings and account (touche/watch.h) as the touche command prints them. */
#include <math.h>

#include "cli.h"

static const char* body_name(const tch_model* m, int b) {
    return b >= 0 && m->body_name[b][0] ? m->body_name[b] : "?";
}

/* The geom's name, else its body's (geoms are often left unnamed). */
static const char* geom_name(const tch_model* m, int g) {
    return m->geom_name[g][0] ? m->geom_name[g] : body_name(m, m->geom_body[g]);
}

static void print_warning(const tch_model* m, const tch_watch_warning* w) {
    fprintf(stderr, "touche: warning: t = %.6g s: ", w->time);
    if (w->kind == TCH_WARN_ENERGY_GAIN) {
        fprintf(stderr, "the energy grew %.4g J beyond its start plus the work put in (limit "
                        "%.4g J); body '%s' gained the most",
                w->value, w->limit, body_name(m, w->body));
        if (w->geom_a >= 0) {
            fprintf(stderr, ", last through pair '%s'/'%s'",
                    geom_name(m, w->geom_a), geom_name(m, w->geom_b));
        }
    } else {
        fprintf(stderr, "body '%s' sank %.4g m into pair '%s'/'%s', past %.4g m (half the "
                        "thinner geom)",
                body_name(m, w->body), w->value, geom_name(m, w->geom_a),
                geom_name(m, w->geom_b), w->limit);
    }
    fprintf(stderr, "\n");
}

int cli_print_watch_warnings(const tch_model* m, const tch_data* d, int printed) {
    const tch_watch_warning* w;
    while ((w = tch_data_watch_warning(d, printed)) != NULL) {
        print_warning(m, w);
        printed++;
    }
    return printed;
}

void cli_print_watch_summary(const tch_data* d) {
    tch_watch_report r;
    tch_data_watch_report(d, &r);
    fprintf(stderr, "  deepest penetration:");
    int models = 0;
    for (int k = 0; k < TCH_CONTACT_MODEL_END; ++k) {
        if (r.deepest[k] > 0) {
            fprintf(stderr, "%s %s %.6g m", models++ ? "," : "",
                    tch_contact_model_name((tch_contact_model)k), r.deepest[k]);
        }
    }
    fprintf(stderr, "%s\n", models ? "" : " none");
    fprintf(stderr, "  energy %.6g J -> %.6g J, work put in %.6g J, largest gain %.4g J (%.2g of "
                    "the scale %.4g J)\n",
            r.energy_start, r.energy, r.work_applied, r.largest_gain,
            r.energy_scale > 0 ? r.largest_gain / r.energy_scale : 0.0, r.energy_scale);
    fprintf(stderr, "  warnings %d%s", r.warning_count,
            r.warnings_dropped ? " (and more past the 64 the library keeps)" : "");
    static const tch_warning kinds[] = {TCH_WARN_ENERGY_GAIN, TCH_WARN_DEEP_PENETRATION};
    static const char* const names[] = {"energy gain", "deep penetration"};
    static const char* const units[] = {"J", "m"};
    for (int k = 0; k < 2; ++k) {
        int count = 0;
        long steps = 0;
        double worst = 0;
        for (int i = 0; i < r.warning_count; ++i) {
            const tch_watch_warning* w = tch_data_watch_warning(d, i);
            if (w->kind == kinds[k]) {
                count++, steps += w->steps, worst = fmax(worst, w->worst);
            }
        }
        if (count > 0) {
            fprintf(stderr, "; %s: %d (in %ld steps, worst %.4g %s)", names[k], count, steps,
                    worst, units[k]);
        }
    }
    fprintf(stderr, "\n");
}
