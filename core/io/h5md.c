/* Writing the H5MD 1.1 elements of a run file (h5md.h): metadata, the bodies' particle groups as
 * views of the /states (or /substeps) series, and their connectivity. */
#include "io/h5md.h"

#include <stdlib.h>
#include <string.h>

#include "io/runfile_hdf5.h"

#ifndef OPSIM_VERSION
#define OPSIM_VERSION "unknown"
#endif

/* The time-dependent elements of a particle group, each a view of <series>/<element>/value. */
enum { ELEMENTS = 3 };
static const char *const element_names[ELEMENTS] = { "position", "orientation", "velocity" };

/* Per element: the unit of its values, the extents after the particle, and a description
 * (a format taking when the states were sampled). */
static const struct {
    const char *unit;
    int rank;
    const char *description;
} element_notes[ELEMENTS] = {
    { "m", 1, "particle centres x_i %s (H5MD position)" },
    { "1", 2, "rotations R_i %s, row-major: current axes E_i = R_i rest_axes_i (opsim's element, not H5MD's)" },
    { "m s-1", 1,
      ("particle velocities v_i %s, as the solver holds them at the end of the sub-step that left the state "
       "(H5MD velocity)") },
};

/* Per sampling (op_h5md_sampling): the H5MD root ("" the file's), the series the views show,
 * and when its states were taken. */
static const struct {
    const char *root;
    const char *series;
    const char *when;
} samplings[2] = {
    { "", "/states", "at each output frame" },
    { "/substeps", "/substeps", "after every sub-step" },
};

static int write_int_array_attribute(op_ctx *ctx, op_runfile *run, const char *object, const char *name, int count,
                                     const int *values)
{
    hsize_t extent = (hsize_t)count;
    hid_t space = H5Screate_simple(1, &extent, NULL);
    hid_t attribute = space < 0 ? -1
                                : H5Acreate_by_name(run->file, object, name, H5T_STD_I32LE, space, H5P_DEFAULT,
                                                    H5P_DEFAULT, H5P_DEFAULT);
    int failed = attribute < 0 || H5Awrite(attribute, H5T_NATIVE_INT, values) < 0;
    if (attribute >= 0)
        H5Aclose(attribute);
    if (space >= 0)
        H5Sclose(space);
    if (failed)
        return H5_FAIL(ctx, OP_ERR_IO, "%s: cannot write attribute %s of %s", run->final_path, name, object);
    return OP_OK;
}

/* H5MD's box: dimension 3 and one fixed-length boundary string per dimension, all "none". */
static int write_box(op_ctx *ctx, op_runfile *run, hid_t particle_group, const char *where)
{
    static const char none[3][5] = { "none", "none", "none" };
    static const int dimension = 3;
    hsize_t extent = 3;
    hid_t list = runfile_creation_list(H5P_GROUP_CREATE);
    hid_t box = list < 0 ? -1 : H5Gcreate2(particle_group, "box", H5P_DEFAULT, list, H5P_DEFAULT);
    hid_t type = H5Tcopy(H5T_C_S1), strings = H5Screate_simple(1, &extent, NULL), scalar = H5Screate(H5S_SCALAR);
    int failed = box < 0 || type < 0 || strings < 0 || scalar < 0 || H5Tset_size(type, sizeof none[0]) < 0 ||
                 H5Tset_strpad(type, H5T_STR_NULLTERM) < 0;
    hid_t boundary = failed ? -1 : H5Acreate2(box, "boundary", type, strings, H5P_DEFAULT, H5P_DEFAULT);
    hid_t dimensions = failed ? -1 : H5Acreate2(box, "dimension", H5T_STD_I32LE, scalar, H5P_DEFAULT, H5P_DEFAULT);
    failed = boundary < 0 || dimensions < 0 || H5Awrite(boundary, type, none) < 0 ||
             H5Awrite(dimensions, H5T_NATIVE_INT, &dimension) < 0;
    hid_t handles[] = { boundary, dimensions };
    for (int k = 0; k < 2; ++k)
        if (handles[k] >= 0)
            H5Aclose(handles[k]);
    if (scalar >= 0)
        H5Sclose(scalar);
    if (strings >= 0)
        H5Sclose(strings);
    if (type >= 0)
        H5Tclose(type);
    if (box >= 0)
        H5Gclose(box);
    if (list >= 0)
        H5Pclose(list);
    if (failed)
        return H5_FAIL(ctx, OP_ERR_IO, "%s: cannot write the box of %s", run->final_path, where);
    return OP_OK;
}

