/* Run files describe themselves: every dataset of a run, whatever the variant, accelerator or
 * observables, the H5MD particle groups' elements and connectivity included, carries a
 * non-empty "unit" (UDUNITS; "1" for indices, counts and ratios) and a non-empty "description",
 * so h5py, HDFView or an H5MD reader need not guess. Runs several configs that between them
 * write every kind of dataset: arap with Anderson and the Fig. 5 observables, the 52 models'
 * contacts, the springs' and meshless variants' counters, and every sub-step's states with their
 * own H5MD structure (`[run] output = substeps`). */
#include <hdf5.h>
#include <stdio.h>
#include <string.h>

#include "test_util.h"

typedef struct visit {
    int datasets, missing;
    int h5md; /* datasets first reached under /particles/<body> or /connectivity (H5MD's elements) */
    int substeps_h5md; /* the same under /substeps (the sub-steps' H5MD structure) */
} visit;

/* The string attribute `name` of object `id`, non-empty; 0 when absent or empty. */
static int has_text(hid_t id, const char *name)
{
    if (H5Aexists(id, name) <= 0)
        return 0;
    hid_t attribute = H5Aopen(id, name, H5P_DEFAULT), type = H5Aget_type(attribute);
    int ok = 0;
    if (H5Tget_class(type) == H5T_STRING && !H5Tis_variable_str(type)) {
        size_t size = H5Tget_size(type);
        char *text = calloc(size + 1, 1);
        ok = H5Aread(attribute, type, text) >= 0 && text[0] != '\0';
        free(text);
    }
    H5Tclose(type);
    H5Aclose(attribute);
    return ok;
}

static herr_t check_object(hid_t file, const char *name, const H5O_info_t *info, void *data)
{
    visit *v = data;
    if (info->type != H5O_TYPE_DATASET)
        return 0;
    v->datasets++;
    v->h5md += strncmp(name, "particles/", 10) == 0 || strncmp(name, "connectivity/", 13) == 0;
    v->substeps_h5md += strncmp(name, "substeps/particles/", 19) == 0 || strncmp(name, "substeps/connectivity/", 22) == 0;
    hid_t set = H5Dopen2(file, name, H5P_DEFAULT);
    int unit = has_text(set, "unit"), description = has_text(set, "description");
    H5Dclose(set);
    if (!unit || !description) {
        v->missing++;
        print_message("/%s has no %s\n", name, !unit ? (!description ? "unit and no description" : "unit")
                                                     : "description");
    }
    return 0;
}

static void check_run(const char *config, const char *sets)
{
    const char *run = test_tmp_path("-described.h5");
    assert_int_equal(test_shell("bin/opsim run %s --set run.frames=2 %s --out '%s' > /dev/null 2>&1", config, sets, run),
                     0);
    hid_t file = H5Fopen(run, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(file >= 0);
    visit v = { 0 };
    assert_true(H5Ovisit(file, H5_INDEX_NAME, H5_ITER_NATIVE, check_object, &v) >= 0);
    H5Fclose(file);
    print_message("%s %s: %d datasets, %d without a unit or a description\n", config, sets, v.datasets, v.missing);
    assert_true(v.datasets > 20);
    assert_int_equal(v.missing, 0);
    /* per body at least the position, orientation and velocity views and the connectivity */
    assert_true(v.h5md >= 4);
    if (strstr(sets, "output=substeps"))
        assert_true(v.substeps_h5md >= 4);
}

static void test_every_dataset_has_a_unit_and_a_description(void **state)
{
    (void)state;
    check_run("experiments/fig5.ini", "--set solver.anderson=on");
    check_run("experiments/fig7-52.ini", "--no-surface");
    check_run("experiments/springs-cube.ini", "--set run.output=substeps");
    check_run("experiments/meshless-spring.ini", "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_dataset_has_a_unit_and_a_description),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
