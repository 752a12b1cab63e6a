/* Regression tests of issue 23 (hardening), each written to fail before its fix: bin/opsim run
 * as a user would, on the inputs that hung, crashed or misbehaved. The damaged-file table runs
 * every reading command over 24 damaged run files and requires a clean refusal (exit 65 or 74,
 * the file named) or success, never a crash or a hang; it prints the table of exit statuses.
 * One test is a guard rather than a fix: test_fuzzer_library_crashes_are_contained replays the
 * two files on which fuzzing found libhdf5 at fault; opsim contained both already. */
#include <signal.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include <hdf5.h>

#include "test_util.h"

/* The exit status of `command` run by the shell with stderr into `log`; `log` then holds it. */
static int run_logged(const char *log, const char *command)
{
    return test_shell("%s 2> '%s' > /dev/null", command, log);
}

static void assert_log_contains(const char *log, const char *text)
{
    char *message = test_read_file(log);
    assert_non_null(message);
    if (!strstr(message, text))
        fail_msg("'%s' not in the message: %s", text, message);
    free(message);
}

static void write_text(const char *path, const char *text)
{
    FILE *file = fopen(path, "w");
    assert_non_null(file);
    fputs(text, file);
    assert_int_equal(fclose(file), 0);
}

/* 1. A closed tetrahedron 1 m x 1 m x 1000 m: its tip lies thousands of voxels from the nearest
 * interior cell, and the skinning's owner search scanned whole cubes (>300 s; now 0.4 s). */
static void test_long_thin_mesh_builds_in_time(void **state)
{
    (void)state;
    char mesh[512], out[512], log[512];
    snprintf(mesh, sizeof mesh, "%s", test_tmp_path(".off"));
    snprintf(out, sizeof out, "%s", test_tmp_path(".h5"));
    snprintf(log, sizeof log, "%s", test_tmp_path(".log"));
    write_text(mesh, "OFF\n4 4 0\n0 0 0\n1 0 0\n0 1000 0\n0 0 1\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n");
    char command[2048];
    snprintf(command, sizeof command, "timeout 60 bin/opsim graph --mesh '%s' --kind solid --particles 20 --out '%s'",
             mesh, out);
    assert_int_equal(run_logged(log, command), 0);
    assert_int_equal(access(out, F_OK), 0);
}

/* 2. A full disk: a tmpfs of 400 kB in a mount namespace of its own (unshare; -r maps the
 * caller to root where it is not). The run file's flush fails, and the process must exit 74
 * with its message, not die of SIGSEGV in libhdf5's exit handler, and leave nothing. */
static void test_full_disk_exits_74(void **state)
{
    (void)state;
    if (test_shell("unshare -rm true 2> /dev/null") != 0 && test_shell("unshare -m true 2> /dev/null") != 0)
        skip();
    const char *unshare = test_shell("unshare -rm true 2> /dev/null") == 0 ? "unshare -rm" : "unshare -m";
    char dir[512], status[512], log[512];
    snprintf(dir, sizeof dir, "%s", test_tmp_path("-disk"));
    snprintf(status, sizeof status, "%s", test_tmp_path(".status"));
    snprintf(log, sizeof log, "%s", test_tmp_path(".log"));
    assert_int_equal(mkdir(dir, 0777), 0);
    static const char *const commands[] = {
        "bin/opsim run experiments/fig2.ini --set run.frames=30 --out D/run.h5",
        "bin/opsim graph --mesh data/meshes/dino.obj --kind solid --particles 100 --out D/graph.h5",
    };
    for (size_t c = 0; c < sizeof commands / sizeof commands[0]; ++c) {
        char command[1024];
        const char *d = strchr(commands[c], 'D');
        snprintf(command, sizeof command, "%.*s%s%s", (int)(d - commands[c]), commands[c], dir, d + 1);
        /* the 400 kB tmpfs holds the graph's file but not its mesh; the run's fills at the flush */
        const char *size = c == 0 ? "400k" : "200k";
        assert_int_equal(test_shell("%s sh -c \"mount -t tmpfs -o size=%s tmpfs '%s' && %s 2> '%s'; echo \\$? > '%s'; "
                                    "ls -A '%s' >> '%s'\"",
                                    unshare, size, dir, command, log, status, dir, status),
                         0);
        char *result = test_read_file(status);
        assert_non_null(result);
        if (strcmp(result, "74\n") != 0)
            fail_msg("%s: exit status and files left: %s", command, result);
        free(result);
        assert_log_contains(log, "No space left on device");
    }
}

/* The environment of an opsim that reads a file libhdf5 itself crashes on: under AddressSanitizer
 * (make test SANITIZE=1) the library's wild memcpy, SIGSEGV and SIGBUS must stay signals for
 * opsim's guard to see (and any report ASan still makes an abort, not the sanitizer build's exit
 * status 86), its huge allocation a NULL for HDF5 to report: libhdf5's bug, not opsim's. */