/* A new group at `path` (its parent exists), without modification times (runfile_creation_list). */
static hid_t new_group(op_ctx *ctx, op_runfile *run, const char *path)
{
    hid_t list = runfile_creation_list(H5P_GROUP_CREATE);
    hid_t group = list < 0 ? -1 : H5Gcreate2(run->file, path, H5P_DEFAULT, list, H5P_DEFAULT);
    if (list >= 0)
        H5Pclose(list);
    if (group < 0)
        H5_FAIL(ctx, OP_ERR_IO, "%s: cannot create %s", run->final_path, path);
    return group;
}

static const char *author_name(void)
{
    const char *names[] = { getenv("OPSIM_AUTHOR"), getenv("USER"), getenv("LOGNAME") };
    for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k)
        if (names[k] && *names[k])
            return names[k];
    return "unknown";
}

static int write_metadata(op_ctx *ctx, op_runfile *run, const char *root)
{
    static const int version[2] = { 1, 1 }, units_version[2] = { 1, 0 };
    char h5md[OP_SERIES_PATH_SIZE], author[OP_SERIES_PATH_SIZE], creator[OP_SERIES_PATH_SIZE],
        units[OP_SERIES_PATH_SIZE];
    snprintf(h5md, sizeof h5md, "%s/h5md", root);
    snprintf(author, sizeof author, "%s/h5md/author", root);
    snprintf(creator, sizeof creator, "%s/h5md/creator", root);
    snprintf(units, sizeof units, "%s/h5md/modules/units", root);
    if (op_runfile_set_attribute_string(ctx, run, author, "name", author_name()) != OP_OK ||
        op_runfile_set_attribute_string(ctx, run, creator, "name", "opsim") != OP_OK ||
        op_runfile_set_attribute_string(ctx, run, creator, "version", OPSIM_VERSION) != OP_OK ||
        op_runfile_set_attribute_string(ctx, run, units, "system", "SI") != OP_OK)
        return ctx->status;
    if (write_int_array_attribute(ctx, run, h5md, "version", 2, version) != OP_OK ||
        write_int_array_attribute(ctx, run, units, "version", 2, units_version) != OP_OK)
        return ctx->status;
    static const char *const groups[2] = { "particles", "connectivity" };
    for (int k = 0; k < 2; ++k) {
        char path[OP_SERIES_PATH_SIZE];
        snprintf(path, sizeof path, "%s/%s", root, groups[k]);
        hid_t group = new_group(ctx, run, path);
        if (group < 0)
            return ctx->status;
        H5Gclose(group);
    }
    return OP_OK;
}

static int hard_link(op_ctx *ctx, op_runfile *run, const char *target, const char *link)
{
    if (H5Lcreate_hard(run->file, target, run->file, link, H5P_DEFAULT, H5P_DEFAULT) < 0)
        return H5_FAIL(ctx, OP_ERR_IO, "%s: cannot link %s to %s", run->final_path, link, target);
    return OP_OK;
}

