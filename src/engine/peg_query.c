/* tch_data_peg_constraint (touche/data.h): the peg model's constraints as the outputs list
 * them (docs/peg.md). */
#include "base/error.h"
#include "contact/peg.h"
#include "engine/engine_internal.h"

/* The pair result that holds contact `contact`, or -1. */
static int pair_of_contact(const tch_data* d, int contact) {
    for (int i = 0; i < d->pair_result_count; ++i) {
        const tch_pair_result* p = &d->pair_results[i];
        if (contact >= p->contact_start && contact < p->contact_start + p->contact_count) {
            return i;
        }
    }
    return -1;
}

tch_status tch_data_peg_constraint(const tch_model* m, const tch_data* d, int contact,
                                   tch_peg_constraint_info* out, tch_error* err) {
    (void)m;
    int pair = contact >= 0 && contact < d->contact_count ? pair_of_contact(d, contact) : -1;
    const tch_peg_constraints* list =
        pair >= 0 && d->pair_results[pair].model == TCH_CONTACT_PEG
            ? tch_peg_pair_constraints(d->internal->model_scratch[TCH_CONTACT_PEG], pair)
            : NULL;
    int k = contact - (pair >= 0 ? d->pair_results[pair].contact_start : 0);
    if (!list || k >= list->count) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "contact %d of the last step is not the peg model's", contact);
    }
    const tch_peg_constraint* c = &list->constraints[k];
    *out = (tch_peg_constraint_info){tch_peg_kind_name(c->kind), tch_peg_source_name(c->source),
                                     c->count, tch_peg_constraint_trapped(list, k)};
    return TCH_OK;
}
