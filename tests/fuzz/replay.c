/* Replays saved inputs through one fuzz target without libFuzzer, for `make test`: linked with a
 * target's LLVMFuzzerTestOneInput against the normal build (bin/fuzz-replay/), it runs every file
 * named, and every file in every directory named, once. The target aborts on a failed
 * invariant and the sanitizers (`make test SANITIZE=1`) on a memory error, so exit status 0
 * means every seed and every fuzz-regression input of tests/fuzz/<target>/ still passes.
 * Prints "replayed N inputs". */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *file = fopen(path, "rb");
    if (!file) {
        perror(path);
        return -1;
    }
    size_t size = 0, capacity = 4096;
    uint8_t *data = malloc(capacity);
    size_t got;
    while (data && (got = fread(data + size, 1, capacity - size, file)) > 0) {
        size += got;
        if (size == capacity) {
            uint8_t *grown = realloc(data, capacity *= 2);
            if (!grown)
                free(data);
            data = grown;
        }
    }
    int failed = !data || ferror(file);
    fclose(file);
    if (failed) {
        fprintf(stderr, "%s: cannot read\n", path);
        free(data);
        return -1;
    }
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    return 0;
}


/* Files of a directory in name order, so a failure report is the same on every machine. */
static int replay_directory(const char *path, int *count)
{
    struct dirent **entries;
    int n = scandir(path, &entries, NULL, alphasort);
    if (n < 0) {
        perror(path);
        return -1;
    }
    int status = 0;
    for (int k = 0; k < n; ++k) {
        char file[4096];
        struct stat info;
        snprintf(file, sizeof file, "%s/%s", path, entries[k]->d_name);
        if (entries[k]->d_name[0] != '.' && stat(file, &info) == 0 && S_ISREG(info.st_mode)) {
            if (replay_file(file) != 0)
                status = -1;
            ++*count;
        }
        free(entries[k]);
    }
    free(entries);
    return status;
}

int main(int argc, char **argv)
{
    int count = 0, status = 0;
    for (int a = 1; a < argc; ++a) {
        struct stat info;
        if (stat(argv[a], &info) != 0) {
            perror(argv[a]);
            status = -1;
        } else if (S_ISDIR(info.st_mode)) {
            status |= replay_directory(argv[a], &count);
        } else {
            status |= replay_file(argv[a]);
            ++count;
        }
    }
    printf("replayed %d inputs\n", count);
    return status ? 1 : 0;
}