/* A fixed-length text attribute of `object` (as the run-file writer stores text: no heap). */
static int put_text(op_ctx *ctx, op_runfile *run, hid_t object, const char *where, const char *name, const char *text)
{
    hid_t type = H5Tcopy(H5T_C_S1), space = H5Screate(H5S_SCALAR);
    int failed = type < 0 || space < 0 || H5Tset_size(type, strlen(text) + 1) < 0 ||
                 H5Tset_strpad(type, H5T_STR_NULLTERM) < 0 || H5Tset_cset(type, H5T_CSET_UTF8) < 0;
    hid_t attribute = failed ? -1 : H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    failed = attribute < 0 || H5Awrite(attribute, type, text) < 0;
    if (attribute >= 0)
        H5Aclose(attribute);
    if (space >= 0)
        H5Sclose(space);
    if (type >= 0)
        H5Tclose(type);
    if (failed)
        return H5_FAIL(ctx, OP_ERR_IO, "%s: cannot write attribute %s of %s", run->final_path, name, where);
    return OP_OK;
}

/* The unit and description of the dataset at `path`. */
static int describe(op_ctx *ctx, op_runfile *run, const char *path, const char *unit, const char *description)
{
    hid_t object = H5Oopen(run->file, path, H5P_DEFAULT);
    if (object < 0)
        return H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot open %s", run->final_path, path);
    if (put_text(ctx, run, object, path, "unit", unit) == OP_OK)
        put_text(ctx, run, object, path, "description", description);
    H5Oclose(object);
    return ctx->status;
}

/* <root>/particles/<body>/<element>/value: a virtual dataset [rows][n][...] over the rows offset ..
 * offset+n-1 of <series>/<element>/value [rows][total][...], mapped for any number of rows
 * (HDF5 maps unlimited selections). It is made with its final extent: HDF5 1.10 reads a
 * virtual dataset through H5S_ALL with the extent it was made with, not the mapped one. */
static int write_view(op_ctx *ctx, op_runfile *run, const op_h5md_body *body, int e)
{
    const char *root = samplings[body->sampling].root;
    char source[OP_SERIES_PATH_SIZE], group[OP_SERIES_PATH_SIZE], view[OP_SERIES_PATH_SIZE], description[256];
    snprintf(source, sizeof source, "%s/%s/value", samplings[body->sampling].series, element_names[e]);
    snprintf(group, sizeof group, "%s/particles/%s/%s", root, body->name, element_names[e]);
    snprintf(view, sizeof view, "%s/particles/%s/%s/value", root, body->name, element_names[e]);
    snprintf(description, sizeof description, element_notes[e].description, samplings[body->sampling].when);
    int rank = 2 + element_notes[e].rank;
    hsize_t n = (hsize_t)body->graph->particle_count;
    hsize_t dims[4] = { (hsize_t)body->rows, n, 3, 3 }, max[4] = { H5S_UNLIMITED, n, 3, 3 };
    hsize_t all[4] = { (hsize_t)body->rows, (hsize_t)body->total, 3, 3 }, all_max[4] = { H5S_UNLIMITED, all[1], 3, 3 };
    hsize_t start[4] = { 0, (hsize_t)body->offset, 0, 0 }, zero[4] = { 0 }, stride[4] = { 1, 1, 1, 1 };
    hsize_t count[4] = { H5S_UNLIMITED, 1, 1, 1 }, block[4] = { 1, n, 3, 3 };
    hid_t group_list = runfile_creation_list(H5P_GROUP_CREATE);
    hid_t element = group_list < 0 ? -1 : H5Gcreate2(run->file, group, H5P_DEFAULT, group_list, H5P_DEFAULT);
    hid_t states = H5Screate_simple(rank, all, all_max), space = H5Screate_simple(rank, dims, max);
    hid_t list = runfile_creation_list(H5P_DATASET_CREATE);
    int ok = element >= 0 && states >= 0 && space >= 0 && list >= 0 &&
             H5Sselect_hyperslab(states, H5S_SELECT_SET, start, stride, count, block) >= 0 &&
             H5Sselect_hyperslab(space, H5S_SELECT_SET, zero, stride, count, block) >= 0 &&
             H5Pset_virtual(list, space, ".", source, states) >= 0;
    hid_t set = ok ? H5Dcreate2(element, "value", H5T_IEEE_F64LE, space, H5P_DEFAULT, list, H5P_DEFAULT) : -1;
    int rc = set < 0 ? H5_FAIL(ctx, OP_ERR_IO, "%s: cannot write %s over %s", run->final_path, view, source) : OP_OK;
    if (rc == OP_OK && put_text(ctx, run, set, view, "unit", element_notes[e].unit) == OP_OK)
        put_text(ctx, run, set, view, "description", description);
    if (set >= 0)
        H5Dclose(set);
    if (list >= 0)
        H5Pclose(list);
    if (space >= 0)
        H5Sclose(space);
    if (states >= 0)
        H5Sclose(states);
    if (element >= 0)
        H5Gclose(element);
    if (group_list >= 0)
        H5Pclose(group_list);
    return ctx->status;
}