static const char LIBRARY_FAULTS_AS_SIGNALS[] = "ASAN_OPTIONS=\"${ASAN_OPTIONS:-}:handle_segv=0:handle_sigbus=0:"
                                                "replace_intrin=0:allocator_may_return_null=1:abort_on_error=1\" ";

/* 3. Run files with variable-length string attributes (as opsim wrote them before) damaged in
 * their global heap: one crashed libhdf5's H5HG_read, one made H5T__conv_vlen clear gigabytes
 * for a garbage length. Both must be refused, naming the file, with 65 or 74, in seconds. */
static void test_damaged_heap_is_refused(void **state)
{
    (void)state;
    static const char *const fixtures[] = { "tests/data/damaged-vlen-heap.h5.gz", "tests/data/damaged-vlen-length.h5.gz" };
    for (size_t f = 0; f < 2; ++f) {
        char file[512], log[512], command[1024];
        snprintf(file, sizeof file, "%s", test_tmp_path(".h5"));
        snprintf(log, sizeof log, "%s", test_tmp_path(".log"));
        assert_int_equal(test_shell("gzip -dc '%s' > '%s'", fixtures[f], file), 0);
        snprintf(command, sizeof command, "%stimeout 30 bin/opsim info '%s'", LIBRARY_FAULTS_AS_SIGNALS, file);
        int status = run_logged(log, command);
        if (status != 65 && status != 74)
            fail_msg("%s: exit status %d", fixtures[f], status);
        assert_log_contains(log, file);
    }
}

/* Two run files on which the fuzzer (tests/fuzz/fuzz_runfile.c, in-process under ASan) found
 * libhdf5 1.10 itself at fault: a changed attribute-message size in a file of the old,
 * unchecksummed format made H5A__compact_build_table's decoder read 138 bytes past a 200-byte
 * block; a changed byte in a dense link table of a checksummed file made H5G__link_release_table
 * free an uninitialised pointer. Neither is opsim's to fix; every reading command must still
 * end in a clean result: success, or 65/74 naming the file (the child-process guard of
 * app/files.c turns the second's crash into "damaged run file"), in seconds. */
static void test_fuzzer_library_crashes_are_contained(void **state)
{
    (void)state;
    static const char *const fixtures[] = { "tests/data/fuzz-hdf5-attribute-overread.h5.gz",
                                            "tests/data/fuzz-hdf5-dense-link-free.h5.gz" };
    static const char *const readers[] = { "info F", "export F --triangles a", "export F --particles a --frame last",
                                           "xdmf F" };
    for (size_t f = 0; f < 2; ++f) {
        char file[512];
        snprintf(file, sizeof file, "%s", test_tmp_path(".h5"));
        assert_int_equal(test_shell("gzip -dc '%s' > '%s'", fixtures[f], file), 0);
        for (size_t r = 0; r < sizeof readers / sizeof readers[0]; ++r) {
            char command[2048], log[512], *w = command;
            w += sprintf(w, "%stimeout 60 bin/opsim ", LIBRARY_FAULTS_AS_SIGNALS);
            for (const char *c = readers[r]; *c; ++c)
                w += *c == 'F' ? sprintf(w, "'%s'", file) : sprintf(w, "%c", *c);
            snprintf(log, sizeof log, "%s", test_tmp_path(".log"));
            int status = run_logged(log, command);
            if (status != 0) {
                if (status != 65 && status != 74)
                    fail_msg("%s | %s: exit status %d", fixtures[f], readers[r], status);
                assert_log_contains(log, file);
            }
        }
    }
}

/* A run file whose global heap (where HDF5 keeps the mapping of H5MD's virtual per-body
 * views) is zeroed past its 16-byte header ("GCOL", version, size): libhdf5 1.10 loops for
 * ever in H5HG_read when info or verify opens a view. The guarded reader's watchdog
 * (app/files.c) must kill the spinning child and refuse the file with 65, naming it, after
 * OPSIM_READ_STALL_SECONDS of CPU time; the undamaged file reads as before under the same
 * watchdog. */
