/* A program built against an installed opsim (examples/Makefile, pkg-config): it loads a scene
 * from a config, steps it for a number of frames with the per-frame buffers the library
 * allocates, and prints each frame's energies at the end of its last sub-step.
 *     step_scene CONFIG [FRAMES]
 * A config that names no catalogue finds the installed one (share/opsim/data/models.tsv; the search
 * order is in docs/data.md). */
#include <stdio.h>
#include <stdlib.h>

#include <opsim/opsim.h>

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: step_scene CONFIG [FRAMES]\n");
        return 64;
    }
    int frames = argc == 3 ? atoi(argv[2]) : 10;
    op_platform_init();
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_scene scene;
    if (op_scene_load(&ctx, argv[1], 0, NULL, &scene) != OP_OK) {
        fprintf(stderr, "step_scene: %s\n", ctx.message);
        return 1;
    }
    op_frame_stats stats;
    int status = op_frame_stats_make(&ctx, &scene.world, &stats);
    const op_world_def *def = &scene.world.def;
    int last = (def->substeps - 1) * (def->iterations + 1) + def->iterations;
    printf("frame\ttime_s\tkinetic_J\telastic_J\ttotal_J\n");
    for (int frame = 0; status == OP_OK && frame < frames; ++frame) {
        status = op_world_step(&ctx, &scene.world, &stats);
        if (status == OP_OK)
            printf("%d\t%.4f\t%.9g\t%.9g\t%.9g\n", frame + 1, scene.world.time, stats.energy[last].kinetic,
                   stats.energy[last].elastic, stats.energy[last].total);
    }
    if (status != OP_OK)
        fprintf(stderr, "step_scene: %s\n", ctx.message);
    op_frame_stats_free(&stats);
    op_scene_free(&scene);
    return status == OP_OK ? 0 : 1;
}
