/* Many bodies (issue 43): experiments/pile-1000.ini, 1,000 thirty-particle dinosaurs, runs as a
 * recorded run past the limits of 1,024 bodies the world and the run file once had, with contacts
 * between bodies, and the overlaps the run file stores stay bounded by the particles' size. */
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/record.h"
#include "io/xdmf.h"
#include "opsim/runfile.h"
#include "opsim/scene.h"

enum { FRAMES = 30, OUTPUT_EVERY = 10, BODIES = 1000 };

static void test_pile_of_1000_runs_with_bounded_overlaps(void **state)
{
    (void)state;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_scene scene;
    const char *const overrides[] = { "run.frames=30", "run.output_every=10", "world.log_energy=false" };
    if (op_scene_load(&ctx, "experiments/pile-1000.ini", 3, overrides, &scene) != OP_OK)
        fail_msg("%s", ctx.message);
    assert_int_equal(scene.world.body_count, BODIES);
    int particles = 0;
    for (int b = 0; b < scene.world.body_count; ++b)
        particles += scene.world.bodies[b].graph->particle_count;
    assert_int_equal(particles, 30 * BODIES);
    const char *path = test_tmp_path(".h5");
    op_provenance prov = { .command_line = "test", .config_text = scene.config_text, .seed = 0 };
    /* as `opsim run --no-surface` records it: the skinned surfaces of 1,000 dinosaurs are
     * 94 MB a stored frame, the particles 3 MB; the XDMF sidecar is published with the run */
    op_runfile_companion sidecar;
    if (op_xdmf_companion(&ctx, path, &sidecar) != OP_OK)
        fail_msg("%s", ctx.message);
    op_record_def def = op_default_record_def();
    def.store_surface = 0;
    def.companion = &sidecar;
    if (op_record_run_def(&ctx, &scene, path, &prov, &def) != OP_OK)
        fail_msg("%s", ctx.message);
    op_scene_free(&scene);

    /* every body is listed, and the frames are stored as one shared series, not per body */
    char (*names)[OP_RUNFILE_NAME_SIZE] = calloc(OP_RUNFILE_MAX_BODIES, sizeof *names);
    assert_non_null(names);
    int count = 0;
    assert_int_equal(op_runfile_body_names(&ctx, path, names, OP_RUNFILE_MAX_BODIES, &count), OP_OK);
    assert_int_equal(count, BODIES);
    assert_string_equal(names[BODIES - 1], "dino-999");
    free(names);
    double times[FRAMES / OUTPUT_EVERY + 1];
    assert_int_equal(op_runfile_read_rows(&ctx, path, "/particles/position/time", 0, FRAMES / OUTPUT_EVERY + 1,
                                          times, FRAMES / OUTPUT_EVERY + 1),
                     OP_OK);
    assert_close(times[FRAMES / OUTPUT_EVERY], (double)FRAMES / 30.0, 1e-12);

    /* contacts happened, and the deepest overlap left after any sub-step's contacts stays below
     * a fraction of the smallest semi-axis of any particle */
    int64_t contacts[FRAMES];
    double penetration[FRAMES], smallest = 0.0;
    assert_int_equal(op_runfile_read_rows_int64(&ctx, path, "/collision/contacts", 0, FRAMES, contacts, FRAMES), OP_OK);
    assert_int_equal(op_runfile_read_rows(&ctx, path, "/collision/max_penetration", 0, FRAMES, penetration, FRAMES),
                     OP_OK);
    assert_int_equal(op_runfile_read_attribute_double(&ctx, path, "/collision", "smallest_semi_axis", &smallest), OP_OK);
    int64_t total = 0;
    double deepest = 0.0;
    for (int f = 0; f < FRAMES; ++f) {
        total += contacts[f];
        assert_true(isfinite(penetration[f]));
        deepest = fmax(deepest, penetration[f]);
    }
    print_message("1,000 bodies, %d frames: %lld penetrating pairs, deepest overlap %.3g mm (smallest semi-axis "
                  "%.3g mm)\n",
                  FRAMES, (long long)total, 1e3 * deepest, 1e3 * smallest);
    assert_true(total > 10000);
    assert_true(smallest > 0.0);
    assert_true(deepest < 0.2 * smallest);

    /* the sidecar names each stored frame once, as one grid of all 30,000 particles */
    char xmf[600];
    assert_int_equal(op_xdmf_path(&ctx, path, xmf, sizeof xmf), OP_OK);
    FILE *in = fopen(xmf, "r");
    assert_non_null(in);
    char line[1024];
    int grids = 0;
    while (fgets(line, sizeof line, in))
        grids += strstr(line, "<Grid Name=\"particles\"") != NULL;
    fclose(in);
    assert_int_equal(grids, FRAMES / OUTPUT_EVERY + 1);
    char views[600];
    assert_int_equal(op_xdmf_views_path(&ctx, path, views, sizeof views), OP_OK);
    remove(views);
    remove(xmf);
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pile_of_1000_runs_with_bounded_overlaps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