static void test_spinning_reader_is_stopped(void **state)
{
    (void)state;
    char run[512], damaged[512], log[512];
    snprintf(run, sizeof run, "%s", test_tmp_path(".h5"));
    snprintf(damaged, sizeof damaged, "%s", test_tmp_path(".h5"));
    snprintf(log, sizeof log, "%s", test_tmp_path(".log"));
    assert_int_equal(test_shell("bin/opsim run experiments/fig2.ini --set run.frames=5 --out '%s' > /dev/null", run), 0);
    assert_int_equal(test_shell("at=$(grep -boa GCOL '%s' | head -1 | cut -d: -f1) && [ -n \"$at\" ] && cp '%s' '%s' && "
                                "dd if=/dev/zero of='%s' bs=1 seek=$((at + 16)) count=4096 conv=notrunc status=none",
                                run, run, damaged, damaged),
                     0);
    static const char *const readers[] = { "info", "verify" };
    for (size_t r = 0; r < 2; ++r) {
        char command[2048];
        snprintf(command, sizeof command, "%sOPSIM_READ_STALL_SECONDS=1 timeout 120 bin/opsim %s '%s'",
                 LIBRARY_FAULTS_AS_SIGNALS, readers[r], run);
        assert_int_equal(run_logged(log, command), 0);
        snprintf(command, sizeof command, "%sOPSIM_READ_STALL_SECONDS=1 timeout 120 bin/opsim %s '%s'",
                 LIBRARY_FAULTS_AS_SIGNALS, readers[r], damaged);
        int status = run_logged(log, command);
        if (status != 65)
            fail_msg("%s of the damaged heap: exit status %d (65 expected; 124 is a hang)", readers[r], status);
        assert_log_contains(log, damaged);
        assert_log_contains(log, "without reading or writing");
    }
}

/* The file offset of the 8 bytes `value` (little-endian) in `path`, -1 if absent. */
static long find_le64(const char *path, unsigned long long value)
{
    unsigned char pattern[8];
    for (int i = 0; i < 8; ++i)
        pattern[i] = (unsigned char)(value >> (8 * i));
    FILE *file = fopen(path, "rb");
    assert_non_null(file);
    long found = -1, at = 0;
    unsigned char window[8] = { 0 };
    for (int c; found < 0 && (c = fgetc(file)) != EOF; ++at) {
        memmove(window, window + 1, 7);
        window[7] = (unsigned char)c;
        if (at >= 7 && memcmp(window, pattern, 8) == 0)
            found = at - 7;
    }
    fclose(file);
    return found;
}

/* A changed byte in a chunk index's key (the damage scan's xor-byte@214858): the 1.8 format's
 * B-tree is not checksummed, the chunk of /observables/tip_4k/step is filed under offset
 * 0xff0000 (0xff in the offset's third byte) instead of 0, and HDF5 reads zeros for it with no
 * checksum failing. `verify` must refuse it. */
static void test_hidden_chunk_is_refused(void **state)
{
    (void)state;
    char run[512], log[512], command[1024];
    snprintf(run, sizeof run, "%s", test_tmp_path(".h5"));
    snprintf(log, sizeof log, "%s", test_tmp_path(".log"));
    assert_int_equal(test_shell("bin/opsim run experiments/fig2.ini --set run.frames=5 --out '%s' > /dev/null", run), 0);
    hid_t file = H5Fopen(run, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t dataset = H5Dopen2(file, "/observables/tip_4k/step", H5P_DEFAULT);
    hid_t space = H5Dget_space(dataset);
    unsigned mask;
    haddr_t address = HADDR_UNDEF;
    hsize_t offset[1], size;
    assert_true(H5Dget_chunk_info(dataset, space, 0, offset, &mask, &address, &size) >= 0);
    H5Sclose(space);
    H5Dclose(dataset);
    H5Fclose(file);
    long child = find_le64(run, address); /* the B-tree's child pointer; before it the key: size,
                                             filter mask, then the chunk's offsets, 8 bytes each */
    assert_true(child >= 16);
    assert_int_equal(test_shell("printf '\\377' | dd of='%s' bs=1 seek=%ld conv=notrunc status=none", run, child - 14), 0);
    snprintf(command, sizeof command, "bin/opsim verify '%s'", run);
    assert_int_equal(run_logged(log, command), 65);
    assert_log_contains(log, "/observables/tip_4k/step: chunks of its values are missing");
}

/* 4. A vertex at 1e200: the voxel count overflowed an int (undefined behaviour) and the message
 * read "18446743996400140360 cells is too many". */
static void test_extreme_coordinates_are_refused(void **state)
{
    (void)state;
    char mesh[512], out[512], log[512], command[2048];
    snprintf(mesh, sizeof mesh, "%s", test_tmp_path(".off"));
    snprintf(out, sizeof out, "%s", test_tmp_path(".h5"));
    snprintf(log, sizeof log, "%s", test_tmp_path(".log"));
    write_text(mesh, "OFF\n4 4 0\n0 0 0\n1 0 0\n0 1e200 0\n0 0 1\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n");
    snprintf(command, sizeof command, "bin/opsim graph --mesh '%s' --kind solid --particles 20 --out '%s'", mesh, out);
    assert_int_equal(run_logged(log, command), 65);
    assert_log_contains(log, mesh);
    assert_log_contains(log, "bounding box");
    assert_int_equal(access(out, F_OK), -1);
}

/* Starts `opsim run` of a long Fig. 2 into `out` and returns its pid once its temporary file
 * exists. */
static pid_t start_long_run(const char *out)
{
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        freopen("/dev/null", "w", stderr);
        execl("bin/opsim", "opsim", "run", "experiments/fig2.ini", "--set", "run.frames=100000", "--no-surface",
              "--out", out, (char *)NULL);
        _exit(127);
    }
    char temp[600];
    snprintf(temp, sizeof temp, "%s.%ld.tmp", out, (long)child);
    for (int tries = 0; access(temp, F_OK) != 0; ++tries) {
        if (tries > 3000)
            fail_msg("%s never appeared", temp);
        struct timespec pause = { 0, 10000000 };
        nanosleep(&pause, NULL);
    }
    return child;
}