/* An H5MD time-dependent element: the view, and step and time linked to the series'. */
static int write_element(op_ctx *ctx, op_runfile *run, const op_h5md_body *body, int e)
{
    if (write_view(ctx, run, body, e) != OP_OK)
        return ctx->status;
    static const char *const shared[2] = { "step", "time" };
    for (int k = 0; k < 2; ++k) {
        char target[OP_SERIES_PATH_SIZE], link[OP_SERIES_PATH_SIZE];
        snprintf(target, sizeof target, "%s/%s/%s", samplings[body->sampling].series, element_names[e], shared[k]);
        snprintf(link, sizeof link, "%s/particles/%s/%s/%s", samplings[body->sampling].root, body->name,
                 element_names[e], shared[k]);
        if (hard_link(ctx, run, target, link) != OP_OK)
            return ctx->status;
    }
    return OP_OK;
}

static int write_species(op_ctx *ctx, op_runfile *run, const op_h5md_body *body, const char *path)
{
    if (body->same_model) {
        char target[OP_SERIES_PATH_SIZE];
        snprintf(target, sizeof target, "%s/particles/%s/species", samplings[body->sampling].root, body->same_model);
        return hard_link(ctx, run, target, path);
    }
    int64_t n = body->graph->particle_count;
    int64_t *species = op_calloc(ctx, (size_t)(n ? n : 1), sizeof *species);
    if (!species)
        return ctx->status;
    for (int64_t i = 0; i < n; ++i)
        species[i] = body->species;
    int rc = op_runfile_write_array(ctx, run, path, OP_SERIES_INT64, 1, &n, species);
    free(species);
    if (rc != OP_OK)
        return rc;
    return describe(ctx, run, path, "1",
                    "the body's model number, in the order the models first appear in the body list: bodies "
                    "of one model share it");
}

/* <root>/connectivity/<body>: the graph's edges [m][2] (i < j) in the body's particle indices,
 * with H5MD's particles_group reference to <root>/particles/<body>. Contiguous, unlike the chunked
 * datasets of the run-file writer: a chunk index would cost more than the edges of a small
 * body (2.7 kB a body in a pile of 1,000 30-particle bodies); the object header, where the
 * layout is recorded, is checksummed all the same. */