/* Whether any "<out>.*.tmp" exists. */
static int temporary_left(const char *out)
{
    return test_shell("ls '%s'.*.tmp > /dev/null 2>&1", out) == 0;
}

/* 5. SIGINT, SIGTERM and SIGHUP remove the temporary run file and the process dies of the
 * signal; what SIGKILL leaves is removed by the next run to the same name. */
static void test_signals_leave_no_temporary_file(void **state)
{
    (void)state;
    static const int signals[] = { SIGINT, SIGTERM, SIGHUP };
    for (size_t s = 0; s < 3; ++s) {
        char out[512];
        snprintf(out, sizeof out, "%s", test_tmp_path(".h5"));
        pid_t child = start_long_run(out);
        kill(child, signals[s]);
        int status = 0;
        assert_int_equal(waitpid(child, &status, 0), child);
        assert_true(WIFSIGNALED(status));
        assert_int_equal(WTERMSIG(status), signals[s]);
        if (temporary_left(out))
            fail_msg("signal %d left %s.*.tmp", signals[s], out);
        assert_int_equal(access(out, F_OK), -1);
    }
    char out[512];
    snprintf(out, sizeof out, "%s", test_tmp_path(".h5"));
    pid_t child = start_long_run(out);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    assert_true(temporary_left(out));
    assert_int_equal(test_shell("bin/opsim run experiments/fig2.ini --set run.frames=2 --out '%s' > /dev/null", out), 0);
    assert_false(temporary_left(out));
}

/* 6. The builder's voxelize: messages knew no file name. */
static void test_build_messages_name_the_mesh(void **state)
{
    (void)state;
    static const char *const meshes[] = {
        "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n",                                        /* not closed */
        "OFF\n4 4 0\n0 0 0\n1 0 0\n0 1 0\n1 1 0\n3 0 1 2\n3 0 2 1\n3 1 2 3\n3 1 3 2\n", /* flat */
    };
    for (size_t m = 0; m < 2; ++m) {
        char mesh[512], out[512], log[512], command[2048];
        snprintf(mesh, sizeof mesh, "%s", test_tmp_path(".off"));
        snprintf(out, sizeof out, "%s", test_tmp_path(".h5"));
        snprintf(log, sizeof log, "%s", test_tmp_path(".log"));
        write_text(mesh, meshes[m]);
        snprintf(command, sizeof command, "bin/opsim graph --mesh '%s' --kind solid --particles 5 --out '%s'", mesh, out);
        assert_int_equal(run_logged(log, command), 65);
        assert_log_contains(log, mesh);
    }
}

/* 6. Config values the solver could not take were reported in its words: an empty config
 * ("series /particles/position/value: rows of rank 2 ..."), frame_time = 1e-320 ("sparse matrix
 * entry ... value inf"), stiffness 1e20 or frame_time 1e5 ("matrix is not positive definite
 * (column 71 ...)"). Each message must name the config or the key, and the body. */
static void test_config_messages_name_the_input(void **state)
{
    (void)state;
    char empty[512], out[512], log[512], command[2048];
    snprintf(empty, sizeof empty, "%s", test_tmp_path(".ini"));
    snprintf(out, sizeof out, "%s", test_tmp_path(".h5"));
    snprintf(log, sizeof log, "%s", test_tmp_path(".log"));
    write_text(empty, "");
    snprintf(command, sizeof command, "bin/opsim run '%s' --out '%s'", empty, out);
    assert_int_equal(run_logged(log, command), 65);
    assert_log_contains(log, empty);
    assert_log_contains(log, "[body NAME]");
    static const struct { const char *set, *expected; } cases[] = {
        { "world.frame_time=1e-320", "--set world.frame_time=1e-320" },
        { "'body dino.stiffness=1e20'", "body dino (stiffness 1e+20" },
        { "world.frame_time=1e5", "[world] frame_time" },
    };
    for (size_t c = 0; c < 3; ++c) {
        snprintf(command, sizeof command, "bin/opsim run experiments/fig5.ini --set %s --set run.frames=2 --no-surface --out '%s'",
                 cases[c].set, out);
        assert_int_equal(run_logged(log, command), 65);
        assert_log_contains(log, cases[c].expected);
        assert_int_equal(access(out, F_OK), -1);
    }
}

/* A copy of `run` with `edit` applied through the HDF5 API: dataset `name` replaced by one of
 * the given type and shape holding `data`. */
static void replace_dataset(const char *run, const char *copy, const char *name, hid_t type, int rank,
                            const hsize_t *dims, const void *data)
{
    assert_int_equal(test_shell("cp '%s' '%s'", run, copy), 0);
    hid_t file = H5Fopen(copy, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(file >= 0);
    assert_true(H5Ldelete(file, name, H5P_DEFAULT) >= 0);
    hid_t space = H5Screate_simple(rank, dims, NULL);
    hid_t set = H5Dcreate2(file, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(set >= 0);
    assert_true(H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
    H5Dclose(set);
    H5Sclose(space);
    H5Fclose(file);
}

static const char *small_run(void)
{
    static char run[512];
    if (!run[0]) {
        snprintf(run, sizeof run, "%s", test_tmp_path(".h5"));
        assert_int_equal(test_shell("bin/opsim run experiments/fig2.ini --set run.frames=4 --out '%s' > /dev/null", run),
                         0);
    }
    return run;
}

/* 7. Partial or wrong outputs: --obj that fails midway (the third body's graph damaged) wrote
 * the first bodies' files; negative frame indices wrote one name several times and exited 0;
 * xdmf wrote a sidecar for faces that export rejects; a 300-character --name was cut. */
static void test_no_partial_outputs(void **state)
{
    (void)state;
    const char *run = small_run();
    char damaged[512], dir[512], log[512], command[2048];
    snprintf(damaged, sizeof damaged, "%s", test_tmp_path(".h5"));
    snprintf(log, sizeof log, "%s", test_tmp_path(".log"));
    double radii[3] = { -1, 1, 1 };
    hsize_t one[2] = { 1, 3 };
    replace_dataset(run, damaged, "/graph/bar_4k/radii", H5T_NATIVE_DOUBLE, 2, one, radii);
    snprintf(dir, sizeof dir, "%s", test_tmp_path("-obj"));
    snprintf(command, sizeof command, "bin/opsim export '%s' --obj '%s'", damaged, dir);
    assert_int_equal(run_logged(log, command), 65);
    assert_int_equal(access(dir, F_OK), -1);
    assert_int_equal(test_shell("ls -d '%s'.*.tmp > /dev/null 2>&1", dir), 2);

    long long steps[3] = { -1, -1, -1 };
    hsize_t three = 3;
    replace_dataset(run, damaged, "/states/position/step", H5T_NATIVE_LLONG, 1, &three, steps);
    snprintf(dir, sizeof dir, "%s", test_tmp_path("-obj"));
    snprintf(command, sizeof command, "bin/opsim export '%s' --obj '%s'", damaged, dir);
    assert_int_equal(run_logged(log, command), 65);
    assert_log_contains(log, "/particles/position/step");
    assert_int_equal(access(dir, F_OK), -1);

    int faces[3] = { 0, 1, 1000000 };
    hsize_t face_dims[2] = { 1, 3 };
    replace_dataset(run, damaged, "/mesh/bar_k/faces", H5T_NATIVE_INT, 2, face_dims, faces);
    snprintf(command, sizeof command, "bin/opsim export '%s' --triangles bar_k", damaged);
    assert_int_equal(run_logged(log, command), 65);
    char sidecar[600];
    snprintf(sidecar, sizeof sidecar, "%.*s.xmf", (int)(strlen(damaged) - 3), damaged);
    snprintf(command, sizeof command, "bin/opsim xdmf '%s'", damaged);
    assert_int_equal(run_logged(log, command), 65);
    assert_int_equal(access(sidecar, F_OK), -1);

    char name[301], out[512];
    memset(name, 'n', 300);
    name[300] = '\0';
    snprintf(out, sizeof out, "%s", test_tmp_path(".h5"));
    snprintf(command, sizeof command, "bin/opsim graph --shape bar --kind rod --particles 3 --name %s --out '%s'", name,
             out);
    assert_int_equal(run_logged(log, command), 64);
    assert_log_contains(log, "63 characters");
    assert_int_equal(access(out, F_OK), -1);
}

/* The damaged-file table: each damage applied to a copy of a 4-frame Fig. 2 run file, each
 * reading command run on it. A refusal is exit 65 or 74 naming the file, with nothing on
 * standard output; success (a damage the command never reads) is allowed; anything else (a
 * signal, 70, a hang past 60 s) fails. A damaged file every command accepts must not differ
 * from the original under h5diff ("accepted but altered": the last column, 1 when it does):
 * every stored value carries a Fletcher-32 checksum and every object header one of its own.
 * The edits (datasets replaced through HDF5, valid checksums) are not damage and not counted. */
typedef struct damage {
    const char *name;
    const char *shell; /* sh command making F from R */
} damage;

static const damage DAMAGES[] = {
    { "empty", ": > F" },
    { "one-byte", "head -c 1 R > F" },
    { "text", "echo 'not a run file' > F" },
    { "cut-10%", "head -c $(( $(stat -c %s R) / 10 )) R > F" },
    { "cut-50%", "head -c $(( $(stat -c %s R) / 2 )) R > F" },
    { "cut-90%", "head -c $(( $(stat -c %s R) * 9 / 10 )) R > F" },
    { "cut-last-byte", "head -c $(( $(stat -c %s R) - 1 )) R > F" },
    { "zero-superblock", "cp R F && dd if=/dev/zero of=F bs=1 count=96 conv=notrunc status=none" },
    { "zero-4k-at-4k", "cp R F && dd if=/dev/zero of=F bs=4096 seek=1 count=1 conv=notrunc status=none" },
    { "zero-4k-middle", "cp R F && dd if=/dev/zero of=F bs=4096 seek=$(( $(stat -c %s R) / 8192 )) count=1 conv=notrunc status=none" },
    { "flip-300", "cp R F && printf '\\377' | dd of=F bs=1 seek=300 conv=notrunc status=none" },
    { "flip-1000", "cp R F && printf '\\377' | dd of=F bs=1 seek=1000 conv=notrunc status=none" },
    { "flip-2500", "cp R F && printf '\\377' | dd of=F bs=1 seek=2500 conv=notrunc status=none" },
    { "flip-5000", "cp R F && printf '\\377' | dd of=F bs=1 seek=5000 conv=notrunc status=none" },
    { "flip-9000", "cp R F && printf '\\377' | dd of=F bs=1 seek=9000 conv=notrunc status=none" },
    { "flip-16000", "cp R F && printf '\\377' | dd of=F bs=1 seek=16000 conv=notrunc status=none" },
    { "flip-40000", "cp R F && printf '\\377' | dd of=F bs=1 seek=40000 conv=notrunc status=none" },
    { "flip-last-4k", "cp R F && printf '\\377' | dd of=F bs=1 seek=$(( $(stat -c %s R) - 4000 )) conv=notrunc status=none" },
    { "ff-512-at-18951", "cp R F && head -c 512 /dev/zero | tr '\\000' '\\377' | dd of=F bs=1 seek=18951 conv=notrunc status=none" },
    { "flip-middle", "cp R F && printf '\\377' | dd of=F bs=1 seek=$(( $(stat -c %s R) / 2 )) conv=notrunc status=none" },
    { "flip-3/4", "cp R F && printf '\\377' | dd of=F bs=1 seek=$(( $(stat -c %s R) * 3 / 4 )) conv=notrunc status=none" },
};

enum { EDITS = 6 };
static const char *const EDIT_NAMES[EDITS] = { "positions-rank-2", "steps-as-float", "edges-out-of-range",
                                               "faces-out-of-range", "skin-index-out-of-range", "steps-negative" };

static void make_edit(int e, const char *run, const char *file)
{
    static double flat[12];
    static double float_steps[4] = { 0, 1, 2, 3 };
    static int edges[2] = { 0, 5000 };
    static int faces[3] = { 0, 1, -7 };
    static int skin[4] = { 0, 1, 2, 99999 };
    static long long steps[4] = { 0, -2, -4, -6 };
    hsize_t d2[2], d1[1];
    switch (e) {
    case 0: d2[0] = 4; d2[1] = 3; replace_dataset(run, file, "/states/position/value", H5T_NATIVE_DOUBLE, 2, d2, flat); break;
    case 1: d1[0] = 4; replace_dataset(run, file, "/states/position/step", H5T_NATIVE_DOUBLE, 1, d1, float_steps); break;
    case 2: d2[0] = 1; d2[1] = 2; replace_dataset(run, file, "/graph/bar_k/edges", H5T_NATIVE_INT, 2, d2, edges); break;
    case 3: d2[0] = 1; d2[1] = 3; replace_dataset(run, file, "/mesh/bar_k/faces", H5T_NATIVE_INT, 2, d2, faces); break;
    case 4: d2[0] = 1; d2[1] = 4; replace_dataset(run, file, "/mesh/bar_k/skin_index", H5T_NATIVE_INT, 2, d2, skin); break;
    default: d1[0] = 4; replace_dataset(run, file, "/states/position/step", H5T_NATIVE_LLONG, 1, d1, steps); break;
    }
}

static const char *const READERS[] = {
    "verify F",
    "info F",
    "export F /particles/position/value",
    "export F --triangles bar_k",
    "export F --axes bar_k",
    "export F --skinned bar_k --frame last",
    "export F --particles bar_k --frame 0",
    "export F --obj F.obj",
    "export F --attribute /parameters/bar_k stiffness",
    "xdmf F",
};

static const char *const READER_COLUMNS[] = { "verify", "info", "export", "--triangles", "--axes", "--skinned",
                                              "--particles", "--obj", "--attribute", "xdmf" };

static void test_damaged_file_table(void **state)
{
    (void)state;
    const char *run = small_run();
    size_t damages = sizeof DAMAGES / sizeof DAMAGES[0], readers = sizeof READERS / sizeof READERS[0];
    char table[512];
    snprintf(table, sizeof table, "%s", test_tmp_path(".tsv"));
    FILE *out = fopen(table, "w");
    assert_non_null(out);
    fprintf(out, "# damage");
    for (size_t r = 0; r < readers; ++r)
        fprintf(out, "\t%s", READER_COLUMNS[r]);
    fprintf(out, "\taltered\n");
    int failures = 0, altered_total = 0;
    for (size_t d = 0; d < damages + EDITS; ++d) {
        int accepted_by_all = 1;
        char file[512];
        snprintf(file, sizeof file, "%s", test_tmp_path(".h5"));
        if (d < damages) {
            char shell[2048], *w = shell;
            for (const char *c = DAMAGES[d].shell; *c && w < shell + sizeof shell - 600; ++c)
                w += *c == 'F' ? sprintf(w, "'%s'", file) : *c == 'R' ? sprintf(w, "'%s'", run) : sprintf(w, "%c", *c);
            *w = '\0';
            assert_int_equal(test_shell("%s", shell), 0);
        } else
            make_edit((int)(d - damages), run, file);
        fprintf(out, "%s", d < damages ? DAMAGES[d].name : EDIT_NAMES[d - damages]);
        for (size_t r = 0; r < readers; ++r) {
            char command[2048], log[512], *w = command;
            w += sprintf(w, "timeout 60 bin/opsim ");
            for (const char *c = READERS[r]; *c; ++c)
                w += *c == 'F' ? sprintf(w, "'%s'", file) : sprintf(w, "%c", *c);
            char printed[512];
            snprintf(log, sizeof log, "%s", test_tmp_path(".log"));
            snprintf(printed, sizeof printed, "%s", test_tmp_path(".out"));
            int status = test_shell("%s 2> '%s' > '%s'", command, log, printed);
            char *message = test_read_file(log), *output = test_read_file(printed);
            int names_file = message && strstr(message, file), quiet = output && output[0] == '\0';
            free(output);
            accepted_by_all &= status == 0;
            if (!(status == 0 || ((status == 65 || status == 74) && names_file && quiet))) {
                print_message("%s | %s: exit %d: %s\n", d < damages ? DAMAGES[d].name : EDIT_NAMES[d - damages],
                              READERS[r], status, message ? message : "");
                ++failures;
            }
            free(message);
            fprintf(out, "\t%d", status);
        }
        int altered = d < damages && accepted_by_all && test_shell("h5diff -q '%s' '%s' > /dev/null 2>&1", run, file) != 0;
        altered_total += altered;
        fprintf(out, "\t%d\n", altered);
    }
    fclose(out);
    char *text = test_read_file(table);
    print_message("damaged-file table (exit status per command):\n%s", text);
    free(text);
    assert_int_equal(failures, 0);
    assert_int_equal(altered_total, 0);
}


/* Issue 42: a run killed between publishing the run file and its sidecar leaves the new run
 * file and no sidecar (never the previous run's); a link planted at a temporary's predictable
 * name is not followed; a second writer to one path is refused unless --allow-concurrent;
 * inputs that are not regular files, or beyond their cap, are refused naming the input. */
static void test_publishing_and_locking(void **state)
{
    (void)state;
    char run[512], sidecar[512], log[512], victim[512];
    snprintf(run, sizeof run, "%s", test_tmp_path(".h5"));
    snprintf(sidecar, sizeof sidecar, "%.*s.xmf", (int)strlen(run) - 3, run);
    snprintf(log, sizeof log, "%s", test_tmp_path(".log"));
    snprintf(victim, sizeof victim, "%s", test_tmp_path(".victim"));
    const char *fig2 = "bin/opsim run experiments/fig2.ini --set run.frames=";
    assert_int_equal(test_shell("%s3 --out '%s' > /dev/null", fig2, run), 0);
    assert_int_equal(access(sidecar, F_OK), 0);
    /* killed (SIGKILL) after the run file's rename, before the sidecar's */
    assert_int_equal(test_shell("OPSIM_TEST_KILL_BETWEEN_RENAMES=1 %s1 --out '%s' > /dev/null 2>&1", fig2, run), 128 + 9);
    assert_int_equal(access(sidecar, F_OK), -1);
    assert_int_equal(test_shell("h5dump -d /states/position/time -H '%s' | grep -q 'DATASPACE  SIMPLE { ( 2 )'", run), 0);
    assert_int_equal(test_shell("%s1 --out '%s' > /dev/null", fig2, run), 0);
    assert_int_equal(access(sidecar, F_OK), 0);
    assert_int_equal(test_shell("ls '%s'.*.tmp '%.*s'.xmf.*.tmp 2> /dev/null | grep -q .", run, (int)strlen(run) - 3, run), 1);
    /* links at the temporary names (the shell's pid is opsim's after exec) */
    write_text(victim, "not to be overwritten\n");
    assert_int_equal(test_shell("sh -c 'ln -s \"%s\" \"%s\".$$.tmp; ln -s \"%s\" \"%.*s\".xmf.$$.tmp; exec %s1 --out \"%s\"' "
                                "> /dev/null", victim, run, victim, (int)strlen(run) - 3, run, fig2, run),
                     0);
    char *kept = test_read_file(victim);
    assert_string_equal(kept, "not to be overwritten\n");
    free(kept);
    assert_int_equal(test_shell("test -f '%s' && test ! -L '%s' && test ! -L '%s'", run, run, sidecar), 0);
    /* a second writer: the lock held by flock(1) while opsim runs */
    char command[2048];
    snprintf(command, sizeof command, "flock '%s.lock' %s1 --out '%s'", run, fig2, run);
    assert_int_equal(run_logged(log, command), 74);
    assert_log_contains(log, "another process is writing this run file");
    snprintf(command, sizeof command, "flock '%s.lock' %s1 --allow-concurrent --out '%s'", run, fig2, run);
    assert_int_equal(run_logged(log, command), 0);
    /* inputs: a device, a FIFO, a link to a device, a config beyond its cap */
    char fifo[512], link[512], big[512];
    snprintf(fifo, sizeof fifo, "%s", test_tmp_path(".fifo"));
    snprintf(link, sizeof link, "%s", test_tmp_path(".off"));
    snprintf(big, sizeof big, "%s", test_tmp_path(".ini"));
    assert_int_equal(test_shell("mkfifo '%s' && ln -s /dev/zero '%s' && truncate -s 17M '%s'", fifo, link, big), 0);
    const char *const refused[][2] = {
        { "timeout 20 bin/opsim run /dev/zero --out X", "/dev/zero: cannot read it as a config: it is a character device" },
        { "timeout 20 bin/opsim run FIFO --out X", "it is a FIFO, not a regular file" },
        { "timeout 20 bin/opsim graph --mesh LINK --kind solid --particles 10 --out X", "cannot read it as a mesh" },
        { "timeout 20 bin/opsim run BIG --out X", "larger than the config cap of 16777216 bytes" },
    };
    for (size_t c = 0; c < sizeof refused / sizeof refused[0]; ++c) {
        char *w = command;
        for (const char *t = refused[c][0]; *t; ++t)
            w += *t == 'X' ? sprintf(w, "'%s'", test_tmp_path(".h5"))
                 : strncmp(t, "FIFO", 4) == 0 ? (t += 3, sprintf(w, "'%s'", fifo))
                 : strncmp(t, "LINK", 4) == 0 ? (t += 3, sprintf(w, "'%s'", link))
                 : strncmp(t, "BIG", 3) == 0  ? (t += 2, sprintf(w, "'%s'", big))
                                              : sprintf(w, "%c", *t);
        assert_int_equal(run_logged(log, command), 74);
        assert_log_contains(log, refused[c][1]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_long_thin_mesh_builds_in_time),
        cmocka_unit_test(test_full_disk_exits_74),
        cmocka_unit_test(test_damaged_heap_is_refused),
        cmocka_unit_test(test_fuzzer_library_crashes_are_contained),
        cmocka_unit_test(test_spinning_reader_is_stopped),
        cmocka_unit_test(test_hidden_chunk_is_refused),
        cmocka_unit_test(test_extreme_coordinates_are_refused),
        cmocka_unit_test(test_signals_leave_no_temporary_file),
        cmocka_unit_test(test_build_messages_name_the_mesh),
        cmocka_unit_test(test_config_messages_name_the_input),
        cmocka_unit_test(test_no_partial_outputs),
        cmocka_unit_test(test_damaged_file_table),
        cmocka_unit_test(test_publishing_and_locking),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