static int write_connectivity(op_ctx *ctx, op_runfile *run, const op_h5md_body *body)
{
    const op_graph *graph = body->graph;
    char path[OP_SERIES_PATH_SIZE], group[OP_SERIES_PATH_SIZE];
    snprintf(path, sizeof path, "%s/connectivity/%s", samplings[body->sampling].root, body->name);
    snprintf(group, sizeof group, "%s/particles/%s", samplings[body->sampling].root, body->name);
    hsize_t dims[2] = { (hsize_t)graph->edge_count, 2 };
    int *edges = op_calloc(ctx, 2 * (size_t)(graph->edge_count ? graph->edge_count : 1), sizeof *edges);
    if (!edges)
        return ctx->status;
    op_graph_edges(graph, edges);
    hobj_ref_t reference;
    hid_t list = runfile_creation_list(H5P_DATASET_CREATE), space = H5Screate_simple(2, dims, NULL);
    hid_t scalar = H5Screate(H5S_SCALAR);
    hid_t set = list < 0 || space < 0 ? -1 : H5Dcreate2(run->file, path, H5T_STD_I32LE, space, H5P_DEFAULT, list, H5P_DEFAULT);
    hid_t attribute = set < 0 || scalar < 0
                          ? -1
                          : H5Acreate2(set, "particles_group", H5T_STD_REF_OBJ, scalar, H5P_DEFAULT, H5P_DEFAULT);
    int failed = attribute < 0 || (dims[0] > 0 && H5Dwrite(set, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, edges) < 0) ||
                 H5Rcreate(&reference, run->file, group, H5R_OBJECT, -1) < 0 ||
                 H5Awrite(attribute, H5T_STD_REF_OBJ, &reference) < 0;
    if (failed)
        H5_FAIL(ctx, OP_ERR_IO, "%s: cannot write %s", run->final_path, path);
    else if (put_text(ctx, run, set, path, "unit", "1") == OP_OK)
        put_text(ctx, run, set, path, "description",
                 "the graph's edges (i < j, sorted) as pairs of indices into the particle group particles_group, "
                 "particles/<body> beside this connectivity group");
    if (attribute >= 0)
        H5Aclose(attribute);
    if (set >= 0)
        H5Dclose(set);
    if (scalar >= 0)
        H5Sclose(scalar);
    if (space >= 0)
        H5Sclose(space);
    if (list >= 0)
        H5Pclose(list);
    free(edges);
    return ctx->status;
}

static int write_body(op_ctx *ctx, op_runfile *run, const op_h5md_body *body)
{
    char group[OP_SERIES_PATH_SIZE], mass[OP_SERIES_PATH_SIZE], graph_mass[OP_SERIES_PATH_SIZE],
        species[OP_SERIES_PATH_SIZE];
    const char *root = samplings[body->sampling].root;
    snprintf(group, sizeof group, "%s/particles/%s", root, body->name);
    snprintf(mass, sizeof mass, "%s/particles/%s/mass", root, body->name);
    snprintf(graph_mass, sizeof graph_mass, "/graph/%s/mass", body->name);
    snprintf(species, sizeof species, "%s/particles/%s/species", root, body->name);
    hid_t particle_group = new_group(ctx, run, group);
    if (particle_group < 0)
        return ctx->status;
    write_box(ctx, run, particle_group, group);
    H5Gclose(particle_group);
    if (ctx->status != OP_OK)
        return ctx->status;
    for (int e = 0; e < ELEMENTS; ++e)
        if (write_element(ctx, run, body, e) != OP_OK)
            return ctx->status;
    if (hard_link(ctx, run, graph_mass, mass) != OP_OK || write_species(ctx, run, body, species) != OP_OK ||
        write_connectivity(ctx, run, body) != OP_OK)
        return ctx->status;
    return OP_OK;
}

int op_h5md_write_metadata(op_ctx *ctx, op_runfile *run, op_h5md_sampling sampling)
{
    h5_quiet q = quiet_begin();
    int rc = write_metadata(ctx, run, samplings[sampling].root);
    quiet_end(q);
    return rc;
}

int op_h5md_write_body(op_ctx *ctx, op_runfile *run, const op_h5md_body *body)
{
    h5_quiet q = quiet_begin();
    int rc = write_body(ctx, run, body);
    quiet_end(q);
    return rc;
}

int op_h5md_link_step_time(op_ctx *ctx, op_runfile *run, op_h5md_sampling sampling, const char *element)
{
    static const char *const shared[2] = { "step", "time" };
    h5_quiet q = quiet_begin();
    for (int k = 0; k < 2 && ctx->status == OP_OK; ++k) {
        char target[OP_SERIES_PATH_SIZE], link[OP_SERIES_PATH_SIZE];
        snprintf(target, sizeof target, "%s/position/%s", samplings[sampling].series, shared[k]);
        snprintf(link, sizeof link, "%s/%s/%s", samplings[sampling].series, element, shared[k]);
        hard_link(ctx, run, target, link);
    }
    quiet_end(q);
    return ctx->status;
}

